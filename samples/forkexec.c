/* forkexec: forks; the child execs this program again with the argument "child" (which sums N numbers, argv[2], default 1000, and exits 0); the parent does the same work and waits for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long work(long n)
{
    long sum = 0;
    for (long i = 0; i < n; i++)
        sum += i * i;
    return sum;
}

int main(int argc, char **argv)
{
    long n = argc > 2 ? atol(argv[2]) : 1000;
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        printf("forkexec child: %ld\n", work(n));
        return 0;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        char count[32], self[4096];
        snprintf(count, sizeof count, "%ld", n);
        /* readlink, not execl("/proc/self/exe"): under Valgrind that link
         * names the tool, and only readlink is translated to the client. */
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0)
            _exit(126);
        self[len] = 0;
        execl(self, argv[0], "child", count, (char *)NULL);
        _exit(127);
    }
    long sum = work(n);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return 1;
    printf("forkexec parent: %ld, child status %d\n", sum, WEXITSTATUS(status));
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
