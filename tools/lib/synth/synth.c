/*
 * synth.c: synthetic traces with a known memory behaviour (see synth.h).
 *
 * The generator pretends to run a small program. Its code is the table
 * block_specs below: functions made of blocks made of instructions, each
 * instruction with at most one memory access. At start-up the table is laid
 * out at addresses in a text segment (one module), every instruction gets
 * a symbol, and every block a definition. The pattern then "runs" the
 * program: it executes blocks (mr_write_exec with the addresses the
 * program would touch), allocates and frees heap blocks, switches threads.
 *
 * The number of memory accesses is exact: the generator counts down a
 * budget, and a block whose accesses do not all fit leaves through a side
 * exit after the accesses that do (every block with k accesses has a side
 * exit after each of its first k-1 accesses).
 */
#include "synth/synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The pretend program                                                 */
/* ------------------------------------------------------------------ */

/* Functions of the pretend program, in text order. */
enum { F_MAIN, F_SEQ, F_STR, F_RND, F_BUILD, F_WALK, F_FREE, F_WORKER,
       F_TSTART, NFUNCS };

/* Name and first source line of each function, for the symbols. */
static const struct { const char *name; uint32_t line; } funcs[NFUNCS] = {
    [F_MAIN] = {"main", 200},
    [F_SEQ] = {"seq_kernel", 20},
    [F_STR] = {"strided_kernel", 40},
    [F_RND] = {"random_kernel", 60},
    [F_BUILD] = {"chase_build", 80},
    [F_WALK] = {"chase_walk", 110},
    [F_FREE] = {"chase_free", 130},
    [F_WORKER] = {"worker", 150},
    [F_TSTART] = {"start_thread", 180},
};

/* Blocks of the pretend program; the enum value is the block id. Blocks of
 * one function are contiguous, in address order. */
enum {
    B_MAIN_ENTRY, B_MAIN_CALL, B_MAIN_SPAWN, B_MAIN_JOIN, B_MAIN_EXIT,
    B_SEQ_ENTRY, B_SEQ_LOOP, B_SEQ_WRAP, B_SEQ_RET,
    B_STR_ENTRY, B_STR_ROW, B_STR_LOOP, B_STR_RET,
    B_RND_ENTRY, B_RND_LOOP, B_RND_RET,
    B_BLD_ENTRY, B_BLD_ALLOC, B_BLD_LINK, B_BLD_RET,
    B_WLK_ENTRY, B_WLK_LOOP, B_WLK_RESTART, B_WLK_RET,
    B_FRE_ENTRY, B_FRE_LOOP, B_FRE_RET,
    B_WRK_ENTRY, B_WRK_LOOP, B_WRK_WRAP, B_WRK_FREE, B_WRK_RET,
    B_TS_CALL, B_TS_EXIT,
    NBLOCKS
};

#define MAX_INSTRS 8    /* most instructions in one block of the table */
#define MAX_ACCESSES 3  /* most memory accesses in one block of the table */

/* One instruction: its length and the memory access it makes (kind 0:
 * none). */
typedef struct ins_spec {
    uint8_t len, kind, size, flags;
} ins_spec;

/* One block: its function, how its last exit leaves, its instructions. */
typedef struct block_spec {
    uint8_t func;
    uint8_t jump;
    uint8_t ninstrs;
    ins_spec ins[MAX_INSTRS];
} block_spec;

/* Instruction shorthands: no access, load, load with value, store, store
 * with value, modify. */
#define NA(len) {len, 0, 0, 0}
#define LD(len, size) {len, MR_LOAD, size, 0}
#define LDV(len, size) {len, MR_LOAD, size, MR_ACC_VALUE}
#define ST(len, size) {len, MR_STORE, size, 0}
#define STV(len, size) {len, MR_STORE, size, MR_ACC_VALUE}
#define MD(len, size) {len, MR_MODIFY, size, 0}

