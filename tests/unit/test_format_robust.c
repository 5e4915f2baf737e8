/*
 * test_format_robust.c: bad input never crashes the reader. A trace cut at
 * every byte offset yields every complete chunk's events then a truncation;
 * random byte flips give a clear error; wrong version, not a trace, empty
 * and missing files are named as such; a writer that cannot write reports
 * it once and leaves the chunks written before readable.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/resource.h>
#include <cmocka.h>
#include "test_format_common.h"
#include "trace_internal.h"

/* A small multi-chunk trace in memory, with for each event delivered the
 * byte offset at which its chunk ends. */
typedef struct sample {
    uint8_t *bytes;
    size_t size;
    uint64_t *digest, *chunk_end;
    size_t nev;
} sample;

static void make_sample(sample *s, int nevents, size_t chunk_bytes)
{
    const char *path = tmp_trace_path("sample");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    gen g;
    rng_state = 12345;
    gen_trace(&g, fd, chunk_bytes, nevents, 1, 1);
    gen_free(&g);
    s->bytes = slurp(path, &s->size);
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    s->digest = malloc(100000 * sizeof *s->digest);
    s->chunk_end = malloc(100000 * sizeof *s->chunk_end);
    s->nev = 0;
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) == 1) {
        assert_true(s->nev < 100000);
        s->digest[s->nev] = ev_digest(&ev);
        s->chunk_end[s->nev++] = mr_reader_bytes(r);
    }
    assert_int_equal(rc, 0);
    mr_reader_close(r);
    unlink(path);
}

static void free_sample(sample *s)
{
    free(s->bytes);
    free(s->digest);
    free(s->chunk_end);
}

static void test_cut_everywhere(void **state)
{
    (void)state;
    sample s;
    make_sample(&s, 300, 256);
    assert_true(s.size > 2000);
    const char *path = tmp_trace_path("cut");
    for (size_t len = 0; len <= s.size; len++) {
        write_file(path, s.bytes, len);
        char *err = NULL;
        mr_reader *r = mr_reader_open(path, &err);
        if (!r) {
            assert_true(len < 20);
            assert_non_null(err);
            if (len == 0)
                assert_string_equal(err, "empty file");
            else
                assert_non_null(strstr(err, "truncated"));
            mr_free_error(err);
            continue;
        }
        size_t want = 0;
        while (want < s.nev && s.chunk_end[want] <= len)
            want++;
        size_t n = 0;
        mr_event ev;
        int rc;
        while ((rc = mr_next(r, &ev)) == 1) {
            assert_true(n < want);
            assert_true(ev_digest(&ev) == s.digest[n]);
            n++;
        }
        if (n != want)
            fail_msg("cut at %zu: %zu events, want %zu (%s)", len, n, want, mr_reader_error(r));
        if (len == s.size) {
            assert_int_equal(rc, 0);
            assert_int_equal(mr_reader_truncated(r), 0);
        } else {
            assert_int_equal(rc, -1);
            if (!mr_reader_truncated(r))
                fail_msg("cut at %zu: not reported truncated: %s", len, mr_reader_error(r));
            assert_non_null(strstr(mr_reader_error(r), "truncated"));
            assert_int_equal(mr_reader_chunk_count(r), -1);
        }
        mr_reader_close(r);
    }
    unlink(path);
    free_sample(&s);
}

