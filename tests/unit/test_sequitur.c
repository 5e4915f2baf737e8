/*
 * test_sequitur.c: the Sequitur library. Hand-worked grammars in the
 * original implementation's numbering; the invariants (digram uniqueness,
 * rule utility, expansion equal to the input) after many random streams;
 * the stored form read back, and corrupt stored forms refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "algo/sequitur.h"
#include "algo/sq_internal.h"

/* Builds the grammar of a string of characters. */
static sq_grammar *grammar_of(const char *s, sequitur **builder)
{
    sequitur *b = sq_new();
    assert_non_null(b);
    for (const char *p = s; *p; p++)
        assert_int_equal(sq_append(b, (unsigned char)*p), 0);
    char why[200];
    if (sq_check(b, why, sizeof why) != 0)
        fail_msg("%s: %s", s, why);
    sq_grammar *g = sq_finish(b);
    assert_non_null(g);
    if (builder)
        *builder = b;
    else
        sq_free(b);
    return g;
}

/* The grammar as text, rules separated by "; ", terminals as characters
 * and rules as their numbers, as the original's -p output reads. */
static void render(const sq_grammar *g, char *out, size_t cap)
{
    size_t at = 0;
    for (uint32_t r = 0; r < sq_rule_count(g); r++) {
        at += (size_t)snprintf(out + at, cap - at, "%s%u ->", r ? "; " : "", r);
        const uint64_t *body = sq_rule_body(g, r);
        for (uint32_t i = 0; i < sq_rule_length(g, r); i++) {
            if (sq_is_rule(body[i]))
                at += (size_t)snprintf(out + at, cap - at, " %llu",
                                       (unsigned long long)sq_code_value(body[i]));
            else
                at += (size_t)snprintf(out + at, cap - at, " %c", (char)sq_code_value(body[i]));
        }
    }
}

static void expect_grammar(const char *input, const char *expected)
{
    sq_grammar *g = grammar_of(input, NULL);
    char text[1024];
    render(g, text, sizeof text);
    assert_string_equal(text, expected);
    /* The expansion of rule 0 is the input. */
    uint64_t out[256];
    int64_t n = sq_expand_array(g, 0, out, 256);
    assert_int_equal(n, strlen(input));
    for (int64_t i = 0; i < n; i++)
        assert_int_equal(out[i], (unsigned char)input[i]);
    assert_int_equal(sq_expanded_length(g, 0), strlen(input));
    sq_grammar_free(g);
}

static void hand_worked(void **state)
{
    (void)state;
    expect_grammar("abcdbcabcdbc", "0 -> 1 1; 1 -> a 2 d 2; 2 -> b c");
    expect_grammar("aaa", "0 -> a a a");
    expect_grammar("aaaa", "0 -> 1 1; 1 -> a a");
    expect_grammar("abbbabcbb", "0 -> 1 2 1 c 2; 1 -> a b; 2 -> b b");
    expect_grammar("abcabc", "0 -> 1 1; 1 -> a b c");
    expect_grammar("abab", "0 -> 1 1; 1 -> a b");
    expect_grammar("a", "0 -> a");
    expect_grammar("", "0 ->");
    /* Paper's example: a rule reused, then one made obsolete and inlined. */
    expect_grammar("abcdbc", "0 -> a 1 d 1; 1 -> b c");
}

static void empty_stream(void **state)
{
    (void)state;
    sq_grammar *g = grammar_of("", NULL);
    assert_int_equal(sq_rule_count(g), 1);
    assert_int_equal(sq_symbol_count(g), 0);
    assert_int_equal(sq_expanded_length(g, 0), 0);
    uint64_t out[1];
    assert_int_equal(sq_expand_array(g, 0, out, 0), 0);
    sq_grammar_free(g);
}

