/* rds_shapes: linked structures of known shape for trace-rds, one per mode (argv[1]; N = argv[2], default 100):
 *   figure2  the RDS paper's Figure 2: a heap array of 10 tree pointers, two trees of depth 2 in its first two slots
 *   prepend  a list of N nodes built by prepending (every edge backward), walked 3 times
 *   stable   a list of N nodes built by appending (every edge forward), never changed, walked 5 times (RSF 1)
 *   changed  the same list with a node inserted before each of its 5 walks (RSF above 1)
 *   freed    a list of N nodes walked once then freed entirely, then a second list walked and kept
 *   mutual   N pairs of mutually recursive structures (struct a -> struct b -> struct a ...) in one chain, walked once
 *   churn    R rounds (argv[3], default 10) of a list of N nodes built, walked and freed: R instances, never more than N nodes live
 * Every allocation helper is out of line, so that each structure has exactly one allocation site. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The paper's tree (Figure 2(a)). */
typedef struct tree {
    int n;
    struct tree *left, *right;
} tree;

/* A list node. */
struct node {
    long val;
    struct node *next;
};

/* Mutually recursive structures: an a points to a b, a b to an a. */
struct b;
struct a {
    long x;
    struct b *b;
};
struct b {
    long y;
    struct a *a;
};

static void *xmalloc(size_t n, void *p)
{
    if (!p)
        exit(1);
    memset(p, 0, n);
    return p;
}

__attribute__((noinline)) static tree *make_tree(int depth)
{
    if (depth <= 0)
        return NULL;
    tree *t = xmalloc(sizeof *t, malloc(sizeof *t));
    t->n = depth;
    t->left = make_tree(depth - 1);
    t->right = make_tree(depth - 1);
    return t;
}

__attribute__((noinline)) static long sum_tree(const tree *t)
{
    return t ? t->n + sum_tree(t->left) + sum_tree(t->right) : 0;
}

__attribute__((noinline)) static struct node *new_node(long val)
{
    struct node *n = xmalloc(sizeof *n, malloc(sizeof *n));
    n->val = val;
    return n;
}

__attribute__((noinline)) static long walk(const struct node *n)
{
    long s = 0;
    for (; n; n = n->next)
        s += n->val;
    return s;
}

/* A list of n nodes, each appended after the last: edges old -> new. */
static struct node *append_list(long n)
{
    struct node *head = new_node(0), *tail = head;
    for (long i = 1; i < n; i++)
        tail = tail->next = new_node(i);
    return head;
}

static void free_list(struct node *n)
{
    while (n) {
        struct node *next = n->next;
        free(n);
        n = next;
    }
}

__attribute__((noinline)) static struct a *new_a(long x)
{
    struct a *p = xmalloc(sizeof *p, malloc(sizeof *p));
    p->x = x;
    return p;
}

__attribute__((noinline)) static struct b *new_b(long y)
{
    struct b *p = xmalloc(sizeof *p, malloc(sizeof *p));
    p->y = y;
    return p;
}

static long figure2(void)
{
    tree **arr = xmalloc(10 * sizeof(tree *), malloc(10 * sizeof(tree *)));
    arr[0] = make_tree(2);
    arr[1] = make_tree(2);
    return sum_tree(arr[0]) + sum_tree(arr[1]);
}

static long prepend(long n)
{
    struct node *head = NULL;
    for (long i = 0; i < n; i++) {
        struct node *m = new_node(i);
        m->next = head;
        head = m;
    }
    long s = 0;
    for (int k = 0; k < 3; k++)
        s += walk(head);
    return s;
}

static long stable(long n, int change)
{
    struct node *head = append_list(n);
    long s = 0;
    for (int k = 0; k < 5; k++) {
        if (change) {
            struct node *m = new_node(-k);
            m->next = head->next;
            head->next = m;
        }
        s += walk(head);
    }
    return s;
}

static long freed(long n)
{
    struct node *first = append_list(n);
    long s = walk(first);
    free_list(first);
    struct node *second = append_list(n);
    return s + walk(second);
}

static long churn(long n, long rounds)
{
    long s = 0;
    for (long r = 0; r < rounds; r++) {
        struct node *list = append_list(n);
        s += walk(list);
        free_list(list);
    }
    return s;
}

static long mutual(long n)
{
    struct a *head = new_a(0), *a = head;
    for (long i = 0; i < n; i++) {
        struct b *b = new_b(i);
        a->b = b;
        b->a = new_a(i + 1);
        a = b->a;
    }
    long s = 0;
    for (a = head; a->b; a = a->b->a)
        s += a->x + a->b->y;
    return s;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "figure2";
    long n = argc > 2 ? atol(argv[2]) : 100, s;
    if (!strcmp(mode, "figure2"))
        s = figure2();
    else if (!strcmp(mode, "prepend"))
        s = prepend(n);
    else if (!strcmp(mode, "stable") || !strcmp(mode, "changed"))
        s = stable(n, !strcmp(mode, "changed"));
    else if (!strcmp(mode, "freed"))
        s = freed(n);
    else if (!strcmp(mode, "mutual"))
        s = mutual(n);
    else if (!strcmp(mode, "churn"))
        s = churn(n, argc > 3 ? atol(argv[3]) : 10);
    else {
        fprintf(stderr, "rds_shapes: unknown mode '%s'\n", mode);
        return 2;
    }
    printf("rds_shapes %s: %ld\n", mode, s);
    return 0;
}
