/* procstat.h: what the machine and this process use, read from /proc (and
 * the cgroup v2 memory limit where one applies). */
#ifndef MARS_SVC_PROCSTAT_H
#define MARS_SVC_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>

typedef struct procstat {
    double cpu_seconds; /* user + system time of this process since it started */
    int64_t rss_bytes;  /* resident set size now */
} procstat_t;

/* Samples /proc/self/stat and /proc/self/statm. */
int procstat_self(procstat_t *out, char *err, size_t errlen);
/* Resident set size of this process now (/proc/self/statm only: a few
 * microseconds, cheap enough for every job), or -1 when unreadable. */
int64_t procstat_rss(void);
/* CPUs this process may run on (its affinity mask), at least 1. */
int procstat_cpu_count(void);
/* Total memory: MemTotal, or the cgroup v2 memory.max when lower. */
int64_t procstat_mem_total(void);
/* MemAvailable from /proc/meminfo, or -1 when unreadable. */
int64_t procstat_mem_available(void);

#endif