/* The code. Comments show what each block stands for. */
static const block_spec block_specs[NBLOCKS] = {
    /* push rbp; mov rbp,rsp; sub rsp,16 */
    [B_MAIN_ENTRY] = {F_MAIN, MR_JUMP_BORING, 3, {NA(1), NA(3), NA(4)}},
    /* mov edi,N; call kernel */
    [B_MAIN_CALL] = {F_MAIN, MR_JUMP_CALL, 2, {NA(5), NA(5)}},
    /* lea rdi,worker; mov eax,56; syscall (clone) */
    [B_MAIN_SPAWN] = {F_MAIN, MR_JUMP_SYSCALL, 3, {NA(7), NA(5), NA(2)}},
    /* mov edi,tid; mov eax,202; syscall (futex: join) */
    [B_MAIN_JOIN] = {F_MAIN, MR_JUMP_SYSCALL, 3, {NA(3), NA(5), NA(2)}},
    /* xor edi,edi; mov eax,231; syscall (exit_group) */
    [B_MAIN_EXIT] = {F_MAIN, MR_JUMP_SYSCALL, 3, {NA(2), NA(5), NA(2)}},

    /* sum = 0; i = 0 */
    [B_SEQ_ENTRY] = {F_SEQ, MR_JUMP_BORING, 2, {NA(4), NA(2)}},
    /* addsd xmm0,[rdi+rax*8]; add rax,1; cmp rax,rsi; jne */
    [B_SEQ_LOOP] = {F_SEQ, MR_JUMP_BORING, 4,
                    {LD(5, 8), NA(4), NA(3), NA(2)}},
    /* xor eax,eax; jmp loop (sweep again) */
    [B_SEQ_WRAP] = {F_SEQ, MR_JUMP_BORING, 2, {NA(2), NA(2)}},
    /* ret */
    [B_SEQ_RET] = {F_SEQ, MR_JUMP_RET, 1, {NA(1)}},

    /* i = 0 */
    [B_STR_ENTRY] = {F_STR, MR_JUMP_BORING, 2, {NA(2), NA(3)}},
    /* row pointers for row i; j = 0 */
    [B_STR_ROW] = {F_STR, MR_JUMP_BORING, 4, {NA(4), NA(4), NA(4), NA(2)}},
    /* mov rdx,[a+j*8]; add rdx,[bt+j*stride]; add [c+j*8],rdx; inc; cmp; jne */
    [B_STR_LOOP] = {F_STR, MR_JUMP_BORING, 7,
                    {LD(4, 8), LD(5, 8), NA(4), MD(4, 8), NA(4), NA(3),
                     NA(2)}},
    [B_STR_RET] = {F_STR, MR_JUMP_RET, 1, {NA(1)}},

    /* x = seed */
    [B_RND_ENTRY] = {F_RND, MR_JUMP_BORING, 2, {NA(3), NA(3)}},
    /* xorshift x; idx = x & mask; sum += t[idx]; dec; jne */
    [B_RND_LOOP] = {F_RND, MR_JUMP_BORING, 8,
                    {NA(3), NA(4), NA(3), NA(4), NA(4), LD(4, 8), NA(3),
                     NA(2)}},
    [B_RND_RET] = {F_RND, MR_JUMP_RET, 1, {NA(1)}},

    [B_BLD_ENTRY] = {F_BUILD, MR_JUMP_BORING, 3, {NA(1), NA(3), NA(4)}},
    /* mov edi,32; call malloc; mov [nodes+i*8],rax (kept in a register) */
    [B_BLD_ALLOC] = {F_BUILD, MR_JUMP_BORING, 4,
                     {NA(5), NA(5), NA(4), NA(2)}},
    /* n->next = next; n->payload = i; inc; cmp; jne */
    [B_BLD_LINK] = {F_BUILD, MR_JUMP_BORING, 5,
                    {STV(4, 8), ST(4, 8), NA(4), NA(3), NA(2)}},
    [B_BLD_RET] = {F_BUILD, MR_JUMP_RET, 2, {NA(1), NA(1)}},

    [B_WLK_ENTRY] = {F_WALK, MR_JUMP_BORING, 2, {NA(3), NA(2)}},
    /* add rdx,[rax+8]; mov rax,[rax]; test rax,rax; jne */
    [B_WLK_LOOP] = {F_WALK, MR_JUMP_BORING, 4,
                    {LD(4, 8), LDV(3, 8), NA(3), NA(2)}},
    /* mov rax,head; jmp loop (walk the list again) */
    [B_WLK_RESTART] = {F_WALK, MR_JUMP_BORING, 2, {NA(3), NA(2)}},
    [B_WLK_RET] = {F_WALK, MR_JUMP_RET, 1, {NA(1)}},

    [B_FRE_ENTRY] = {F_FREE, MR_JUMP_BORING, 3, {NA(1), NA(3), NA(4)}},
    /* mov rdi,[nodes+i*8] (kept in a register); call free; inc; cmp; jne */
    [B_FRE_LOOP] = {F_FREE, MR_JUMP_BORING, 5,
                    {NA(4), NA(5), NA(4), NA(3), NA(2)}},
    [B_FRE_RET] = {F_FREE, MR_JUMP_RET, 2, {NA(1), NA(1)}},

    /* prologue; mov edi,65536; call malloc */
    [B_WRK_ENTRY] = {F_WORKER, MR_JUMP_BORING, 4,
                     {NA(1), NA(3), NA(5), NA(5)}},
    /* mov rdx,[input+j*8]; add [buf+j*8],rdx; inc; cmp; jne */
    [B_WRK_LOOP] = {F_WORKER, MR_JUMP_BORING, 5,
                    {LD(4, 8), MD(4, 8), NA(4), NA(3), NA(2)}},
    /* xor eax,eax; jmp loop */
    [B_WRK_WRAP] = {F_WORKER, MR_JUMP_BORING, 2, {NA(2), NA(2)}},
    /* mov rdi,rbx; call free */
    [B_WRK_FREE] = {F_WORKER, MR_JUMP_BORING, 2, {NA(3), NA(5)}},
    [B_WRK_RET] = {F_WORKER, MR_JUMP_RET, 2, {NA(1), NA(1)}},

    /* A thread's first and last code, as in libc: call the start routine,
     * then the exit system call (so the worker's return has a place to
     * return to). mov rdi,arg; call worker */
    [B_TS_CALL] = {F_TSTART, MR_JUMP_CALL, 2, {NA(4), NA(5)}},
    /* xor edi,edi; mov eax,60; syscall (exit) */
    [B_TS_EXIT] = {F_TSTART, MR_JUMP_SYSCALL, 3, {NA(2), NA(5), NA(2)}},
};

