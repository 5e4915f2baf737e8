/*
 * objmap.h: object-relative translation (Wu et al., "Exposing memory access
 * regularities using object-relative memory profiling", section 2).
 *
 * Feed every event of a trace to objmap_event(); for each memory access,
 * objmap_find() says which object it touched. An access then reads as
 * (instruction, group, object, offset, time):
 *
 *   group   obj->group: an allocation site, a static data object, `stack`
 *           or `unknown`
 *   object  obj->serial: objects are numbered per group from 0 in
 *           allocation order
 *   offset  addr - obj->addr
 *
 * Groups. A heap group is the allocation site: the first `group_depth`
 * frames (default 1) of the allocation call stack outside the allocator.
 * The recorder gives the stack innermost first; leading frames that belong
 * to the allocator are skipped: functions named malloc, calloc, realloc,
 * free, memalign, posix_memalign, aligned_alloc, valloc, pvalloc,
 * reallocarray, operator new and new[] (_Znw*, _Zna*), their __libc_ and
 * __GI_ forms, and anything in Valgrind's vg_replace_malloc.c (traces
 * recorded when memrec replaced malloc). This needs
 * the trace's symbols (objmap_options.reader); without a reader frame 0 is
 * taken as the call site. Each static data object of the trace is a group
 * of its own with one object, serial 0, named `module:name` (module: the
 * file name of its module, so that libpython's data symbol `stack` is
 * `libpython3.11.so.1.0:stack`, never the `stack` group), name as the
 * recorder names it (recorder/encoder_elf.c): a data symbol of a module (from its symbol
 * table or from its separate debug file in /usr/lib/debug/.build-id), or
 * a stretch of a module's data sections that no symbol covers, named
 * `file:section` (file: the module's file name), or `file:section+0xOFF`
 * when it starts OFF bytes into the section, or `file:(ELF headers)`
 * (these already start with the module and are kept as they are).
 * realloc keeps the object (and its serial): only its address and size
 * change.
 *
 * Nesting. A custom pool's chunks are heap objects inside the pool's own
 * block (recorder/README.md, "Custom allocators"). A block allocated at
 * the start of a live heap object and no larger is nested in it (the
 * pool's first chunk), not that object reused; a larger one, or a
 * mapping, means the old object's free was not recorded (lost_frees).
 * Lookups answer the innermost object; a free or realloc at an address
 * where objects nest takes the innermost (the chunk, allocated last), and
 * a freed object ends every heap object still live inside it (the pool's
 * chunks with its block). A block freed while a chunk at its first byte
 * is still live cannot be told from the chunk's free: the chunk goes.
 *
 * Mappings. An MR_MMAP (an anonymous mapping the program made: ld.so's
 * __minimal_malloc, custom allocators, big buffers) is a heap object like
 * a malloc'd block, grouped by its stack; mmap, mmap64 and mremap frames
 * count as the allocator's. An MR_MUNMAP of [a, e) ends every mapping
 * object starting in it, even one reaching past e (its rest is unknown
 * from then on: a head unmap is not followed), and cuts a mapping that
 * reaches into it from below to end at a (a tail unmap). Other heap
 * objects are left alone.
 *
 * The stack rule. The trace carries no stack pointer, but every call
 * pushes its return address: in a block left through a call, the 8-byte
 * store made by the last executed instruction (the call) is written at the
 * new stack pointer. objmap keeps, per thread, the lowest and highest such
 * push address seen so far; an access that hits no heap or static object
 * and lies in [lowest - 4 KiB, highest + 128 KiB) of some thread is
 * `stack` (below: the red zone and a frame being built; above: the
 * outermost frames, and for the main thread argv, the environment and the
 * auxiliary vector). The object of a stack access is the thread's stack
 * (serial = the order in which threads first called), its offset is from
 * the window's low end at the time of the access, which moves as the
 * stack deepens: stack offsets are for grouping, not for field analysis.
 * A thread that has not called yet has no stack window. Pushes into a
 * heap or static object (a stack the program allocated) leave the window
 * alone, and so do pushes more than 64 MiB away from it (a signal stack),
 * so that a window never spans unrelated memory.
 *
 * Everything else is `unknown`: object 0, offset = the address itself.
 * That is mostly the rest of ld.so's last data page, which its allocator
 * uses before it maps any; also memory mapped before the trace began
 * (a forked child's inherited mappings) and the part of a mapping left
 * after its head was unmapped.
 *
 * Speed. Lookups go through a per-instruction cache (obj_cache, one per
 * static memory instruction, owned by the caller): most executions of an
 * instruction touch the object it touched last time, checked with one
 * range compare. Then comes the object of the last lookup of any
 * instruction (p->key then p->next). On a miss, live heap and static
 * objects are found through a hash of 4 KiB pages; each page lists the
 * objects overlapping it as (start, record) pairs sorted by start, and the
 * index is first guessed from the offset in the page (allocators tile
 * pages evenly), then corrected, with a branchless binary search as the
 * fallback. Objects over 256 KiB live in one sorted array. Object records
 * are pooled in huge-page blocks; a record's generation number changes
 * when it is freed, which invalidates caches pointing at it.
 *
 * Pointer chasing misses all of the above on every new node, and the page
 * lists then cost two dependent cache misses. Before them comes successor
 * prediction: each live heap object remembers the heap object that the
 * slow lookup 8 misses later found, and that object's record is
 * prefetched as soon as the first is found again; a walk that repeats
 * (round a list, down a tree again) then finds each node in the cache.
 * A prediction is only taken when it is exactly what the page lists would
 * answer: the object is live, heap, covers the address, and no live
 * object overlaps a live heap object (checked as objects come; once one
 * does, prediction stays off). See bench/objects.sh for the speeds.
 *
 * Memory: a record per live object (plus user_size bytes for the caller),
 * a page entry per 4 KiB page holding live objects, a group per site.
 * Nothing of the access stream is kept.
 */
