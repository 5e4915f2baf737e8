/*
 * trace_internal.h: what the files of the trace library share and nobody
 * else sees: byte-layout constants (see SPEC.md), growable buffers, varints,
 * bounded cursors, chunk framing, hash maps, the per-block prediction state,
 * and the writer's and reader's structs.
 */
#ifndef MEMREC_TRACE_INTERNAL_H
#define MEMREC_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>
#include "memrec_trace.h"

#define MR_LIKELY(x) __builtin_expect(!!(x), 1)
#define MR_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- byte layout constants (SPEC.md) ---------------------------------- */

#define MR_MAGIC "\x89MRT\r\n\x1a\n"  /* 8 bytes: catches text-mode mangling */
#define MR_MAGIC_LEN 8
#define MR_MINOR_VERSION 0
#define MR_FILE_HEADER_LEN 20         /* magic, major, minor, flags, crc */
#define MR_FLAGS_REQUIRED_MASK 0xffffu /* header flag bits a reader must know */

#define MR_CHUNK_TAG "MRCK"
#define MR_FRAME_LEN 44               /* chunk frame header */
#define MR_ZHDR_LEN 18                /* zstd frame header bytes under zcrc */
#define MR_TRAILER_LEN 24
#define MR_TRAILER_MAGIC "MRTRAIL\n"

/* Chunk kinds. Kinds >= MR_CHUNK_OPTIONAL_MIN unknown to a reader are
 * skipped; lower unknown kinds are an error. */
enum {
    MR_CHUNK_DEFS = 1,
    MR_CHUNK_EVENTS = 2,
    MR_CHUNK_INDEX = 3,
    MR_CHUNK_OPTIONAL_MIN = 16
};

/* Bounds checked before anything is allocated (a corrupt size field must not
 * allocate gigabytes). */
#define MR_MAX_CHUNK_RAW (64u << 20)   /* raw bytes of one chunk */
#define MR_MAX_CHUNK_OPT (16u << 20)   /* largest chunk_bytes option */
#define MR_MIN_CHUNK_OPT 256u          /* smallest chunk_bytes option */
#define MR_DEFAULT_CHUNK (4u << 20)
#define MR_MAX_BLOCK_PARTS 65536u      /* instrs, accesses, exits per block */
#define MR_MAX_CHUNK_HITS (1ull << 26) /* executions + accesses of one chunk's
                                        * EXEC_HITS records: bounds a reader's
                                        * work per chunk as MR_MAX_CHUNK_RAW does */
#define MR_ID_SLACK (1u << 20)         /* ids must be < defined + this */
#define MR_MAX_STRING (1u << 20)
#define MR_NO_BLOCK UINT32_MAX

/* Definition record ops (inside a DEFS chunk; each op, varint length, body). */
enum {
    MR_DEF_STRING = 1,
    MR_DEF_PROCESS = 2,
    MR_DEF_MODULE = 3,
    MR_DEF_SYMBOL = 4,
    MR_DEF_DATAOBJ = 5,
    MR_DEF_BLOCK = 6,
    MR_DEF_STACK = 7,
    MR_DEF_THREAD = 8       /* a thread's OS thread id (older readers skip it) */
};

/* Control-stream ops of an EVENTS chunk, one byte per record. */
enum {
    MR_OP_EXEC_PRED = 0,   /* block = predicted successor of the previous */
    MR_OP_EXEC = 1,        /* block id in the BLOCK stream */
    MR_OP_SWITCH = 2,
    MR_OP_CREATE = 3,
    MR_OP_TEXIT = 4,
    MR_OP_HEAP = 5,
    MR_OP_MARK = 6,
    MR_OP_COLLECT_OFF = 7,
    MR_OP_COLLECT_ON = 8,
    MR_OP_END = 9,
    MR_OP_EXEC_HITS = 10   /* count in BLOCK: executions of the predicted
                            * block by its last exit, every access and value
                            * as predicted (v2) */
};

/* The streams of an EVENTS chunk, in payload order. */
enum {
    MR_S_STATE,   /* threads with a pending call/return at chunk start */
    MR_S_CTL,     /* one op byte per record */
    MR_S_BLOCK,   /* varint block ids of MR_OP_EXEC */
    MR_S_EXIT,    /* varint exit index, blocks with more than one exit */
    MR_S_FLAG,    /* one byte per access: hit, miss, guard false */
    MR_S_DELTA,   /* zigzag varint addr - previous addr, for misses */
    MR_S_VALUE,   /* zigzag varint value - previous value */
    MR_S_MISC,    /* operands of every other record */
    MR_NSTREAMS
};

