/*
 * mr_defs.c: definitions sent once each: strings, modules, code symbols
 * and block definitions (interned so that retranslating the same code
 * reuses the id instead of growing the trace).
 */
#include "mr_tool.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

/* A string already sent: key is its hash. */
typedef struct string_node {
    struct string_node *next;
    UWord key;
    const HChar *text;
    ULong id;
} string_node;

/* A block definition already sent: key is the hash of its payload. */
typedef struct block_node {
    struct block_node *next;
    UWord key;
    ULong *words;
    UInt nwords;
    UInt id;
} block_node;

/* An instruction address whose symbol was sent. */
typedef struct addr_node {
    struct addr_node *next;
    UWord key;
} addr_node;

static VgHashTable *strings, *blocks, *symbolized;
static ULong next_string_id = 1;
static UInt next_block_id = 1;

/* Modules seen so far (sent or skipped), by debug information handle and
 * text address (a handle can be reused after an unmap). */
#define MAX_MODULES 4096
static struct { const DebugInfo *di; Addr text; } modules[MAX_MODULES];
static UInt nmodules;
static UInt next_module_id = 1;

void mr_defs_init(void)
{
    strings = VG_(HT_construct)("mr.strings");
    blocks = VG_(HT_construct)("mr.blocks");
    symbolized = VG_(HT_construct)("mr.symbolized");
}

/* FNV-1a over bytes. */
static UWord hash_bytes(const void *p, SizeT n)
{
    const UChar *b = p;
    ULong h = 0xcbf29ce484222325ULL;
    for (SizeT i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return (UWord)h;
}

static Word cmp_string(const void *a, const void *b)
{
    return VG_(strcmp)(((const string_node *)a)->text, ((const string_node *)b)->text);
}

/* s as sent: itself, or when longer than WIRE_MAX_STRING bytes its start
 * followed by "...", WIRE_MAX_STRING bytes in all (wire.h says why). The
 * cut backs up to the start of a UTF-8 character, so the text stays UTF-8
 * if s was. Sets *len to the bytes of the text returned. */
static const HChar *cut_string(const HChar *s, SizeT *len)
{
    static HChar cut[WIRE_MAX_STRING + 1];
    SizeT n = VG_(strnlen)(s, WIRE_MAX_STRING + 1);
    if (n <= WIRE_MAX_STRING) {
        *len = n;
        return s;
    }
    n = wire_cut_length(s);
    VG_(memcpy)(cut, s, n);
    VG_(memcpy)(cut + n, "...", 4);
    *len = n + 3;
    return cut;
}

ULong mr_string_id(const HChar *s)
{
    if (!s || !*s)
        return 0;
    SizeT len;
    s = cut_string(s, &len);
    string_node probe = { NULL, hash_bytes(s, len), s, 0 };
    string_node *n = VG_(HT_gen_lookup)(strings, &probe, cmp_string);
    if (n)
        return n->id;
    n = VG_(malloc)("mr.string", sizeof *n);
    n->key = probe.key;
    n->text = VG_(strdup)("mr.string.text", s);
    n->id = next_string_id++;
    VG_(HT_add_node)(strings, n);

    UInt nwords = (UInt)(len / 8 + 1);
    ULong *w = VG_(calloc)("mr.string.words", nwords, sizeof(ULong));
    VG_(memcpy)(w, s, len);
    mr_emit_def(WIRE_STRING, (UInt)n->id, w, nwords);
    VG_(free)(w);
    return n->id;
}

static Bool module_known(const DebugInfo *di, Addr text)
{
    for (UInt i = 0; i < nmodules; i++)
        if (modules[i].di == di && modules[i].text == text)
            return True;
    return False;
}

/* Sends a module with its data objects: a file mapped into the client,
 * Valgrind's core preload included (libc's data holds the allocator's
 * arena, touched by every malloc and free). Debug information outside the
 * client's file mappings (the tool itself, never touched by the client)
 * is no module of the client and is not sent. */
static void send_module(const DebugInfo *di, Addr text, SizeT size, const HChar *path)
{
    const NSegment *seg = VG_(am_find_nsegment)(text);
    if (!seg || seg->kind != SkFileC)
        return;
    ULong w[5] = { text, size, (ULong)VG_(DebugInfo_get_text_bias)(di),
                   mr_string_id(path), WIRE_MODULE_DATA };
    mr_emit_def(WIRE_MODULE, next_module_id++, w, 5);
}

void mr_defs_scan_modules(void)
{
    for (const DebugInfo *di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
        Addr text = VG_(DebugInfo_get_text_avma)(di);
        SizeT size = VG_(DebugInfo_get_text_size)(di);
        const HChar *path = VG_(DebugInfo_get_filename)(di);
        if (size == 0 || !path || module_known(di, text) || nmodules == MAX_MODULES)
            continue;
        modules[nmodules].di = di;
        modules[nmodules].text = text;
        nmodules++;
        send_module(di, text, size, path);
    }
}

/* "dir/file" when the directory is known. */
static ULong file_id(const HChar *dir, const HChar *file)
{
    if (!dir || !*dir || file[0] == '/')
        return mr_string_id(file);
    HChar *full = VG_(malloc)("mr.file", VG_(strlen)(dir) + VG_(strlen)(file) + 2);
    VG_(sprintf)(full, "%s/%s", dir, file);
    ULong id = mr_string_id(full);
    VG_(free)(full);
    return id;
}

void mr_defs_symbolize(const Addr *addrs, UInt n)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    for (UInt i = 0; i < n; i++) {
        if (VG_(HT_lookup)(symbolized, addrs[i]))
            continue;
        addr_node *a = VG_(malloc)("mr.symaddr", sizeof *a);
        a->key = addrs[i];
        VG_(HT_add_node)(symbolized, a);

        const HChar *fn = NULL, *file = NULL, *dir = NULL;
        UInt line = 0;
        ULong fn_id = 0, file_word = 0;
        if (VG_(get_fnname)(ep, addrs[i], &fn))
            fn_id = mr_string_id(fn);   /* before the next lookup reuses fn */
        if (VG_(get_filename_linenum)(ep, addrs[i], &file, &dir, &line))
            file_word = file_id(dir, file) | (ULong)line << 32;
        if (fn_id == 0 && file_word == 0)
            continue;
        ULong w[3] = { addrs[i], fn_id, file_word };
        mr_emit_def(WIRE_SYMBOL, 0, w, 3);
    }
}

