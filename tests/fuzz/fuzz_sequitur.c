/*
 * fuzz_sequitur.c: libFuzzer target for stored Sequitur grammars. The
 * input is read twice: as a blob as it is, and as a raw varint body put
 * under the magic and a valid zstd frame (so that the fuzzer reaches the
 * rule parser, not only zstd's checks). An accepted grammar is expanded
 * (bounded) and stored again, and must read back the same. Any crash,
 * hang, leak or sanitizer report is a bug: bad bytes only give an error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "algo/sequitur.h"

/* Counts terminals; stops after a bound so a deep grammar cannot hang. */
static int count_terminal(void *ctx, uint64_t t)
{
    uint64_t *n = ctx;
    (void)t;
    return ++*n >= 100000;
}

static void exercise(const uint8_t *blob, size_t len)
{
    char err[256];
    sq_grammar *g = sq_deserialize(blob, len, err, sizeof err);
    if (!g)
        return;
    uint64_t n = 0;
    sq_expand(g, 0, count_terminal, &n);
    void *again;
    size_t again_len;
    if (sq_serialize(g, &again, &again_len) == 0) {
        sq_grammar *h = sq_deserialize(again, again_len, err, sizeof err);
        if (!h || sq_symbol_count(h) != sq_symbol_count(g) ||
            sq_rule_count(h) != sq_rule_count(g))
            abort();
        sq_grammar_free(h);
        free(again);
    }
    sq_grammar_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    exercise(data, size);
    size_t bound = ZSTD_compressBound(size);
    uint8_t *framed = malloc(4 + bound);
    if (!framed)
        return 0;
    memcpy(framed, "SQG1", 4);
    size_t z = ZSTD_compress(framed + 4, bound, data, size, 1);
    if (!ZSTD_isError(z))
        exercise(framed, 4 + z);
    free(framed);
    return 0;
}
