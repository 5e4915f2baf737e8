/*
 * mempat.h: Exana's MemPat (Matsubara and Sato, "Online Memory Access
 * Pattern Analysis on an Application Profiling Tool"): for every static
 * memory instruction, fold its access sequence, in one pass, into the
 * paper's base patterns (Fix, Seq, Str, SeqStr), Repeats and complex
 * patterns, printed in the paper's text format.
 *
 * The library knows nothing about traces: a caller gets a dense slot per
 * (instruction address, access kind) once, then feeds every access of the
 * slot in execution order. docs/trace-mempat.md explains the algorithm and
 * every decision taken where the paper is silent. In short:
 *
 *   run      maximal sequence of accesses of one size, each starting where
 *            the previous one ended: Fix:[SxN] when N == 1, Seq:[SxN] else.
 *   offset   from the byte after the previous access to the first byte of
 *            the next, in bytes: +4+ (or -8- when negative).
 *   stride   a first item, then k lasting items of the same shape, each at
 *            the same offset from the end of the one before: the paper's
 *            phases 1 and 2. An item is a run, or (the extension needed for
 *            a loop nest) a committed stride or repeat of the level below.
 *   repeat   a stride whose items start at the same address (the offset
 *            cancels the item's length): printed REPn, n = k + 1.
 *   complex  the sequence of patterns committed at the top: {P +o+ Q ...},
 *            at most max_patterns of them; beyond, the instruction is
 *            summarised (accesses, min, max, dominant stride).
 */
#ifndef MEMREC_MEMPAT_H
#define MEMREC_MEMPAT_H

#include <stdint.h>
#include <stdio.h>

/* Committed top-level patterns kept per instruction unless told otherwise. */
#define MEMPAT_DEFAULT_MAX_PATTERNS 64

/* Levels of stride folding above the runs: rows, planes, sweeps, ... A loop
 * nest deeper than this ends in a complex pattern of its outer loops. */
#define MEMPAT_LEVELS 6

/* Access kinds as in memrec_trace.h: 1 load (R), 2 store (W), 3 modify (M). */
#define MEMPAT_KINDS 4

/* Top-level kind of an instruction's pattern (the database's mempat.kind). */
typedef enum mempat_kind {
    MEMPAT_FIX,
    MEMPAT_SEQ,
    MEMPAT_STR,
    MEMPAT_SEQSTR,
    MEMPAT_REP,
    MEMPAT_COMPLEX,
    MEMPAT_NONE          /* no access yet */
} mempat_kind;

typedef struct mempat mempat;

/* The hot state of an instruction: the address its next access is
 * predicted at. Kept apart from the rest of its state, in one dense array,
 * so that the common case (the prediction holds) is a compare inlined in
 * the caller's loop: see mempat_access(). Two predictions are made:
 *   run mode     the access continues the run being built: step == size,
 *                n accesses in the run so far, start its first;
 *   stride mode  (step != size) the run at start is a single access that
 *                matches level 0's stride of single accesses; each hit is
 *                one more such element (n counts them): column walks and
 *                repeats of one location go through the inline path too. */
typedef struct mempat_run {
    uint64_t next;       /* where the next access is predicted */
    uint64_t step;       /* added to next on every hit */
    uint64_t n;          /* run mode: accesses in the run, 0 = none yet;
                          * stride mode: hits not yet folded into level 0 */
    uint64_t start;      /* first access of the open run */
    uint32_t size;       /* bytes of each access */
    uint32_t stride_mode;
} mempat_run;

/* The array of runs, indexed by slot. It moves when mempat_slot() adds a
 * slot: fetch it again after that. */
mempat_run *mempat_runs(mempat *m);

/* Stride mode on (1, the default) or off (0): the patterns are the same
 * either way, only the speed differs; off is the reference the tests
 * compare with. Set before the first access. */
void mempat_set_stride_mode(mempat *m, int on);

/* Everything but the common case of mempat_access(). */
void mempat_access_slow(mempat *m, uint32_t slot, uint64_t addr,
                        uint32_t size);

/* What the analysis says about one instruction, after mempat_finish(). */
typedef struct mempat_info {
    uint64_t instr;      /* instruction address */
    int access_kind;     /* 1 load, 2 store, 3 modify */
    uint32_t size;       /* bytes of its first access (the line's R4, W8) */
    uint64_t accesses;   /* dynamic accesses seen */
    int overflowed;      /* more than max_patterns committed: summarised */
    mempat_kind kind;    /* top-level kind; MEMPAT_COMPLEX when overflowed */
    uint64_t min, max;   /* lowest and highest address accessed */
    int64_t stride;      /* dominant difference between consecutive accesses */
    int has_stride;      /* 0: no difference dominates (stride is then 0) */
} mempat_info;

/* A new analysis keeping at most max_patterns (>= 1) committed patterns per
 * instruction. NULL when out of memory. */
mempat *mempat_new(uint32_t max_patterns);
void mempat_free(mempat *m);

/* The dense slot of (instruction address, access kind 1..3), created on
 * first use. Meant to be called once per block definition, not per access.
 * Returns UINT32_MAX when out of memory. */
uint32_t mempat_slot(mempat *m, uint64_t instr, int access_kind);

/* Phases 1 and 2 for one access of a slot, in execution order. runs is
 * mempat_runs(m), passed in so that a loop keeps it in a register. */
static inline void mempat_access(mempat *m, mempat_run *runs, uint32_t slot,
                                 uint64_t addr, uint32_t size)
{
    mempat_run *r = &runs[slot];
    if (addr == r->next && size == r->size) {
        r->next += r->step;
        r->n++;
        return;
    }
    mempat_access_slow(m, slot, addr, size);
}

/* count accesses of a slot, each of size bytes, at addr, addr + stride,
 * addr + 2 * stride, ... (modulo 2^64): exactly count mempat_access()
 * calls, but once the slot's prediction steps by stride (a loop's
 * steady state), the rest of the run is one addition. */
static inline void mempat_access_run(mempat *m, mempat_run *runs, uint32_t slot,
                                     uint64_t addr, uint64_t stride, uint64_t count,
                                     uint32_t size)
{
    for (; count; count--, addr += stride) {
        mempat_run *r = &runs[slot];
        if (addr == r->next && size == r->size && r->step == stride) {
            /* This hit and every later one: next moves by step each time. */
            r->next += count * stride;
            r->n += count;
            return;
        }
        mempat_access(m, runs, slot, addr, size);
    }
}

/* Phase 3: commits every pattern still open. Call once, after the last
 * access; accesses after it are ignored. */
void mempat_finish(mempat *m);

/* 1 once an allocation failed (the analysis is then incomplete). */
int mempat_failed(const mempat *m);

/* Number of slots; the slots with at least one access in output order
 * (instruction address, then R, W, M) into order[mempat_count(m)],
 * returning how many. A slot without accesses (an access of a block that
 * never ran that far, or whose guard was always false) has no line. */
uint32_t mempat_count(const mempat *m);
uint32_t mempat_order(const mempat *m, uint32_t *order);

void mempat_get_info(const mempat *m, uint32_t slot, mempat_info *out);

/* "Fix", "Seq", "Str", "SeqStr", "Rep", "Complex". */
const char *mempat_kind_name(mempat_kind k);

/* The text after '=' (malloc'd; NULL when out of memory). */
char *mempat_pattern_text(const mempat *m, uint32_t slot);

/* One output line "R4@280=Fix:[4x1]" without newline (malloc'd), with
 * "\twhere" appended when where is not NULL. */
char *mempat_line(const mempat *m, uint32_t slot, const char *where);

#endif /* MEMREC_MEMPAT_H */
