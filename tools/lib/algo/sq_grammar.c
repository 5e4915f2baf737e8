/*
 * sq_grammar.c: a finished Sequitur grammar (see sequitur.h): flat rule
 * bodies numbered as the original prints them, expansion without
 * recursion, and the compact stored form (varints under zstd) read back
 * with every field validated.
 */
#include "algo/sequitur.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "algo/sq_internal.h"
#include "base/array.h"

/* The stored form's first bytes. */
static const char SQ_MAGIC[4] = { 'S', 'Q', 'G', '1' };

/* The largest decompressed body accepted when reading a blob back. */
#define SQ_MAX_RAW (UINT64_C(1) << 32)

struct sq_grammar {
    uint32_t nrules;
    uint64_t *start;            /* rule r's body is body[start[r]..start[r+1]) */
    uint64_t *body;             /* symbol codes (sq_is_rule, sq_code_value) */
    uint64_t *expanded;         /* terminals each rule stands for */
    uint32_t *bottom_up;        /* every rule after the rules it refers to */
    uint64_t stored_bytes;      /* size of the serialised form, 0: not yet */
};

/* ---- shape: expanded lengths, and no rule reaching itself ------------------ */

/* One frame of a walk down the grammar: a rule and the next body position. */
typedef struct walk_frame {
    uint32_t rule;
    uint64_t pos;
} walk_frame;

static uint64_t add_sat(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

/* Computes expanded[] bottom-up with an explicit stack; -1 when a rule
 * reaches itself (a cycle: only a corrupt blob has one) or no memory. */
static int compute_lengths(sq_grammar *g)
{
    uint8_t *state = calloc(g->nrules, 1);      /* 0 new, 1 open, 2 done */
    walk_frame *stack = malloc(sizeof *stack * g->nrules);
    uint32_t done = 0;
    int rc = state && stack ? 0 : -1;
    for (uint32_t root = 0; rc == 0 && root < g->nrules; root++) {
        if (state[root])
            continue;
        size_t depth = 0;
        stack[depth++] = (walk_frame){ root, g->start[root] };
        state[root] = 1;
        g->expanded[root] = 0;
        while (depth > 0 && rc == 0) {
            walk_frame *f = &stack[depth - 1];
            if (f->pos == g->start[f->rule + 1]) {
                state[f->rule] = 2;
                g->bottom_up[done++] = f->rule;
                uint64_t len = g->expanded[f->rule];
                if (--depth > 0)
                    g->expanded[stack[depth - 1].rule] =
                        add_sat(g->expanded[stack[depth - 1].rule], len);
                continue;
            }
            uint64_t code = g->body[f->pos++];
            if (!sq_is_rule(code)) {
                g->expanded[f->rule] = add_sat(g->expanded[f->rule], 1);
                continue;
            }
            uint32_t r = (uint32_t)sq_code_value(code);
            if (state[r] == 1) {
                rc = -1;        /* r is open on the stack: a cycle */
            } else if (state[r] == 2) {
                g->expanded[f->rule] = add_sat(g->expanded[f->rule], g->expanded[r]);
            } else {
                state[r] = 1;
                g->expanded[r] = 0;
                stack[depth++] = (walk_frame){ r, g->start[r] };
            }
        }
    }
    free(state);
    free(stack);
    return rc;
}

static sq_grammar *grammar_alloc(uint32_t nrules, uint64_t nsymbols)
{
    sq_grammar *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->nrules = nrules;
    g->start = calloc((size_t)nrules + 1, sizeof *g->start);
    g->body = malloc(sizeof *g->body * (nsymbols ? nsymbols : 1));
    g->expanded = calloc(nrules, sizeof *g->expanded);
    g->bottom_up = calloc(nrules, sizeof *g->bottom_up);
    if (!g->start || !g->body || !g->expanded || !g->bottom_up) {
        sq_grammar_free(g);
        return NULL;
    }
    return g;
}

/* ---- from the builder ------------------------------------------------------ */

/* Copies the builder's live rules into g, numbered as the original's
 * number() does: rule 0 first, then each rule when first referenced,
 * reading the numbered rules in order. One walk over the rule bodies both
 * numbers and copies them: a rule's references are numbered as its body is
 * copied, before any later rule is read. order[i] is the builder rule
 * printed as i, number[] maps back (UINT32_MAX: not yet numbered). Every
 * live rule is reached (each is used, and no rule reaches itself), so g
 * has room for live_rules rules and b->symbols symbols; 0, or -1 when the
 * builder holds more than it says (a broken builder). */
static int copy_rules(const sequitur *b, sq_grammar *g, uint32_t *order, uint32_t *number)
{
    uint32_t count = 1;
    uint64_t at = 0;
    order[0] = 0;
    number[0] = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t guard = b->rules[order[i]].guard;
        g->start[i] = at;
        for (uint32_t n = b->nodes[guard].next; n != guard; n = b->nodes[n].next) {
            uint64_t v = b->nodes[n].val;
            if (at == b->symbols)
                return -1;
            if ((v & 3) != 1) {
                g->body[at++] = v;      /* a terminal: value << 1, as coded */
                continue;
            }
            uint32_t r = (uint32_t)(v >> 2);
            if (number[r] == UINT32_MAX) {
                if (count == g->nrules)
                    return -1;
                number[r] = count;
                order[count++] = r;
            }
            g->body[at++] = (uint64_t)number[r] << 1 | 1;
        }
    }
    g->start[count] = at;
    return count == g->nrules && at == b->symbols ? 0 : -1;
}

