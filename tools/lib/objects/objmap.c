/* objmap.c: live objects by address, groups by allocation site. See
 * objmap.h for the rules. */
#include "objects/objmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "base/array.h"

#define PAGE_SHIFT 12
#define BIG_BYTES (256u << 10)      /* larger objects go to the big array */
#define STACK_BELOW 4096u           /* window reaches this far below the lowest push */
#define STACK_ABOVE (128u << 10)    /* and this far above the highest */
#define STACK_JUMP (64ull << 20)    /* farther pushes do not stretch a window */
#define POOL_SLOTS 32768            /* object records per pool block (4 MiB at 128 bytes) */
#define HUGE_PAGE (2u << 20)
#define PREDICT_DEPTH 8             /* misses between a hint's source and target */
#define OVERLAP_SCAN 8              /* neighbours examined before assuming an overlap */

/* Objects sorted by start address. The starts are kept apart from the
 * records so that a search reads one small array instead of touching a
 * record (a cache miss) at every step. */
typedef struct ov_entry {
    uint64_t start;
    obj_object *obj;
} ov_entry;

typedef struct objvec {
    ov_entry *e;            /* start and record side by side: one cache miss */
    uint32_t n, cap;
} objvec;

/* The live objects overlapping one 4 KiB page. */
typedef struct page {
    uint64_t key;           /* page number + 1; 0 marks an empty hash slot */
    objvec v;
} page;

/* A thread's stack window, kept as a pseudo-object so caches work. */
typedef struct stack_win {
    uint32_t tid;
    uint64_t lowest, highest;   /* return-address pushes seen */
    obj_object obj;             /* [lowest - below, highest + above) */
} stack_win;

/* Heap groups are found by their defining frames. */
typedef struct site_slot {
    uint64_t hash;
    obj_group *g;           /* NULL: empty */
} site_slot;

/* The map: live objects by address, groups by site, stack windows. */
struct objmap {
    objmap_options o;
    size_t slot_bytes;      /* sizeof(obj_object) + user bytes, aligned */

    page *pages;            /* open addressing, linear probing */
    size_t npages, cappages;

    objvec big;             /* objects over BIG_BYTES */

    char **pool_blocks;     /* object records, never moved */
    size_t nblocks, capblocks;
    size_t block_used;      /* records handed out from the last block */
    obj_object *free_list;

    obj_group **groups;
    uint32_t ngroups, capgroups;
    obj_module *modules;    /* by module id (name NULL if unseen): static
                             * groups are named module:symbol, code with no
                             * symbol module+0xOFFSET */
    size_t capmodules;
    site_slot *sites;       /* hash of heap groups by frames */
    size_t nsites, capsites;
    obj_group **by_stack;   /* stack id -> its group (cache) */
    size_t capby_stack;

    stack_win **wins;       /* one per thread that has called */
    uint32_t nwins, capwins;
    obj_group *stack_group, *unknown_group;
    obj_object unknown;     /* the pseudo-object of unknown accesses */

    obj_cache last;         /* the object of the last lookup, any instruction:
                             * consecutive accesses to one object by different
                             * instructions (p->key, then p->next) hit it */

    /* Successor prediction for pointer chasing (see objmap_find_slow):
     * the heap objects found by the last PREDICT_DEPTH slow lookups, a
     * ring; recent[recent_pos] is the oldest. */
    obj_object *recent[PREDICT_DEPTH];
    uint32_t recent_pos;
    int heap_overlap;       /* some live heap object may overlap another live
                             * object: predictions are off for good */
    int nested;             /* a heap object was allocated inside a live one
                             * (a custom pool's chunk): lookups look past
                             * heap objects, frees end what is nested */
    objmap_stats stats;
};

/* ---- growing arrays ------------------------------------------------------ */

/* Makes room for n + 1 elements of size sz in *v (capacity *cap). */
/* Room for element n of an array (base/array.h). */
static int grow(void *vp, size_t sz, size_t n, size_t *cap)
{
    return n < *cap ? 0 : array_grow(vp, cap, n + 1, sz, 8);
}

/* ---- groups ------------------------------------------------------------- */

static obj_group *new_group(objmap *m, obj_kind kind)
{
    size_t cap = m->capgroups;
    if (grow(&m->groups, sizeof *m->groups, m->ngroups, &cap) < 0)
        return NULL;
    m->capgroups = (uint32_t)cap;
    obj_group *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->id = m->ngroups;
    g->kind = kind;
    g->map = m;
    m->groups[m->ngroups++] = g;
    return g;
}

static obj_group *named_group(objmap *m, obj_kind kind, const char *name)
{
    obj_group *g = new_group(m, kind);
    if (g && !(g->name = strdup(name ? name : "?")))
        return NULL;
    return g;
}

static uint64_t hash_frames(const uint64_t *ips, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h ^= ips[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
    }
    return h | 1;   /* never 0 */
}

static int sites_grow(objmap *m)
{
    if (2 * (m->nsites + 1) <= m->capsites)
        return 0;
    size_t cap = m->capsites ? 2 * m->capsites : 64;
    site_slot *n = calloc(cap, sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < m->capsites; i++) {
        if (!m->sites[i].g)
            continue;
        size_t j = m->sites[i].hash & (cap - 1);
        while (n[j].g)
            j = (j + 1) & (cap - 1);
        n[j] = m->sites[i];
    }
    free(m->sites);
    m->sites = n;
    m->capsites = cap;
    return 0;
}