static void too_large_symbol(void **state)
{
    (void)state;
    sequitur *b = sq_new();
    assert_int_equal(sq_append(b, SQ_TERMINAL_LIMIT), -1);
    assert_int_equal(sq_append(b, SQ_TERMINAL_LIMIT - 1), 0);
    assert_int_equal(sq_input_length(b), 1);
    sq_free(b);
}

/* xorshift: a reproducible stream. */
static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A stream with structure: repeated phrases, runs and noise. */
static size_t random_stream(uint64_t *v, size_t cap)
{
    size_t n = 1 + rnd() % cap;
    uint64_t alphabet = 1 + rnd() % 6, phrase[16];
    size_t plen = 1 + rnd() % 16;
    for (size_t i = 0; i < plen; i++)
        phrase[i] = rnd() % alphabet;
    size_t at = 0;
    while (at < n) {
        uint64_t kind = rnd() % 10;
        if (kind < 6)
            for (size_t i = 0; i < plen && at < n; i++)
                v[at++] = phrase[i];
        else if (kind < 8)
            for (uint64_t r = rnd() % 7, s = rnd() % alphabet; r-- && at < n;)
                v[at++] = s;
        else
            v[at++] = rnd() % (alphabet + 2);
    }
    return n;
}

static void invariants_random(void **state)
{
    (void)state;
    enum { CAP = 3000 };
    uint64_t *in = malloc(CAP * sizeof *in), *out = malloc(CAP * sizeof *out);
    char why[200];
    for (int round = 0; round < 400; round++) {
        size_t n = random_stream(in, CAP);
        sequitur *b = sq_new();
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(sq_append(b, in[i]), 0);
            /* Check as it grows, not only at the end. */
            if (round < 40 && sq_check(b, why, sizeof why) != 0)
                fail_msg("round %d after %zu symbols: %s", round, i + 1, why);
        }
        if (sq_check(b, why, sizeof why) != 0)
            fail_msg("round %d: %s", round, why);
        sq_grammar *g = sq_finish(b);
        assert_int_equal(sq_expand_array(g, 0, out, CAP), n);
        assert_memory_equal(in, out, n * sizeof *in);
        /* The iterator walks the same expansion. */
        sq_iter *it = sq_iter_new(g, 0);
        uint64_t t;
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(sq_iter_next(it, &t), 1);
            assert_int_equal(t, in[i]);
        }
        assert_int_equal(sq_iter_next(it, &t), 0);
        sq_iter_free(it);
        sq_stats st;
        sq_builder_stats(b, &st);
        assert_int_equal(st.symbols, sq_symbol_count(g));
        assert_int_equal(st.rules, sq_rule_count(g));
        sq_grammar_free(g);
        sq_free(b);
    }
    free(in);
    free(out);
}

/* A long stream of few distinct digrams: grows the table and the pool. */
static void long_stream(void **state)
{
    (void)state;
    enum { N = 200000 };
    sequitur *b = sq_new();
    uint64_t x = 1;
    for (uint64_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        assert_int_equal(sq_append(b, (x >> 60) + (i & 1) * 1000003), 0);
    }
    char why[200];
    if (sq_check(b, why, sizeof why) != 0)
        fail_msg("%s", why);
    sq_grammar *g = sq_finish(b);
    assert_int_equal(sq_expanded_length(g, 0), N);
    sq_grammar_free(g);
    sq_free(b);
}

/* A stream with little repetition: its pool and table pass BIG_BYTES
 * (sequitur.c), so they move from the heap to their own mappings and then
 * grow by moving pages (mremap); the grammar must survive every move. */
static void large_grammar(void **state)
{
    (void)state;
    enum { N = 1200000 };
    uint64_t *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    sequitur *b = sq_new();
    for (size_t i = 0; i < N; i++) {
        in[i] = rnd() >> 44;    /* 2^20 values: few digrams repeat */
        assert_int_equal(sq_append(b, in[i]), 0);
    }
    char why[200];
    if (sq_check(b, why, sizeof why) != 0)
        fail_msg("%s", why);
    sq_stats st;
    sq_builder_stats(b, &st);
    assert_true(st.table_bytes >= ((size_t)8 << 20));   /* grew twice past 4 MiB */
    assert_true(st.symbols >= N / 2);
    sq_grammar *g = sq_finish(b);
    assert_int_equal(sq_expand_array(g, 0, out, N), N);
    assert_memory_equal(in, out, N * sizeof *in);
    sq_grammar_free(g);
    sq_free(b);
    free(in);
    free(out);
}