sq_grammar *sq_finish(sequitur *b)
{
    if (b->failed)
        return NULL;
    uint32_t *order = malloc(sizeof *order * b->rule_top);
    uint32_t *number = malloc(sizeof *number * b->rule_top);
    sq_grammar *g = NULL;
    if (order && number && (g = grammar_alloc(b->live_rules, b->symbols))) {
        memset(number, 0xff, sizeof *number * b->rule_top);
        if (copy_rules(b, g, order, number) < 0 || compute_lengths(g) < 0) {
            sq_grammar_free(g);
            g = NULL;
        }
    }
    free(order);
    free(number);
    return g;
}

/* ---- reading ------------------------------------------------------------- */

uint32_t sq_rule_count(const sq_grammar *g) { return g->nrules; }
uint64_t sq_symbol_count(const sq_grammar *g) { return g->start[g->nrules]; }

uint32_t sq_rule_length(const sq_grammar *g, uint32_t r)
{
    return r < g->nrules ? (uint32_t)(g->start[r + 1] - g->start[r]) : 0;
}

const uint64_t *sq_rule_body(const sq_grammar *g, uint32_t r)
{
    return r < g->nrules ? g->body + g->start[r] : NULL;
}

uint64_t sq_expanded_length(const sq_grammar *g, uint32_t r)
{
    return r < g->nrules ? g->expanded[r] : 0;
}

const uint32_t *sq_bottom_up(const sq_grammar *g) { return g->bottom_up; }

int sq_expand(const sq_grammar *g, uint32_t r, sq_emit_fn fn, void *ctx)
{
    if (r >= g->nrules)
        return -1;
    /* Without cycles the stack is never deeper than the rule count. */
    walk_frame *stack = malloc(sizeof *stack * g->nrules);
    if (!stack)
        return -1;
    size_t depth = 0;
    int rc = 0;
    stack[depth++] = (walk_frame){ r, g->start[r] };
    while (depth > 0 && rc == 0) {
        walk_frame *f = &stack[depth - 1];
        if (f->pos == g->start[f->rule + 1]) {
            depth--;
            continue;
        }
        uint64_t code = g->body[f->pos++];
        if (sq_is_rule(code)) {
            uint32_t sub = (uint32_t)sq_code_value(code);
            stack[depth++] = (walk_frame){ sub, g->start[sub] };
        } else {
            rc = fn(ctx, sq_code_value(code));
        }
    }
    free(stack);
    return rc;
}

/* An expansion in progress: the walk's stack. */
struct sq_iter {
    const sq_grammar *g;
    walk_frame *stack;
    size_t depth;
};