static void test_byte_flips(void **state)
{
    (void)state;
    sample s;
    make_sample(&s, 200, 512);
    const char *path = tmp_trace_path("flip");
    uint8_t *copy = malloc(s.size);
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(copy, s.bytes, s.size);
        int nflips = 1 + (int)rndn(3);
        uint32_t at[3];
        for (int k = 0; k < nflips; k++) {
            at[k] = rndn((uint32_t)s.size);
            copy[at[k]] ^= (uint8_t)(1u << rndn(8));
        }
        if (!memcmp(copy, s.bytes, s.size))
            continue;
        write_file(path, copy, s.size);
        char *err = NULL;
        mr_reader *r = mr_reader_open(path, &err);
        if (!r) {
            assert_non_null(err);
            mr_free_error(err);
            continue;
        }
        mr_event ev;
        int rc;
        size_t n = 0, same = 0;
        while ((rc = mr_next(r, &ev)) == 1) {
            same += n < s.nev && ev_digest(&ev) == s.digest[n];
            n++;
        }
        /* Every byte is under some checksum: a flip is noticed, unless it
         * hit one of the few bits of a compressed block zstd's decoder
         * never reads (the content checksum then proves the events the
         * same). */
        if (rc != -1 && (n != s.nev || same != n))
            fail_msg("flip not detected (iteration %d, %zu events, offset %u of %zu)",
                     iter, n, at[0], s.size);
        if (rc != -1) {
            mr_reader_close(r);
            continue;
        }
        assert_non_null(mr_reader_error(r));
        assert_true(strlen(mr_reader_error(r)) > 5);
        mr_reader_close(r);
    }
    free(copy);
    unlink(path);
    free_sample(&s);
}

static char *open_error(const void *bytes, size_t n)
{
    const char *path = tmp_trace_path("bad");
    write_file(path, bytes, n);
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    assert_null(r);
    unlink(path);
    return err;
}

/* Sets the major version of a trace's file header, with a checksum that
 * matches (CRC-32 as SPEC.md defines it). */
static void set_version(uint8_t *h, uint16_t major)
{
    h[8] = (uint8_t)major;
    h[9] = (uint8_t)(major >> 8);
    uint32_t c = 0xffffffffu;
    for (int i = 0; i < 16; i++) {
        c ^= h[i];
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    c ^= 0xffffffffu;
    for (int i = 0; i < 4; i++)
        h[16 + i] = (uint8_t)(c >> (8 * i));
}

static void test_bad_files(void **state)
{
    (void)state;
    char *err = open_error("", 0);
    assert_string_equal(err, "empty file");
    mr_free_error(err);
    err = open_error("hello, world, this is text\n", 27);
    assert_string_equal(err, "not a memrec trace");
    mr_free_error(err);
    err = open_error("\x89MR", 3);   /* a prefix of the magic: cut short */
    assert_non_null(strstr(err, "truncated"));
    mr_free_error(err);

    sample s;
    make_sample(&s, 10, 0);
    /* Versions 1 and 4 with a correct header checksum: refused (4 is newer
     * than this reader; 2 changed what VHIT does to the stride, so 1 cannot
     * be read either). */
    set_version(s.bytes, 4);
    err = open_error(s.bytes, s.size);
    assert_string_equal(err, "unsupported trace format version 4");
    mr_free_error(err);
    set_version(s.bytes, 1);
    err = open_error(s.bytes, s.size);
    assert_string_equal(err, "unsupported trace format version 1");
    mr_free_error(err);
    free_sample(&s);

    mr_reader *r = mr_reader_open("/nonexistent/trace.mrt", &err);
    assert_null(r);
    assert_string_equal(err, strerror(ENOENT));
    mr_free_error(err);
}

static void test_writer_dev_full(void **state)
{
    (void)state;
    char *err = NULL;
    mr_writer *w = mr_writer_open("/dev/full", NULL, &err);
    assert_null(w);
    assert_non_null(err);
    assert_non_null(strstr(err, strerror(ENOSPC)));
    mr_free_error(err);
}

static void test_writer_bad_fd(void **state)
{
    (void)state;
    char *err = NULL;
    assert_null(mr_writer_open_fd(-1, NULL, &err));
    assert_non_null(strstr(err, strerror(EBADF)));
    mr_free_error(err);
}

/* SIGPIPE keeps its default (deadly) disposition: the writer must still
 * come back with EPIPE, with or without its background thread (whose
 * failure shows at a later call), with or without modelling workers. */
static void writer_broken_pipe(int background, int workers)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    char *err = NULL;
    mr_writer *w = mr_writer_open_fd(p[1], &(mr_writer_options){ .chunk_bytes = 256, .background = background, .workers = workers }, &err);
    assert_non_null(w);
    close(p[0]);
    mr_instr_def in = { 0x1000, 4 };
    mr_access_def ac = { 0, MR_STORE, 0, 8 };
    mr_exit_def ex = { 1, 1, MR_JUMP_BORING };
    mr_block_def b = { 0, 0x1000, 1, &in, 1, &ac, 1, &ex };
    assert_int_equal(mr_write_block_def(w, &b), 0);
    int failed_at = -1;
    for (int i = 0; i < 100000 && failed_at < 0; i++) {
        uint64_t a = rnd();
        if (mr_write_exec(w, 0, 0, &a, NULL) < 0)
            failed_at = i;
    }
    assert_true(failed_at >= 0);
    assert_non_null(mr_writer_error(w));
    assert_non_null(strstr(mr_writer_error(w), strerror(EPIPE)));
    uint64_t a = 1;
    assert_int_equal(mr_write_exec(w, 0, 0, &a, NULL), -1);   /* sticky */
    assert_int_equal(mr_write_mark(w, "x"), -1);
    assert_int_equal(mr_writer_close(w, NULL, &err), -1);
    assert_non_null(strstr(err, strerror(EPIPE)));
    mr_free_error(err);
}

