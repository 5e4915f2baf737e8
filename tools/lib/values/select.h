/*
 * select.h: which fields a compressed layout would compress, and the heap
 * bytes it would save (Zhang's dissertation, sections 6.5 and 7.1).
 *
 * Selection (section 6.5, "selective compression at the beginning"): a
 * field is chosen when at least the threshold share (80%) of its instances
 * are compressible. An instance is the field in one object; it is
 * compressible when every value it held (of those the trace shows) was
 * small or a pointer (vclass.h). Only a field of its own (span 1) of a heap
 * or static group, with values wider than the compressed slot, can be
 * chosen. A field's width is its widest access with a value; a field that
 * starts inside the one before it in the same group (a struct copied
 * 8 bytes at a time over two ints; a union) is part of that word and not
 * a candidate of its own, so no byte is counted twice.
 *
 * Savings (Figure 7.6: compressed nodes plus extra locations): a chosen
 * field shrinks from its size to the slot, payload + 1 bits rounded up to
 * bytes (2 for the paper's 15; the spare bit marks an instance moved out),
 * in every instance; each instance that ever held an incompressible value
 * is moved to an extra location of the field's full size. saved =
 * instances * (size - slot) - spoiled * size. Instances, not all objects
 * of the group: an allocation site may hand out objects of several sizes,
 * and only the instances are known to hold the field (in the paper's
 * Olden programs every node's fields are written: the two agree). Padding
 * and the pairing of two slots in a word (section 7.1) are left out: the
 * count is of field bytes.
 */
#ifndef MEMREC_VALUES_SELECT_H
#define MEMREC_VALUES_SELECT_H

#include <stdint.h>
#include "values/values.h"

#define VALUES_DEFAULT_SELECT 80u       /* percent: section 6.5's rule */

/* What the rule says about one field. */
typedef struct values_choice {
    uint64_t instances;     /* objects that held a value in the field */
    uint64_t spoiled;       /* of them, holding an incompressible one once */
    double compressible;    /* share of instances compressible, 0..1 */
    uint32_t size;          /* the field's width: its widest valued access */
    int candidate;          /* could be compressed at all (see above) */
    int selected;           /* candidate and compressible >= percent */
    uint64_t objects;       /* objects of its group */
    int64_t saved;          /* bytes saved when selected, else 0 */
} values_choice;

/* Bytes of a compressed slot for a payload of bits. */
static inline uint32_t values_slot_bytes(unsigned payload)
{
    return (payload + 1 + 7) / 8;
}

/* The rule applied to every field of p (after values_finish): selected
 * when at least percent (0..100) of its instances are compressible. An
 * array indexed by field (free() it), NULL when out of memory. */
values_choice *values_choose_all(const values *p, uint32_t percent);

#endif /* MEMREC_VALUES_SELECT_H */