/* sq_finish_free gives the grammar sq_finish gives (the same stored
 * bytes); a large stream takes the big table's path. */
static void finish_free_same(void **state)
{
    (void)state;
    enum { CAP = 3000, LARGE = 700000 };
    uint64_t *in = malloc(LARGE * sizeof *in);
    for (int round = 0; round < 41; round++) {
        size_t n = round < 40 ? random_stream(in, CAP) : LARGE;
        sequitur *a = sq_new(), *b = sq_new();
        for (size_t i = 0; i < n; i++) {
            if (round == 40)
                in[i] = rnd() >> 44;
            assert_int_equal(sq_append(a, in[i]), 0);
            assert_int_equal(sq_append(b, in[i]), 0);
        }
        sq_grammar *ga = sq_finish(a), *gb = sq_finish_free(b);
        assert_non_null(ga);
        assert_non_null(gb);
        void *ba, *bb;
        size_t la, lb;
        assert_int_equal(sq_serialize(ga, &ba, &la), 0);
        assert_int_equal(sq_serialize(gb, &bb, &lb), 0);
        assert_int_equal(la, lb);
        assert_memory_equal(ba, bb, la);
        free(ba);
        free(bb);
        sq_grammar_free(ga);
        sq_grammar_free(gb);
        sq_free(a);
    }
    assert_null(sq_finish_free(NULL));
    free(in);
}

/* Whether builders a and b hold the same grammar (the same stored bytes);
 * frees both. */
static int same_grammar_then_free(sequitur *a, sequitur *b)
{
    sq_grammar *ga = sq_finish(a), *gb = sq_finish(b);
    void *ba, *bb;
    size_t la, lb;
    assert_int_equal(sq_serialize(ga, &ba, &la), 0);
    assert_int_equal(sq_serialize(gb, &bb, &lb), 0);
    int same = la == lb && memcmp(ba, bb, la) == 0;
    free(ba);
    free(bb);
    sq_grammar_free(ga);
    sq_grammar_free(gb);
    sq_free(a);
    sq_free(b);
    return same;
}

/* An injective relabelling that keeps 0 (sq_relabel): odd multipliers
 * are invertible modulo 2^k, so v * 0x9E37 + v<<20 stays one-to-one on
 * the small values the random streams use, and 0 stays 0. */
static uint64_t scramble(void *ctx, uint64_t v)
{
    (void)ctx;
    return v * 0x9E37 + (v << 20);
}

/* Refuses every non-zero terminal (a label past the limit). */
static uint64_t too_wide(void *ctx, uint64_t v)
{
    (void)ctx;
    return v ? SQ_TERMINAL_LIMIT : 0;
}

/* Relabelled part way through, a builder goes on to the grammar the
 * relabelled input builds from the start: the same rules, the same bodies
 * with terminals renamed, the same stored bytes, and its invariants hold
 * (the table was rebuilt under the new digrams). Random streams with
 * runs and repeats, relabelled at a random point; a refused relabelling
 * changes nothing. */