static void test_writer_broken_pipe(void **state)
{
    (void)state;
    writer_broken_pipe(0, 0);
    writer_broken_pipe(1, 0);
    writer_broken_pipe(0, 2);
}

/* A file size limit stops the writer halfway: what was written is a
 * readable, truncated trace. SIGXFSZ keeps its default action (ending the
 * process): the writer must turn it into an error itself. With modelling
 * workers too. */
static void writer_file_limit(int workers)
{
    signal(SIGXFSZ, SIG_DFL);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 5000;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    const char *path = tmp_trace_path("limit");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, &(mr_writer_options){ .chunk_bytes = 256, .workers = workers },
                                  &err);
    assert_non_null(w);
    mr_instr_def in = { 0x1000, 4 };
    mr_access_def ac = { 0, MR_LOAD, 0, 8 };
    mr_exit_def ex = { 1, 1, MR_JUMP_BORING };
    mr_block_def b = { 0, 0x1000, 1, &in, 1, &ac, 1, &ex };
    mr_write_block_def(w, &b);
    uint64_t written = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t a = rnd();
        if (mr_write_exec(w, 0, 0, &a, NULL) < 0)
            break;
        written++;
    }
    assert_non_null(mr_writer_error(w));
    assert_int_equal(mr_writer_close(w, NULL, &err), -1);
    mr_free_error(err);
    setrlimit(RLIMIT_FSIZE, &old);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    int rc;
    uint64_t execs = 0;
    while ((rc = mr_next(r, &ev)) == 1)
        execs += ev.kind == MR_EV_EXEC;
    assert_int_equal(rc, -1);
    assert_int_equal(mr_reader_truncated(r), 1);
    assert_true(execs > 100 && execs <= written);
    mr_reader_close(r);
    unlink(path);
}

static void test_writer_file_limit(void **state)
{
    (void)state;
    writer_file_limit(0);
    writer_file_limit(2);
}

/* A new file whose header cannot be written is removed, not left empty;
 * a device that is full stays what it was. */
static void test_writer_no_stub(void **state)
{
    (void)state;
    signal(SIGXFSZ, SIG_DFL);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 10;   /* the file header has 20 bytes */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    const char *path = tmp_trace_path("stub");
    unlink(path);
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    assert_null(w);
    assert_non_null(strstr(err, strerror(EFBIG)));
    mr_free_error(err);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(errno, ENOENT);
    assert_null(mr_writer_open("/dev/full", NULL, &err));
    mr_free_error(err);
    assert_int_equal(access("/dev/full", W_OK), 0);
}