/* Most address deltas in one group of the DELTA stream (SPEC.md 6.7). */
#define MR_DELTA_GROUP 128

/* Address flags (MR_S_FLAG). MR_F_VHIT only in blocks with a value access. */
enum { MR_F_HIT = 0, MR_F_MISS = 1, MR_F_GUARD = 2, MR_F_VHIT = 3 };

/* ---- small encodings (varint.c) ------------------------------------- */

/* A growable byte buffer. */
typedef struct mr_buf {
    uint8_t *p;
    size_t len, cap;
} mr_buf;

int mr_buf_grow(mr_buf *b, size_t extra);     /* 0, or -1 out of memory */
/* Makes room for extra more bytes (plus MR_PAD readable spare bytes). */
static inline int mr_buf_reserve(mr_buf *b, size_t extra)
{
    /* b->p tested too: an empty request must still give a real buffer. */
    return MR_LIKELY(b->cap - b->len >= extra && b->p) ? 0 : mr_buf_grow(b, extra);
}
void mr_buf_free(mr_buf *b);

static inline uint64_t mr_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t mr_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* By the leading zero bits of a value of 8 to 56 bits (clz 8..56): the
 * bytes of its varint, and the continuation bits of all of them but the
 * last (tables: the division by 7 and the mask's shifts were a tenth of
 * the writer's work on value-heavy programs). */
#define MR_VLEN(clz) ((70u - (clz)) / 7u)
/* (clz < 8 never comes here; % 64 keeps the unused entries' shifts legal.) */
#define MR_VCONT(clz) ((clz) < 8 ? 0 : \
                       0x8080808080808080ULL & ((1ULL << (8 * (MR_VLEN(clz) - 1) % 64)) - 1))
#define MR_V4(c) MR_VLEN(c), MR_VLEN(c + 1), MR_VLEN(c + 2), MR_VLEN(c + 3)
#define MR_C4(c) MR_VCONT(c), MR_VCONT(c + 1), MR_VCONT(c + 2), MR_VCONT(c + 3)
static const uint8_t mr_varint_len[64] = {
    MR_V4(0), MR_V4(4), MR_V4(8), MR_V4(12), MR_V4(16), MR_V4(20), MR_V4(24), MR_V4(28),
    MR_V4(32), MR_V4(36), MR_V4(40), MR_V4(44), MR_V4(48), MR_V4(52), MR_V4(56), MR_V4(60)
};
static const uint64_t mr_varint_cont[64] = {
    MR_C4(0), MR_C4(4), MR_C4(8), MR_C4(12), MR_C4(16), MR_C4(20), MR_C4(24), MR_C4(28),
    MR_C4(32), MR_C4(36), MR_C4(40), MR_C4(44), MR_C4(48), MR_C4(52), MR_C4(56), MR_C4(60)
};

/* Writes v as LEB128 at p (room for 10 bytes needed: up to 8 are stored
 * at once, even for a shorter value); returns the end. */
