/*
 * index.c: the footer index and trailer (SPEC.md "Index and trailer"), and
 * random access through them: mr_reader_chunk_count() and mr_reader_seek().
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace_internal.h"

const char *mr_trailer_check(const uint8_t t[MR_TRAILER_LEN], uint64_t *index_offset,
                             uint32_t *nchunks)
{
    if (memcmp(t + 16, MR_TRAILER_MAGIC, 8))
        return "bad trailer magic";
    if (mr_rd32(t + 12) != mr_crc32(t, 12))
        return "trailer checksum mismatch";
    *index_offset = mr_rd64(t);
    *nchunks = mr_rd32(t + 8);
    return NULL;
}

int mr_index_parse(mr_reader *r, const uint8_t *p, size_t n, uint64_t index_offset)
{
    mr_cursor c = { p, p + n, 0 };
    /* Each entry takes at least two bytes: bounds the allocation. */
    uint32_t count = mr_cur_u32(&c, (uint32_t)(n / 2));
    if (c.bad)
        return -1;
    uint64_t *off = malloc((count + 1) * sizeof *off);
    uint8_t *kind = malloc(count + 1);
    if (!off || !kind) {
        free(off);
        free(kind);
        return -1;
    }
    uint64_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t delta = mr_cur_varint(&c);
        kind[i] = mr_cur_byte(&c);
        /* Chunks follow the file header in increasing order, before the index. */
        if (i == 0 ? delta != MR_FILE_HEADER_LEN : delta < MR_FRAME_LEN)
            c.bad = 1;
        at += delta;
        if (at > index_offset)
            c.bad = 1;
        off[i] = at;
    }
    if (c.bad || c.p != c.end) {
        free(off);
        free(kind);
        return -1;
    }
    free(r->idx_off);
    free(r->idx_kind);
    r->idx_off = off;
    r->idx_kind = kind;
    r->nidx = count;
    return 0;
}

/* Reads exactly n bytes at trace offset off without moving the stream. */
static int pread_full(mr_reader *r, void *dst, size_t n, uint64_t off)
{
    uint8_t *d = dst;
    while (n) {
        ssize_t k = pread(r->fd, d, n, (off_t)(r->base + off));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        d += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* Loads the index of a regular file through its trailer; -1 if it has
 * none that is intact (cut off, or not seekable). */
static int load_index(mr_reader *r)
{
    if (r->index_state)
        return r->index_state > 0 ? 0 : -1;
    r->index_state = -1;
    struct stat st;   /* the size, without moving the stream position */
    if (!r->regular || fstat(r->fd, &st) || (uint64_t)st.st_size < r->base)
        return -1;
    uint64_t size = (uint64_t)st.st_size - r->base;
    uint8_t t[MR_TRAILER_LEN], h[MR_FRAME_LEN];
    uint64_t index_offset;
    uint32_t nchunks;
    mr_frame f;
    if (size < MR_FILE_HEADER_LEN + MR_FRAME_LEN + MR_TRAILER_LEN ||
        pread_full(r, t, sizeof t, size - MR_TRAILER_LEN) ||
        mr_trailer_check(t, &index_offset, &nchunks) ||
        index_offset > size - MR_TRAILER_LEN - MR_FRAME_LEN ||
        pread_full(r, h, sizeof h, index_offset) || mr_frame_decode(h, &f) ||
        f.kind != MR_CHUNK_INDEX || f.seq != nchunks ||
        index_offset + MR_FRAME_LEN + f.comp_size != size - MR_TRAILER_LEN)
        return -1;
    uint8_t *comp = malloc(f.comp_size), *raw = malloc(f.raw_size + 1);
    int ok = comp && raw && !pread_full(r, comp, f.comp_size, index_offset + MR_FRAME_LEN) &&
             mr_zhdr_crc(comp, f.comp_size) == f.zcrc;
    if (ok) {
        size_t got = ZSTD_decompress(raw, f.raw_size, comp, f.comp_size);
        ok = !ZSTD_isError(got) && got == f.raw_size &&
             !mr_index_parse(r, raw, f.raw_size, index_offset) && r->nidx == nchunks;
    }
    free(comp);
    free(raw);
    if (!ok)
        return -1;
    r->index_state = 1;
    return 0;
}

int64_t mr_reader_chunk_count(mr_reader *r)
{
    return load_index(r) ? -1 : (int64_t)r->nidx;
}

/* Moves the stream to the start of chunk i. */
static int position(mr_reader *r, uint32_t i)
{
    if (lseek(r->fd, (off_t)(r->base + r->idx_off[i]), SEEK_SET) < 0)
        return mr_reader_fail(r, 0, "seek: %s", strerror(errno));
    r->in_pos = r->in_len = 0;
    r->pos = r->idx_off[i];
    r->next_seq = i;
    r->in_chunk = 0;
    r->fast = 0;
    r->held = 0;
    r->rep_left = 0;
    r->group_len = 0;
    r->done = 0;
    r->end_seen = 0;
    return 0;
}

int mr_reader_seek(mr_reader *r, uint64_t chunk)
{
    if (load_index(r)) {
        free(r->error);
        r->error = mr_strdup_printf("cannot seek: the trace has no intact footer index");
        return -1;
    }
    if (chunk >= r->nidx) {
        free(r->error);
        r->error = mr_strdup_printf("cannot seek: chunk %llu does not exist (%u chunks)",
                                    (unsigned long long)chunk, r->nidx);
        return -1;
    }
    if (r->failed && !r->truncated)
        return -1;
    /* A truncation seen while reading on does not stop random access. */
    r->failed = r->truncated = 0;
    free(r->error);
    r->error = NULL;
    if (chunk < r->defs_upto && r->redefined)
        mr_reader_defs_reset(r);
    /* Replay the definitions of every earlier chunk not applied yet. */
    for (uint32_t i = (uint32_t)r->defs_upto; i < chunk; i++) {
        if (r->idx_kind[i] != MR_CHUNK_DEFS)
            continue;
        if (position(r, i))
            return -1;
        r->resync = 1;
        int rc = mr_reader_load_chunk(r);
        if (rc <= 0 || r->frame.kind != MR_CHUNK_DEFS)
            return rc < 0 ? -1 : mr_reader_fail(r, 0, "chunk %u: index and file disagree", i);
        while ((rc = mr_reader_next_def(r, NULL)) > 0)
            ;
        if (rc < 0)
            return -1;
    }
    if (r->defs_upto < chunk)
        r->defs_upto = chunk;
    if (position(r, (uint32_t)chunk))
        return -1;
    r->chunks_read = chunk;
    r->resync = 1;
    r->from_start = 0;
    return 0;
}