/* Misuse is an error of the writer, not a corrupt trace. */
static void test_writer_misuse(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("misuse");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    uint64_t a = 0;
    assert_int_equal(mr_write_exec(w, 5, 0, &a, NULL), -1);
    assert_non_null(strstr(mr_writer_error(w), "undefined block 5"));
    assert_int_equal(mr_writer_close(w, NULL, &err), -1);
    mr_free_error(err);
    /* What was written before the misuse is still a readable trace. */
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    assert_int_equal(mr_next(r, &ev), -1);
    assert_int_equal(mr_reader_truncated(r), 1);
    mr_reader_close(r);
    unlink(path);
}

/* An edit of a chunk's payload: returns the new payload (malloc'd) and
 * its size in *n. */
typedef uint8_t *(*payload_edit)(const uint8_t *raw, size_t *n);

/* Re-frames the last EVENTS chunk of a trace after editing its payload,
 * with every checksum correct, and points the trailer at the moved index. */
static size_t forge_last_events(const uint8_t *in, size_t n, uint8_t *out, payload_edit edit)
{
    size_t at = MR_FILE_HEADER_LEN, last = 0, o;
    mr_frame f;
    while (at + MR_FRAME_LEN <= n && !mr_frame_decode(in + at, &f) && f.kind != MR_CHUNK_INDEX) {
        if (f.kind == MR_CHUNK_EVENTS)
            last = at;
        at += MR_FRAME_LEN + f.comp_size;
    }
    assert_true(last > 0);
    memcpy(out, in, last);
    assert_null(mr_frame_decode(in + last, &f));
    uint8_t *raw = malloc(f.raw_size);
    assert_int_equal(ZSTD_decompress(raw, f.raw_size, in + last + MR_FRAME_LEN, f.comp_size),
                     f.raw_size);
    size_t raw_size = f.raw_size;
    uint8_t *edited = edit(raw, &raw_size);
    free(raw);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    o = last + MR_FRAME_LEN;
    size_t z = ZSTD_compress2(c, out + o, ZSTD_compressBound(raw_size), edited, raw_size);
    ZSTD_freeCCtx(c);
    free(edited);
    assert_false(ZSTD_isError(z));
    f.raw_size = (uint32_t)raw_size;
    f.comp_size = (uint32_t)z;
    f.zcrc = mr_zhdr_crc(out + o, z);
    mr_frame_encode(&f, out + last);
    o += z;
    size_t index_len = n - at - MR_TRAILER_LEN;   /* INDEX chunk, unchanged */
    uint64_t index_offset = o;
    memcpy(out + o, in + at, index_len);
    o += index_len;
    memcpy(out + o, in + n - MR_TRAILER_LEN, MR_TRAILER_LEN);
    mr_le64(out + o, index_offset);
    mr_le32(out + o + 12, mr_crc32(out + o, 12));
    return o + MR_TRAILER_LEN;
}

/* Adds one to the last byte of a payload: the END record's thread total. */
static uint8_t *bump_threads(const uint8_t *raw, size_t *n)
{
    uint8_t *p = malloc(*n);
    memcpy(p, raw, *n);
    p[*n - 1]++;   /* threads: a one-byte varint */
    return p;
}

/* Totals in the end record that disagree with the events are corruption,
 * even when every checksum holds. */
static void test_end_totals_checked(void **state)
{
    (void)state;
    sample s;
    make_sample(&s, 300, 0);
    uint8_t *forged = malloc(s.size + 4096);
    size_t n = forge_last_events(s.bytes, s.size, forged, bump_threads);
    const char *path = tmp_trace_path("forged");
    write_file(path, forged, n);
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    int rc;
    size_t k = 0;
    while ((rc = mr_next(r, &ev)) == 1)
        assert_true(ev_digest(&ev) == s.digest[k++]);
    assert_int_equal(rc, -1);
    assert_int_equal(k, s.nev - 1);   /* everything but the END event */
    assert_non_null(strstr(mr_reader_error(r), "end record totals do not match the trace (threads"));
    assert_int_equal(mr_reader_truncated(r), 0);
    mr_reader_close(r);
    /* The forged file is otherwise sound: a seek past the start skips the check. */
    r = mr_reader_open(path, &err);
    assert_true(mr_reader_chunk_count(r) >= 2);
    assert_int_equal(mr_reader_seek(r, 1), 0);
    while ((rc = mr_next(r, &ev)) == 1)
        ;
    assert_int_equal(rc, 0);
    mr_reader_close(r);
    unlink(path);
    free(forged);
    free_sample(&s);
}

