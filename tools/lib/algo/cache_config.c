/*
 * cache_config.c: presets, sysfs and option parsing for cache hierarchies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "algo/cache_config.h"

static void set_level(cache_level_config *l, const char *name, uint64_t size,
                      uint32_t assoc, uint32_t line, uint32_t latency)
{
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->size = size;
    l->assoc = assoc;
    l->line = line;
    l->latency = latency;
    l->policy = CACHE_LRU;
}

static uint32_t default_latency(const char *name)
{
    if (!strcmp(name, "I1") || !strcmp(name, "D1"))
        return CACHE_DEFAULT_L1_LATENCY;
    if (!strcmp(name, "L2"))
        return CACHE_DEFAULT_L2_LATENCY;
    return CACHE_DEFAULT_L3_LATENCY;
}

/* RDS (Table 1); line sizes are Itanium 2's, which the paper leaves out. */
static void preset_rds(cache_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    set_level(&cfg->level[0], "D1", 16 << 10, 4, 64, 1);
    set_level(&cfg->level[1], "L2", 256 << 10, 8, 128, 6);
    set_level(&cfg->level[2], "L3", 1536 << 10, 12, 128, 13);
    cfg->nlevels = 3;
    cfg->memory_latency = 100;
}

/* LWPTool's Xeon E5-2620 v4: sizes from the paper, the rest Broadwell's. */
static void preset_lwptool(cache_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    set_level(&cfg->i1, "I1", 32 << 10, 8, 64, 4);
    set_level(&cfg->level[0], "D1", 32 << 10, 8, 64, 4);
    set_level(&cfg->level[1], "L2", 256 << 10, 8, 64, 12);
    set_level(&cfg->level[2], "L3", 20 << 20, 20, 64, 40);
    cfg->nlevels = 3;
    cfg->memory_latency = CACHE_DEFAULT_MEMORY_LATENCY;
}

/* One sysfs attribute of dir/index, trimmed, into buf; 0 or -1. */
static int read_attr(const char *dir, const char *index, const char *attr,
                     char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", dir, index, attr);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\r\n")] = 0;
    return 0;
}

/* "48K", "1024K", "32M" or plain bytes; 0 on garbage. */
static uint64_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return 0;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    else if (*end == 'G' || *end == 'g')
        v <<= 30, end++;
    return *end ? 0 : v;
}

/* The cache of dir/indexN into cfg; 1 when one was taken, 0 when the entry
 * does not exist, -1 on a broken entry. */
static int sysfs_index(const char *dir, int i, cache_config *cfg, char *err,
                       size_t len)
{
    char index[32], lvl[32], type[32], size[32], ways[32], line[32];
    snprintf(index, sizeof index, "index%d", i);
    if (read_attr(dir, index, "level", lvl, sizeof lvl))
        return 0;
    if (read_attr(dir, index, "type", type, sizeof type) ||
        read_attr(dir, index, "size", size, sizeof size) ||
        read_attr(dir, index, "ways_of_associativity", ways, sizeof ways) ||
        read_attr(dir, index, "coherency_line_size", line, sizeof line)) {
        snprintf(err, len, "%s/%s: incomplete cache description", dir, index);
        return -1;
    }
    int level = atoi(lvl);
    uint64_t bytes = parse_size(size);
    uint32_t assoc = (uint32_t)atoi(ways), lsize = (uint32_t)atoi(line);
    if (level < 1 || level > CACHE_MAX_LEVELS || !bytes || !lsize) {
        snprintf(err, len, "%s/%s: unreadable cache description", dir, index);
        return -1;
    }
    if (assoc == 0)   /* sysfs says 0 for fully associative */
        assoc = (uint32_t)(bytes / lsize);
    char name[8];
    snprintf(name, sizeof name, "%s%d",
             !strcmp(type, "Instruction") ? "I" : level == 1 ? "D" : "L", level);
    if (!strcmp(type, "Instruction")) {
        if (level == 1)
            set_level(&cfg->i1, name, bytes, assoc, lsize, CACHE_DEFAULT_L1_LATENCY);
        return 1;
    }
    set_level(&cfg->level[level - 1], name, bytes, assoc, lsize,
              default_latency(level == 1 ? "D1" : level == 2 ? "L2" : "L3"));
    if ((uint32_t)level > cfg->nlevels)
        cfg->nlevels = (uint32_t)level;
    return 1;
}

