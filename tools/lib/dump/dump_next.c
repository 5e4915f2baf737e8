/* dump_next.c: the next event, truncation as a warning; see dump_next.h. */
#include "dump/dump_next.h"

#include <stdio.h>
#include "base/cli.h"

int dump_next_event(mr_reader *r, const char *path, mr_event *ev)
{
    int rc = mr_next(r, ev);
    if (rc > 0)
        return rc;
    if (!mr_reader_truncated(r)) {
        if (rc == 0)
            return 0;
        const char *what = mr_reader_error(r);
        cli_fail(cli_trace_name(path), "%s",
                 what ? what : "cannot read the trace");
    }
    const char *why = mr_reader_error(r);
    cli_progress_done();
    fprintf(stderr, "%s: %s: warning: %s; using the events before it\n",
            cli_prog(), cli_trace_name(path),
            why ? why : "the trace ends early");
    return 0;
}
