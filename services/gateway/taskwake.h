/* taskwake.h: long polls answered as soon as a task ends (taskwake.c). */
#ifndef MARS_GATEWAY_TASKWAKE_H
#define MARS_GATEWAY_TASKWAKE_H

#include "http.h"

typedef struct taskwake taskwake_t;

/* A thread listening on mars_task_done that kicks http's long polls.
 * NULL when it cannot start (out of memory, no thread): polls keep their
 * timers. Stop it before freeing http. */
taskwake_t *taskwake_start(const char *dsn, http_server_t *http);
void taskwake_stop(taskwake_t *w);

#endif
