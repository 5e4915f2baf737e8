/*
 * deltas.c: the DELTA stream's groups (SPEC.md 6.7).
 *
 * While it codes an execution the writer appends each address delta as an
 * svarint (one cheap pass, as in version 2). When the chunk is flushed,
 * mr_deltas_pack cuts that stream into groups of up to MR_DELTA_GROUP
 * deltas. Each group keeps its varints, or, when that is smaller and its
 * deltas do not repeat, packs them into fields of one bit width after
 * dropping their common trailing zero bits. Random addresses then cost
 * their entropy rounded up to whole bits, in bytes zstd stores as they
 * are: smaller than Huffman-coded varints and decoded at memcpy speed. A
 * trial compression keeps the packing only where it pays, and a cheap
 * estimate on a sample of groups spares chunks that cannot gain enough
 * the trials and the grouping (packing_hopeless). The reader
 * unpacks one group at a time into r->dbuf (mr_deltas_refill).
 */
#include "trace_internal.h"

/* Group kinds: 0-64 a packed group of that field width, or: */
#define MR_DELTA_REST 254u       /* the rest of the stream is svarints */
#define MR_DELTA_VARINTS 255u    /* a group of svarints */
#define MR_DELTA_SKIP 8u         /* most chunks left untried after clear losses */

/* A little-endian 64-bit word at p (unaligned). */
static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

static inline void store_le64(uint8_t *p, uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(p, &x, 8);
}

/* ---- writer ------------------------------------------------------------- */

/* Writes n fields of w bits (least significant first) at o, which must
 * have room for ceil(n * w / 8) + 8 bytes: whole words, no byte written
 * twice. */
static void put_fields(uint8_t *o, const uint64_t *f, uint32_t n, unsigned w)
{
    uint64_t acc = 0;   /* bits not yet stored, the first at bit 0 */
    unsigned have = 0;  /* how many: < 64 */
    for (uint32_t i = 0; i < n; i++) {
        acc |= f[i] << have;   /* what does not fit is kept below */
        if (have + w < 64) {
            have += w;
            continue;
        }
        store_le64(o, acc);
        o += 8;
        acc = have ? f[i] >> (64 - have) : 0;
        have = have + w - 64;
    }
    store_le64(o, acc);
}

/* Deltas of d equal to one of the four before: zstd turns such repeats
 * of varints into matches, packed fields at varying bit offsets hide
 * them. (Repeats from further back are the trial compression's to find.) */
static uint32_t repeats(const uint64_t *d, uint32_t n)
{
    uint32_t r = 0, i = 1;
    for (; i < n && i < 4; i++) {
        int again = d[i - 1] == d[i];
        for (uint32_t k = 2; k <= i && !again; k++)
            again = d[i - k] == d[i];
        r += (uint32_t)again;
    }
    for (; i < n; i++)   /* four compares, no branch: the common case */
        r += (uint32_t)((d[i - 1] == d[i]) | (d[i - 2] == d[i]) | (d[i - 3] == d[i]) |
                        (d[i - 4] == d[i]));
    return r;
}

/* The fields of a packed group of the n deltas d: fields[i] holds delta i
 * without the trailing zero bits all share (*shift of them), zigzagged;
 * returns their width in bits. */
static unsigned group_fields(const uint64_t *d, uint32_t n, uint64_t *fields, unsigned *shift)
{
    uint64_t any = 0, fany = 0;
    for (uint32_t i = 0; i < n; i++)
        any |= d[i];
    /* Deltas of aligned accesses share trailing zeros: not stored. */
    *shift = any ? (unsigned)__builtin_ctzll(any) : 0;
    for (uint32_t i = 0; i < n; i++)
        fany |= fields[i] = mr_zigzag((int64_t)d[i] >> *shift);
    return fany ? 64u - (unsigned)__builtin_clzll(fany) : 0;
}

/* Bytes of a packed group's shift and fields (n fields of w bits). */
static size_t packed_bytes(uint32_t n, unsigned w)
{
    return 1 + ((uint64_t)n * w + 7) / 8;
}