int cache_preset_sysfs(const char *dir, cache_config *cfg, char *err, size_t len)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->memory_latency = CACHE_DEFAULT_MEMORY_LATENCY;
    int found = 0, r;
    for (int i = 0; i < 16 && (r = sysfs_index(dir, i, cfg, err, len)) != 0; i++) {
        if (r < 0)
            return -1;
        found++;
    }
    if (!found) {
        snprintf(err, len, "%s: no cache description (index0/level)", dir);
        return -1;
    }
    for (uint32_t k = 0; k < cfg->nlevels; k++)
        if (!cfg->level[k].size) {
            snprintf(err, len, "%s: no data or unified cache at level %u", dir,
                     k + 1);
            return -1;
        }
    char buf[160];
    const char *bad = cache_config_check(cfg, buf, sizeof buf);
    if (bad) {
        snprintf(err, len, "%s: %s", dir, bad);
        return -1;
    }
    return 0;
}

int cache_preset(const char *name, cache_config *cfg, char *err, size_t len)
{
    if (!strcmp(name, "rds"))
        preset_rds(cfg);
    else if (!strcmp(name, "lwptool"))
        preset_lwptool(cfg);
    else if (!strcmp(name, "host"))
        return cache_preset_sysfs("/sys/devices/system/cpu/cpu0/cache", cfg,
                                  err, len);
    else {
        snprintf(err, len, "unknown preset '%s' (rds, lwptool, host)", name);
        return -1;
    }
    return 0;
}

int cache_policy_parse(const char *s)
{
    if (!strcasecmp(s, "lru"))
        return CACHE_LRU;
    if (!strcasecmp(s, "plru"))
        return CACHE_PLRU;
    if (!strcasecmp(s, "random"))
        return CACHE_RANDOM;
    return -1;
}

const char *cache_policy_name(int policy)
{
    static const char *const names[] = { "lru", "plru", "random" };
    return policy >= 0 && policy <= CACHE_RANDOM ? names[policy] : "?";
}

