#include "arena.h"

#include <stdio.h>
#include <stdlib.h>

/* Blocks of 1 MiB: a million-chunk graph needs a few hundred of them. */
#define ARENA_BLOCK (1u << 20)

struct ablock {
    struct ablock *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

struct arena {
    struct ablock *head;
    size_t total;
};

struct arena *arena_create(void)
{
    return calloc(1, sizeof(struct arena));
}

void *arena_alloc(struct arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct ablock *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = malloc(sizeof(struct ablock) + cap);
        if (!b) {
            fprintf(stderr, "arena: out of memory (%zu bytes)\n", cap);
            abort();
        }
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
        a->total += cap;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

size_t arena_bytes(const struct arena *a)
{
    return a->total;
}

void arena_destroy(struct arena *a)
{
    if (!a) return;
    struct ablock *b = a->head;
    while (b) {
        struct ablock *n = b->next;
        free(b);
        b = n;
    }
    free(a);
}