/* Appends one group of the n deltas d (at o: room for 3 + 10 n bytes),
 * whose svarints are the vbytes bytes at v, packed if pack and that is
 * smaller than those varints; returns its end. */
static uint8_t *put_group(uint8_t *o, const uint64_t *d, uint32_t n, const uint8_t *v,
                          size_t vbytes, int pack)
{
    uint64_t fields[MR_DELTA_GROUP];
    unsigned shift = 0, w = pack ? group_fields(d, n, fields, &shift) : 0;
    size_t packed = packed_bytes(n, w);
    int as_varints = !pack || packed >= vbytes;
    *o++ = as_varints ? (uint8_t)MR_DELTA_VARINTS : (uint8_t)w;
    *o++ = (uint8_t)(n - 1);
    if (as_varints) {   /* the writer's own varints, minimal: kept as they are */
        memcpy(o, v, vbytes);
        return o + vbytes;
    }
    *o++ = (uint8_t)shift;
    put_fields(o, fields, n, w);
    return o + packed - 1;
}

/* Codes the svarints in[0, len) as groups into out, packing those whose
 * deltas hardly repeat where that is smaller. Returns how many were
 * packed, or -1 out of memory. */
static int64_t put_groups(mr_buf *out, const uint8_t *in, size_t len)
{
    const uint8_t *p = in, *end = in + len;
    uint64_t d[MR_DELTA_GROUP];
    int64_t npacked = 0;
    out->len = 0;
    while (p < end) {
        const uint8_t *v = p;
        uint32_t n = 0;
        int bad = 0;   /* our own varints: never bad */
        while (n < MR_DELTA_GROUP && p < end)
            d[n++] = (uint64_t)mr_unzigzag(mr_get_varint(&p, &bad));
        if (mr_buf_reserve(out, 3 + 10 * (size_t)n))
            return -1;
        int pack = repeats(d, n) * 16 <= n;
        uint8_t *o = out->p + out->len, *e = put_group(o, d, n, v, (size_t)(p - v), pack);
        npacked += pack && *o != MR_DELTA_VARINTS;
        out->len = (size_t)(e - out->p);
    }
    return npacked;
}

/* Whether grouping the svarints in[0, len) cannot pay, judged without
 * the two trial compressions: put_groups is sized on a group's worth of
 * deltas every MR_DELTA_SAMPLE bytes (from the next varint's start), and
 * the groups must come out MR_DELTA_HOPELESS (5%) smaller than the varints
 * to be tried. Packing fields hides from zstd the matches and the Huffman
 * coding the varints keep, so it never won at less: of the 41 chunks of
 * gzip, sqlite3, python3 and binary_tree that were tried, none kept its
 * groups, at raw gains of -0.7% to 6.2% (trials: losses of 1.3% to 20%);
 * the shuffled linked_list's chunks won at 12.4% to 27%. */
#define MR_DELTA_SAMPLE 4096u
#define MR_DELTA_HOPELESS 20u
static int packing_hopeless(const uint8_t *in, size_t len)
{
    const uint8_t *end = in + len;
    uint64_t d[MR_DELTA_GROUP], fields[MR_DELTA_GROUP];
    int64_t raw = 0, saved = 0;   /* sampled varint bytes; what groups save of them */
    for (size_t at = 0; at < len; at += MR_DELTA_SAMPLE) {
        const uint8_t *p = in + at, *v;
        while (p > in && p < end && (p[-1] & 0x80))   /* inside a varint */
            p++;
        v = p;
        uint32_t n = 0;
        int bad = 0;
        while (n < MR_DELTA_GROUP && p < end)
            d[n++] = (uint64_t)mr_unzigzag(mr_get_varint(&p, &bad));
        if (!n)
            break;
        size_t vbytes = (size_t)(p - v), bytes = vbytes;
        unsigned shift;
        if (repeats(d, n) * 16 <= n) {
            size_t packed = packed_bytes(n, group_fields(d, n, fields, &shift));
            bytes = packed < vbytes ? packed : vbytes;
        }
        raw += (int64_t)vbytes;
        saved += (int64_t)vbytes - (int64_t)bytes - 2;   /* a group's kind and count */
    }
    return saved * (int64_t)MR_DELTA_HOPELESS < raw;
}

