/* fork_heap: allocates N blocks of 64 bytes (argv[1], default 50) and maps
 * a 64 KiB anonymous region, then forks; the child reads every block and
 * the region, frees the blocks and unmaps the region (all inherited); the
 * parent waits, then does the same. Exit status 0 when all went well. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCK 64
#define REGION (64 * 1024)

/* Reads every block and the region, frees and unmaps them: a sum. */
__attribute__((noinline)) static long use_and_release(char **blocks, long n, char *region)
{
    long sum = 0;
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < BLOCK; k += 8)
            sum += blocks[i][k];
        free(blocks[i]);
    }
    for (int k = 0; k < REGION; k += 4096)
        sum += region[k];
    munmap(region, REGION);
    return sum;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 50;
    char **blocks = malloc((size_t)n * sizeof *blocks);
    char *region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!blocks || region == MAP_FAILED)
        return 1;
    for (long i = 0; i < n; i++) {
        blocks[i] = malloc(BLOCK);
        memset(blocks[i], 1, BLOCK);
    }
    memset(region, 2, REGION);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    long want = n * (BLOCK / 8) + 2 * (REGION / 4096);
    if (pid == 0) {
        long sum = use_and_release(blocks, n, region);
        free(blocks);
        _exit(sum == want ? 0 : 1);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    long sum = use_and_release(blocks, n, region);
    free(blocks);
    printf("fork_heap: %ld blocks, child and parent sum %ld\n", n, sum);
    return sum == want ? 0 : 1;
}
