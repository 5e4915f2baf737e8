/*
 * test_format_seek.c: random access through the footer index (every chunk,
 * in order and shuffled on one reader, across block redefinitions) gives
 * exactly what sequential decoding gives; traces read from and written to
 * pipes decode the same as files; no index means no seeking.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "test_format_common.h"

/* Every event of a sequential read with the chunk it came from. */
typedef struct seq_read {
    uint64_t *digest;
    uint32_t *chunk;
    size_t n;
    int64_t nchunks;
} seq_read;

static void read_all(mr_reader *r, seq_read *s)
{
    size_t cap = 1024;
    s->digest = malloc(cap * sizeof *s->digest);
    s->chunk = malloc(cap * sizeof *s->chunk);
    s->n = 0;
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) == 1) {
        if (s->n == cap) {
            cap *= 2;
            s->digest = realloc(s->digest, cap * sizeof *s->digest);
            s->chunk = realloc(s->chunk, cap * sizeof *s->chunk);
        }
        s->digest[s->n] = ev_digest(&ev);
        s->chunk[s->n++] = (uint32_t)mr_reader_chunks(r) - 1;
    }
    if (rc != 0)
        fail_msg("read: %s", mr_reader_error(r));
}

static const char *write_sample(uint64_t seed, size_t chunk_bytes, int n)
{
    const char *path = tmp_trace_path("seek");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    gen g;
    rng_state = seed;
    gen_trace(&g, fd, chunk_bytes, n, 1, 1);
    gen_free(&g);
    return path;
}

/* After seek(i), the events are those of chunks i.. of a sequential read. */
static void check_from(mr_reader *r, const seq_read *s, uint32_t i)
{
    if (mr_reader_seek(r, i))
        fail_msg("seek to chunk %u: %s", i, mr_reader_error(r));
    size_t k = 0;
    while (k < s->n && s->chunk[k] < i)
        k++;
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) == 1) {
        if (k >= s->n || ev_digest(&ev) != s->digest[k])
            fail_msg("seek to chunk %u: event %zu differs", i, k);
        k++;
    }
    if (rc != 0)
        fail_msg("seek to chunk %u: %s", i, mr_reader_error(r));
    assert_int_equal(k, s->n);
}

static void test_seek_every_chunk(void **state)
{
    (void)state;
    const char *path = write_sample(777, 400, 4000);
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    seq_read s;
    read_all(r, &s);
    int64_t n = mr_reader_chunk_count(r);
    assert_true(n > 30);
    assert_int_equal(n, mr_reader_chunks(r));   /* the index itself is not counted */
    mr_reader_close(r);
    /* A fresh reader per chunk: what a parallel worker does. */
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        r = mr_reader_open(path, &err);
        check_from(r, &s, i);
        mr_reader_close(r);
    }
    /* One reader, seeking back and forth. */
    r = mr_reader_open(path, &err);
    for (int k = 0; k < 40; k++)
        check_from(r, &s, rndn((uint32_t)n));
    assert_int_equal(mr_reader_seek(r, (uint64_t)n), -1);
    assert_non_null(strstr(mr_reader_error(r), "does not exist"));
    check_from(r, &s, 0);
    mr_reader_close(r);
    free(s.digest);
    free(s.chunk);
    unlink(path);
}

/* Feeds a file into a pipe from a child process; returns the read end. */
static int pipe_from_file(const char *path, pid_t *child)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    *child = fork();
    if (*child == 0) {
        close(p[0]);
        size_t n;
        uint8_t *b = slurp(path, &n);
        for (size_t off = 0; off < n;) {
            ssize_t k = write(p[1], b + off, n - off);
            if (k <= 0)
                _exit(1);
            off += (size_t)k;
        }
        _exit(0);
    }
    close(p[1]);
    return p[0];
}

static void test_read_from_pipe(void **state)
{
    (void)state;
    const char *path = write_sample(4242, 1000, 5000);
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    seq_read file, piped;
    read_all(r, &file);
    mr_reader_close(r);
    pid_t child;
    r = mr_reader_open_fd(pipe_from_file(path, &child), &err);
    assert_non_null(r);
    assert_int_equal(mr_reader_chunk_count(r), -1);
    assert_int_equal(mr_reader_seek(r, 0), -1);
    read_all(r, &piped);
    assert_int_equal(piped.n, file.n);
    assert_memory_equal(piped.digest, file.digest, file.n * sizeof *file.digest);
    mr_reader_close(r);
    int status;
    waitpid(child, &status, 0);
    free(file.digest);
    free(file.chunk);
    free(piped.digest);
    free(piped.chunk);
    unlink(path);
}

/* The writer on a pipe (not seekable) writes the same bytes as on a file. */
static void test_write_to_pipe(void **state)
{
    (void)state;
    const char *path = write_sample(99, 700, 3000);
    size_t nfile;
    uint8_t *bytes = slurp(path, &nfile);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t child = fork();
    if (child == 0) {
        close(p[0]);
        gen g;
        rng_state = 99;
        gen_trace(&g, p[1], 700, 3000, 1, 1);
        _exit(0);
    }
    close(p[1]);
    uint8_t *got = malloc(nfile + 1);
    size_t n = 0;
    ssize_t k;
    while ((k = read(p[0], got + n, nfile + 1 - n)) > 0)
        n += (size_t)k;
    close(p[0]);
    int status;
    waitpid(child, &status, 0);
    assert_int_equal(n, nfile);
    assert_memory_equal(got, bytes, nfile);
    free(got);
    free(bytes);
    unlink(path);
}

/* A trace cut short has no index: no seeking, and sequential reading
 * still works. */
static void test_no_index_when_cut(void **state)
{
    (void)state;
    const char *path = write_sample(5, 500, 1000);
    size_t n;
    uint8_t *b = slurp(path, &n);
    write_file(path, b, n - 30);
    char *err = NULL;
    mr_reader *r = mr_reader_open(path, &err);
    assert_int_equal(mr_reader_chunk_count(r), -1);
    assert_int_equal(mr_reader_seek(r, 1), -1);
    mr_event ev;
    int rc;
    while ((rc = mr_next(r, &ev)) == 1)
        ;
    assert_int_equal(rc, -1);
    assert_int_equal(mr_reader_truncated(r), 1);
    mr_reader_close(r);
    free(b);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seek_every_chunk),
        cmocka_unit_test(test_read_from_pipe),
        cmocka_unit_test(test_write_to_pipe),
        cmocka_unit_test(test_no_index_when_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