sq_iter *sq_iter_new(const sq_grammar *g, uint32_t r)
{
    if (r >= g->nrules)
        return NULL;
    sq_iter *it = malloc(sizeof *it);
    walk_frame *stack = malloc(sizeof *stack * g->nrules);
    if (!it || !stack) {
        free(it);
        free(stack);
        return NULL;
    }
    *it = (sq_iter){ g, stack, 1 };
    stack[0] = (walk_frame){ r, g->start[r] };
    return it;
}

int sq_iter_next(sq_iter *it, uint64_t *terminal)
{
    const sq_grammar *g = it->g;
    while (it->depth > 0) {
        walk_frame *f = &it->stack[it->depth - 1];
        if (f->pos == g->start[f->rule + 1]) {
            it->depth--;
            continue;
        }
        uint64_t code = g->body[f->pos++];
        if (!sq_is_rule(code)) {
            *terminal = sq_code_value(code);
            return 1;
        }
        uint32_t sub = (uint32_t)sq_code_value(code);
        it->stack[it->depth++] = (walk_frame){ sub, g->start[sub] };
    }
    return 0;
}

void sq_iter_free(sq_iter *it)
{
    if (!it)
        return;
    free(it->stack);
    free(it);
}

/* Collects an expansion into an array. */
typedef struct array_sink {
    uint64_t *out;
    size_t cap, len;
} array_sink;

static int emit_to_array(void *ctx, uint64_t terminal)
{
    array_sink *s = ctx;
    if (s->len == s->cap)
        return 1;
    s->out[s->len++] = terminal;
    return 0;
}

int64_t sq_expand_array(const sq_grammar *g, uint32_t r, uint64_t *out, size_t cap)
{
    if (r >= g->nrules || g->expanded[r] > cap || g->expanded[r] > INT64_MAX)
        return -1;
    array_sink s = { out, cap, 0 };
    if (sq_expand(g, r, emit_to_array, &s) != 0)
        return -1;
    return (int64_t)s.len;
}

void sq_grammar_stats(const sq_grammar *g, sq_stats *s)
{
    s->rules = g->nrules;
    s->symbols = sq_symbol_count(g);
    s->table_bytes = 0;
    if (g->stored_bytes == 0) {
        void *blob;
        size_t len;
        if (sq_serialize(g, &blob, &len) == 0) {
            ((sq_grammar *)g)->stored_bytes = len;   /* a cache, not state */
            free(blob);
        }
    }
    s->bytes = g->stored_bytes;
}

int sq_print(const sq_grammar *g, FILE *out)
{
    for (uint32_t r = 0; r < g->nrules; r++) {
        fprintf(out, "%u ->", r);
        for (uint64_t i = g->start[r]; i < g->start[r + 1]; i++)
            fprintf(out, sq_is_rule(g->body[i]) ? " R%llu" : " %llu",
                    (unsigned long long)sq_code_value(g->body[i]));
        if (putc('\n', out) == EOF)
            return -1;
    }
    return ferror(out) ? -1 : 0;
}

void sq_grammar_free(sq_grammar *g)
{
    if (!g)
        return;
    free(g->start);
    free(g->body);
    free(g->expanded);
    free(g->bottom_up);
    free(g);
}

/* ---- the stored form -------------------------------------------------------- */

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

int sq_serialize(const sq_grammar *g, void **blob, size_t *len)
{
    uint64_t nsym = sq_symbol_count(g);
    size_t raw_cap = 10 * ((size_t)nsym + 2 * (size_t)g->nrules + 1);
    uint8_t *raw = malloc(raw_cap);
    if (!raw)
        return -1;
    size_t at = put_varint(raw, g->nrules);
    for (uint32_t r = 0; r < g->nrules; r++) {
        at += put_varint(raw + at, g->start[r + 1] - g->start[r]);
        for (uint64_t i = g->start[r]; i < g->start[r + 1]; i++)
            at += put_varint(raw + at, g->body[i]);
    }
    size_t bound = ZSTD_compressBound(at);
    uint8_t *out = malloc(sizeof SQ_MAGIC + bound);
    size_t z = out ? ZSTD_compress(out + sizeof SQ_MAGIC, bound, raw, at, 3) : 0;
    free(raw);
    if (!out || ZSTD_isError(z)) {
        free(out);
        return -1;
    }
    memcpy(out, SQ_MAGIC, sizeof SQ_MAGIC);
    *blob = out;
    *len = sizeof SQ_MAGIC + z;
    return 0;
}