#ifndef MEMREC_OBJMAP_H
#define MEMREC_OBJMAP_H

#include <stddef.h>
#include <stdint.h>
#include "memrec_trace.h"

/* What kind of memory a group is. */
typedef enum obj_kind {
    OBJ_HEAP = 0,
    OBJ_STATIC = 1,
    OBJ_STACK = 2,
    OBJ_UNKNOWN = 3
} obj_kind;

#define OBJ_MAX_DEPTH 16    /* most frames a group can be defined by */

struct objmap;

/* A module of the trace, as objmap keeps it for names. */
typedef struct obj_module {
    char *name;             /* its file's name; NULL: no such module seen */
    uint64_t text_addr, text_size;
    int64_t bias;           /* runtime address - address in the file */
} obj_module;

/* A group: an allocation site, a static object, the stacks, or unknown. */
typedef struct obj_group {
    uint32_t id;            /* dense, from 0, in order of creation */
    uint8_t kind;           /* obj_kind */
    uint32_t depth;         /* frames in ips (heap groups) */
    uint64_t ips[OBJ_MAX_DEPTH];  /* the defining frames, innermost first */
    char *name;             /* static: the object's name; stack/unknown:
                             * that word; heap: NULL (the caller names it
                             * by ips[0]) */
    uint32_t symbol;        /* static: where the object's own name (the
                             * recorder's) starts in name, after "module:" */
    uint64_t addr;          /* static: the object's address */
    uint64_t nobjects;      /* objects created so far (the next serial) */
    uint64_t max_size;      /* largest size any of its objects had */
    void *user;             /* the caller's, NULL until set */
    const struct objmap *map;   /* its map: modules, to name code that has
                                 * no symbol (groupname.c) */
} obj_group;

/* An object: a heap block, a static object, a thread's stack window, or
 * the one `unknown` pseudo-object. */
typedef struct obj_object {
    uint64_t addr, size;    /* current range [addr, addr + size) */
    uint64_t serial;        /* number within its group */
    uint64_t alloc_time;    /* trace time of the allocation (0: static) */
    union {
        uint64_t free_time; /* valid when freed is set */
        struct obj_object *next_free;   /* pool free list, once recycled */
        struct obj_object *next_hint;   /* objmap's own while live: the heap
                                         * object looked up a few misses
                                         * after this one last time */
    };
    obj_group *group;
    uint32_t gen;           /* changes when the record is reused */
    uint32_t tid;           /* allocating thread (heap) */
    uint32_t reallocs;      /* reallocs applied to it */
    uint8_t freed;          /* 1 once freed */
    uint8_t live;           /* 1 while in the map */
    uint8_t mapping;        /* 1: a heap object made by MR_MMAP */
    /* user_size bytes of the caller's follow, zeroed at allocation */
} obj_object;

