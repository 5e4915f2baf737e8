/*
 * memrec_trace.h: the one library that writes and reads memrec traces.
 *
 * A trace is a stream of events: definitions (process, modules, strings,
 * code symbols, static data objects, blocks, call stacks) and happenings
 * (block executions with their memory accesses, thread switches, heap
 * operations, markers). Definitions always precede their use, so a trace
 * is readable in one pass from a pipe. The byte layout is in format/SPEC.md;
 * no other code in the project touches trace bytes.
 *
 * Writer: mr_writer_open*() then mr_write_*() in program order, then
 * mr_writer_close(). Reader: mr_reader_open*() then mr_next() until it
 * returns 0 (end) or -1 (error: mr_reader_error() says what went wrong).
 *
 * Every pointer the reader hands out stays valid until mr_reader_close(),
 * except mr_event.exec.accesses, which is valid until the next mr_next().
 */
#ifndef MEMREC_TRACE_H
#define MEMREC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MR_FORMAT_VERSION 3          /* major version written (and read) */
#define MR_FORMAT_VERSION_MIN 2      /* oldest major version read */
#define MR_LIBRARY_VERSION "0.1.0"   /* printed by every command's --version */

/* ------------------------------------------------------------------ */
/* Vocabulary shared by writer and reader                              */
/* ------------------------------------------------------------------ */

/* What a memory access does. A modify (read-modify-write of one location
 * by one instruction, as Lackey's "M") counts as one load and one store. */
typedef enum mr_access_kind {
    MR_LOAD = 1,
    MR_STORE = 2,
    MR_MODIFY = 3
} mr_access_kind;

/* Flags of a static memory access (mr_access_def.flags). */
#define MR_ACC_VALUE   0x1  /* the recorder captured the value moved */
#define MR_ACC_GUARDED 0x2  /* may not happen: address 0 means "guard false" */

/* How control leaves a block through one of its exits. */
typedef enum mr_jump {
    MR_JUMP_BORING = 0,   /* plain branch or fall-through */
    MR_JUMP_CALL = 1,     /* call: the next block of this thread is the callee */
    MR_JUMP_RET = 2,      /* return */
    MR_JUMP_SYSCALL = 3,  /* system call */
    MR_JUMP_OTHER = 4     /* client request, signal return, yield, ... */
} mr_jump;

/* Heap operations. For MR_CALLOC, count is nmemb and size the element size;
 * for MR_MEMALIGN, count is the alignment; for MR_REALLOC, old_addr is the
 * block given and addr the block returned (realloc keeps object identity).
 * MR_MMAP is an anonymous mapping (private or shared) of size bytes at addr
 * that the program made (ld.so's own allocator, custom allocators); MR_MUNMAP
 * unmaps [addr, addr + size). Those two count in no total (format 3). */
typedef enum mr_heap_op {
    MR_MALLOC = 1,
    MR_CALLOC = 2,
    MR_REALLOC = 3,
    MR_MEMALIGN = 4,
    MR_FREE = 5,
    MR_NEW = 6,
    MR_NEW_ARRAY = 7,
    MR_DELETE = 8,
    MR_DELETE_ARRAY = 9,
    MR_MMAP = 10,
    MR_MUNMAP = 11
} mr_heap_op;

/* Thread events (mr_event.thread.op). */
typedef enum mr_thread_op {
    MR_THREAD_SWITCH = 1,  /* this thread runs from now on */
    MR_THREAD_CREATE = 2,  /* tid created child */
    MR_THREAD_EXIT = 3,    /* tid ended */
    MR_THREAD_OS = 4       /* tid is the OS thread os_tid from here on (the
                            * trace's THREAD definition, SPEC.md section 5) */
} mr_thread_op;