/* A cursor over the decompressed varints. */
typedef struct reader {
    const uint8_t *p, *end;
} reader;

/* One varint of at most 64 bits; -1 when cut short or too long. */
static int get_varint(reader *rd, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (rd->p == rd->end)
            return -1;
        uint8_t byte = *rd->p++;
        if (shift == 63 && byte > 1)
            return -1;
        x |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); goto fail; } while (0)

/* Decompresses the one zstd frame after the magic; NULL with err set. */
static uint8_t *inflate_body(const uint8_t *z, size_t zlen, size_t *raw_len,
                             char *err, size_t errlen)
{
    uint8_t *raw = NULL;
    unsigned long long size = ZSTD_getFrameContentSize(z, zlen);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
        BAD("not a zstd frame with a known size");
    if (size > SQ_MAX_RAW)
        BAD("grammar of %llu bytes is too large", size);
    size_t frame = ZSTD_findFrameCompressedSize(z, zlen);
    if (ZSTD_isError(frame) || frame != zlen)
        BAD("bytes after the grammar's zstd frame, or a cut frame");
    raw = malloc(size ? size : 1);
    if (!raw)
        BAD("out of memory");
    size_t got = ZSTD_decompress(raw, size, z, zlen);
    if (ZSTD_isError(got) || got != size)
        BAD("corrupt zstd frame");
    *raw_len = got;
    return raw;
fail:
    free(raw);
    return NULL;
}

/* Reads the rule bodies from the varints; every count is bounded by the
 * bytes left, so no allocation exceeds the input's size. */
static sq_grammar *parse_rules(const uint8_t *raw, size_t raw_len, char *err,
                               size_t errlen)
{
    reader rd = { raw, raw + raw_len };
    sq_grammar *g = NULL;
    uint64_t nrules, len, code;
    if (get_varint(&rd, &nrules) < 0 || nrules == 0 || nrules > UINT32_MAX ||
        nrules > (uint64_t)(rd.end - rd.p))
        BAD("bad rule count");
    /* Symbols are at least one byte each: the bytes left bound their count. */
    g = grammar_alloc((uint32_t)nrules, (uint64_t)(rd.end - rd.p));
    if (!g)
        BAD("out of memory");
    uint64_t at = 0;
    for (uint32_t r = 0; r < g->nrules; r++) {
        g->start[r] = at;
        if (get_varint(&rd, &len) < 0 || len > (uint64_t)(rd.end - rd.p))
            BAD("rule %u: bad length", r);
        if (r > 0 && len == 0)
            BAD("rule %u is empty", r);
        for (uint64_t i = 0; i < len; i++) {
            if (get_varint(&rd, &code) < 0)
                BAD("rule %u: bad symbol", r);
            if (sq_is_rule(code) && (sq_code_value(code) >= nrules || sq_code_value(code) == 0))
                BAD("rule %u refers to rule %llu", r,
                    (unsigned long long)sq_code_value(code));
            g->body[at++] = code;
        }
    }
    g->start[g->nrules] = at;
    if (rd.p != rd.end)
        BAD("bytes after the last rule");
    if (compute_lengths(g) < 0)
        BAD("a rule refers to itself");
    return g;
fail:
    sq_grammar_free(g);
    return NULL;
}

sq_grammar *sq_deserialize(const void *blob, size_t len, char *err, size_t errlen)
{
    const uint8_t *bytes = blob;
    if (len < sizeof SQ_MAGIC || memcmp(bytes, SQ_MAGIC, sizeof SQ_MAGIC) != 0) {
        snprintf(err, errlen, "not a stored grammar (bad magic)");
        return NULL;
    }
    size_t raw_len = 0;
    uint8_t *raw = inflate_body(bytes + sizeof SQ_MAGIC, len - sizeof SQ_MAGIC,
                                &raw_len, err, errlen);
    if (!raw)
        return NULL;
    sq_grammar *g = parse_rules(raw, raw_len, err, errlen);
    free(raw);
    if (g)
        g->stored_bytes = len;
    return g;
}
