/* binary_tree: inserts N pseudo-random keys (argv[1], default 10000) into an unbalanced binary search tree, looks each up again, frees the tree recursively: N mallocs, N frees. */
#include <stdio.h>
#include <stdlib.h>

/* A tree node: key, payload and two children. */
struct tree {
    long key;
    long count;
    struct tree *left, *right;
};

static struct tree *insert(struct tree *t, long key)
{
    struct tree **link = &t;
    while (*link) {
        if (key == (*link)->key) {
            (*link)->count++;
            return t;
        }
        link = key < (*link)->key ? &(*link)->left : &(*link)->right;
    }
    struct tree *n = malloc(sizeof *n);
    if (!n)
        exit(1);
    n->key = key;
    n->count = 1;
    n->left = n->right = NULL;
    *link = n;
    return t;
}

static long lookup(const struct tree *t, long key)
{
    while (t && t->key != key)
        t = key < t->key ? t->left : t->right;
    return t ? t->count : 0;
}

static void destroy(struct tree *t)
{
    if (!t)
        return;
    destroy(t->left);
    destroy(t->right);
    free(t);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000;
    struct tree *root = NULL;
    unsigned long seed = 7;
    /* Keys i * large odd constant mod 2^32 are distinct for i < 2^32: N nodes. */
    for (long i = 0; i < n; i++) {
        seed = (unsigned long)i * 2654435761UL % 4294967296UL;
        root = insert(root, (long)seed);
    }
    long found = 0;
    for (long i = 0; i < n; i++)
        found += lookup(root, (long)((unsigned long)i * 2654435761UL % 4294967296UL));
    destroy(root);
    printf("binary_tree: %ld keys, %ld found\n", n, found);
    return 0;
}
