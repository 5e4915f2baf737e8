/*
 * edges.h: TWPP+'s dependence edges read from a .twpp file alone, for
 * trace-twpp --dependences and for analyses built on them (load/store
 * redundancy, data-flow frequencies, slicing: seed 001 chapter 5).
 *
 *     twpp_file *f = twpp_open(path, err, sizeof err);
 *     if (!f || twpp_load_points(f, err, sizeof err) < 0) ... err
 *     for (uint32_t g = 0; g < twpp_point_count(f); g++) {
 *         const twpp_point *pt = twpp_file_point(f, g);   // the dictionary
 *         if (!pt->loads) continue;                       // a store point only
 *         twpp_edge_iter *it = twpp_edges_open(f, g, err, sizeof err);
 *         twpp_edge e;
 *         int r;
 *         while ((r = twpp_edges_next(it, &e)) > 0)
 *             ... e.load = <g, FC0, BC0>, e.store = <G1, FC1, BC1>, e.sn
 *         twpp_edges_close(it);                           // r < 0: corrupt
 *     }
 *
 * Access points are numbered from 0 here and printed from 1 (A1, A2, ...).
 * A point's fn is the function's index in the file (twpp_file_model's
 * functions), symbol the file's symbol. A load point's edges come in the
 * order its loads ran; the load instances that have none either read
 * memory no store wrote, or were dropped as recoverable (both ends
 * pt->single: the store is the last single-address store to pt->addr):
 * pt->loads = pt->edges + pt->dropped + those unwritten. The highest
 * instance number of a store point (chapter 5's redundant stores) is
 * pt->stores, its last instance <pt->last_fc, pt->last_bc>.
 */
#ifndef MEMREC_TWPP_EDGES_H
#define MEMREC_TWPP_EDGES_H

#include <stddef.h>
#include <stdint.h>

#include "twpp/deps.h"
#include "twpp/file.h"
#include "twpp/plus.h"

/* Reads the access-point dictionary and the load index (once; the
 * grammars are read per load point). 0, or -1 with a message in err. */
int twpp_load_points(twpp_file *f, char *err, size_t errlen);

/* After twpp_load_points: the dictionary. */
uint32_t twpp_point_count(const twpp_file *f);
const twpp_point *twpp_file_point(const twpp_file *f, uint32_t g);

/* The load points spec names: "N" (the point printed AN, N from 1) or
 * "FUNCTION:LINE" (every load point in FUNCTION's calls whose instruction
 * is at that source line). A malloc'd array in *out; the count (0: none),
 * or -1 when out of memory. */
int64_t twpp_find_loads(const twpp_file *f, const char *spec, uint32_t **out);

typedef struct twpp_edge_iter twpp_edge_iter;

/* Load point g's edges: reads and checks its six grammars. NULL with a
 * message in err (not a load point, corrupt grammars, out of memory). */
twpp_edge_iter *twpp_edges_open(twpp_file *f, uint32_t g, char *err, size_t errlen);

/* The next edge: 1 and *e, 0 after the last, -1 when the grammars do not
 * decode to edges (corrupt). */
int twpp_edges_next(twpp_edge_iter *it, twpp_edge *e);

/* The next edges at once, in order (faster than one at a time): their
 * count with *e pointing at them (valid until the next call), 0 after the
 * last, -1 when the grammars do not decode to edges (corrupt). The
 * columns are decoded a batch at a time (twpp/column.h). */
int64_t twpp_edges_batch(twpp_edge_iter *it, const twpp_edge **e);

/* Called before the first edge: the loads' FC and BC are not wanted.
 * Their two columns are then neither decoded nor checked, and every edge
 * comes with load <g, 0, 0> (trace-redundancy needs only the stores and
 * SN of most points). */
void twpp_edges_skip_load(twpp_edge_iter *it);

/* Items a reader scans for this point: the six grammars' symbols
 * (Table 4.7's TWPP+ column). */
uint64_t twpp_edges_items(const twpp_edge_iter *it);

void twpp_edges_close(twpp_edge_iter *it);

#endif