/* Why the trace ended (mr_end.reason). */
typedef enum mr_end_reason {
    MR_END_EXIT = 1,     /* exit(), _exit() or return from main: status set */
    MR_END_SIGNAL = 2,   /* killed by a fatal signal: signal set */
    MR_END_EXEC = 3,     /* the process called exec; a new trace follows */
    MR_END_LOST = 4,     /* the recorder vanished (SIGKILL): trace cut short */
    MR_END_ERROR = 5     /* recording stopped on an error */
} mr_end_reason;

/* The process a trace comes from. */
typedef struct mr_process {
    uint32_t pid, ppid;
    uint64_t start_usec;        /* start time, microseconds since the epoch */
    const char *exe;            /* path of the executable */
    uint32_t argc;
    const char *const *argv;    /* command line, argv[0] first */
    const char *tool_options;   /* the recorder's options, for the record */
} mr_process;

/* A module (executable or shared library) mapped into the process. */
typedef struct mr_module {
    uint32_t id;                /* dense, chosen by the writer's caller */
    const char *path;
    uint64_t text_addr, text_size;
    int64_t bias;               /* load bias: runtime address - file address */
} mr_module;

/* Where a code address comes from. function/file may be NULL (unknown). */
typedef struct mr_symbol {
    uint64_t addr;
    const char *function;
    const char *file;
    uint32_t line;              /* 0 = unknown */
} mr_symbol;

/* A static data object (global or static variable) of some module. */
typedef struct mr_dataobj {
    const char *name;
    uint64_t addr, size;
    uint32_t module;
} mr_dataobj;

/* One guest instruction of a block. */
typedef struct mr_instr_def {
    uint64_t addr;
    uint32_t len;               /* bytes of machine code */
} mr_instr_def;

/* One static memory access of a block, in execution order. */
typedef struct mr_access_def {
    uint16_t instr;             /* index into mr_block_def.instrs */
    uint8_t kind;               /* mr_access_kind */
    uint8_t flags;              /* MR_ACC_* */
    uint32_t size;              /* bytes */
} mr_access_def;

/* One way out of a block. A block taking exit i executed exactly its first
 * ninstrs instructions and its first naccesses accesses. */
typedef struct mr_exit_def {
    uint32_t ninstrs;
    uint32_t naccesses;
    uint8_t jump;               /* mr_jump */
} mr_exit_def;

/* A block: straight-line code with side exits. The last exit is the end
 * of the block (all instructions, all accesses). */
typedef struct mr_block_def {
    uint32_t id;                /* dense small integers, chosen by the caller */
    uint64_t addr;              /* address of the first instruction */
    uint32_t ninstrs;
    const mr_instr_def *instrs;
    uint32_t naccesses;
    const mr_access_def *accesses;
    uint32_t nexits;            /* >= 1 */
    const mr_exit_def *exits;
} mr_block_def;

/* An interned call stack, innermost frame first. */
typedef struct mr_stack {
    uint32_t id;                /* dense, chosen by the writer's caller; 0 = none */
    uint32_t depth;
    const uint64_t *ips;
} mr_stack;

/* A heap operation, see mr_heap_op. */
typedef struct mr_heap {
    uint8_t op;                 /* mr_heap_op */
    uint64_t addr;              /* block allocated, or freed */
    uint64_t size;              /* requested bytes (element size for calloc) */
    uint64_t count;             /* calloc nmemb, memalign alignment, else 0 */
    uint64_t old_addr;          /* realloc: the block given; else 0 */
    uint32_t stack;             /* mr_stack.id of the allocation call stack */
} mr_heap;

/* Totals, kept by the writer and checked by the reader. */
typedef struct mr_totals {
    uint64_t instructions;      /* guest instructions executed */
    uint64_t blocks;            /* block executions */
    uint64_t loads, stores, modifies;  /* modifies are not in loads/stores here */
    uint64_t calls, returns;
    uint64_t allocs, frees;     /* allocs: malloc, calloc, memalign, new, new[];
                                 * reallocs count in neither */
    uint64_t reallocs;
    uint32_t threads;           /* distinct thread ids seen */
} mr_totals;

