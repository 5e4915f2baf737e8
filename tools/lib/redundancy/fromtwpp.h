/*
 * fromtwpp.h: redundancy from a .twpp file's TWPP+ (seed 001, sections
 * 5.1.2-5.1.3), the model of redundancy.h:
 *   - a load instance is redundant when its edge has SN > 1 (an earlier
 *     load read that store instance there);
 *   - a store instance is redundant when no edge names it: per store
 *     point, its highest instance number minus the distinct instances
 *     read (every instance read has an SN = 1 edge, so those are the
 *     ones counted);
 *   - the edges TWPP+ dropped (both ends one known address) are
 *     recovered by replaying control flow (replay.h), for the load
 *     instances of single-address load points without a recorded edge
 *     only: each reads the last single-address store to its granules.
 *     Its SN is 1 when it is the first recovered load of that store
 *     instance there and no recorded edge of that instance has SN 1 (for
 *     a store over several granules: fewer such edges than granules; the
 *     file does not say which granule a recorded edge read, so this case
 *     is counted as ambiguous; built with trace-twpp --all-edges, a file
 *     needs no recovery).
 */
#ifndef MEMREC_REDUNDANCY_FROMTWPP_H
#define MEMREC_REDUNDANCY_FROMTWPP_H

#include <stddef.h>
#include <stdint.h>

#include "redundancy/redundancy.h"
#include "twpp/file.h"

/* What the recovery did. */
typedef struct redund_twpp_stats {
    uint64_t edges;             /* recorded edges read */
    uint64_t dropped;           /* edges the file says were dropped */
    uint64_t recovered;         /* edges the replay recovered */
    uint64_t ambiguous;         /* recovered loads of a store over several
                                 * granules with a recorded SN = 1 edge that
                                 * may be in another granule: taken as the
                                 * first load here */
    uint32_t disagree;          /* load points whose recovered edges differ
                                 * in number from the dropped ones */
} redund_twpp_stats;

/* Per instruction counts from f's TWPP+, sorted. 0, or -1 with a message
 * in err (a corrupt file, out of memory). */
int redund_from_twpp(twpp_file *f, redund_result *out, redund_twpp_stats *st, char *err,
                     size_t errlen);

#endif
