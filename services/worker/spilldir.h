/* spilldir.h: the spill directories of one store: `<dir>/mars-worker-<pid>`
 * for each --spill-dirs entry, an `owner` file in each holding the
 * process's start time (to tell a live owner from a reused pid), and the
 * removal of such directories left by processes that no longer exist. */
#ifndef MARS_WORKER_SPILLDIR_H
#define MARS_WORKER_SPILLDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

#define SPILLDIR_PATH_MAX (CFG_STR_MAX + 64)

typedef struct spilldir {
    int n;
    char path[CFG_MAX_SPILL][SPILLDIR_PATH_MAX];
    /* Several stores of one process (tests) share the directory; file names
     * carry this number so that they never collide. */
    unsigned instance;
} spilldir_t;

/* dirs/n: the --spill-dirs (n 0: $TMPDIR or /tmp + /mars-spill, made when
 * missing). Removes stale `mars-worker-<pid>` directories there, then makes
 * this process's. Returns 0, or -1 with err. */
int spilldir_open(spilldir_t *d, const char *const *dirs, int n, char *err, size_t errlen);
/* Removes this store's files, and the directories when no other store of
 * this process still uses them. */
void spilldir_close(spilldir_t *d);
/* Removes the stale `mars-worker-<pid>` directories directly under parent;
 * returns how many. */
int spilldir_sweep(const char *parent);
/* The start time of process pid (field 22 of /proc/<pid>/stat, clock ticks
 * since boot) as text: with the pid it names one process, not a reused
 * pid. "" when unreadable. */
void spilldir_start_time(long pid, char *out, size_t cap);
/* Whether `mars-worker-<pid>` under parent belongs to a live process. */
bool spilldir_owner_alive(const char *dir, long pid);

#endif