/* Interned call stacks of the heap operations (ids; 0 means none). */
enum { S_NODE_MALLOC = 1, S_NODE_FREE, S_WORKER_MALLOC, S_WORKER_FREE,
       NSTACKS = S_WORKER_FREE };

/* Where the pretend program lives. */
#define TEXT_ADDR 0x401000ULL   /* text segment of the one module */
#define DATA_ADDR 0x604000ULL   /* static arrays start here */
#define HEAP_ADDR 0x20000000ULL /* the pretend malloc hands out from here */
#define MODULE_ID 0

/* Sizes of the data the kernels walk. */
#define SEQ_LEN (1u << 20)        /* doubles in seq_array: 8 MiB */
#define STR_N 256u               /* rows and columns of the 2-D arrays */
#define RND_LEN (SYNTH_RANDOM_BYTES / SYNTH_RANDOM_ALIGN)  /* int64 in rand_table */
#define WRK_LEN 8192u             /* int64 in each worker's buffer */
#define NODE_SIZE 32u             /* bytes malloc'd per list node */
#define MAX_NODES (1u << 17)      /* list nodes at most: 128 Ki */
#define NWORKERS 4u               /* threads of the threads pattern */
#define WORKER_QUANTUM 5000u      /* accesses a worker runs before a switch */
#define MIXED_SLICE 10000u        /* accesses per phase of the mixed pattern */

/* Static data objects; the enum value indexes data_specs. */
enum { D_SEQ, D_STR_A, D_STR_B, D_STR_C, D_RND, D_INPUT, NDATA };

/* Name and size of each static array. */
static const struct { const char *name; uint64_t size; } data_specs[NDATA] = {
    [D_SEQ] = {"seq_array", SEQ_LEN * 8ull},
    [D_STR_A] = {"str_a", STR_N * STR_N * 8ull},
    [D_STR_B] = {"str_bt", STR_N * STR_N * 8ull},
    [D_STR_C] = {"str_c", STR_N * STR_N * 8ull},
    [D_RND] = {"rand_table", SYNTH_RANDOM_BYTES},
    [D_INPUT] = {"worker_input", WRK_LEN * 8ull},
};

/* Names of the patterns, indexed by synth_pattern. */
static const char *const pattern_names[SYNTH_NPATTERNS] = {
    [SYNTH_SEQUENTIAL] = "sequential",
    [SYNTH_STRIDED] = "strided",
    [SYNTH_RANDOM] = "random",
    [SYNTH_CHASE] = "chase",
    [SYNTH_MIXED] = "mixed",
    [SYNTH_THREADS] = "threads",
};

/* ------------------------------------------------------------------ */
/* The program laid out: block definitions with addresses              */
/* ------------------------------------------------------------------ */

/* One block definition with the storage its pointers point into. */
typedef struct layout_block {
    mr_block_def def;
    mr_instr_def instrs[MAX_INSTRS];
    mr_access_def accesses[MAX_ACCESSES];
    mr_exit_def exits[MAX_ACCESSES];
    uint32_t first_instr_id;    /* dense id of instrs[0] over all blocks */
    uint32_t first_line;        /* source line of instrs[0] */
} layout_block;

/* The whole program at its addresses. */
typedef struct layout {
    layout_block blocks[NBLOCKS];
    uint64_t data_addr[NDATA];  /* address of each static array */
    uint64_t text_end;          /* first address after the code */
} layout;

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

/* Fills one block's exits: a side exit after each of its first k-1
 * accesses (just after the accessing instruction), then the full block. */
static void layout_exits(layout_block *lb, uint8_t jump)
{
    mr_block_def *d = &lb->def;
    uint32_t k = d->naccesses;
    for (uint32_t j = 1; j < k; j++) {
        lb->exits[j - 1].ninstrs = d->accesses[j - 1].instr + 1u;
        lb->exits[j - 1].naccesses = j;
        lb->exits[j - 1].jump = MR_JUMP_BORING;
    }
    uint32_t last = k ? k - 1 : 0;
    lb->exits[last].ninstrs = d->ninstrs;
    lb->exits[last].naccesses = k;
    lb->exits[last].jump = jump;
    d->nexits = last + 1;
    d->exits = lb->exits;
}