/* The end of a trace. */
typedef struct mr_end {
    uint8_t reason;             /* mr_end_reason */
    int32_t status;             /* exit status when reason is MR_END_EXIT */
    int32_t signal;             /* signal number when reason is MR_END_SIGNAL */
    mr_totals totals;           /* filled by the writer; ignored on input */
} mr_end;

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

typedef struct mr_writer mr_writer;

typedef struct mr_writer_options {
    int level;                  /* zstd level; 0 means the default (3) */
    size_t chunk_bytes;         /* raw bytes per chunk before compression;
                                 * 0 means the default (4 MiB) */
    int background;             /* 1: finished chunks are packed, compressed
                                 * and written by a thread of the writer's
                                 * own while the caller goes on (the same
                                 * file; errors show at a later call) */
    int workers;                /* >= 1: executions are modelled by this many
                                 * threads of the writer's own, a piece of the
                                 * event stream each (implies background).
                                 * The trace then cuts a chunk at every piece's
                                 * end: its bytes differ from a sequential
                                 * writer's (same events, SPEC.md 6.8) but are
                                 * the same for every workers >= 1. 0: the
                                 * sequential writer. */
} mr_writer_options;

/* Opens path for writing ("-" is stdout). opts may be NULL. Returns NULL
 * and sets *err (static or malloc'd message, see mr_free_error) on failure;
 * a file it created is then removed again (say, the disk is full). */
mr_writer *mr_writer_open(const char *path, const mr_writer_options *opts,
                          char **err);

/* Writes to an already open file descriptor, which the writer then owns.
 * If the descriptor is not seekable the footer index is still written. */
mr_writer *mr_writer_open_fd(int fd, const mr_writer_options *opts,
                             char **err);

/* Each mr_write_* returns 0, or -1 once the writer has failed (for
 * instance the disk is full, the file size limit is reached or the pipe's
 * reader went away: errors, never SIGXFSZ or SIGPIPE); later calls then do
 * nothing and return -1. mr_writer_error() says what failed. */
int mr_write_process(mr_writer *w, const mr_process *p);
int mr_write_module(mr_writer *w, const mr_module *m);
int mr_write_symbol(mr_writer *w, const mr_symbol *s);
int mr_write_dataobj(mr_writer *w, const mr_dataobj *d);
int mr_write_block_def(mr_writer *w, const mr_block_def *b);
int mr_write_stack(mr_writer *w, const mr_stack *s);

/* Thread tid runs from now on; later events belong to it. */
int mr_write_thread_switch(mr_writer *w, uint32_t tid);
int mr_write_thread_create(mr_writer *w, uint32_t parent, uint32_t child);
int mr_write_thread_exit(mr_writer *w, uint32_t tid);
/* Thread tid is the operating system's thread os_tid (what gettid()
 * returns, the thread id a debugger or top shows) from here on: a
 * definition (format/SPEC.md section 5, THREAD), which readers that do
 * not know it skip. */
int mr_write_thread_os(mr_writer *w, uint32_t tid, uint64_t os_tid);

/* One execution of a defined block leaving through exit `exit`.
 * addrs holds exits[exit].naccesses addresses, in access order (0 for a
 * guarded access whose guard was false). values holds one value for each
 * of those accesses whose def has MR_ACC_VALUE, in the same order; it may
 * be NULL when there is none. Calls and returns are implied by the exit's
 * jump kind and written as nothing more. */
int mr_write_exec(mr_writer *w, uint32_t block, uint32_t exit,
                  const uint64_t *addrs, const uint64_t *values);