static void relabel_same_grammar(void **state)
{
    (void)state;
    enum { CAP = 3000 };
    uint64_t *in = malloc(CAP * sizeof *in);
    char why[200];
    for (int round = 0; round < 300; round++) {
        size_t n = random_stream(in, CAP), cut = rnd() % (n + 1);
        sequitur *a = sq_new(), *b = sq_new();
        int nonzero = 0;        /* a terminal other than 0 appended yet */
        for (size_t i = 0; i < n; i++) {
            if (i == cut) {
                assert_int_equal(sq_relabel(a, too_wide, NULL), nonzero ? -1 : 0);
                assert_int_equal(sq_relabel(a, scramble, NULL), 0);
                if (sq_check(a, why, sizeof why) != 0)
                    fail_msg("round %d after relabelling at %zu: %s", round, cut, why);
            }
            assert_int_equal(sq_append(a, i < cut ? in[i] : scramble(NULL, in[i])), 0);
            nonzero |= in[i] != 0;
            assert_int_equal(sq_append(b, scramble(NULL, in[i])), 0);
        }
        if (cut == n)
            assert_int_equal(sq_relabel(a, scramble, NULL), 0);
        if (sq_check(a, why, sizeof why) != 0)
            fail_msg("round %d: %s", round, why);
        if (!same_grammar_then_free(a, b))
            fail_msg("round %d (%zu symbols, relabelled at %zu): grammars differ", round, n, cut);
    }
    free(in);
}

/* A loop-like stream: a body of `len` symbols repeated with variations
 * (a symbol changed now and then, a nested inner loop run a varying number
 * of times, runs of one symbol), as an instruction stream repeats. */
static size_t loop_stream(uint64_t *v, size_t cap)
{
    size_t n = 1 + rnd() % cap, len = 2 + rnd() % 40, inner = 1 + rnd() % 6;
    uint64_t alphabet = 2 + rnd() % 30, body[48];
    for (size_t i = 0; i < len; i++)
        body[i] = rnd() % alphabet;
    size_t at = 0;
    while (at < n) {
        for (size_t i = 0; i < len && at < n; i++) {
            uint64_t k = rnd() % 100;
            if (k < 3)
                v[at++] = rnd() % (alphabet + 3);          /* noise */
            else if (k < 6)
                for (uint64_t r = 2 + rnd() % 4; r-- && at < n;)
                    v[at++] = body[i];                      /* a run */
            else if (k < 12 && i + inner <= len)
                for (uint64_t r = 1 + rnd() % 4; r--;)      /* inner loop */
                    for (size_t j = 0; j < inner && at < n; j++)
                        v[at++] = body[i + j];
            else
                v[at++] = body[i];
        }
    }
    return n;
}

/* The shortcuts (extend_rule, substitute's quiet case) build the grammar
 * the original's steps build: each stream through a plain builder
 * (sq_plain_internal) and a default one gives the same stored bytes, and
 * the default one's invariants hold as it grows; over all streams
 * extend_rule was taken (it counts in shortcuts). */
static void shortcut_same_grammar(void **state)
{
    (void)state;
    enum { CAP = 4000 };
    uint64_t *in = malloc(CAP * sizeof *in), shortcuts = 0;
    char why[200];
    for (int round = 0; round < 600; round++) {
        size_t n = round % 2 ? loop_stream(in, CAP) : random_stream(in, CAP);
        sequitur *a = sq_new(), *b = sq_new();
        sq_plain_internal(a);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(sq_append(a, in[i]), 0);
            assert_int_equal(sq_append(b, in[i]), 0);
            if (round < 60 && i % 7 == 0 && sq_check(b, why, sizeof why) != 0)
                fail_msg("round %d after %zu symbols: %s", round, i + 1, why);
        }
        if (sq_check(b, why, sizeof why) != 0)
            fail_msg("round %d: %s", round, why);
        assert_int_equal(a->shortcuts, 0);
        shortcuts += b->shortcuts;
        if (!same_grammar_then_free(a, b))
            fail_msg("round %d (%zu symbols): the shortcut changed the grammar", round, n);
    }
    assert_true(shortcuts > 1000);
    free(in);
}

/* A stream of long runs of one symbol with short noise between them, as
 * the object stream of a gzip recording is (runs of about 1.8 M zeros):
 * n symbols (1 to cap), runs of up to 3, 30, 300 or 3000 of one of 1-3
 * values, between them 0-3 symbols of noise, some equal to a run value. */
