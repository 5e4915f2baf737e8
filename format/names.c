/*
 * names.c: printable names of the format's enums, and the error strings
 * handed to callers through char **err.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "trace_internal.h"

/* Returned when even the message cannot be allocated; never freed. */
static char out_of_memory[] = "out of memory";

char *mr_strdup_printf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = out_of_memory;
    va_end(ap);
    return s;
}

void mr_free_error(char *err)
{
    if (err != out_of_memory)
        free(err);
}

const char *mr_access_kind_name(int kind)
{
    switch (kind) {
    case MR_LOAD: return "load";
    case MR_STORE: return "store";
    case MR_MODIFY: return "modify";
    default: return "unknown";
    }
}

const char *mr_jump_name(int jump)
{
    switch (jump) {
    case MR_JUMP_BORING: return "boring";
    case MR_JUMP_CALL: return "call";
    case MR_JUMP_RET: return "return";
    case MR_JUMP_SYSCALL: return "syscall";
    case MR_JUMP_OTHER: return "other";
    default: return "unknown";
    }
}

const char *mr_heap_op_name(int op)
{
    switch (op) {
    case MR_MALLOC: return "malloc";
    case MR_CALLOC: return "calloc";
    case MR_REALLOC: return "realloc";
    case MR_MEMALIGN: return "memalign";
    case MR_FREE: return "free";
    case MR_NEW: return "new";
    case MR_NEW_ARRAY: return "new[]";
    case MR_DELETE: return "delete";
    case MR_DELETE_ARRAY: return "delete[]";
    case MR_MMAP: return "mmap";
    case MR_MUNMAP: return "munmap";
    default: return "unknown";
    }
}

const char *mr_end_reason_name(int reason)
{
    switch (reason) {
    case MR_END_EXIT: return "exit";
    case MR_END_SIGNAL: return "signal";
    case MR_END_EXEC: return "exec";
    case MR_END_LOST: return "lost";
    case MR_END_ERROR: return "error";
    default: return "unknown";
    }
}
