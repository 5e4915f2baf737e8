/* window.c: a dump window's first chunk, see window.h. */
#include "dump/window.h"

/* The time of the first event of chunk i, or UINT64_MAX when there is
 * none or it cannot be read (*failed is then set). */
static uint64_t chunk_start_time(mr_reader *r, int64_t i, int *failed)
{
    mr_event ev;
    if (mr_reader_seek(r, (uint64_t)i) == 0 && mr_next(r, &ev) > 0)
        return ev.time;
    *failed = 1;
    return UINT64_MAX;
}

int dump_seek_window(mr_reader *r, uint64_t from)
{
    if (from == 0)
        return 0;
    int64_t n = mr_reader_chunk_count(r);   /* -1 for a pipe: no index */
    if (n < 2)
        return 0;
    int failed = 0;
    int64_t lo = 0, hi = n - 1;     /* chunk lo starts before from */
    while (lo < hi && !failed) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (chunk_start_time(r, mid, &failed) < from)
            lo = mid;
        else
            hi = mid - 1;
    }
    if (!failed && mr_reader_seek(r, (uint64_t)lo) == 0)
        return 0;
    return -1;
}