/* Size of the candidate deltas followed by the chunk's values (what they
 * may repeat: the deltas of stored pointers), compressed by pk's trial
 * context; 0 on failure. */
static size_t trial_size(mr_delta_packer *pk, const mr_buf *deltas, const uint8_t *values,
                         size_t nvalues)
{
    size_t bound = ZSTD_compressBound(deltas->len + nvalues);
    if (mr_buf_reserve(&pk->trial, bound))
        return 0;
    ZSTD_outBuffer o = { pk->trial.p, bound, 0 };
    ZSTD_inBuffer a = { deltas->p, deltas->len, 0 }, b = { values, nvalues, 0 };
    size_t rc = ZSTD_compressStream2(pk->cctx, &o, &a, ZSTD_e_continue);
    if (!ZSTD_isError(rc))
        rc = ZSTD_compressStream2(pk->cctx, &o, &b, ZSTD_e_end);   /* bound: one call */
    if (ZSTD_isError(rc) || rc != 0) {
        ZSTD_CCtx_reset(pk->cctx, ZSTD_reset_session_only);
        return 0;
    }
    return o.pos;
}

/* The svarints in[0, len) kept as they are, behind MR_DELTA_REST: the
 * version 2 stream, and what zstd compresses best unless the deltas are
 * random. 0, or -1 out of memory. */
static int put_rest(mr_buf *out, const uint8_t *in, size_t len)
{
    out->len = 0;
    if (mr_buf_reserve(out, len + 1))
        return -1;
    out->p[0] = MR_DELTA_REST;
    memcpy(out->p + 1, in, len);
    out->len = len + 1;
    return 0;
}

int mr_deltas_pack(mr_delta_packer *pk, mr_buf *out, const uint8_t *in, size_t len,
                   const uint8_t *values, size_t nvalues)
{
    out->len = 0;
    if (!len)
        return 0;
    if (pk->skip) {
        pk->skip--;
        return put_rest(out, in, len);
    }
    if (packing_hopeless(in, len)) {   /* no trial: not a clear loss either */
        pk->losses = 0;
        return put_rest(out, in, len);
    }
    int64_t npacked = put_groups(out, in, len);
    if (npacked <= 0)
        return npacked < 0 ? -1 : put_rest(out, in, len);
    /* Packing hides from zstd what Huffman coding of varints still finds
     * (the top bits of deltas that are not uniform, say): the chunk keeps
     * its packed groups only if they compress smaller than plain varints. */
    if (!pk->cctx) {
        if (!(pk->cctx = ZSTD_createCCtx()))
            return -1;
        ZSTD_CCtx_setParameter(pk->cctx, ZSTD_c_compressionLevel, 1);
    }
    if (put_rest(&pk->alt, in, len))
        return -1;
    size_t packed = trial_size(pk, out, values, nvalues);
    size_t plain = trial_size(pk, &pk->alt, values, nvalues);
    if (!packed || !plain)
        return -1;
    /* A small gain at level 1 can turn into a loss in the chunk's final
     * compression (group headers break zstd's long matches): packing must
     * save 2% (measured on the samples: the stencil's 1.3% was a loss). */
    if (packed * 50 > plain * 49) {
        mr_buf t = *out;
        *out = pk->alt;
        pk->alt = t;
    }
    /* Grouping and the two trials cost a quarter of the writer's time on
     * programs whose deltas never pack (gzip: every chunk keeps varints).
     * After k losses in a row by 5% or more the next 2^(k-1) chunks, at
     * most MR_DELTA_SKIP, keep their varints untried; a trial that does
     * not lose so starts the count again, so streams whose phases
     * alternate (random then sequential) keep being packed. (With 10%,
     * gzip -9 still tried 20 of its 32 chunks, most losing by 5-10%; with
     * 3%, the binary_tree sample's trace grew by 0.08%.) */
    if (packed * 100 >= plain * 105) {
        pk->losses += pk->losses < 31;
        pk->skip = 1u << (pk->losses - 1);
        if (pk->skip > MR_DELTA_SKIP)
            pk->skip = MR_DELTA_SKIP;
    } else {
        pk->losses = 0;
    }
    return 0;
}