/* The executions packed in words[0, n), back to back, as mr_write_exec
 * would write them one by one (the same bytes), but with the writer's
 * state in registers across them: each is a header word
 * `tag | exit << 8 | block << 24` (tag in the low 8 bits), then one
 * address per access of the block (all naccesses of its def: those past
 * its exit's are ignored), then one value per access whose def has
 * MR_ACC_VALUE (likewise). Stops at the first word whose low 8 bits are
 * not tag, or at the end. *used: the words of the executions written.
 * 0, or -1 when the writer has failed (an undefined block, an exit it
 * does not have and an execution cut short by n fail it). */
int mr_write_execs(mr_writer *w, const uint64_t *words, size_t n, uint8_t tag, size_t *used);

int mr_write_heap(mr_writer *w, const mr_heap *h);

/* A named marker from the program (memrec.h's MEMREC_MARK). */
int mr_write_mark(mr_writer *w, const char *name);

/* Collection toggled on (1) or off (0): events between an off and the next
 * on were not recorded. */
int mr_write_collect(mr_writer *w, int on);

/* Writes the end record (end may be NULL: reason MR_END_LOST), the footer
 * index and closes. Returns 0 or -1 with *err set. Frees w either way. */
int mr_writer_close(mr_writer *w, const mr_end *end, char **err);

/* The writer's error message, or NULL while all is well. */
const char *mr_writer_error(const mr_writer *w);

/* Running totals so far. */
const mr_totals *mr_writer_totals(const mr_writer *w);

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

typedef struct mr_reader mr_reader;

typedef enum mr_event_kind {
    MR_EV_PROCESS = 1,
    MR_EV_MODULE,
    MR_EV_SYMBOL,
    MR_EV_DATAOBJ,
    MR_EV_BLOCK_DEF,
    MR_EV_STACK,
    MR_EV_THREAD,
    MR_EV_EXEC,      /* a block execution with its memory accesses */
    MR_EV_CALL,      /* synthesised: the block before was left by a call */
    MR_EV_RETURN,    /* synthesised: the block before was left by a return */
    MR_EV_HEAP,
    MR_EV_MARK,
    MR_EV_COLLECT,
    MR_EV_END
} mr_event_kind;

/* One dynamic memory access of a block execution. */
typedef struct mr_access {
    uint64_t addr;
    uint64_t value;             /* valid when has_value; a modify's is the
                                 * value loaded, before the change */
    uint32_t size;
    uint16_t instr;             /* index into the block's instrs */
    uint8_t kind;               /* mr_access_kind */
    uint8_t has_value;
} mr_access;

typedef struct mr_event {
    mr_event_kind kind;
    uint32_t tid;               /* thread the event belongs to (0 before any) */
    uint64_t time;              /* guest instructions executed before this
                                 * event, all threads: a global clock */
    union {
        const mr_process *process;
        const mr_module *module;
        const mr_symbol *symbol;
        const mr_dataobj *dataobj;
        const mr_block_def *block_def;
        const mr_stack *stack;
        struct {
            uint8_t op;         /* mr_thread_op */
            uint32_t tid;       /* the thread switched to, created or ended */
            uint32_t parent;    /* MR_THREAD_CREATE: the creator */
            uint64_t os_tid;    /* MR_THREAD_OS: what gettid() returned */
        } thread;
        struct {
            const mr_block_def *def;
            uint32_t exit;      /* index into def->exits */
            uint32_t ninstrs;   /* instructions executed: def->exits[exit].ninstrs */
            uint32_t naccesses; /* accesses performed (guard-false ones dropped) */
            const mr_access *accesses;
            /* Executions this event stands for: 1 unless mr_reader_batch()
             * was asked for. Execution j (0 .. repeat-1) ran at time
             * time + j * period; its access i was at accesses[i].addr +
             * j * strides[i] (modulo 2^64) with the same value. */
            uint64_t repeat;
            const uint64_t *strides;    /* NULL when repeat is 1 */
            uint64_t period;            /* ninstrs, or a batched loop body's */
        } exec;
        struct {
            uint64_t from;      /* address of the call or return instruction */
            uint64_t to;        /* address jumped to */
        } call;                 /* MR_EV_CALL and MR_EV_RETURN */
        struct {
            mr_heap h;
            const mr_stack *stack;  /* NULL if h.stack was 0 */
        } heap;
        const char *mark;
        int collect_on;
        const mr_end *end;
    } u;
} mr_event;

