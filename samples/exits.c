/* exits: does some work, then ends the way argv[1] says: return (default), exit, _exit, abort, or loop (computes until a signal such as SIGTERM or SIGINT kills it); argv[2] is the exit status (default 3). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

static void work(long n)
{
    for (long i = 0; i < n; i++)
        sink += i;
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "return";
    int status = argc > 2 ? atoi(argv[2]) : 3;
    work(100000);
    if (strcmp(how, "exit") == 0)
        exit(status);
    if (strcmp(how, "_exit") == 0)
        _exit(status);
    if (strcmp(how, "abort") == 0)
        abort();
    if (strcmp(how, "loop") == 0) {
        printf("exits: looping until killed\n");
        fflush(stdout);
        for (int seconds = 0; seconds < 600; seconds++)   /* at most 10 minutes */
            work(10000000);
    }
    return status;
}