static size_t runs_stream(uint64_t *v, size_t cap)
{
    static const uint64_t longest[] = { 3, 30, 300, 3000 };
    size_t n = 1 + rnd() % cap, at = 0;
    uint64_t most = longest[rnd() % 4], values = 1 + rnd() % 3;
    while (at < n) {
        uint64_t c = rnd() % values;
        for (uint64_t r = 1 + rnd() % most; r-- && at < n;)
            v[at++] = c;
        for (uint64_t k = rnd() % 4; k-- && at < n;)
            v[at++] = rnd() % (values + 3);
    }
    return n;
}

/* reuse_at_end (a whole rule reused at a rule's end, every level of a
 * run's cascade) builds the grammar the original's steps build, on
 * streams of long runs (random_stream and loop_stream have short ones):
 * a plain and a default builder give the same stored bytes, the default
 * one's invariants hold as it grows, and the shortcut was taken. */
static void runs_same_grammar(void **state)
{
    (void)state;
    enum { CAP = 10000 };
    uint64_t *in = malloc(CAP * sizeof *in), reuses = 0;
    char why[200];
    for (int round = 0; round < 200; round++) {
        size_t n = runs_stream(in, CAP);
        sequitur *a = sq_new(), *b = sq_new();
        sq_plain_internal(a);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(sq_append(a, in[i]), 0);
            assert_int_equal(sq_append(b, in[i]), 0);
            if (round < 20 && i % 7 == 0 && sq_check(b, why, sizeof why) != 0)
                fail_msg("round %d after %zu symbols: %s", round, i + 1, why);
        }
        if (sq_check(b, why, sizeof why) != 0)
            fail_msg("round %d: %s", round, why);
        assert_int_equal(a->reuses, 0);
        reuses += b->reuses;
        if (!same_grammar_then_free(a, b))
            fail_msg("round %d (%zu symbols): the shortcut changed the grammar", round, n);
    }
    assert_true(reuses > 10000);
    free(in);
}

static void round_trip(void **state)
{
    (void)state;
    enum { CAP = 2000 };
    uint64_t *in = malloc(CAP * sizeof *in), *out = malloc(CAP * sizeof *out);
    for (int round = 0; round < 50; round++) {
        size_t n = random_stream(in, CAP);
        in[0] = SQ_TERMINAL_LIMIT - 1;  /* the largest terminal survives */
        sequitur *b = sq_new();
        for (size_t i = 0; i < n; i++)
            sq_append(b, in[i]);
        sq_grammar *g = sq_finish(b);
        void *blob;
        size_t len;
        assert_int_equal(sq_serialize(g, &blob, &len), 0);
        char err[200] = "";
        sq_grammar *back = sq_deserialize(blob, len, err, sizeof err);
        assert_non_null(back);
        assert_int_equal(sq_rule_count(back), sq_rule_count(g));
        assert_int_equal(sq_symbol_count(back), sq_symbol_count(g));
        for (uint32_t r = 0; r < sq_rule_count(g); r++) {
            assert_int_equal(sq_rule_length(back, r), sq_rule_length(g, r));
            assert_memory_equal(sq_rule_body(back, r), sq_rule_body(g, r),
                                sq_rule_length(g, r) * sizeof(uint64_t));
        }
        assert_int_equal(sq_expand_array(back, 0, out, CAP), n);
        assert_memory_equal(in, out, n * sizeof *in);
        sq_stats st;
        sq_grammar_stats(g, &st);
        assert_int_equal(st.bytes, len);
        free(blob);
        sq_grammar_free(back);
        sq_grammar_free(g);
        sq_free(b);
    }
    free(in);
    free(out);
}

/* Serialises a grammar given as raw varint bytes (one byte each here). */
static void *blob_of(const uint8_t *raw, size_t n, size_t *len);

