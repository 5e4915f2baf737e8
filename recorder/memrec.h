/*
 * memrec.h: client requests for programs recorded by `valgrind --tool=memrec`.
 *
 *   MEMREC_START        record block executions from here on
 *   MEMREC_STOP         stop recording them (heap events are still recorded)
 *   MEMREC_MARK(name)   put a named marker into the trace
 *
 * Run natively (without Valgrind) they cost a few instructions and do nothing.
 * Use with --collect-atstart=no to record only the window you choose.
 */
#ifndef MEMREC_H
#define MEMREC_H

#include <valgrind/valgrind.h>

/* The request numbers ('M','R' is memrec's tool base). */
enum {
    MEMREC_USERREQ_START = VG_USERREQ_TOOL_BASE('M', 'R'),
    MEMREC_USERREQ_STOP,
    MEMREC_USERREQ_MARK
};

#define MEMREC_START \
    VALGRIND_DO_CLIENT_REQUEST_STMT(MEMREC_USERREQ_START, 0, 0, 0, 0, 0)
#define MEMREC_STOP \
    VALGRIND_DO_CLIENT_REQUEST_STMT(MEMREC_USERREQ_STOP, 0, 0, 0, 0, 0)
#define MEMREC_MARK(name) \
    VALGRIND_DO_CLIENT_REQUEST_STMT(MEMREC_USERREQ_MARK, (name), 0, 0, 0, 0)

#endif /* MEMREC_H */