/* The next comma-separated field of *s into buf; 0, or -1 when absent. */
static int field(const char **s, char *buf, size_t len)
{
    if (!*s)
        return -1;
    const char *comma = strchr(*s, ',');
    size_t n = comma ? (size_t)(comma - *s) : strlen(*s);
    if (n == 0 || n >= len)
        return -1;
    memcpy(buf, *s, n);
    buf[n] = 0;
    *s = comma ? comma + 1 : NULL;
    return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || *s == '-' || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int cache_parse_level(const char *name, const char *spec, uint32_t keep_latency,
                      cache_level_config *lc, char *err, size_t len)
{
    char f[5][32];
    const char *s = spec;
    int n = 0;
    while (n < 5 && field(&s, f[n], sizeof f[n]) == 0)
        n++;
    if (n < 3 || s) {
        snprintf(err, len, "--%s=%s: expected size,assoc,line[,latency[,policy]]",
                 name, spec);
        return -1;
    }
    uint64_t size = parse_size(f[0]);
    uint32_t assoc, line, latency = keep_latency ? keep_latency
                                                 : default_latency(name);
    int policy = CACHE_LRU;
    if (!size || parse_u32(f[1], &assoc) || parse_u32(f[2], &line) ||
        (n > 3 && parse_u32(f[3], &latency)) ||
        (n > 4 && (policy = cache_policy_parse(f[4])) < 0)) {
        snprintf(err, len, "--%s=%s: not a valid cache level "
                 "(size,assoc,line[,latency[,lru|plru|random]])", name, spec);
        return -1;
    }
    set_level(lc, name, size, assoc, line, latency);
    lc->policy = (uint8_t)policy;
    char buf[160];
    const char *bad = cache_config_check(&(cache_config){ .level = { *lc },
                                                          .nlevels = 1 },
                                         buf, sizeof buf);
    if (bad) {
        snprintf(err, len, "--%s=%s: %s", name, spec, bad);
        return -1;
    }
    return 0;
}

/* Index of the data level named name, or -1. */
static int find_level(const cache_config *cfg, const char *name)
{
    for (uint32_t k = 0; k < cfg->nlevels; k++)
        if (!strcmp(cfg->level[k].name, name))
            return (int)k;
    return -1;
}

/* Inserts an empty level at k (shifting the ones below); -1 when full. */
static int insert_level(cache_config *cfg, uint32_t k)
{
    if (cfg->nlevels >= CACHE_MAX_LEVELS)
        return -1;
    memmove(&cfg->level[k + 1], &cfg->level[k],
            (cfg->nlevels - k) * sizeof cfg->level[0]);
    memset(&cfg->level[k], 0, sizeof cfg->level[k]);
    cfg->nlevels++;
    return 0;
}

int cache_config_set(cache_config *cfg, const char *name, const char *spec,
                     char *err, size_t len)
{
    cache_level_config *target;
    int k;
    if (!strcmp(name, "I1"))
        target = &cfg->i1;
    else if (!strcmp(name, "D1")) {
        if (cfg->nlevels == 0)
            cfg->nlevels = 1;
        target = &cfg->level[0];
    } else if (!strcmp(name, "L2") || !strcmp(name, "L3")) {
        if ((k = find_level(cfg, name)) < 0) {
            /* L2 right after D1; L3 after L2 (or D1) */
            int after = !strcmp(name, "L3") ? find_level(cfg, "L2") : -1;
            k = after >= 0 ? after + 1 : 1;
            if (cfg->nlevels == 0)
                cfg->nlevels = 1;   /* D1 to be given (checked later) */
            if ((uint32_t)k > cfg->nlevels || insert_level(cfg, (uint32_t)k)) {
                snprintf(err, len, "--%s: too many cache levels", name);
                return -1;
            }
        }
        target = &cfg->level[k];
    } else if (!strcmp(name, "LL")) {
        if (cfg->nlevels <= 1) {
            cfg->nlevels = 2;
            memset(&cfg->level[1], 0, sizeof cfg->level[1]);
        }
        target = &cfg->level[cfg->nlevels - 1];
    } else {
        snprintf(err, len, "unknown cache level '%s' (I1, D1, L2, L3, LL)", name);
        return -1;
    }
    cache_level_config lc;
    if (cache_parse_level(name, spec, target->latency, &lc, err, len))
        return -1;
    /* LL keeps the name of the level it replaces (L3 stays L3), so that a
     * preset's reports keep their names. */
    if (!strcmp(name, "LL") && target->name[0])
        memcpy(lc.name, target->name, sizeof lc.name);
    *target = lc;
    return 0;
}

void cache_config_set_policy(cache_config *cfg, int policy)
{
    cfg->i1.policy = (uint8_t)policy;
    for (uint32_t k = 0; k < CACHE_MAX_LEVELS; k++)
        cfg->level[k].policy = (uint8_t)policy;
}

void cache_config_cachegrind(cache_config *cfg)
{
    if (!cfg->i1.size)
        set_level(&cfg->i1, "I1", 32 << 10, 8, 64, CACHE_DEFAULT_L1_LATENCY);
    if (cfg->nlevels > 2)
        cfg->level[1] = cfg->level[cfg->nlevels - 1];
    if (cfg->nlevels < 2)
        set_level(&cfg->level[1], "LL", 8 << 20, 16, 64, CACHE_DEFAULT_L3_LATENCY);
    cfg->nlevels = 2;
    snprintf(cfg->i1.name, sizeof cfg->i1.name, "I1");
    snprintf(cfg->level[0].name, sizeof cfg->level[0].name, "D1");
    snprintf(cfg->level[1].name, sizeof cfg->level[1].name, "LL");
    cfg->inclusive = 0;
    cfg->cachegrind = 1;
    cache_config_set_policy(cfg, CACHE_LRU);
}

static int describe_level(const cache_level_config *l, char *buf, size_t len)
{
    return snprintf(buf, len, "%s %llu,%u,%u lat %u %s", l->name,
                    (unsigned long long)l->size, l->assoc, l->line, l->latency,
                    cache_policy_name(l->policy));
}

const char *cache_config_describe(const cache_config *cfg, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    if (cfg->i1.size) {
        int n = describe_level(&cfg->i1, buf, len);
        at = n > 0 && (size_t)n < len ? (size_t)n : len - 1;
    }
    for (uint32_t k = 0; k < cfg->nlevels && at < len - 1; k++) {
        int n = snprintf(buf + at, len - at, "%s", at ? "; " : "");
        at += n > 0 ? (size_t)n : 0;
        if (at >= len - 1)
            break;
        n = describe_level(&cfg->level[k], buf + at, len - at);
        at += n > 0 && (size_t)n < len - at ? (size_t)n : len - 1 - at;
    }
    if (at < len - 1)
        snprintf(buf + at, len - at, "; memory lat %u%s%s", cfg->memory_latency,
                 cfg->inclusive ? "; inclusive" : "",
                 cfg->cachegrind ? "; cachegrind conventions" : "");
    return buf;
}