static inline uint8_t *mr_put_varint(uint8_t *p, uint64_t v)
{
    if (MR_LIKELY(v < 0x80)) {
        *p = (uint8_t)v;
        return p + 1;
    }
    if (MR_LIKELY(v < (1ULL << 56))) {
        /* Spread the 7-bit groups one per byte, set the continuation bits
         * of all bytes but the last, store 8 bytes: no branch per byte.
         * The spread halves the groups' distances three times: 28-bit
         * halves 32 bits apart, 14-bit quarters 16 apart, 7-bit groups 8
         * apart (12 operations where one shift per group took 22). */
        unsigned clz = (unsigned)__builtin_clzll(v);   /* 8..56 */
        uint64_t x = (v & 0xfffffffULL) | ((v & 0xfffffff0000000ULL) << 4);
        x = (x & 0x00003fff00003fffULL) | ((x & 0x0fffc0000fffc000ULL) << 2);
        x = (x & 0x007f007f007f007fULL) | ((x & 0x3f803f803f803f80ULL) << 1);
        x |= mr_varint_cont[clz];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        x = __builtin_bswap64(x);
#endif
        memcpy(p, &x, 8);
        return p + mr_varint_len[clz];
    }
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Reads a LEB128 value; *pp advances. Never reads more than 10 bytes, so a
 * buffer padded by MR_PAD bytes is safe; callers compare *pp with the end
 * afterwards. Returns 0 for an over-long encoding and sets *bad. */
#define MR_PAD 16
uint64_t mr_get_varint_slow(const uint8_t **pp, int *bad);
static inline uint64_t mr_get_varint(const uint8_t **pp, int *bad)
{
    const uint8_t *p = *pp;
    if (MR_LIKELY(*p < 0x80)) {
        *pp = p + 1;
        return *p;
    }
    /* Up to 8 bytes without a branch per byte: find the first byte whose
     * top bit is clear, keep the bytes up to it, squeeze out the 8th bits. */
    uint64_t x;
    memcpy(&x, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    uint64_t stop = ~x & 0x8080808080808080ULL;
    if (MR_UNLIKELY(!stop))
        return mr_get_varint_slow(pp, bad);
    unsigned bits = (unsigned)__builtin_ctzll(stop) + 1;   /* 8, 16, ... 64 */
    if (MR_LIKELY(bits <= 32)) {   /* up to 28 bits of value: 32-bit work */
        uint32_t y = (uint32_t)x & (uint32_t)((1ULL << bits) - 1);
        *pp = p + bits / 8;
        return (y & 0x7fu) | ((y >> 1) & 0x3f80u) | ((y >> 2) & 0x1fc000u) |
               ((y >> 3) & 0xfe00000u);
    }
    if (bits < 64)
        x &= (1ULL << bits) - 1;
    x = (x & 0x7fULL) | ((x >> 1) & (0x7fULL << 7)) | ((x >> 2) & (0x7fULL << 14)) |
        ((x >> 3) & (0x7fULL << 21)) | ((x >> 4) & (0x7fULL << 28)) |
        ((x >> 5) & (0x7fULL << 35)) | ((x >> 6) & (0x7fULL << 42)) |
        ((x >> 7) & (0x7fULL << 49));
    *pp = p + bits / 8;
    return x;
}

/* Appends a varint to a buffer (grows it). 0 or -1. */
int mr_buf_varint(mr_buf *b, uint64_t v);
int mr_buf_bytes(mr_buf *b, const void *p, size_t n);

static inline void mr_le16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static inline void mr_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void mr_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t mr_rd16(const uint8_t *p) { return p[0] | p[1] << 8; }
static inline uint32_t mr_rd32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t mr_rd64(const uint8_t *p)
{
    return mr_rd32(p) | (uint64_t)mr_rd32(p + 4) << 32;
}

/* A bounded reader over a byte range (definitions and rare records). Any
 * overrun sets bad and yields zeros, so parsing code checks once at the end. */
typedef struct mr_cursor {
    const uint8_t *p, *end;
    int bad;
} mr_cursor;

uint64_t mr_cur_varint(mr_cursor *c);
int64_t mr_cur_svarint(mr_cursor *c);
uint32_t mr_cur_u32(mr_cursor *c, uint32_t max);  /* varint, bad if > max */
uint8_t mr_cur_byte(mr_cursor *c);

/* ---- chunk framing (chunk.c) ------------------------------------------ */

uint32_t mr_crc32(const void *p, size_t n);

/* The fixed frame header in front of every chunk's zstd frame. */
typedef struct mr_frame {
    uint8_t kind;
    uint8_t flags;
    uint32_t raw_size, comp_size;
    uint64_t time;       /* global instruction clock at chunk start */
    uint32_t tid;        /* current thread at chunk start */
    uint32_t nrecords;   /* records (events or definitions) inside */
    uint32_t seq;        /* chunk number, 0 for the first */
    uint32_t zcrc;       /* CRC-32 of the zstd frame's first MR_ZHDR_LEN bytes:
                          * zstd ignores some header bits, this does not */
} mr_frame;
/* The zcrc of a compressed payload. */
uint32_t mr_zhdr_crc(const uint8_t *comp, size_t comp_size);

void mr_frame_encode(const mr_frame *f, uint8_t out[MR_FRAME_LEN]);
/* NULL if fine, else what is wrong with the frame header. */
const char *mr_frame_decode(const uint8_t in[MR_FRAME_LEN], mr_frame *f);
void mr_file_header_encode(uint8_t out[MR_FILE_HEADER_LEN]);

/* ---- hash maps (intern.c) -------------------------------------------- */

/* Open-addressing map from a nonzero-able 64-bit key to a pointer. */
typedef struct mr_map {
    uint64_t *keys;
    void **vals;
    size_t cap, n;    /* cap is a power of two; vals[i]==NULL means empty */
} mr_map;

void *mr_map_get(const mr_map *m, uint64_t key);
int mr_map_put(mr_map *m, uint64_t key, void *val);   /* 0 or -1 (OOM) */
void mr_map_free(mr_map *m);

/* String interning for the writer: string -> id (1-based). */
typedef struct mr_intern {
    char **strs;       /* slot -> owned copy, NULL empty */
    uint32_t *ids;
    size_t cap, n;
} mr_intern;

/* Returns the id of s (0 if s is NULL), *is_new set when first seen. */
uint32_t mr_intern_get(mr_intern *t, const char *s, int *is_new);
void mr_intern_free(mr_intern *t);

/* ---- per-block prediction state (predict.c) --------------------------- */

/* Prediction state of one static access. */
typedef struct mr_pred {
    uint64_t addr;     /* previous address (reader, simple block: in tmpl[i].addr) */
    uint64_t stride;   /* last delta seen (a miss sets it) */
    uint64_t value;    /* previous value */
    uint64_t voff;     /* addr minus the chunk's last value, last time */
} mr_pred;

/* Everything writer and reader keep per defined block for coding its
 * executions. Reset lazily at chunk starts through epoch. */
typedef struct mr_bstate mr_bstate;
#define MR_SUCC_INLINE 4

/* The reader's MR_EV_EXEC payload of one exit of a block without guarded
 * accesses, built once: the quick path copies it whole into the event. */
typedef struct mr_exit_quick {
    __typeof__(((mr_event *)0)->u.exec) exec;
    uint64_t execs;            /* quick executions not yet in execs[exit]
                                * (mr_bstate_fold moves them): all the quick
                                * path touches per exit is in this struct */
    uint8_t jump;              /* the exit's mr_jump */
} mr_exit_quick;
struct mr_bstate {
    const mr_block_def *def;
    const mr_exit_def *exits;  /* a copy of def->exits next to the state's other
                            * arrays: one load closer in the hot loop */
    uint32_t nexits;
    uint32_t epoch;        /* chunk epoch the arrays below belong to */
    uint8_t simple;        /* no guarded and no value accesses */
    uint8_t has_value;     /* some access records its value: MR_F_VHIT allowed */
    uint8_t has_guard;     /* some access is guarded: executions may drop some */
    uint8_t fold_accesses; /* mr_bstate_fold counts the accesses of execs
                            * (blocks without guards) */
    uint32_t last_exit;    /* exit of the latest execution in this chunk,
                            * UINT32_MAX none: EXEC_HITS predicts it */
    uint32_t nwords;       /* words of one execution as mr_write_execs takes
                            * it: header, naccesses addresses, one value
                            * per VALUE access */
    uint32_t naccesses;    /* def->naccesses, without the load of def */
    uint32_t quick_epoch;  /* reader: the epoch when unguarded and touched,
                            * else 0; one compare tells mr_next's quick path */
    uint32_t simple_epoch; /* writer: the epoch when simple and touched, else
                            * 0; one compare tells mr_write_execs's path */
    mr_pred *pred;         /* naccesses */
    uint32_t *succ;        /* nexits: block that followed each exit (writer) */
    uint64_t *execs;       /* nexits: executions per exit not yet in the totals;
                            * one increment per execution instead of seven */
    mr_bstate **succ_bs;   /* nexits: the same as states (reader), NULL none */
    uint8_t *aflags;       /* naccesses: MR_ACC_* of each access */
    uint32_t *kcount;      /* (naccesses+1)*3 prefix counts of L,S,M */
    uint64_t *exit_from;   /* nexits: address of the last instr of exit */
    mr_access *tmpl;       /* naccesses: reader's output, kind/size/instr preset */
    mr_exit_quick *xq;     /* nexits: reader, blocks without guards, else NULL */
    struct mr_cycle *cycle;/* reader: the loop body last found from here
                            * (hits.c), NULL none */
    /* The reader's succ_bs of blocks with at most MR_SUCC_INLINE exits: the
     * slot of the next prediction is then an address computed from the
     * state, not loaded through succ_bs (one load less on the chain from
     * one execution to the next). */
    mr_bstate *succ_inline[MR_SUCC_INLINE];
};

/* NULL if the def is acceptable, else why not. */
const char *mr_block_def_problem(const mr_block_def *b);
mr_bstate *mr_bstate_new(const mr_block_def *def, int with_template);
void mr_bstate_free(mr_bstate *s);
/* Adds the executions counted in s->execs to t (instructions, blocks,
 * calls, returns; accesses too if fold_accesses) and zeroes them. */
void mr_bstate_fold(mr_bstate *s, mr_totals *t);
static inline void mr_bstate_touch(mr_bstate *s, uint32_t epoch)
{
    if (MR_UNLIKELY(s->epoch != epoch)) {
        memset(s->pred, 0, s->naccesses * sizeof *s->pred);
        if (s->tmpl && s->simple)   /* reader: simple blocks keep addr there */
            for (uint32_t i = 0; i < s->naccesses; i++)
                s->tmpl[i].addr = 0;
        s->last_exit = UINT32_MAX;
        if (s->succ)
            memset(s->succ, 0xff, s->nexits * sizeof *s->succ);
        else
            memset(s->succ_bs, 0, s->nexits * sizeof *s->succ_bs);
        s->epoch = epoch;
    }
}

/* Per-thread state shared by writer and reader: how its last block left. */
typedef struct mr_thread_state {
    uint32_t tid;
    uint8_t jump;       /* mr_jump of the last exit taken, BORING if none */
    uint8_t counted;    /* already counted in totals.threads */
    uint64_t from;      /* last instruction of that block */
} mr_thread_state;

/* ---- errors (names.c) ------------------------------------------------- */

/* A malloc'd copy of a formatted message (or a static "out of memory"). */
char *mr_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the reader (reader.c, defs.c, index.c) --------------------------- */

/* A loop body longer than this is expanded, not batched (hits.c). */
#define MR_CYCLE_MAX 16

/* A bump allocator: everything the reader hands out lives until close. */
typedef struct mr_arena {
    struct mr_arena_block *head;
} mr_arena;
void *mr_arena_alloc(mr_arena *a, size_t n);   /* 8-aligned, NULL on OOM */
void mr_arena_free(mr_arena *a);

/* A reader: the input, the chunk being decoded, every definition read so
 * far, and the state the writer also kept (prediction, threads, clock). */
struct mr_reader {
    int fd;
    int regular;             /* a regular file: the footer index may be used */
    uint64_t base;           /* file offset of the trace's first byte */
    uint8_t *in;             /* read buffer */
    size_t in_pos, in_len;
    uint64_t pos;            /* trace bytes consumed */

    char *error;             /* malloc'd message, NULL while fine */
    int version;             /* the file's major version (2 or 3) */
    int failed;              /* sticky: an error or truncation happened */
    int truncated;
    int done;                /* mr_next returned 0: it keeps doing so */

    ZSTD_DCtx *dctx;
    mr_buf comp, raw;        /* current chunk: compressed, decompressed */
    uint64_t chunks_read;
    uint32_t next_seq;       /* number expected of the next chunk */
    int resync;              /* after a seek: adopt the next chunk's clock */

    /* The chunk being decoded. */
    int in_chunk;
    mr_frame frame;
    uint64_t frame_off;
    uint32_t recs_left;      /* DEFS: records left (EVENTS: the CTL stream counts) */
    mr_cursor dc;            /* DEFS: the records */
    int redeliver;           /* DEFS chunk already applied once (seek back) */
    uint64_t prev_sym_addr;
    const uint8_t *sp[MR_NSTREAMS], *se[MR_NSTREAMS];   /* EVENTS streams */
    uint32_t epoch;
    int fast;                /* mr_next's quick path that may apply, MR_FAST_*:
                              * the last record was an execution in this
                              * EVENTS chunk, nothing held, no failure, its
                              * jump boring */
    mr_bstate **prev_slot;   /* succ_bs entry of the previous execution's exit:
                              * its predicted successor; NULL none */
    uint64_t last_value;     /* value of the chunk's latest value access */
    /* The DELTA stream's current group, unpacked (deltas.c): deltas
     * [dp, dend) of dbuf are still to be used. */
    const uint64_t *dp, *dend;
    uint64_t dbuf[MR_DELTA_GROUP];
    int delta_rest;          /* the rest of the stream is plain svarints */

    /* Definitions read so far. */
    mr_arena arena;
    const char **strs;       /* string id - 1 -> string */
    uint32_t nstrs, strs_cap;
    mr_bstate **blocks;      /* by id */
    uint32_t blocks_cap, nblockdefs;
    mr_stack **stacks;       /* by id */
    uint32_t stacks_cap, nstackdefs;
    const mr_process *process;
    mr_map syms;             /* instruction address -> latest mr_symbol */
    const mr_symbol **symlist;   /* every symbol read, in order */
    size_t nsyms, syms_cap;
    const mr_symbol **sorted;    /* symlist sorted by address, built lazily */
    size_t nsorted;
    const mr_module **modules;   /* by id: the latest definition of each */
    uint32_t modules_cap;
    int redefined;           /* some block or stack id was defined twice */
    uint64_t defs_upto;      /* definitions of chunks below this are loaded */

    /* Execution state. */
    mr_map threads;          /* tid -> mr_thread_state */
    mr_thread_state *cur;
    uint32_t cur_tid;
    uint64_t time;
    mr_totals tot;
    int from_start;          /* no seek happened: the end totals are checked */
    int end_seen;
    mr_end end;

    mr_access *acc;          /* accesses of the current execution */
    uint64_t *strides;       /* acc_cap: a batched event's strides */
    uint32_t acc_cap;
    /* Executions of the EXEC_HITS record being delivered still to come
     * (mr_next takes next_slow while there are). */
    uint64_t rep_left;
    uint64_t chunk_hits;     /* EXEC_HITS work of this chunk so far */
    /* The blocks the run executes next, as far as hits.c's find_cycle
     * followed the predictions: walk[0] is delivered when rep_left is
     * walk_rep. */
    struct mr_bstate *walk[MR_CYCLE_MAX + 1];
    uint32_t walk_len;
    uint64_t walk_rep;
    int batching;            /* mr_reader_batch's mode, MR_BATCH_* */
    /* A loop body of several blocks delivered as one event per block
     * (MR_BATCH_PER_INSTRUCTION): group_ev[group_next .. group_len) are
     * still to come; their accesses and strides live in group_acc/str. */
    mr_event *group_ev;
    mr_access *group_acc;
    uint64_t *group_str;
    uint32_t group_len, group_next;
    size_t group_ev_cap, group_acc_cap;
    int held;                /* held_ev is delivered by the next mr_next */
    mr_event held_ev;

    /* Footer index: 0 not looked at, 1 loaded, -1 absent. */
    int index_state;
    uint64_t *idx_off;
    uint8_t *idx_kind;
    uint32_t nidx;
};

/* The state of thread tid, created on first use (counted in the totals
 * when count); NULL when out of memory (the reader has then failed). */
mr_thread_state *mr_reader_thread(mr_reader *r, uint32_t tid, int count);

/* "chunk N: what" as the reader's error; returns -1. */
int mr_reader_corrupt(mr_reader *r, const char *what);
#define CORRUPT(r, what) mr_reader_corrupt((r), (what))

/* The DELTA stream (deltas.c, SPEC.md 6.7). The writer packs a chunk's
 * stream of svarints into groups in out, where that compresses better
 * with the chunk's VALUE stream (0, or -1 out of memory); the
 * reader unpacks the next group into r->dbuf (0, or -1 corrupt). */
typedef struct mr_delta_packer {   /* the writer's scratch, zeroed at start */
    mr_buf alt;        /* the chunk's groups all as varints */
    mr_buf trial;      /* a candidate compressed, for its size */
    ZSTD_CCtx *cctx;   /* the trial compression's */
    uint32_t skip;     /* chunks left that keep varints untried: packing
                        * lost clearly in the latest trials */
    uint32_t losses;   /* clear losses in a row, for the next skip */
} mr_delta_packer;
int mr_deltas_pack(mr_delta_packer *pk, mr_buf *out, const uint8_t *in, size_t len,
                   const uint8_t *values, size_t nvalues);
void mr_delta_packer_free(mr_delta_packer *pk);
int mr_deltas_refill(mr_reader *r);

/* The writer's background thread (chunkq.c): finished chunks queued in
 * order, packed, compressed and written by a work function on a thread of
 * their own. A job is one chunk: kind, counts and raw buffers (an EVENTS
 * chunk's streams, a DEFS chunk's records in bufs[0]). */
#define MR_CHUNKQ_JOBS 2   /* chunks waiting or being written: memory bound */
typedef struct mr_chunkjob {
    uint8_t kind;
    uint32_t nrecords;
    uint64_t time;
    uint32_t tid;
    int nbufs;
    mr_buf bufs[MR_NSTREAMS];
} mr_chunkjob;
typedef struct mr_chunkq mr_chunkq;
typedef int (*mr_chunkq_work)(void *ctx, mr_chunkjob *job);   /* 0, or -1 failed */
mr_chunkq *mr_chunkq_start(mr_chunkq_work work, void *ctx);   /* NULL: no thread */
int mr_chunkq_push(mr_chunkq *q, const mr_chunkjob *job, mr_buf *bufs, int nbufs);
int mr_chunkq_stop(mr_chunkq *q);

/* Parallel modelling (pieces.c, SPEC.md 6.8). The writer the caller
 * opened (the front) keeps the definitions, the clock and each thread's
 * last exit, walks the executions' headers only, and logs every event
 * into the piece being gathered; a piece is handed to one of several
 * worker writers (writers without a file: sink set) once its log is
 * large enough, at a block or stack redefinition, or at the end. A worker
 * starts a piece with the front's clock, thread and thread states of the
 * piece's start, models it with the sequential code and ends the
 * piece's last chunk there; the front queues each piece's chunks, DEFS
 * then EVENTS, in piece order. */
typedef struct mr_pieces mr_pieces;
/* A worker writer's chunk sink: takes the job and its buffers (swapped
 * for empty ones, like mr_chunkq_push). 0, or -1 out of memory. */
typedef int (*mr_sink)(void *ctx, const mr_chunkjob *job, mr_buf *bufs, int nbufs);
/* Log entry kinds. */
enum { MR_LOG_EXECS = 1, MR_LOG_HEAP, MR_LOG_MARK, MR_LOG_COLLECT, MR_LOG_SWITCH,
       MR_LOG_CREATE, MR_LOG_TEXIT };
/* NULL when the threads cannot be made (the writer stays sequential). */
mr_pieces *mr_pieces_start(int workers, const mr_writer_options *opts, mr_chunkq *q);
/* Appends an entry: kind, aux (an EXECS entry's tag, COLLECT's on),
 * payload words. 0 or -1 (out of memory). */
int mr_pieces_log(mr_pieces *p, uint8_t kind, uint8_t aux, const uint64_t *words, size_t n);
int mr_pieces_full(const mr_pieces *p);     /* the gathering piece is large enough */
int mr_pieces_logged(const mr_pieces *p);   /* the gathering piece has events */
/* Words of executions (tag) the gathering piece takes before it is full
 * (at least 1): the execution that reaches it ends the piece. */
size_t mr_pieces_room(const mr_pieces *p, uint8_t tag);
/* Definitions the workers apply in order (copies). 0 or -1. */
int mr_pieces_block(mr_pieces *p, const mr_block_def *b);
int mr_pieces_stack(mr_pieces *p, const mr_stack *s);
/* A DEFS chunk before the gathering piece's events (buffer swapped). */
int mr_pieces_defs(mr_pieces *p, mr_buf *defs, uint32_t ndefs);
/* Hands the gathering piece to the workers (if it holds anything) and
 * starts the next with this clock, thread and thread states. */
int mr_pieces_cut(mr_pieces *p, uint64_t time, uint32_t tid,
                  const mr_thread_state *threads, size_t nthreads);
/* Models every piece, the gathering one last followed by the end record
 * (totals summed over the workers, threads given), queues all chunks and
 * stops the workers. With end_it 0 (the writer failed), queues what was
 * modelled before and stops. */
int mr_pieces_finish(mr_pieces *p, int end_it, const mr_end *end, uint64_t threads);
/* Cuts, waits for every piece and adds up the totals so far. */
int mr_pieces_totals(mr_pieces *p, uint64_t time, uint32_t tid,
                     const mr_thread_state *threads, size_t nthreads, mr_totals *tot);
/* What failed (NULL: the chunk queue's thread, see its writer). */
const char *mr_pieces_error(const mr_pieces *p);
void mr_pieces_free(mr_pieces *p);
/* The writer's side for pieces.c (writer.c). */
mr_writer *mr_writer_worker_new(const mr_writer_options *opts, mr_sink sink, void *ctx);
void mr_writer_worker_begin(mr_writer *w, uint64_t time, uint32_t tid,
                            const mr_thread_state *threads, size_t nthreads);
void mr_writer_worker_at(mr_writer *w, uint64_t pos, uint64_t len);
int mr_writer_worker_flush(mr_writer *w);
void mr_writer_worker_fold(mr_writer *w, mr_totals *sum);
int mr_writer_worker_end(mr_writer *w, const mr_end *end, const mr_totals *tot);
void mr_writer_worker_free(mr_writer *w);

/* EXEC_HITS (hits.c): decodes a record and delivers its first execution;
 * delivers the next execution of the record being decoded; delivers the
 * next event of a batched loop body. 1, or -1 corrupt. */
int mr_hits_decode(mr_reader *r, mr_event *ev);
int mr_hits_next(mr_reader *r, mr_event *ev);
int mr_hits_group_next(mr_reader *r, mr_event *ev);

/* mr_next's quick paths (reader.c), chosen by r->fast. */
enum {
    MR_FAST_NONE,   /* next_slow decides */
    MR_FAST_EXEC,   /* the next record may be an EXEC_PRED: next_quick */
    MR_FAST_HIT,    /* inside an EXEC_HITS run, not batching: next_quick_hit */
};

/* The quick path after an execution whose thread's jump is now boring. */
static inline int mr_fast_mode(const mr_reader *r)
{
    if (!r->rep_left)
        return MR_FAST_EXEC;
    return r->batching ? MR_FAST_NONE : MR_FAST_HIT;
}

/* Delivers `repeat` executions of bs by exit (accesses out[0 .. nout)) as
 * one MR_EV_EXEC, after a synthesised call/return when this thread's
 * previous block left through a call/return exit (the execution is then
 * held for the next mr_next); updates thread, clock and prediction. */
static inline int mr_deliver_exec(mr_reader *r, mr_event *ev, mr_bstate *bs, uint32_t exit,
                               const mr_access *out, uint32_t nout, uint64_t repeat)
{
    const mr_exit_def *ex = &bs->exits[exit];
    mr_thread_state *th = r->cur;
    if (MR_UNLIKELY(!th) && !(th = r->cur = mr_reader_thread(r, r->cur_tid, 1)))
        return -1;
    mr_event *xe = ev;
    if (MR_UNLIKELY(th->jump == MR_JUMP_CALL || th->jump == MR_JUMP_RET)) {
        ev->kind = th->jump == MR_JUMP_CALL ? MR_EV_CALL : MR_EV_RETURN;
        ev->tid = r->cur_tid;
        ev->time = r->time;
        ev->u.call.from = th->from;
        ev->u.call.to = bs->def->addr;
        xe = &r->held_ev;
        r->held = 1;
    }
    xe->kind = MR_EV_EXEC;
    xe->tid = r->cur_tid;
    xe->time = r->time;
    xe->u.exec.def = bs->def;
    xe->u.exec.exit = exit;
    xe->u.exec.ninstrs = ex->ninstrs;
    xe->u.exec.naccesses = nout;
    xe->u.exec.accesses = out;
    xe->u.exec.repeat = repeat;
    xe->u.exec.strides = repeat > 1 ? r->strides : NULL;
    xe->u.exec.period = ex->ninstrs;
    /* from is only read while jump is a call or a return: boring after
     * boring, the common case, stores nothing. */
    if (MR_UNLIKELY(th->jump | ex->jump)) {
        th->jump = ex->jump;
        th->from = bs->exit_from[exit];
    }
    bs->execs[exit] += repeat;   /* the totals it implies: mr_bstate_fold() */
    bs->last_exit = exit;
    r->time += repeat * ex->ninstrs;
    r->prev_slot = &bs->succ_bs[exit];
    /* next_quick may follow unless a call/return event is pending. */
    r->fast = xe == ev && ex->jump == MR_JUMP_BORING ? mr_fast_mode(r) : MR_FAST_NONE;
    return 1;
}

/* Sets the reader's error (first one wins) and returns -1. */
int mr_reader_fail(mr_reader *r, int truncated, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reads the next chunk frame and payload. 1 loaded, 0 end of trace, -1. */
int mr_reader_load_chunk(mr_reader *r);
/* Decodes definition records of the current DEFS chunk; with ev NULL all of
 * them silently. 1 event delivered, 0 chunk finished, -1 error. */
int mr_reader_next_def(mr_reader *r, mr_event *ev);
void mr_reader_defs_reset(mr_reader *r);
void mr_reader_defs_free(mr_reader *r);
/* Parses the INDEX chunk in r->raw. 0 or -1 (no error set). */
int mr_index_parse(mr_reader *r, const uint8_t *p, size_t n, uint64_t index_offset);
/* Checks a trailer; NULL or what is wrong. */
const char *mr_trailer_check(const uint8_t t[MR_TRAILER_LEN], uint64_t *index_offset,
                             uint32_t *nchunks);

#endif /* MEMREC_TRACE_INTERNAL_H */
