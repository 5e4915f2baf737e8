/* linked_list: builds N nodes (argv[1], default 1000) linked in shuffled order when argv[2] is 1, walks the list calling node_visit() exactly N times, frees it: N+1 mallocs, N+1 frees. */
#include <stdio.h>
#include <stdlib.h>

/* One list node: a few fields of different sizes, and the link. */
struct node {
    long key;
    int weight;
    double score;
    struct node *next;
};

/* Called exactly once per node by walk(); kept out of line so that tests
 * can count its calls. */
__attribute__((noinline)) long node_visit(const struct node *n)
{
    return n->key * n->weight + (long)n->score;
}

static long walk(const struct node *head)
{
    long sum = 0;
    for (const struct node *n = head; n; n = n->next)
        sum += node_visit(n);
    return sum;
}

/* Deterministic pseudo-random numbers (a 64-bit LCG). */
static unsigned long lcg(unsigned long *state)
{
    *state = *state * 6364136223846793005UL + 1442695040888963407UL;
    return *state >> 33;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    int shuffled = argc > 2 && atoi(argv[2]) == 1;
    if (n < 1)
        n = 1;
    /* The nodes in allocation order (1 malloc). */
    struct node **nodes = malloc((size_t)n * sizeof *nodes);
    if (!nodes)
        return 1;
    for (long i = 0; i < n; i++) {                    /* n mallocs */
        nodes[i] = malloc(sizeof **nodes);
        if (!nodes[i])
            return 1;
        nodes[i]->key = i;
        nodes[i]->weight = (int)(i % 7) + 1;
        nodes[i]->score = (double)i / 2;
    }
    if (shuffled) {                                   /* Fisher-Yates */
        unsigned long seed = 42;
        for (long i = n - 1; i > 0; i--) {
            long j = (long)(lcg(&seed) % (unsigned long)(i + 1));
            struct node *t = nodes[i];
            nodes[i] = nodes[j];
            nodes[j] = t;
        }
    }
    for (long i = 0; i < n; i++)
        nodes[i]->next = i + 1 < n ? nodes[i + 1] : NULL;
    struct node *head = nodes[0];
    free(nodes);                                      /* 1 free */
    long sum = walk(head);
    while (head) {                                    /* n frees */
        struct node *next = head->next;
        free(head);
        head = next;
    }
    printf("linked_list: %ld nodes, sum %ld\n", n, sum);
    return 0;
}