static const ULong *probe_words;
static UInt probe_nwords;

static Word cmp_block(const void *a, const void *b)
{
    const block_node *x = a, *y = b;
    const ULong *xw = x->words ? x->words : probe_words;
    const ULong *yw = y->words ? y->words : probe_words;
    UInt xn = x->words ? x->nwords : probe_nwords;
    UInt yn = y->words ? y->nwords : probe_nwords;
    if (xn != yn)
        return 1;
    return VG_(memcmp)(xw, yw, xn * sizeof(ULong)) != 0;
}

UInt mr_defs_block_id(const ULong *payload, UInt nwords)
{
    block_node probe = { NULL, hash_bytes(payload, nwords * sizeof(ULong)), NULL, 0, 0 };
    probe_words = payload;
    probe_nwords = nwords;
    block_node *n = VG_(HT_gen_lookup)(blocks, &probe, cmp_block);
    if (n)
        return n->id;
    n = VG_(malloc)("mr.block", sizeof *n);
    n->key = probe.key;
    n->nwords = nwords;
    n->words = VG_(malloc)("mr.block.words", nwords * sizeof(ULong));
    VG_(memcpy)(n->words, payload, nwords * sizeof(ULong));
    n->id = next_block_id++;
    tl_assert(n->id < (1u << 31));
    VG_(HT_add_node)(blocks, n);
    mr_emit_def(WIRE_BLOCK_DEF, n->id, payload, nwords);
    return n->id;
}