/* Is this function part of the allocator (see objmap.h)? */
static int allocator_function(const char *fn, const char *file)
{
    static const char *const names[] = {
        "malloc", "calloc", "realloc", "free", "memalign", "posix_memalign",
        "aligned_alloc", "valloc", "pvalloc", "reallocarray", "cfree",
        "mmap", "mmap64", "mremap", NULL
    };
    if (file) {
        const char *base = strrchr(file, '/');
        if (strcmp(base ? base + 1 : file, "vg_replace_malloc.c") == 0)
            return 1;
    }
    if (!fn)
        return 0;
    if (strncmp(fn, "_Znw", 4) == 0 || strncmp(fn, "_Zna", 4) == 0 ||
        strncmp(fn, "operator new", 12) == 0)
        return 1;
    /* __GI___libc_malloc, __libc_malloc, malloc@@GLIBC_2.2.5 */
    if (strncmp(fn, "__GI_", 5) == 0)
        fn += 5;
    while (*fn == '_')
        fn++;
    if (strncmp(fn, "libc_", 5) == 0)
        fn += 5;
    size_t len = strcspn(fn, "@");
    for (size_t i = 0; names[i]; i++)
        if (strlen(names[i]) == len && strncmp(fn, names[i], len) == 0)
            return 1;
    return 0;
}

/* Leading frames of s that are the allocator's own. */
static uint32_t allocator_frames(const objmap *m, const mr_stack *s)
{
    uint32_t k = 0;
    if (!m->o.reader)
        return 0;
    for (; k < s->depth; k++) {
        /* Outer frames are return addresses: look inside the call. */
        uint64_t ip = s->ips[k] - (k > 0 && s->ips[k] > 0);
        const mr_symbol *sym = mr_reader_symbol(m->o.reader, ip);
        if (!sym || !allocator_function(sym->function, sym->file))
            break;
    }
    return k;
}

/* The heap group of an allocation stack (NULL stack: a group of no frames). */
static obj_group *site_group(objmap *m, const mr_stack *s)
{
    uint32_t skip = s ? allocator_frames(m, s) : 0;
    uint32_t depth = s ? s->depth - skip : 0;
    if (depth > m->o.group_depth)
        depth = m->o.group_depth;
    const uint64_t *ips = s ? s->ips + skip : NULL;
    uint64_t h = hash_frames(ips, depth);
    if (sites_grow(m) < 0)
        return NULL;
    size_t j = h & (m->capsites - 1);
    for (; m->sites[j].g; j = (j + 1) & (m->capsites - 1)) {
        obj_group *g = m->sites[j].g;
        if (m->sites[j].hash == h && g->depth == depth &&
            memcmp(g->ips, ips, depth * sizeof *ips) == 0)
            return g;
    }
    obj_group *g = new_group(m, OBJ_HEAP);
    if (!g)
        return NULL;
    g->depth = depth;
    if (depth)
        memcpy(g->ips, ips, depth * sizeof *ips);
    m->sites[j] = (site_slot){ h, g };
    m->nsites++;
    return g;
}

/* Stacks are interned: remember each stack id's group. */
static obj_group *stack_id_group(objmap *m, uint32_t id, const mr_stack *s)
{
    if (id && id < m->capby_stack && m->by_stack[id])
        return m->by_stack[id];
    obj_group *g = site_group(m, s);
    if (!g || !id)
        return g;
    if (ARRAY_FIT(m->by_stack, m->capby_stack, (size_t)id + 1) < 0)
        return NULL;
    m->by_stack[id] = g;
    return g;
}

/* ---- object records ----------------------------------------------------- */

/* Records are reached at random (pointer chasing visits objects in link
 * order): huge pages spare a TLB miss per lookup where the kernel offers
 * them (transparent huge pages in "madvise" mode). */
static char *pool_block(size_t bytes)
{
    bytes = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    char *b = aligned_alloc(HUGE_PAGE, bytes);
    if (b)
        madvise(b, bytes, MADV_HUGEPAGE);
    return b;
}

static obj_object *new_object(objmap *m)
{
    obj_object *o = m->free_list;
    if (o) {
        m->free_list = o->next_free;
    } else {
        if (!m->nblocks || m->block_used == POOL_SLOTS) {
            if (grow(&m->pool_blocks, sizeof *m->pool_blocks, m->nblocks,
                     &m->capblocks) < 0)
                return NULL;
            char *b = pool_block(POOL_SLOTS * m->slot_bytes);
            if (!b)
                return NULL;
            m->pool_blocks[m->nblocks++] = b;
            m->block_used = 0;
        }
        o = (obj_object *)(m->pool_blocks[m->nblocks - 1] +
                           m->block_used++ * m->slot_bytes);
        o->gen = 0;
    }
    uint32_t gen = o->gen;
    memset(o, 0, m->slot_bytes);
    o->gen = gen + 1;
    return o;
}