/* Replaces an EVENTS payload's DELTA stream by a varint group that claims
 * 256 deltas (SPEC.md 6.7 allows 128), all there. */
static uint8_t *oversized_group(const uint8_t *raw, size_t *n)
{
    const uint8_t *p = raw, *end = raw + *n;
    int bad = 0;
    uint64_t nstreams = mr_get_varint(&p, &bad), len[64], at = 0;
    assert_true(!bad && nstreams >= MR_NSTREAMS && nstreams <= 64);
    for (uint64_t i = 0; i < nstreams; i++)
        len[i] = mr_get_varint(&p, &bad);
    const uint8_t *streams = p;
    uint8_t delta[2 + 256] = { 255, 255 };   /* kind: varints; n - 1 */
    uint8_t *out = malloc(*n + sizeof delta + 16), *o = out;
    o = mr_put_varint(o, nstreams);
    for (uint64_t i = 0; i < nstreams; i++)
        o = mr_put_varint(o, i == MR_S_DELTA ? sizeof delta : len[i]);
    for (uint64_t i = 0; i < nstreams; i++) {
        if (i == MR_S_DELTA) {
            memcpy(o, delta, sizeof delta);
            o += sizeof delta;
        } else {
            memcpy(o, streams + at, len[i]);
            o += len[i];
        }
        at += len[i];
    }
    assert_true(streams + at == end);
    *n = (size_t)(o - out);
    return out;
}

/* A delta group longer than a group may be is corruption, found before
 * anything is unpacked (the reader's buffer holds 128). */
static void test_oversized_delta_group(void **state)
{
    (void)state;
    const char *path = tmp_trace_path("bigroup");
    char *err = NULL;
    mr_writer *w = mr_writer_open(path, NULL, &err);
    mr_instr_def in = { 0x1000, 4 };
    mr_access_def ac = { 0, MR_LOAD, 0, 8 };
    mr_exit_def ex = { 1, 1, MR_JUMP_BORING };
    mr_block_def b = { 0, 0x1000, 1, &in, 1, &ac, 1, &ex };
    assert_int_equal(mr_write_block_def(w, &b), 0);
    for (int i = 0; i < 1000; i++) {
        uint64_t a = rnd();
        assert_int_equal(mr_write_exec(w, 0, 0, &a, NULL), 0);
    }
    assert_int_equal(mr_writer_close(w, &(mr_end){ MR_END_EXIT, 0, 0, { 0 } }, &err), 0);
    size_t size;
    uint8_t *bytes = slurp(path, &size);
    uint8_t *forged = malloc(size + 4096);
    size_t n = forge_last_events(bytes, size, forged, oversized_group);
    write_file(path, forged, n);
    mr_reader *r = mr_reader_open(path, &err);
    assert_non_null(r);
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) == 1)
        ;
    assert_int_equal(rc, -1);
    assert_non_null(strstr(mr_reader_error(r), "bad delta group"));
    mr_reader_close(r);
    unlink(path);
    free(forged);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_everywhere),
        cmocka_unit_test(test_byte_flips),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_end_totals_checked),
        cmocka_unit_test(test_writer_dev_full),
        cmocka_unit_test(test_writer_bad_fd),
        cmocka_unit_test(test_writer_broken_pipe),
        cmocka_unit_test(test_writer_file_limit),
        cmocka_unit_test(test_writer_no_stub),
        cmocka_unit_test(test_writer_misuse),
        cmocka_unit_test(test_oversized_delta_group),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