#include <zstd.h>
static void *blob_of(const uint8_t *raw, size_t n, size_t *len)
{
    size_t bound = ZSTD_compressBound(n);
    uint8_t *out = malloc(4 + bound);
    memcpy(out, "SQG1", 4);
    size_t z = ZSTD_compress(out + 4, bound, raw, n, 1);
    assert_false(ZSTD_isError(z));
    *len = 4 + z;
    return out;
}

static void expect_refused(const uint8_t *raw, size_t n, const char *reason)
{
    size_t len;
    void *blob = blob_of(raw, n, &len);
    char err[200] = "";
    sq_grammar *g = sq_deserialize(blob, len, err, sizeof err);
    if (g)
        fail_msg("accepted a blob with %s", reason);
    assert_non_null(strstr(err, reason));
    free(blob);
}

static void corrupt_refused(void **state)
{
    (void)state;
    /* A good one first: 2 rules; rule 0 = R1 R1; rule 1 = 5 6. */
    const uint8_t good[] = { 2, 2, 3, 3, 2, 10, 12 };
    size_t len;
    void *blob = blob_of(good, sizeof good, &len);
    char err[200];
    sq_grammar *g = sq_deserialize(blob, len, err, sizeof err);
    assert_non_null(g);
    assert_int_equal(sq_expanded_length(g, 0), 4);
    sq_grammar_free(g);
    /* Every truncation and every single-bit flip is refused or read, never
     * a crash (the sanitizers watch). */
    uint8_t *copy = malloc(len);
    for (size_t cut = 0; cut < len; cut++)
        assert_null(sq_deserialize(blob, cut, err, sizeof err));
    for (size_t i = 0; i < len * 8; i++) {
        memcpy(copy, blob, len);
        copy[i / 8] ^= (uint8_t)(1u << (i % 8));
        sq_grammar_free(sq_deserialize(copy, len, err, sizeof err));
    }
    free(copy);
    free(blob);
    const uint8_t self_ref[] = { 2, 1, 3, 2, 3, 10 };           /* 1 -> R1 5 */
    expect_refused(self_ref, sizeof self_ref, "refers to itself");
    const uint8_t cycle[] = { 3, 1, 3, 1, 5, 1, 3 };            /* 1 -> R2, 2 -> R1 */
    expect_refused(cycle, sizeof cycle, "refers to itself");
    const uint8_t out_of_range[] = { 2, 1, 7, 1, 2 };           /* R3 of 2 rules */
    expect_refused(out_of_range, sizeof out_of_range, "refers to rule 3");
    const uint8_t to_start[] = { 2, 1, 3, 1, 1 };               /* rule 1 -> R0 */
    expect_refused(to_start, sizeof to_start, "refers to rule 0");
    const uint8_t empty_rule[] = { 2, 1, 3, 0 };
    expect_refused(empty_rule, sizeof empty_rule, "empty");
    const uint8_t trailing[] = { 1, 1, 2, 9 };
    expect_refused(trailing, sizeof trailing, "bytes after the last rule");
    const uint8_t cut_varint[] = { 1, 1, 0x80 };
    expect_refused(cut_varint, sizeof cut_varint, "bad symbol");
    const uint8_t long_length[] = { 1, 100, 2 };
    expect_refused(long_length, sizeof long_length, "bad length");
    const uint8_t no_rules[] = { 0 };
    expect_refused(no_rules, sizeof no_rules, "bad rule count");
    assert_null(sq_deserialize("SQG0xxxxxxx", 11, err, sizeof err));
    assert_non_null(strstr(err, "magic"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_worked),
        cmocka_unit_test(empty_stream),
        cmocka_unit_test(too_large_symbol),
        cmocka_unit_test(invariants_random),
        cmocka_unit_test(long_stream),
        cmocka_unit_test(large_grammar),
        cmocka_unit_test(finish_free_same),
        cmocka_unit_test(relabel_same_grammar),
        cmocka_unit_test(shortcut_same_grammar),
        cmocka_unit_test(runs_same_grammar),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(corrupt_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
