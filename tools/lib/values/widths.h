/*
 * widths.h: Figures 6.4 and 6.5 of Zhang's dissertation for one run. With
 * a fixed width of L bits, a value costs L bits when it fits (vc_need <= L:
 * its bits without their redundant prefix) and its whole word otherwise;
 * when L is as wide as the word, it costs the word. Figure 6.4 is the total
 * against every value at its word's width (100%), Figure 6.5 the share of
 * accesses that fit.
 */
#ifndef MEMREC_VALUES_WIDTHS_H
#define MEMREC_VALUES_WIDTHS_H

#include <stdint.h>
#include "values/values.h"

#define VALUES_WIDTH_STEP 4u    /* L = 4, 8, ..., 64 */

/* The figures' numbers at one width. */
typedef struct values_width {
    unsigned width;         /* L */
    uint64_t valued;        /* accesses with a value */
    uint64_t fitting;       /* of them, fitting L bits */
    uint64_t bits;          /* bits at a fixed width L */
    uint64_t base_bits;     /* bits at their words' widths */
} values_width;

void values_width_at(const values_summary *s, unsigned width, values_width *w);

#endif /* MEMREC_VALUES_WIDTHS_H */