/* Opens a trace file ("-" is stdin). Returns NULL and sets *err on failure
 * (missing file, not a trace, unsupported version). */
mr_reader *mr_reader_open(const char *path, char **err);

/* Reads from an open descriptor, which the reader then owns. */
mr_reader *mr_reader_open_fd(int fd, char **err);

/* Next event: 1 and *ev filled, 0 at the end of a complete trace, -1 on
 * error or truncation (mr_reader_error, mr_reader_truncated). Every event
 * of every complete, intact chunk is delivered before -1. */
int mr_next(mr_reader *r, mr_event *ev);

const char *mr_reader_error(const mr_reader *r);

/* 1 if the trace ended early: cut off, or closed without an end record. */
int mr_reader_truncated(const mr_reader *r);

/* Lookups over the definitions read so far. NULL when unknown. */
const mr_block_def *mr_reader_block(const mr_reader *r, uint32_t id);
const mr_stack *mr_reader_stack(const mr_reader *r, uint32_t id);
const mr_process *mr_reader_process(const mr_reader *r);
/* The symbol of the instruction holding addr (exact address match of an
 * instruction start, or the nearest symbol at or below within 64 bytes). */
const mr_symbol *mr_reader_symbol(const mr_reader *r, uint64_t addr);
/* The module whose text holds addr, else the one whose image holds it
 * below its text (a PLT stub); addr - bias is its file address. */
const mr_module *mr_reader_module(const mr_reader *r, uint64_t addr);

/* Byte counts: compressed bytes consumed so far (file size at the end) and
 * chunks read so far. */
uint64_t mr_reader_bytes(const mr_reader *r);
uint64_t mr_reader_chunks(const mr_reader *r);

/* Random access (seekable files with an intact footer index only).
 * mr_reader_chunk_count() is -1 without an index. mr_reader_seek() makes the
 * next mr_next() return the first event of chunk i; definitions from earlier
 * chunks are loaded first, so readers positioned on different chunks can
 * decode in parallel. Returns 0 or -1. */
int64_t mr_reader_chunk_count(mr_reader *r);
int mr_reader_seek(mr_reader *r, uint64_t chunk);

/* Batching, for analyses that can take a whole arithmetic run of addresses
 * at once. In a loop, executions repeat with every address at its usual
 * stride from the trip before and every value the same; with batching such
 * a run may come as MR_EV_EXECs with repeat > 1 (see mr_event).
 *   MR_BATCH_OFF              every event is one execution (the default)
 *   MR_BATCH_REPEATS          a block that follows itself: one event for the
 *                             run; the order of events is the order of
 *                             execution
 *   MR_BATCH_PER_INSTRUCTION  also a loop body of several blocks: one event
 *                             per block for the whole run, each with its
 *                             block's executions; the accesses of each
 *                             instruction keep their order, but events are
 *                             no longer in execution order (the body's blocks
 *                             ran in turn; period says how far apart). The
 *                             reader only does this when no instruction
 *                             appears twice in the body. */
enum { MR_BATCH_OFF = 0, MR_BATCH_REPEATS = 1, MR_BATCH_PER_INSTRUCTION = 2 };
void mr_reader_batch(mr_reader *r, int mode);

void mr_reader_close(mr_reader *r);

/* Frees a message returned through an err argument. */
void mr_free_error(char *err);

/* Names for printing: "load", "call", "malloc", ... */
const char *mr_access_kind_name(int kind);
const char *mr_jump_name(int jump);
const char *mr_heap_op_name(int op);
const char *mr_end_reason_name(int reason);

#ifdef __cplusplus
}
#endif
#endif /* MEMREC_TRACE_H */
