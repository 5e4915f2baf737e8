/*
 * fuzz_twpp.c: libFuzzer target for .twpp files. The input is written to
 * a temporary file and read as trace-twpp's queries read it: the header,
 * every function's block, the DCG, the whole expansion, TWPP+'s
 * dictionary, load index and every load point's edges. Any crash, hang,
 * leak or sanitizer report is a bug: bad bytes only give an error. The
 * longest compacted trace accepted is lowered (twpp_read_limit) so that a
 * header claiming billions of timestamps is refused before libFuzzer's
 * malloc limit, as a real file of that claim would fail for lack of memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "twpp/edges.h"
#include "twpp/file.h"
#include "twpp/timestamps.h"

static char path[] = "/tmp/fuzz_twpp_XXXXXX";
static int fd = -1;

/* Counts expanded blocks; stops after a bound so a deep DCG cannot hang. */
static int count_block(void *ctx, uint32_t s)
{
    uint64_t *n = ctx;
    (void)s;
    return ++*n >= 1000000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    if (fd < 0 && (fd = mkstemp(path)) < 0)
        abort();
    twpp_read_limit = 1 << 20;
    if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    twpp_file *f = twpp_open(path, err, sizeof err);
    if (!f)
        return 0;
    const twpp_model *m = twpp_file_model(f);
    for (uint32_t i = 0; i < m->nfunctions; i++) {    /* as series, then whole */
        twpp_load_function_series(f, i, err, sizeof err);
        twpp_load_function(f, i, err, sizeof err);
    }
    uint64_t n = 0;
    twpp_expand(f, count_block, &n, err, sizeof err);
    if (twpp_load_points(f, err, sizeof err) == 0)
        for (uint32_t g = 0; g < twpp_point_count(f); g++) {
            twpp_edge_iter *it = twpp_file_point(f, g)->loads ? twpp_edges_open(f, g, err, sizeof err) : NULL;
            twpp_edge e;
            for (uint64_t k = 0; it && k < 1000000 && twpp_edges_next(it, &e) > 0; k++)
                ;
            twpp_edges_close(it);
        }
    twpp_close(f);
    return 0;
}