/* The caller's extra bytes of an object (objmap_options.user_size). */
static inline void *obj_user(obj_object *o) { return o + 1; }

/* Called when an object leaves the map: freed (o->freed set), replaced by
 * an allocation at its address that the trace never freed, or, for live
 * heap and static objects, at objmap_finish() (o->freed clear). The record
 * is recycled right after the call. */
typedef void (*obj_end_fn)(void *ctx, obj_object *o);

typedef struct objmap_options {
    uint32_t group_depth;   /* frames defining a heap group; 0 means 1 */
    size_t user_size;       /* bytes for the caller in each object record */
    const mr_reader *reader;/* symbols, to skip allocator frames; may be NULL */
    obj_end_fn on_end;      /* may be NULL */
    void *ctx;              /* passed to on_end */
} objmap_options;

/* The per-instruction lookup cache: zero-initialise one per static memory
 * instruction. */
typedef struct obj_cache {
    obj_object *obj;
    uint32_t gen;
} obj_cache;

typedef struct objmap objmap;

objmap *objmap_new(const objmap_options *opts);

/* Feeds one event: process/module/symbol events are ignored; data objects,
 * heap operations, thread events and block executions (for the stack rule)
 * update the map. Call it for an MR_EV_EXEC before translating its
 * accesses. Returns 0, or -1 when out of memory. */
int objmap_event(objmap *m, const mr_event *ev);

/* objmap_event for an MR_EV_EXEC, inline: most executions do not end in
 * a call, and only those move a stack window (the stack rule). */
int objmap_exec_call(objmap *m, const mr_event *ev);

static inline int objmap_exec(objmap *m, const mr_event *ev)
{
    /* A call's push is made by the block's last executed instruction, and
     * is its last access: most executions are ruled out by the event,
     * without a look at the block's exits (a cache miss, often). */
    uint32_t n = ev->u.exec.naccesses;
    if (!n || ev->u.exec.accesses[n - 1].instr + 1u != ev->u.exec.ninstrs)
        return 0;
    const mr_exit_def *x = &ev->u.exec.def->exits[ev->u.exec.exit];
    if (x->jump != MR_JUMP_CALL || !x->ninstrs)
        return 0;
    return objmap_exec_call(m, ev);
}

/* The object holding addr, accessed by thread tid: a heap or static
 * object, a stack window, or the unknown pseudo-object (addr 0, so the
 * offset is the address). Never NULL. */
obj_object *objmap_find_slow(objmap *m, obj_cache *c, uint32_t tid,
                             uint64_t addr);

static inline obj_object *objmap_find(objmap *m, obj_cache *c, uint32_t tid,
                                      uint64_t addr)
{
    obj_object *o = c->obj;
    if (o && o->gen == c->gen && addr - o->addr < o->size)
        return o;
    return objmap_find_slow(m, c, tid, addr);
}

/* Reports every object still live through on_end (frees nothing). Call it
 * once at the end of the trace. */
void objmap_finish(objmap *m);

void objmap_free(objmap *m);

/* Groups so far, by id. */
uint32_t objmap_ngroups(const objmap *m);
obj_group *objmap_group(const objmap *m, uint32_t id);

/* Counters for reports and tests. */
typedef struct objmap_stats {
    uint64_t live;          /* heap and static objects in the map now */
    uint64_t peak_live;     /* most at any time */
    uint64_t heap_objects;  /* heap objects created */
    uint64_t static_objects;
    uint64_t stray_frees;   /* frees of addresses not allocated */
    uint64_t lost_frees;    /* allocations over a live object never freed */
    uint64_t lookups_slow;  /* objmap_find calls that missed the cache */
} objmap_stats;

const objmap_stats *objmap_get_stats(const objmap *m);

/* The name of the module whose code holds addr, and in *offset the address
 * in its file (what addr2line and objdump take); NULL when no module of
 * the trace so far holds it. */
const char *objmap_module_at(const objmap *m, uint64_t addr, uint64_t *offset);

#endif /* MEMREC_OBJMAP_H */
