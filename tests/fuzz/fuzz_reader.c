/*
 * fuzz_reader.c: libFuzzer target for the trace reader. The input bytes
 * become a trace file (an in-memory file from memfd_create, so the reader
 * sees a regular, seekable file and also tries the footer index), read to
 * the end; then a few lookups and seeks. Any crash, hang, leak or
 * sanitizer report is a bug: bad bytes must only ever give an error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "trace_internal.h"

/* Reads a little-endian field of n bytes from the input, 0 past its end. */
static uint64_t take(const uint8_t **p, const uint8_t *end, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n && *p < end; i++)
        v |= (uint64_t)*(*p)++ << (8 * i);
    return v;
}

/* Builds a trace with valid framing around the payloads described by the
 * input (see the top comment). Returns a malloc'd buffer. */
static uint8_t *frame_payloads(const uint8_t *p, const uint8_t *end, size_t *out_len)
{
    size_t cap = 64 + (size_t)(end - p) * 2 + 4096, len = 0;
    uint8_t *out = malloc(cap);
    mr_file_header_encode(out);
    len = MR_FILE_HEADER_LEN;
    for (uint32_t seq = 0; p < end && seq < 64; seq++) {
        mr_frame f = { 0 };
        f.kind = (uint8_t)take(&p, end, 1);
        f.time = take(&p, end, 2);
        f.tid = (uint32_t)take(&p, end, 1);
        f.nrecords = (uint32_t)take(&p, end, 2);
        size_t n = (size_t)take(&p, end, 2);
        if (n > (size_t)(end - p))
            n = (size_t)(end - p);
        size_t bound = ZSTD_compressBound(n);
        if (len + MR_FRAME_LEN + bound > cap) {
            cap = (len + MR_FRAME_LEN + bound) * 2;
            out = realloc(out, cap);
        }
        ZSTD_CCtx *c = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
        ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
        size_t z = ZSTD_compress2(c, out + len + MR_FRAME_LEN, bound, p, n);
        ZSTD_freeCCtx(c);
        if (ZSTD_isError(z))
            abort();
        p += n;
        f.raw_size = (uint32_t)n;
        f.comp_size = (uint32_t)z;
        f.seq = seq;
        f.zcrc = mr_zhdr_crc(out + len + MR_FRAME_LEN, z);
        mr_frame_encode(&f, out + len);
        len += MR_FRAME_LEN + z;
    }
    *out_len = len;
    return out;
}

/* Reads every event; touches what each one points to. */
static void drain(mr_reader *r)
{
    mr_event ev;
    uint64_t sink = 0;
    for (int n = 0; n < 10000000 && mr_next(r, &ev) == 1; n++) {
        sink += ev.time;
        if (ev.kind == MR_EV_EXEC)
            for (uint32_t i = 0; i < ev.u.exec.naccesses; i++)
                sink += ev.u.exec.accesses[i].addr + ev.u.exec.accesses[i].value +
                        (ev.u.exec.repeat > 1 ? ev.u.exec.strides[i] : 0);
        if (ev.kind == MR_EV_BLOCK_DEF)
            sink += mr_reader_symbol(r, ev.u.block_def->addr) != NULL;
        if (ev.kind == MR_EV_HEAP && ev.u.heap.stack)
            sink += ev.u.heap.stack->depth;
    }
    if (sink == 42)   /* keeps the loads from being optimised away */
        (void)mr_reader_error(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    uint8_t *framed = NULL;
    if (size > 0 && data[0] == 'S') {
        framed = frame_payloads(data + 1, data + size, &size);
        data = framed;
    }
    for (size_t off = 0; off < size;) {
        ssize_t k = write(fd, data + off, size - off);
        if (k <= 0)
            abort();
        off += (size_t)k;
    }
    free(framed);
    lseek(fd, 0, SEEK_SET);
    char *err = NULL;
    mr_reader *r = mr_reader_open_fd(fd, &err);
    if (!r) {
        if (!err)
            abort();   /* a failed open must say why */
        mr_free_error(err);
        return 0;
    }
    /* Every way of delivering runs of repeats, by the input's size. */
    static const int modes[] = { MR_BATCH_OFF, MR_BATCH_REPEATS, MR_BATCH_PER_INSTRUCTION };
    mr_reader_batch(r, modes[size % 3]);
    drain(r);
    if (mr_next(r, &(mr_event){ 0 }) == -1 && !mr_reader_error(r))
        abort();   /* an error must come with a message */
    int64_t n = mr_reader_chunk_count(r);
    if (n > 0) {
        if (mr_reader_seek(r, (uint64_t)n - 1) == 0)
            drain(r);
        if (mr_reader_seek(r, (uint64_t)n / 2) == 0)
            drain(r);
    }
    (void)mr_reader_process(r);
    (void)mr_reader_block(r, 0);
    (void)mr_reader_stack(r, 1);
    (void)mr_reader_symbol(r, 0x400000);
    mr_reader_close(r);
    return 0;
}