/* Lays out the code from TEXT_ADDR (functions 16-byte aligned) and the
 * static arrays from DATA_ADDR (64-byte aligned, a gap between them). */
static void layout_build(layout *l)
{
    uint64_t addr = TEXT_ADDR;
    uint32_t instr_id = 0, line = 0;
    int func = -1;
    memset(l, 0, sizeof *l);
    for (uint32_t b = 0; b < NBLOCKS; b++) {
        const block_spec *s = &block_specs[b];
        layout_block *lb = &l->blocks[b];
        if (s->func != func) {      /* a new function starts */
            func = s->func;
            addr = align_up(addr, 16);
            line = funcs[func].line + 1;   /* the line after the signature */
        }
        lb->def.id = b;
        lb->def.addr = addr;
        lb->def.ninstrs = s->ninstrs;
        lb->def.instrs = lb->instrs;
        lb->def.accesses = lb->accesses;
        lb->first_instr_id = instr_id;
        lb->first_line = line;
        for (uint32_t i = 0; i < s->ninstrs; i++) {
            const ins_spec *in = &s->ins[i];
            lb->instrs[i].addr = addr;
            lb->instrs[i].len = in->len;
            addr += in->len;
            if (in->kind) {
                mr_access_def *a = &lb->accesses[lb->def.naccesses++];
                a->instr = (uint16_t)i;
                a->kind = in->kind;
                a->flags = in->flags;
                a->size = in->size;
            }
        }
        instr_id += s->ninstrs;
        line += s->ninstrs;
        layout_exits(lb, s->jump);
    }
    l->text_end = addr;
    addr = DATA_ADDR;
    for (uint32_t d = 0; d < NDATA; d++) {
        l->data_addr[d] = align_up(addr, 64);
        addr = l->data_addr[d] + data_specs[d].size + 64;
    }
}

/* Address of instruction i of block b. */
static uint64_t instr_addr(const layout *l, int b, uint32_t i)
{
    return l->blocks[b].instrs[i].addr;
}

/* ------------------------------------------------------------------ */
/* The generator                                                       */
/* ------------------------------------------------------------------ */

/* Where the chase kernels are in their list. */
typedef struct chase_state {
    uint32_t nodes;          /* list nodes allocated */
    uint64_t *addr;          /* address of node i (allocation order) */
    uint32_t *order;         /* list order: order[k] is the k-th node */
    uint32_t linked;         /* list positions linked so far */
    uint32_t pos;            /* next list position the walk visits */
} chase_state;

/* A worker thread of the threads pattern. */
typedef struct worker_state {
    uint32_t tid;
    int started;
    uint64_t buf;            /* its malloc'd buffer */
    uint32_t j;              /* next element it visits */
} worker_state;

/* Everything the generator keeps while it runs. Kernel positions survive
 * between the phases of the mixed pattern. */
typedef struct gen {
    mr_writer *w;            /* NULL: generate without writing */
    const synth_options *o;
    layout *l;
    synth_truth t;
    uint64_t total_left;     /* accesses not yet handed to a phase */
    uint64_t left;           /* accesses left in the current phase */
    uint64_t rng;            /* splitmix64 state */
    uint64_t heap_next;      /* the pretend malloc's bump pointer */
    uint32_t tid;            /* thread running now */
    int failed;              /* the writer failed: stop */
    uint64_t seq_i;          /* sequential: next element */
    uint32_t str_i, str_j;   /* strided: next row and column */
    chase_state chase;
    worker_state workers[NWORKERS];
    int tid_seen[NWORKERS + 2];  /* thread ids seen (1..NWORKERS+1) */
} gen;

