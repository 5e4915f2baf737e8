/* objrel.c: the object-relative access stream, see objrel.h. */
#include "objects/objrel.h"

#include <stdlib.h>

struct objrel {
    struct objrel_head h;       /* first: the inline functions read it */
};

objrel *objrel_new(const objmap_options *mo, size_t user_size)
{
    objrel *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    /* Records stay 8-byte aligned: the caller's part follows the cache. */
    size_t size = sizeof(objrel_insn) + (user_size + 7) / 8 * 8;
    r->h.map = objmap_new(mo);
    r->h.stream = access_stream_new(size);
    if (!r->h.map || !r->h.stream) {
        objrel_free(r);
        return NULL;
    }
    return r;
}

void objrel_free(objrel *r)
{
    if (!r)
        return;
    objmap_free(r->h.map);
    access_stream_free(r->h.stream);
    free(r);
}

objmap *objrel_map(objrel *r) { return r->h.map; }
access_stream *objrel_stream(objrel *r) { return r->h.stream; }
void objrel_finish(objrel *r) { objmap_finish(r->h.map); }