void mr_delta_packer_free(mr_delta_packer *pk)
{
    mr_buf_free(&pk->alt);
    mr_buf_free(&pk->trial);
    ZSTD_freeCCtx(pk->cctx);
    memset(pk, 0, sizeof *pk);
}

/* ---- reader ------------------------------------------------------------- */

/* Reads n fields of w bits at p (readable up to 8 bytes past the fields:
 * streams are padded by MR_PAD) into deltas shifted left by shift. */
static void get_fields(const uint8_t *p, uint32_t n, unsigned w, unsigned shift, uint64_t *d)
{
    uint64_t mask = w == 64 ? ~0ULL : (1ULL << w) - 1;
    if (w <= 56) {   /* every field within the 8 bytes at its first byte */
        for (uint32_t i = 0, bit = 0; i < n; i++, bit += w)
            d[i] = (uint64_t)mr_unzigzag(load_le64(p + bit / 8) >> (bit % 8) & mask) << shift;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t bit = (uint64_t)i * w;
        unsigned s = bit % 8;
        uint64_t x = load_le64(p + bit / 8) >> s;
        if (s && w + s > 64)
            x |= (uint64_t)p[bit / 8 + 8] << (64 - s);
        d[i] = (uint64_t)mr_unzigzag(x & mask) << shift;
    }
}

/* The rest of the stream is svarints (version 2, or after MR_DELTA_REST):
 * up to a group's worth of them. */
static int refill_varints(mr_reader *r, const uint8_t *p, const uint8_t *end)
{
    uint32_t n = 0;
    int bad = 0;
    while (n < MR_DELTA_GROUP && p < end)
        r->dbuf[n++] = (uint64_t)mr_unzigzag(mr_get_varint(&p, &bad));
    if (n == 0)
        return CORRUPT(r, "delta stream exhausted");
    if (bad || p > end)
        return CORRUPT(r, "delta stream overrun");
    r->sp[MR_S_DELTA] = p;
    r->dp = r->dbuf;
    r->dend = r->dbuf + n;
    return 0;
}

int mr_deltas_refill(mr_reader *r)
{
    const uint8_t *p = r->sp[MR_S_DELTA], *end = r->se[MR_S_DELTA];
    if (p >= end)
        return CORRUPT(r, "delta stream exhausted");
    if (r->delta_rest)
        return refill_varints(r, p, end);
    if (*p == MR_DELTA_REST) {
        r->delta_rest = 1;
        return refill_varints(r, p + 1, end);
    }
    if (end - p < 3)
        return CORRUPT(r, "bad delta group");
    unsigned kind = p[0];
    uint32_t n = p[1] + 1u;
    if (n > MR_DELTA_GROUP)   /* r->dbuf holds one group */
        return CORRUPT(r, "bad delta group");
    p += 2;
    if (kind == MR_DELTA_VARINTS) {
        int bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (p >= end)
                return CORRUPT(r, "delta stream exhausted");
            r->dbuf[i] = (uint64_t)mr_unzigzag(mr_get_varint(&p, &bad));
        }
        if (bad || p > end)
            return CORRUPT(r, "delta stream overrun");
    } else {
        unsigned shift = *p++;
        size_t bytes = ((uint64_t)n * kind + 7) / 8;
        if (kind > 64 || shift > 63 || (size_t)(end - p) < bytes)
            return CORRUPT(r, "bad delta group");
        get_fields(p, n, kind, shift, r->dbuf);
        p += bytes;
    }
    r->sp[MR_S_DELTA] = p;
    r->dp = r->dbuf;
    r->dend = r->dbuf + n;
    return 0;
}