/* splitmix64: small, fast, and every seed (even 0) gives a good stream. */
static uint64_t rng_next(gen *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Records a writer result: after the first failure the generator stops
 * spending its budget, so it ends quickly. */
static void check(gen *g, int rc)
{
    if (rc < 0) {
        g->failed = 1;
        g->left = g->total_left = 0;
    }
}

/* Hands each access of an execution to the caller's callback. */
static void report_accesses(gen *g, const layout_block *lb, uint32_t nacc,
                            const uint64_t *addrs, const uint64_t *values)
{
    uint32_t v = 0;
    for (uint32_t k = 0; k < nacc; k++) {
        const mr_access_def *a = &lb->accesses[k];
        synth_access sa = {
            .addr = addrs[k],
            .instr_id = lb->first_instr_id + a->instr,
            .tid = g->tid,
            .size = (uint16_t)a->size,
            .kind = a->kind,
        };
        if (a->flags & MR_ACC_VALUE) {
            sa.has_value = 1;
            sa.value = values[v++];
        }
        g->o->on_access(g->o->ctx, &sa);
    }
}

/* Executes block b with the given addresses (and values of the accesses
 * marked MR_ACC_VALUE). When the phase budget cannot pay for all of the
 * block's accesses, the block leaves through the side exit after the
 * last access it can pay for. */
static void exec(gen *g, int b, const uint64_t *addrs, const uint64_t *values)
{
    const layout_block *lb = &g->l->blocks[b];
    uint32_t exit = lb->def.nexits - 1;
    uint32_t nacc = lb->def.naccesses;
    if (g->failed || (nacc && !g->left))
        return;                 /* nothing runs once the budget is spent */
    if (nacc > g->left) {
        nacc = (uint32_t)g->left;
        exit = nacc - 1;        /* exits[j-1] performs j accesses */
    }
    const mr_exit_def *x = &lb->exits[exit];
    if (g->w && mr_write_exec(g->w, (uint32_t)b, exit, addrs, values) < 0) {
        check(g, -1);           /* budget gone: every loop ends */
        return;
    }
    g->left -= nacc;
    g->t.blocks++;
    g->t.instructions += x->ninstrs;
    g->t.accesses += nacc;
    g->t.calls += x->jump == MR_JUMP_CALL;
    g->t.returns += x->jump == MR_JUMP_RET;
    for (uint32_t k = 0; k < nacc; k++) {
        const mr_access_def *a = &lb->accesses[k];
        g->t.loads += a->kind == MR_LOAD;
        g->t.stores += a->kind == MR_STORE;
        g->t.modifies += a->kind == MR_MODIFY;
        g->t.values += (a->flags & MR_ACC_VALUE) != 0;
    }
    if (g->o->on_access)
        report_accesses(g, lb, nacc, addrs, values);
}

/* Executes a block without memory accesses. */
static void exec0(gen *g, int b) { exec(g, b, NULL, NULL); }

/* The pretend malloc: a bump allocator with a 16-byte header before each
 * block, as glibc has. Writes the heap event. */
static uint64_t heap_malloc(gen *g, uint64_t size, uint32_t stack)
{
    uint64_t addr = g->heap_next + 16;
    g->heap_next = align_up(addr + size, 16);
    mr_heap h = {.op = MR_MALLOC, .addr = addr, .size = size, .stack = stack};
    if (g->w && !g->failed)
        check(g, mr_write_heap(g->w, &h));
    g->t.allocs++;
    return addr;
}

static void heap_free(gen *g, uint64_t addr, uint32_t stack)
{
    mr_heap h = {.op = MR_FREE, .addr = addr, .stack = stack};
    if (g->w && !g->failed)
        check(g, mr_write_heap(g->w, &h));
    g->t.frees++;
}

/* Makes tid the running thread (a switch event when it changes). */
static void switch_to(gen *g, uint32_t tid)
{
    if (tid == g->tid)
        return;
    if (g->w && !g->failed)
        check(g, mr_write_thread_switch(g->w, tid));
    g->tid = tid;
    if (!g->tid_seen[tid]) {
        g->tid_seen[tid] = 1;
        g->t.threads++;
    }
}

static void mark(gen *g, const char *name)
{
    if (g->w && !g->failed)
        check(g, mr_write_mark(g->w, name));
    g->t.marks++;
}

/* Gives the next phase up to n accesses of what is left. */
static void phase_begin(gen *g, uint64_t n)
{
    g->left = n < g->total_left ? n : g->total_left;
    g->total_left -= g->left;
}

/* ---- kernels: each is one function call of the pretend program; each
 * runs until the phase budget is spent ---- */

static void kernel_sequential(gen *g)
{
    uint64_t base = g->l->data_addr[D_SEQ];
    exec0(g, B_MAIN_CALL);
    exec0(g, B_SEQ_ENTRY);
    while (g->left > 0) {
        uint64_t a = base + 8 * g->seq_i;
        exec(g, B_SEQ_LOOP, &a, NULL);
        if (++g->seq_i == SEQ_LEN) {
            g->seq_i = 0;
            exec0(g, B_SEQ_WRAP);
        }
    }
    exec0(g, B_SEQ_RET);
}

/* c[i][j] += a[i][j] + bt[j][i]: a and c by rows (stride 8), bt by
 * columns (stride 8 * STR_N). */
static void kernel_strided(gen *g)
{
    const uint64_t *d = g->l->data_addr;
    exec0(g, B_MAIN_CALL);
    exec0(g, B_STR_ENTRY);
    while (g->left > 0) {
        if (g->str_j == 0)
            exec0(g, B_STR_ROW);
        uint64_t row = (uint64_t)g->str_i * STR_N + g->str_j;
        uint64_t col = (uint64_t)g->str_j * STR_N + g->str_i;
        uint64_t a[3] = {d[D_STR_A] + 8 * row, d[D_STR_B] + 8 * col,
                         d[D_STR_C] + 8 * row};
        exec(g, B_STR_LOOP, a, NULL);
        if (++g->str_j == STR_N) {
            g->str_j = 0;
            g->str_i = (g->str_i + 1) % STR_N;
        }
    }
    exec0(g, B_STR_RET);
}

static void kernel_random(gen *g)
{
    uint64_t base = g->l->data_addr[D_RND];
    exec0(g, B_MAIN_CALL);
    exec0(g, B_RND_ENTRY);
    while (g->left > 0) {
        uint64_t a = base + SYNTH_RANDOM_ALIGN * (rng_next(g) & (RND_LEN - 1));
        exec(g, B_RND_LOOP, &a, NULL);
    }
    exec0(g, B_RND_RET);
}

/* Address of the node at list position k, and of its successor (0 after
 * the last). */
static uint64_t chase_node(const chase_state *c, uint32_t k)
{
    return k < c->nodes ? c->addr[c->order[k]] : 0;
}

/* Allocates the list nodes (in address order), shuffles the list order
 * (Fisher-Yates) and links the nodes, as far as the phase budget goes. */
static void kernel_chase_build(gen *g)
{
    chase_state *c = &g->chase;
    exec0(g, B_MAIN_CALL);
    exec0(g, B_BLD_ENTRY);
    for (uint32_t i = 0; i < c->nodes; i++) {
        exec0(g, B_BLD_ALLOC);
        c->addr[i] = heap_malloc(g, NODE_SIZE, S_NODE_MALLOC);
        c->order[i] = i;
    }
    for (uint32_t i = c->nodes; i > 1; i--) {
        uint32_t j = (uint32_t)(rng_next(g) % i);
        uint32_t tmp = c->order[i - 1];
        c->order[i - 1] = c->order[j];
        c->order[j] = tmp;
    }
    while (g->left > 0 && c->linked < c->nodes) {
        uint64_t n = chase_node(c, c->linked);
        uint64_t a[2] = {n, n + 8};             /* next, payload */
        uint64_t next = chase_node(c, c->linked + 1);
        exec(g, B_BLD_LINK, a, &next);
        c->linked++;
    }
    exec0(g, B_BLD_RET);
}

/* sum += n->payload; n = n->next, round the list again and again. */
static void kernel_chase_walk(gen *g)
{
    chase_state *c = &g->chase;
    exec0(g, B_MAIN_CALL);
    exec0(g, B_WLK_ENTRY);
    while (g->left > 0) {
        uint64_t n = chase_node(c, c->pos);
        uint64_t a[2] = {n + 8, n};             /* payload, next */
        uint64_t next = chase_node(c, c->pos + 1);
        exec(g, B_WLK_LOOP, a, &next);
        if (++c->pos == c->nodes) {
            c->pos = 0;
            exec0(g, B_WLK_RESTART);
        }
    }
    exec0(g, B_WLK_RET);
}

static void kernel_chase_free(gen *g)
{
    chase_state *c = &g->chase;
    exec0(g, B_MAIN_CALL);
    exec0(g, B_FRE_ENTRY);
    for (uint32_t i = 0; i < c->nodes; i++) {
        exec0(g, B_FRE_LOOP);
        heap_free(g, c->addr[i], S_NODE_FREE);
    }
    exec0(g, B_FRE_RET);
}

/* Picks the list length for a budget of n accesses: about an eighth of
 * the budget goes to linking (2 stores per node), at most MAX_NODES. */
static int chase_init(gen *g, uint64_t n)
{
    chase_state *c = &g->chase;
    uint64_t nodes = n / 8;
    c->nodes = nodes < 1 ? 1 : nodes > MAX_NODES ? MAX_NODES : (uint32_t)nodes;
    c->addr = malloc(c->nodes * sizeof *c->addr);
    c->order = malloc(c->nodes * sizeof *c->order);
    return c->addr && c->order ? 0 : -1;
}

/* The list must be linked before it is walked: building gets a phase of
 * its own with exactly the stores it needs. */
static void chase_build_phase(gen *g)
{
    phase_begin(g, 2ull * g->chase.nodes);
    kernel_chase_build(g);
}

/* ---- threads ---- */

/* A worker's first block and its buffer. */
static void worker_start(gen *g, worker_state *wk)
{
    switch_to(g, wk->tid);
    exec0(g, B_TS_CALL);
    exec0(g, B_WRK_ENTRY);
    wk->buf = heap_malloc(g, WRK_LEN * 8ull, S_WORKER_MALLOC);
    wk->started = 1;
}

/* buf[j] += input[j] over the worker's buffer, for one quantum. */
static void worker_run(gen *g, worker_state *wk)
{
    uint64_t input = g->l->data_addr[D_INPUT];
    switch_to(g, wk->tid);
    if (!wk->started)
        worker_start(g, wk);
    while (g->left > 0) {
        uint64_t a[2] = {input + 8ull * wk->j, wk->buf + 8ull * wk->j};
        exec(g, B_WRK_LOOP, a, NULL);
        if (++wk->j == WRK_LEN) {
            wk->j = 0;
            exec0(g, B_WRK_WRAP);
        }
    }
}

static void worker_finish(gen *g, worker_state *wk)
{
    if (!wk->started)
        worker_start(g, wk);
    switch_to(g, wk->tid);
    exec0(g, B_WRK_FREE);
    heap_free(g, wk->buf, S_WORKER_FREE);
    exec0(g, B_WRK_RET);
    exec0(g, B_TS_EXIT);
    if (g->w && !g->failed)
        check(g, mr_write_thread_exit(g->w, wk->tid));
}

/* The main thread (tid 1) creates the workers (tids 2..), they run round
 * robin one quantum at a time until the budget is spent, then each frees
 * its buffer and ends, and main joins them. */
static void run_threads(gen *g)
{
    for (uint32_t k = 0; k < NWORKERS; k++) {
        g->workers[k].tid = 2 + k;
        exec0(g, B_MAIN_SPAWN);
        if (g->w && !g->failed)
            check(g, mr_write_thread_create(g->w, 1, 2 + k));
    }
    while (g->total_left > 0) {
        for (uint32_t k = 0; k < NWORKERS && g->total_left > 0; k++) {
            phase_begin(g, WORKER_QUANTUM);
            worker_run(g, &g->workers[k]);
        }
    }
    for (uint32_t k = 0; k < NWORKERS; k++)
        worker_finish(g, &g->workers[k]);
    switch_to(g, 1);
    for (uint32_t k = 0; k < NWORKERS; k++)
        exec0(g, B_MAIN_JOIN);
}

/* The phases of the mixed pattern take turns in this order. */
static void run_mixed(gen *g)
{
    static const char *const phase_marks[4] = {
        "phase sequential", "phase strided", "phase random", "phase chase"};
    chase_build_phase(g);
    for (int k = 0; g->total_left > 0; k = (k + 1) % 4) {
        mark(g, phase_marks[k]);
        phase_begin(g, MIXED_SLICE);
        switch (k) {
        case 0: kernel_sequential(g); break;
        case 1: kernel_strided(g); break;
        case 2: kernel_random(g); break;
        default: kernel_chase_walk(g); break;
        }
    }
    kernel_chase_free(g);
}

/* Runs the program of the chosen pattern. */
static void run_pattern(gen *g)
{
    exec0(g, B_MAIN_ENTRY);
    switch (g->o->pattern) {
    case SYNTH_SEQUENTIAL:
        phase_begin(g, g->total_left);
        kernel_sequential(g);
        break;
    case SYNTH_STRIDED:
        phase_begin(g, g->total_left);
        kernel_strided(g);
        break;
    case SYNTH_RANDOM:
        phase_begin(g, g->total_left);
        kernel_random(g);
        break;
    case SYNTH_CHASE:
        chase_build_phase(g);
        phase_begin(g, g->total_left);
        kernel_chase_walk(g);
        kernel_chase_free(g);
        break;
    case SYNTH_MIXED:
        run_mixed(g);
        break;
    default:
        run_threads(g);
        break;
    }
    exec0(g, B_MAIN_EXIT);
}

/* ------------------------------------------------------------------ */
/* Definitions: process, module, symbols, data, blocks, stacks          */
/* ------------------------------------------------------------------ */

static int write_process(mr_writer *w, const synth_options *o)
{
    char opts[160];
    char pat[64];
    snprintf(pat, sizeof pat, "--pattern=%s", pattern_names[o->pattern]);
    snprintf(opts, sizeof opts, "--pattern=%s --accesses=%llu --seed=%llu",
             pattern_names[o->pattern], (unsigned long long)o->accesses,
             (unsigned long long)o->seed);
    const char *argv[2] = {"/synth/synth", pat};
    mr_process p = {
        .pid = 4242, .ppid = 4241,
        .start_usec = 1700000000000000ULL,  /* fixed: same seed, same bytes */
        .exe = "/synth/synth", .argc = 2, .argv = argv,
        .tool_options = opts,
    };
    return mr_write_process(w, &p);
}

static int write_module_and_symbols(mr_writer *w, const layout *l)
{
    mr_module m = {.id = MODULE_ID, .path = "/synth/synth",
                   .text_addr = TEXT_ADDR, .text_size = l->text_end - TEXT_ADDR};
    if (mr_write_module(w, &m) < 0)
        return -1;
    for (uint32_t b = 0; b < NBLOCKS; b++) {
        const layout_block *lb = &l->blocks[b];
        for (uint32_t i = 0; i < lb->def.ninstrs; i++) {
            mr_symbol s = {.addr = lb->instrs[i].addr,
                           .function = funcs[block_specs[b].func].name,
                           .file = "synth.c", .line = lb->first_line + i};
            if (mr_write_symbol(w, &s) < 0)
                return -1;
        }
    }
    for (uint32_t d = 0; d < NDATA; d++) {
        mr_dataobj o = {.name = data_specs[d].name, .addr = l->data_addr[d],
                        .size = data_specs[d].size, .module = MODULE_ID};
        if (mr_write_dataobj(w, &o) < 0)
            return -1;
    }
    return 0;
}

/* Block definitions and the heap call stacks (innermost frame first:
 * the call of malloc or free, then the call of the function making it). */
static int write_blocks_and_stacks(mr_writer *w, const layout *l)
{
    for (uint32_t b = 0; b < NBLOCKS; b++)
        if (mr_write_block_def(w, &l->blocks[b].def) < 0)
            return -1;
    uint64_t main_call = instr_addr(l, B_MAIN_CALL, 1);
    const uint64_t ips[NSTACKS][2] = {
        {instr_addr(l, B_BLD_ALLOC, 1), main_call},
        {instr_addr(l, B_FRE_LOOP, 1), main_call},
        {instr_addr(l, B_WRK_ENTRY, 3), instr_addr(l, B_TS_CALL, 1)},
        {instr_addr(l, B_WRK_FREE, 1), instr_addr(l, B_TS_CALL, 1)},
    };
    for (uint32_t s = 0; s < NSTACKS; s++) {
        mr_stack st = {.id = s + 1, .depth = 2, .ips = ips[s]};
        if (mr_write_stack(w, &st) < 0)
            return -1;
    }
    return 0;
}

static int write_definitions(mr_writer *w, const synth_options *o,
                             const layout *l)
{
    if (write_process(w, o) < 0 || write_module_and_symbols(w, l) < 0)
        return -1;
    return write_blocks_and_stacks(w, l);
}

/* ------------------------------------------------------------------ */
/* Public functions                                                    */
/* ------------------------------------------------------------------ */

int synth_pattern_from_name(const char *name)
{
    for (int p = 0; name && p < SYNTH_NPATTERNS; p++)
        if (strcmp(name, pattern_names[p]) == 0)
            return p;
    return -1;
}

const char *synth_pattern_name(int pattern)
{
    return pattern >= 0 && pattern < SYNTH_NPATTERNS ? pattern_names[pattern]
                                                     : NULL;
}

const char *synth_pattern_list(void)
{
    return "sequential, strided, random, chase, mixed, threads";
}

int synth_write(mr_writer *w, const synth_options *o, synth_truth *truth)
{
    if (!o || !synth_pattern_name((int)o->pattern))
        return -1;
    layout *l = malloc(sizeof *l);
    gen *g = calloc(1, sizeof *g);
    int rc = -1;
    if (!l || !g)
        goto out;
    layout_build(l);
    g->w = w;
    g->o = o;
    g->l = l;
    g->rng = o->seed;
    g->total_left = o->accesses;
    g->heap_next = HEAP_ADDR;
    if ((o->pattern == SYNTH_CHASE || o->pattern == SYNTH_MIXED) &&
        chase_init(g, o->accesses) < 0)
        goto out;
    if (w && write_definitions(w, o, l) < 0)
        goto out;
    switch_to(g, 1);            /* main runs first */
    run_pattern(g);
    if (!g->failed) {
        rc = 0;
        if (truth)
            *truth = g->t;
    }
out:
    if (g) {
        free(g->chase.addr);
        free(g->chase.order);
    }
    free(g);
    free(l);
    return rc;
}

mr_end synth_end(void)
{
    mr_end e = {.reason = MR_END_EXIT, .status = 0};
    return e;
}

int synth_write_file(const char *path, const synth_options *o,
                     const mr_writer_options *wopts, synth_truth *truth,
                     char **err)
{
    /* Messages are strdup'd: mr_free_error() frees them (NULL when memory
     * ran out). */
    *err = NULL;
    if (!o || !synth_pattern_name((int)o->pattern)) {
        *err = strdup("unknown synthetic pattern");
        return -1;
    }
    mr_writer *w = mr_writer_open(path, wopts, err);
    if (!w)
        return -1;
    if (synth_write(w, o, truth) < 0) {
        const char *why = mr_writer_error(w);
        *err = strdup(why ? why : "out of memory");
        mr_end lost = {.reason = MR_END_ERROR};
        char *close_err = NULL;
        mr_writer_close(w, &lost, &close_err);
        mr_free_error(close_err);
        return -1;
    }
    mr_end end = synth_end();
    return mr_writer_close(w, &end, err);
}

char *synth_truth_json(const synth_truth *t, char *buf, size_t n)
{
    snprintf(buf, n,
             "{\"instructions\": %llu, \"blocks\": %llu, \"loads\": %llu, "
             "\"stores\": %llu, \"modifies\": %llu, \"calls\": %llu, "
             "\"returns\": %llu, \"allocs\": %llu, \"frees\": %llu, "
             "\"threads\": %u, \"marks\": %llu, \"accesses\": %llu, "
             "\"values\": %llu}",
             (unsigned long long)t->instructions,
             (unsigned long long)t->blocks,
             (unsigned long long)(t->loads + t->modifies),
             (unsigned long long)(t->stores + t->modifies),
             (unsigned long long)t->modifies, (unsigned long long)t->calls,
             (unsigned long long)t->returns, (unsigned long long)t->allocs,
             (unsigned long long)t->frees, t->threads,
             (unsigned long long)t->marks, (unsigned long long)t->accesses,
             (unsigned long long)t->values);
    return buf;
}
