/* arena.h: a bump allocator freed in one call. Allocation aborts on
 * exhaustion (as redis's zmalloc does): callers bound sizes beforehand. */
#ifndef MARS_ARENA_H
#define MARS_ARENA_H

#include <stddef.h>

struct arena;
struct arena *arena_create(void);
void *arena_alloc(struct arena *a, size_t n); /* 16-byte aligned, uninitialised */
void arena_destroy(struct arena *a);
size_t arena_bytes(const struct arena *a);

#endif