static void recycle(objmap *m, obj_object *o)
{
    o->gen++;               /* caches pointing here miss from now on */
    o->live = 0;
    o->next_free = m->free_list;
    m->free_list = o;
}

/* ---- pages -------------------------------------------------------------- */

static size_t page_hash(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static int pages_grow(objmap *m)
{
    if (2 * (m->npages + 1) <= m->cappages)
        return 0;
    size_t cap = m->cappages ? 2 * m->cappages : 1024;
    page *n = calloc(cap, sizeof *n);
    if (!n)
        return -1;
    for (size_t i = 0; i < m->cappages; i++) {
        if (!m->pages[i].key)
            continue;
        size_t j = page_hash(m->pages[i].key, cap);
        while (n[j].key)
            j = (j + 1) & (cap - 1);
        n[j] = m->pages[i];
    }
    free(m->pages);
    m->pages = n;
    m->cappages = cap;
    return 0;
}

/* The page entry of page number pn, or NULL if none was ever made. */
static page *page_find(objmap *m, uint64_t pn)
{
    if (!m->cappages)
        return NULL;
    uint64_t key = pn + 1;
    size_t j = page_hash(key, m->cappages);
    for (; m->pages[j].key; j = (j + 1) & (m->cappages - 1))
        if (m->pages[j].key == key)
            return &m->pages[j];
    return NULL;
}

/* Entries are never removed: a page emptied by frees keeps its (empty)
 * slot, which the next object on it reuses. */
static page *page_get(objmap *m, uint64_t pn)
{
    page *p = page_find(m, pn);
    if (p)
        return p;
    if (pages_grow(m) < 0)
        return NULL;
    uint64_t key = pn + 1;
    size_t j = page_hash(key, m->cappages);
    while (m->pages[j].key)
        j = (j + 1) & (m->cappages - 1);
    m->pages[j].key = key;
    m->npages++;
    return &m->pages[j];
}

/* Index of the first object of v whose start is > addr. Branchless (the
 * compiler makes the ternary a conditional move): lookups land at random
 * places of a page, and a mispredicted branch per step cost more than the
 * whole search. */
static uint32_t ov_upper(const objvec *v, uint64_t addr)
{
    const ov_entry *base = v->e;
    uint32_t n = v->n;
    if (!n)
        return 0;
    while (n > 1) {
        uint32_t half = n / 2;
        base = base[half].start <= addr ? base + half : base;
        n -= half;
    }
    return (uint32_t)(base - v->e) + (base->start <= addr);
}

static int ov_insert(objvec *v, obj_object *o)
{
    if (v->n == v->cap) {
        uint32_t c = v->cap ? 2 * v->cap : 2;
        ov_entry *ne = realloc(v->e, c * sizeof *ne);
        if (!ne)
            return -1;
        v->e = ne;
        v->cap = c;
    }
    uint32_t i = ov_upper(v, o->addr);
    memmove(v->e + i + 1, v->e + i, (v->n - i) * sizeof *v->e);
    v->e[i] = (ov_entry){ o->addr, o };
    v->n++;
    return 0;
}

static void ov_remove(objvec *v, const obj_object *o)
{
    /* o sits among the entries starting at o->addr: just below the upper
     * bound of its address. */
    for (uint32_t i = ov_upper(v, o->addr); i-- > 0 && v->e[i].start == o->addr;)
        if (v->e[i].obj == o) {
            memmove(v->e + i, v->e + i + 1, (v->n - i - 1) * sizeof *v->e);
            v->n--;
            return;
        }
}

static void ov_free(objvec *v)
{
    free(v->e);
}

/* Pages an object is listed in: those it overlaps; a zero-size object is
 * listed in the page of its address so free() finds it. */
static void page_span(const obj_object *o, uint64_t *first, uint64_t *last)
{
    *first = o->addr >> PAGE_SHIFT;
    *last = o->size ? (o->addr + o->size - 1) >> PAGE_SHIFT : *first;
}

static int is_big(const obj_object *o) { return o->size > BIG_BYTES; }

static int overlaps_heap(objmap *m, const obj_object *o);

static int map_insert(objmap *m, obj_object *o)
{
    o->live = 1;
    if (is_big(o)) {
        if (ov_insert(&m->big, o) < 0)
            return -1;
    } else {
        uint64_t first, last;
        page_span(o, &first, &last);
        for (uint64_t pn = first; pn <= last; pn++) {
            page *p = page_get(m, pn);
            if (!p || ov_insert(&p->v, o) < 0)
                return -1;
        }
    }
    if (!m->heap_overlap && overlaps_heap(m, o))
        m->heap_overlap = 1;
    return 0;
}

static void map_remove(objmap *m, obj_object *o)
{
    o->live = 0;
    if (is_big(o)) {
        ov_remove(&m->big, o);
        return;
    }
    uint64_t first, last;
    page_span(o, &first, &last);
    for (uint64_t pn = first; pn <= last; pn++) {
        page *p = page_find(m, pn);
        if (p)
            ov_remove(&p->v, o);
    }
}

/* The object among v[0..n) holding addr. Objects do not overlap except
 * static ones nested in others (a symbol inside a larger one), so the
 * nearest start at or below addr is nearly always it; look a few further
 * down only when it is not (bounded: misses into gaps stay cheap). */
/* ov_upper for a page's objects: they usually tile the page evenly
 * (allocators carve pages into equal blocks), so the index is guessed from
 * where addr falls in the page and corrected by a step or two, one cache
 * line instead of a binary search's chain of dependent loads. */
static uint32_t page_upper(const objvec *v, uint64_t addr)
{
    uint32_t n = v->n;
    uint32_t i = (uint32_t)(((addr & ((1u << PAGE_SHIFT) - 1)) * n) >> PAGE_SHIFT);
    for (int step = 0; step < 3; step++) {
        if (i < n && v->e[i].start <= addr)
            i++;
        else if (i > 0 && v->e[i - 1].start > addr)
            i--;
        else
            return i;   /* start[i-1] <= addr < start[i] */
    }
    return ov_upper(v, addr);
}

/* nested: heap objects may hold others (objmap.nested); else a heap
 * object that does not cover addr ends the search. */
static obj_object *ov_find_from(const objvec *v, uint64_t addr, uint32_t i,
                                int nested)
{
    for (int tries = 0; i > 0 && tries < 8; tries++) {
        obj_object *o = v->e[--i].obj;
        if (addr - o->addr < o->size)
            return o;
        if (o->group->kind == OBJ_HEAP && !nested)
            return NULL;    /* heap blocks overlap nothing: no older one covers addr */
    }
    return NULL;
}

static obj_object *ov_find(const objvec *v, uint64_t addr, int nested)
{
    return ov_find_from(v, addr, ov_upper(v, addr), nested);
}

/* The live heap or static object holding addr, if any; of objects nested
 * at one address, the innermost (listed last among equal starts). */
static obj_object *map_find(objmap *m, uint64_t addr)
{
    page *p = page_find(m, addr >> PAGE_SHIFT);
    if (p && p->v.n) {
        obj_object *o = ov_find_from(&p->v, addr, page_upper(&p->v, addr),
                                     m->nested);
        if (o)
            return o;
    }
    if (m->big.n)
        return ov_find(&m->big, addr, m->nested);
    return NULL;
}

/* The live heap object starting exactly at addr (for free and realloc);
 * of objects nested at addr, the innermost: the last listed (ov_insert
 * puts an object after those with its start), of the page's or else the
 * big ones (a chunk nested in a big block is in the page lists). */
static obj_object *heap_at(objmap *m, uint64_t addr)
{
    page *p = page_find(m, addr >> PAGE_SHIFT);
    const objvec *vs[2] = { p ? &p->v : NULL, &m->big };
    for (int k = 0; k < 2; k++) {
        const objvec *v = vs[k];
        if (!v)
            continue;
        for (uint32_t i = ov_upper(v, addr); i-- > 0 && v->e[i].start == addr;)
            if (v->e[i].obj->group->kind == OBJ_HEAP)
                return v->e[i].obj;
    }
    return NULL;
}

/* ---- overlaps ----------------------------------------------------------- */

/* Successor prediction (objmap_find_slow) answers with a live heap object
 * covering the address without asking the page lists; that is map_find's
 * answer as long as no live object overlaps a live heap object. These
 * functions watch for such overlaps as objects enter the map (a free the
 * trace missed, an allocation inside a static object); they may see one
 * where there is none, never the reverse. */

static int is_heap(const obj_object *o) { return o->group->kind == OBJ_HEAP; }

/* a and b overlap: one covers the other's start, or both start at one
 * address (a zero-size object there would stop map_find's search). */
static int pair_overlaps(const obj_object *a, const obj_object *b)
{
    return a->addr == b->addr || b->addr - a->addr < a->size ||
           a->addr - b->addr < b->size;
}

/* Does an object of v (other than o, which may be listed) overlap o, one
 * of the two being heap? Overlaps are caught when the later object of a
 * pair comes, so the objects already here overlap only as allowed (static
 * in static), and few candidates need a look:
 *   - the entries starting inside o (just above its upper bound);
 *   - the entries covering o's start (just below). Going down, an entry r
 *     that is heap and does not cover it ends the search, and so does any
 *     entry when o is static: an older object covering o's start covers
 *     r's too, and that overlap, involving r or a heap object that matters
 *     here, was caught when it formed. Only a heap o looks past statics.
 * Unsure after OVERLAP_SCAN entries: yes. */
static int overlap_in(const objvec *v, const obj_object *o)
{
    int heap = is_heap(o);
    uint32_t up = ov_upper(v, o->addr);
    for (uint32_t j = up, k = 0; j < v->n && v->e[j].start - o->addr < o->size; j++)
        if (heap || is_heap(v->e[j].obj) || ++k > OVERLAP_SCAN)
            return 1;
    for (uint32_t j = up, k = 0; j-- > 0;) {
        const obj_object *r = v->e[j].obj;
        if (r == o)
            continue;
        if (pair_overlaps(r, o) && (heap || is_heap(r)))
            return 1;
        if (!heap || is_heap(r))
            break;
        if (++k > OVERLAP_SCAN)
            return 1;
    }
    return 0;
}

/* A big object against the small ones listed in the pages it spans
 * (through the hash table itself when that is shorter than the span). */
static int overlap_pages(objmap *m, const obj_object *o)
{
    uint64_t first, last;
    page_span(o, &first, &last);
    if (last - first >= m->cappages) {
        for (size_t j = 0; j < m->cappages; j++) {
            const page *p = &m->pages[j];
            if (p->key && p->key - 1 >= first && p->key - 1 <= last &&
                p->v.n && overlap_in(&p->v, o))
                return 1;
        }
        return 0;
    }
    for (uint64_t pn = first; pn <= last; pn++) {
        const page *p = page_find(m, pn);
        if (p && p->v.n && overlap_in(&p->v, o))
            return 1;
    }
    return 0;
}

/* Does o, just inserted, overlap another live object, one of the two
 * being heap? */
static int overlaps_heap(objmap *m, const obj_object *o)
{
    if (is_big(o))
        return overlap_in(&m->big, o) || overlap_pages(m, o);
    uint64_t first, last;
    page_span(o, &first, &last);
    for (uint64_t pn = first; pn <= last; pn++) {
        const page *p = page_find(m, pn);
        if (p && overlap_in(&p->v, o))
            return 1;
    }
    return m->big.n && overlap_in(&m->big, o);
}

/* ---- lifetimes ---------------------------------------------------------- */

static void end_object(objmap *m, obj_object *o, uint64_t time, int freed)
{
    map_remove(m, o);
    o->free_time = 0;       /* the slot held next_hint while o was live */
    if (freed) {
        o->freed = 1;
        o->free_time = time;
    }
    m->stats.live--;
    if (m->o.on_end)
        m->o.on_end(m->o.ctx, o);
    recycle(m, o);
}

static obj_object *add_object(objmap *m, obj_group *g, uint64_t addr,
                              uint64_t size, uint64_t time, uint32_t tid)
{
    obj_object *o = new_object(m);
    if (!o)
        return NULL;
    o->addr = addr;
    o->size = size;
    o->group = g;
    o->serial = g->nobjects++;
    o->alloc_time = time;
    o->tid = tid;
    if (size > g->max_size)
        g->max_size = size;
    if (map_insert(m, o) < 0)
        return NULL;
    if (++m->stats.live > m->stats.peak_live)
        m->stats.peak_live = m->stats.live;
    return o;
}

/* A block (not a mapping) allocated at the start of a live heap object
 * and within it is nested in it: a custom pool's first chunk, carved from
 * the pool's own block (recorder/README.md, "Custom allocators"). The
 * other case, a block over a live one that it outgrows, or a mapping over
 * a live one, means the old one's free was not recorded. */
static int nests_in(const obj_object *old, uint64_t size, int mapping)
{
    return !mapping && size <= old->size;
}

static int on_alloc(objmap *m, const mr_event *ev, uint64_t addr,
                    uint64_t size, int mapping)
{
    if (!addr)
        return 0;           /* the allocation failed */
    obj_object *old = heap_at(m, addr);
    if (old && nests_in(old, size, mapping))
        m->nested = 1;
    else if (old) {         /* its free was not recorded */
        m->stats.lost_frees++;
        end_object(m, old, ev->time, 1);
    }
    obj_group *g = stack_id_group(m, ev->u.heap.h.stack, ev->u.heap.stack);
    obj_object *o = g ? add_object(m, g, addr, size, ev->time, ev->tid) : NULL;
    if (!o)
        return -1;
    o->mapping = (uint8_t)mapping;
    m->stats.heap_objects++;
    return 0;
}

/* A live heap object nested in o and listed in v, or NULL: inside o's
 * range and, when it starts where o does, listed after o (allocated
 * later: ov_insert puts it after those with its start), so that the
 * block o is nested in is never taken for one nested in o. */
static obj_object *nested_in(const objvec *v, const obj_object *o)
{
    uint64_t e = o->addr + o->size;
    int after_o = 0;    /* o's own entry passed (in the page lists only) */
    for (uint32_t i = ov_upper(v, o->addr - 1); i < v->n && v->e[i].start < e; i++) {
        obj_object *in = v->e[i].obj;
        if (in == o) {
            after_o = 1;
            continue;
        }
        if (!is_heap(in) || in->addr + in->size > e || in->addr + in->size < in->addr)
            continue;
        if (in->addr > o->addr || after_o || in->size < o->size)
            return in;
    }
    return NULL;
}

/* o is freed: so is every heap object still live inside it (a pool's
 * chunks go with the pool's block). Only once objects were nested. */
static void end_nested(objmap *m, const obj_object *o, uint64_t time)
{
    uint64_t first, last;
    obj_object *in;
    page_span(o, &first, &last);
    for (uint64_t pn = first; pn <= last; pn++) {
        page *p = page_find(m, pn);
        while (p && (in = nested_in(&p->v, o)))
            end_object(m, in, time, 1);
    }
    while ((in = nested_in(&m->big, o)))
        end_object(m, in, time, 1);
}

static void on_free(objmap *m, const mr_event *ev, uint64_t addr)
{
    if (!addr)
        return;
    obj_object *o = heap_at(m, addr);
    if (!o) {
        m->stats.stray_frees++;
        return;
    }
    if (m->nested && o->size)
        end_nested(m, o, ev->time);
    end_object(m, o, ev->time, 1);
}

static int on_realloc(objmap *m, const mr_event *ev)
{
    const mr_heap *h = &ev->u.heap.h;
    if (!h->old_addr)
        return on_alloc(m, ev, h->addr, h->size, 0);
    if (!h->addr) {
        if (h->size == 0)   /* realloc(p, 0) freed p */
            on_free(m, ev, h->old_addr);
        return 0;           /* else it failed and p is untouched */
    }
    obj_object *o = heap_at(m, h->old_addr);
    if (!o)
        return on_alloc(m, ev, h->addr, h->size, 0);
    map_remove(m, o);
    if (h->addr != h->old_addr) {
        obj_object *clash = heap_at(m, h->addr);
        if (clash) {
            m->stats.lost_frees++;
            end_object(m, clash, ev->time, 1);
        }
    }
    o->addr = h->addr;
    o->size = h->size;
    o->reallocs++;
    if (h->size > o->group->max_size)
        o->group->max_size = h->size;
    return map_insert(m, o);
}

/* A live mapping object of v starting in [a, e), or NULL. */
static obj_object *mapping_in(const objvec *v, uint64_t a, uint64_t e)
{
    for (uint32_t i = ov_upper(v, a - 1); i < v->n && v->e[i].start < e; i++)
        if (v->e[i].start >= a && v->e[i].obj->mapping)
            return v->e[i].obj;
    return NULL;
}

/* Ends every mapping object of v starting in [a, e). */
static void end_mappings_in(objmap *m, objvec *v, uint64_t a, uint64_t e,
                            uint64_t time)
{
    obj_object *o;
    while ((o = mapping_in(v, a, e)))
        end_object(m, o, time, 1);
}

/* Ends every mapping object starting in [a, e): the big objects', then
 * those listed in the pages of the range (through the hash table itself
 * when it is shorter than the range). */
static void end_mappings(objmap *m, uint64_t a, uint64_t e, uint64_t time)
{
    end_mappings_in(m, &m->big, a, e, time);
    uint64_t first = a >> PAGE_SHIFT, last = (e - 1) >> PAGE_SHIFT;
    if (last - first >= m->cappages) {
        for (size_t j = 0; j < m->cappages; j++)
            if (m->pages[j].key && m->pages[j].key - 1 >= first &&
                m->pages[j].key - 1 <= last)
                end_mappings_in(m, &m->pages[j].v, a, e, time);
        return;
    }
    for (uint64_t pn = first; pn <= last; pn++) {
        page *p = page_find(m, pn);
        if (p)
            end_mappings_in(m, &p->v, a, e, time);
    }
}

/* The live mapping object starting below a and reaching past it, or NULL.
 * Mappings overlap no other mapping, so it is the nearest mapping below a
 * among the few objects starting just below. */
static obj_object *mapping_across(objmap *m, uint64_t a)
{
    page *p = page_find(m, a >> PAGE_SHIFT);
    const objvec *vs[2] = { &m->big, p ? &p->v : NULL };
    for (int k = 0; k < 2; k++) {
        if (!vs[k])
            continue;
        for (uint32_t i = ov_upper(vs[k], a - 1), n = 0; i-- > 0 && n < 8; n++) {
            obj_object *o = vs[k]->e[i].obj;
            if (o->mapping && o->addr < a && a - o->addr < o->size)
                return o;
        }
    }
    return NULL;
}

/* munmap [a, a + size): mappings starting inside end (even when they
 * reach past the range: the rest is unknown from then on); one reaching
 * into it from below keeps its head. */
static int on_munmap(objmap *m, const mr_event *ev)
{
    uint64_t a = ev->u.heap.h.addr, size = ev->u.heap.h.size;
    uint64_t e = a + size < a ? UINT64_MAX : a + size;
    if (!size || !a)
        return 0;
    end_mappings(m, a, e, ev->time);
    obj_object *o = mapping_across(m, a);
    if (!o)
        return 0;
    map_remove(m, o);
    o->size = a - o->addr;
    return map_insert(m, o);
}

static int on_heap(objmap *m, const mr_event *ev)
{
    const mr_heap *h = &ev->u.heap.h;
    switch (h->op) {
    case MR_MALLOC: case MR_MEMALIGN: case MR_NEW: case MR_NEW_ARRAY:
        return on_alloc(m, ev, h->addr, h->size, 0);
    case MR_CALLOC:
        return on_alloc(m, ev, h->addr, h->size * h->count, 0);
    case MR_REALLOC:
        return on_realloc(m, ev);
    case MR_FREE: case MR_DELETE: case MR_DELETE_ARRAY:
        on_free(m, ev, h->addr);
        return 0;
    case MR_MMAP:
        return on_alloc(m, ev, h->addr, h->size, 1);
    case MR_MUNMAP:
        return on_munmap(m, ev);
    default:
        return 0;
    }
}

/* Remembers a module: its file's name (the part after the last '/') and
 * where its code is. */
static int on_module(objmap *m, const mr_module *mod)
{
    if (ARRAY_FIT(m->modules, m->capmodules, (size_t)mod->id + 1) < 0)
        return -1;
    const char *path = mod->path ? mod->path : "?";
    const char *slash = strrchr(path, '/');
    obj_module *om = &m->modules[mod->id];
    free(om->name);
    *om = (obj_module){ strdup(slash ? slash + 1 : path), mod->text_addr,
                        mod->text_size, mod->bias };
    return om->name ? 0 : -1;
}

const char *objmap_module_at(const objmap *m, uint64_t addr, uint64_t *offset)
{
    for (size_t i = 0; i < m->capmodules; i++) {
        const obj_module *om = &m->modules[i];
        if (om->name && addr >= om->text_addr && addr - om->text_addr < om->text_size) {
            *offset = addr - (uint64_t)om->bias;    /* the address in the file */
            return om->name;
        }
    }
    return NULL;
}

/* "module:symbol": a data symbol named like a kind (`stack`) or like one
 * of another module never takes their name. The recorder's own names of
 * unnamed stretches (`file:section`) already start with the module. */
static char *static_name(const objmap *m, const mr_dataobj *d)
{
    const char *sym = d->name ? d->name : "?";
    const char *mod = d->module < m->capmodules ? m->modules[d->module].name : NULL;
    size_t k = mod ? strlen(mod) : 0;
    if (!mod || (strncmp(sym, mod, k) == 0 && sym[k] == ':'))
        return strdup(sym);
    char *name = malloc(k + strlen(sym) + 2);
    if (name)
        sprintf(name, "%s:%s", mod, sym);
    return name;
}

static int on_dataobj(objmap *m, const mr_dataobj *d)
{
    obj_object *same = map_find(m, d->addr);
    if (same && same->addr == d->addr && same->size == d->size)
        return 0;           /* an alias (two symbols, one object) */
    char *name = static_name(m, d);
    obj_group *g = name ? named_group(m, OBJ_STATIC, name) : NULL;
    if (g)
        g->symbol = (uint32_t)(strlen(name) - strlen(d->name ? d->name : "?"));
    free(name);
    if (!g)
        return -1;
    g->addr = d->addr;
    if (!add_object(m, g, d->addr, d->size, 0, 0))
        return -1;
    m->stats.static_objects++;
    return 0;
}

/* ---- the stack rule ----------------------------------------------------- */

static stack_win *window_of(objmap *m, uint32_t tid)
{
    for (uint32_t i = 0; i < m->nwins; i++)
        if (m->wins[i]->tid == tid)
            return m->wins[i];
    return NULL;
}

static void window_set(stack_win *w)
{
    uint64_t lo = w->lowest > STACK_BELOW ? w->lowest - STACK_BELOW : 0;
    uint64_t hi = w->highest + STACK_ABOVE;
    if (hi < w->highest)
        hi = UINT64_MAX;
    w->obj.addr = lo;
    w->obj.size = hi - lo;
}

/* A call's return-address push marks the stack pointer of its thread. */
static int note_push(objmap *m, uint32_t tid, uint64_t sp)
{
    stack_win *w = window_of(m, tid);
    if (w && sp >= w->lowest && sp <= w->highest)
        return 0;
    /* A stack inside a heap block (a coroutine's, or a thread's given by
     * the program) is that block; and a window never stretches over a
     * jump of more than STACK_JUMP (a signal stack elsewhere), or it
     * would swallow whatever lies between. */
    if (map_find(m, sp))
        return 0;
    if (w && (sp + STACK_JUMP < w->lowest || sp > w->highest + STACK_JUMP))
        return 0;
    if (w) {
        if (sp < w->lowest)
            w->lowest = sp;
        if (sp > w->highest)
            w->highest = sp;
        window_set(w);
        return 0;
    }
    if (!m->stack_group && !(m->stack_group = named_group(m, OBJ_STACK, "stack")))
        return -1;
    size_t cap = m->capwins;
    if (grow(&m->wins, sizeof *m->wins, m->nwins, &cap) < 0)
        return -1;
    m->capwins = (uint32_t)cap;
    /* Each window is its own allocation: caches point into it. */
    if (!(w = calloc(1, sizeof *w)))
        return -1;
    m->wins[m->nwins] = w;
    w->tid = tid;
    w->lowest = w->highest = sp;
    w->obj.group = m->stack_group;
    w->obj.serial = m->stack_group->nobjects++;
    w->obj.tid = tid;
    w->obj.gen = 1;
    w->obj.live = 1;
    window_set(w);
    m->nwins++;
    return 0;
}

/* An execution left through a call (objmap_exec has checked): its push
 * moves the stack window. */
int objmap_exec_call(objmap *m, const mr_event *ev)
{
    const mr_exit_def *x = &ev->u.exec.def->exits[ev->u.exec.exit];
    uint16_t call = (uint16_t)(x->ninstrs - 1);
    for (uint32_t i = ev->u.exec.naccesses; i-- > 0;) {
        const mr_access *a = &ev->u.exec.accesses[i];
        if (a->instr != call)
            break;
        if (a->kind == MR_STORE && (a->size == 8 || a->size == 4))
            return note_push(m, ev->tid, a->addr);
    }
    return 0;
}

/* ---- successor prediction ------------------------------------------------ */

/* A pointer chase misses every cache above on every new node, and the page
 * lists then cost two dependent cache misses (entry, record). But a walk
 * that repeats visits the nodes in the order it did last time, so each
 * live heap object remembers (next_hint) the heap object that a slow
 * lookup found PREDICT_DEPTH slow lookups after it. The object expected
 * now is the one remembered by the object of PREDICT_DEPTH slow lookups
 * ago, and its record was prefetched back then: when it covers the
 * address it is the answer (the same as map_find's while heap_overlap is
 * clear), without touching the page lists. */
static obj_object *predicted(const objmap *m, uint64_t addr)
{
    const obj_object *w = m->recent[m->recent_pos];
    if (!w || !w->live || m->heap_overlap)
        return NULL;        /* a dead record's slot is free_time, no hint */
    obj_object *p = w->next_hint;
    if (p && p->live && addr - p->addr < p->size && is_heap(p))
        return p;
    return NULL;
}

/* Heap object o was found by a slow lookup: it is the successor of the
 * one found PREDICT_DEPTH lookups ago, and its own successor, if known,
 * is fetched into the cache now, ahead of its turn. */
static void remember(objmap *m, obj_object *o)
{
    obj_object *w = m->recent[m->recent_pos];
    if (w && w->live)
        w->next_hint = o;
    m->recent[m->recent_pos] = o;
    m->recent_pos = (m->recent_pos + 1) % PREDICT_DEPTH;
    const char *next = (const char *)o->next_hint;
    if (next) {             /* both ends: the record and the caller's bytes */
        __builtin_prefetch(next);
        __builtin_prefetch(next + m->slot_bytes - 1);
    }
}

obj_object *objmap_find_slow(objmap *m, obj_cache *c, uint32_t tid,
                             uint64_t addr)
{
    (void)tid;
    obj_object *o = m->last.obj;
    if (o && o->gen == m->last.gen && addr - o->addr < o->size) {
        *c = m->last;
        return o;
    }
    m->stats.lookups_slow++;
    o = predicted(m, addr);
    if (!o)
        o = map_find(m, addr);
    if (o && is_heap(o))
        remember(m, o);
    if (!o)
        for (uint32_t i = 0; i < m->nwins; i++)
            if (addr - m->wins[i]->obj.addr < m->wins[i]->obj.size) {
                o = &m->wins[i]->obj;
                break;
            }
    if (!o) {
        if (!m->unknown.group)
            m->unknown.group = m->unknown_group =
                named_group(m, OBJ_UNKNOWN, "unknown");
        return &m->unknown;     /* size 0: never served from a cache */
    }
    c->obj = o;
    c->gen = o->gen;
    m->last = *c;
    return o;
}

/* ---- the whole ---------------------------------------------------------- */

int objmap_event(objmap *m, const mr_event *ev)
{
    switch (ev->kind) {
    case MR_EV_EXEC:
        return objmap_exec(m, ev);
    case MR_EV_HEAP:
        return on_heap(m, ev);
    case MR_EV_DATAOBJ:
        return on_dataobj(m, ev->u.dataobj);
    case MR_EV_MODULE:
        return on_module(m, ev->u.module);
    default:
        return 0;
    }
}

objmap *objmap_new(const objmap_options *opts)
{
    objmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    if (opts)
        m->o = *opts;
    if (m->o.group_depth == 0)
        m->o.group_depth = 1;
    if (m->o.group_depth > OBJ_MAX_DEPTH)
        m->o.group_depth = OBJ_MAX_DEPTH;
    m->slot_bytes = (sizeof(obj_object) + m->o.user_size + 15) & ~(size_t)15;
    return m;
}

void objmap_finish(objmap *m)
{
    /* Every record of every pool block that is live, in creation order of
     * the blocks: heap and static objects still in the map. */
    for (size_t b = 0; b < m->nblocks; b++) {
        size_t used = b + 1 == m->nblocks ? m->block_used : POOL_SLOTS;
        for (size_t i = 0; i < used; i++) {
            obj_object *o = (obj_object *)(m->pool_blocks[b] + i * m->slot_bytes);
            if (o->live)
                end_object(m, o, 0, 0);
        }
    }
}

void objmap_free(objmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->cappages; i++)
        ov_free(&m->pages[i].v);
    free(m->pages);
    ov_free(&m->big);
    for (size_t b = 0; b < m->nblocks; b++)
        free(m->pool_blocks[b]);
    free(m->pool_blocks);
    for (uint32_t i = 0; i < m->ngroups; i++) {
        free(m->groups[i]->name);
        free(m->groups[i]);
    }
    free(m->groups);
    for (size_t i = 0; i < m->capmodules; i++)
        free(m->modules[i].name);
    free(m->modules);
    free(m->sites);
    free(m->by_stack);
    for (uint32_t i = 0; i < m->nwins; i++)
        free(m->wins[i]);
    free(m->wins);
    free(m);
}

uint32_t objmap_ngroups(const objmap *m) { return m->ngroups; }

obj_group *objmap_group(const objmap *m, uint32_t id)
{
    return id < m->ngroups ? m->groups[id] : NULL;
}

const objmap_stats *objmap_get_stats(const objmap *m) { return &m->stats; }
