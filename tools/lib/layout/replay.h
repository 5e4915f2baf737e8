/*
 * replay.h: the predicted gain of the layout advice. A second pass over
 * the trace feeds every data access to one cache model per suggestion
 * (and one with all of them, and one unchanged), each access's address
 * remapped as the suggested layout would place it:
 *
 *   split structure (size S, clusters k of fields): the byte at offset f
 *     of element e of an object goes to cluster k's own array, element e,
 *     at the field's position in its cluster (fields of a cluster packed
 *     in offset order; a field is as wide as its widest access; bytes no
 *     stream reached go with the field before them);
 *   regrouped arrays A_1..A_m (element sizes e_i, E = sum e_i): element x
 *     of A_i goes to x * E + e_1 + ... + e_(i-1) of one interleaved array.
 *
 * The new arrays live at addresses no program uses (above 2^48), one
 * region per cluster or regrouping, with each object keeping its own low
 * address bits (set indexes then change only through the packing).
 * Misses per level and total latency come out before and after.
 */
#ifndef MEMREC_LAYOUT_REPLAY_H
#define MEMREC_LAYOUT_REPLAY_H

#include "layout/layout.h"

typedef enum ly_gain_kind { LY_GAIN_SPLIT, LY_GAIN_REGROUP, LY_GAIN_ALL } ly_gain_kind;

/* One suggestion's replay. */
typedef struct ly_gain {
    ly_gain_kind kind;
    uint32_t which;             /* struct index (split) or regrouping number */
    uint64_t misses[CACHE_MAX_LEVELS];      /* after: per data level */
    double latency;             /* after: sum of every access's latency */
} ly_gain;

typedef struct ly_replay ly_replay;

/* NULL when out of memory. The profile must stay alive. */
ly_replay *ly_replay_new(const ly_profile *p);
void ly_replay_free(ly_replay *r);
int ly_replay_event(ly_replay *r, const mr_event *ev);
/* Ends the pass (objmap). */
void ly_replay_finish(ly_replay *r);

/* The whole third pass: path read again and replayed (not read at all
 * when there is no suggestion). NULL with *err (malloc'd; NULL: out of
 * memory) on failure. */
ly_replay *ly_replay_file(const ly_profile *p, const char *path, char **err);

/* The unchanged layout's figures. */
const ly_gain *ly_replay_base(const ly_replay *r);
uint32_t ly_replay_ngains(const ly_replay *r);
/* Suggestions by predicted latency saved, best first. */
const ly_gain *ly_replay_gain(const ly_replay *r, uint32_t i);
unsigned ly_replay_nlevels(const ly_replay *r);

/* The address access addr of object [base, base + size) of a split
 * structure takes (exposed for the tests). */
uint64_t ly_remap_split(const ly_struct *st, uint64_t base, uint64_t addr);
uint64_t ly_remap_regroup(const ly_profile *p, uint32_t advice, uint32_t array,
                          uint64_t base, uint64_t addr);

#endif /* MEMREC_LAYOUT_REPLAY_H */
