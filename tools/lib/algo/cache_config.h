/*
 * cache_config.h: cache hierarchies by name and by option, for cache.h.
 *
 * Presets (docs/trace-cache.md gives their sources):
 *   rds      the RDS paper's Table 1 (Itanium 2): L1D 16K 4-way 1 cycle,
 *            L2 256K 8-way 6 cycles, L3 1.5M 12-way 13 cycles, memory 100;
 *            the paper gives no line sizes: Itanium 2's 64 B (L1D) and
 *            128 B (L2, L3) are used; no I1 (the table has none)
 *   lwptool  LWPTool's evaluation machine (Xeon E5-2620 v4, Broadwell):
 *            32K L1D and I1 8-way, 256K L2 8-way, 20M L3 20-way, 64 B
 *            lines; the paper gives sizes only, latencies 4/12/40/200 are
 *            typical Broadwell figures (an assumption, documented)
 *   host     this machine, from /sys/devices/system/cpu/cpu0/cache
 *   The default hierarchy is lwptool: fixed, so that results do not depend
 *   on the machine that analyses the trace.
 *
 * Options (Cachegrind's spelling): a level is "size,assoc,line" in bytes
 * (size may end in K or M), optionally followed by ",latency" and
 * ",policy" (lru, plru, random). --I1 sets the instruction cache, --D1 the
 * first data level, --L2 and --L3 the level of that name (added in order
 * when missing), --LL the last level (added when the hierarchy has only D1).
 */
#ifndef MEMREC_CACHE_CONFIG_H
#define MEMREC_CACHE_CONFIG_H

#include <stddef.h>
#include "algo/cache.h"

/* Latencies given to a level the user did not give one, by name. */
#define CACHE_DEFAULT_L1_LATENCY 4
#define CACHE_DEFAULT_L2_LATENCY 12
#define CACHE_DEFAULT_L3_LATENCY 40
#define CACHE_DEFAULT_MEMORY_LATENCY 200

/* Fills cfg with a named preset ("rds", "lwptool", "host"). 0, or -1 with
 * a one-line message in err. */
int cache_preset(const char *name, cache_config *cfg, char *err, size_t len);

/* The host preset read from a sysfs cache directory (index0, index1, ...
 * each with level, type, size, ways_of_associativity, coherency_line_size):
 * for tests, which pass a directory of their own. */
int cache_preset_sysfs(const char *dir, cache_config *cfg, char *err,
                       size_t len);

/* Parses "size,assoc,line[,latency[,policy]]" into lc (name set from name;
 * latency defaults to keep_latency when not 0, else by name). 0, or -1
 * with a one-line message in err. */
int cache_parse_level(const char *name, const char *spec, uint32_t keep_latency,
                      cache_level_config *lc, char *err, size_t len);

/* Applies one level option (name: I1, D1, L2, L3 or LL) to cfg. 0, or -1
 * with a message (unknown name, bad spec, too many levels). */
int cache_config_set(cache_config *cfg, const char *name, const char *spec,
                     char *err, size_t len);

/* Parses a policy name; -1 when unknown. */
int cache_policy_parse(const char *s);
const char *cache_policy_name(int policy);

/* Sets every level's policy. */
void cache_config_set_policy(cache_config *cfg, int policy);

/* Reduces cfg to Cachegrind's three caches: I1 (the preset's, or 32K
 * 8-way 64 B), D1 and the last level renamed LL; non-inclusive, LRU. */
void cache_config_cachegrind(cache_config *cfg);

/* "D1 32768,8,64 lat 4 lru; L2 ..." for reports (into buf). */
const char *cache_config_describe(const cache_config *cfg, char *buf,
                                  size_t len);

#endif /* MEMREC_CACHE_CONFIG_H */
