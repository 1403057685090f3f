/* procstat.c: /proc readers. */
#include "procstat.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int procstat_self(procstat_t *out, char *err, size_t errlen)
{
    /* /proc/self/stat is one line of at most a few hundred bytes; the comm
     * field (2nd) is in parentheses and may hold spaces, so fields are
     * counted from the last ')'. */
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) {
        snprintf(err, errlen, "/proc/self/stat: %s", strerror(errno));
        return -1;
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long long utime = 0, stime = 0;
    /* After ')': field 3 (state) ... field 14 utime, 15 stime. */
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                     &stime) != 2) {
        snprintf(err, errlen, "/proc/self/stat: unexpected format");
        return -1;
    }
    long tck = sysconf(_SC_CLK_TCK);
    out->cpu_seconds = (double)(utime + stime) / (double)(tck > 0 ? tck : 100);

    out->rss_bytes = procstat_rss();
    if (out->rss_bytes < 0) {
        snprintf(err, errlen, "/proc/self/statm: unreadable");
        return -1;
    }
    return 0;
}

int64_t procstat_rss(void)
{
    /* One descriptor for the process, re-read from offset 0: no open and
     * close per sample. */
    static int fd = -1;
    int cur = __atomic_load_n(&fd, __ATOMIC_ACQUIRE);
    if (cur < 0) {
        int nfd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
        if (nfd < 0) return -1;
        int expect = -1;
        if (__atomic_compare_exchange_n(&fd, &expect, nfd, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            cur = nfd;
        else {
            close(nfd);
            cur = expect;
        }
    }
    char buf[128];
    ssize_t n = pread(cur, buf, sizeof buf - 1, 0);
    if (n <= 0) return -1;
    buf[n] = '\0';
    long long size = 0, resident = 0;
    if (sscanf(buf, "%lld %lld", &size, &resident) != 2) return -1;
    return (int64_t)resident * sysconf(_SC_PAGESIZE);
}

int procstat_cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Value of a "Key:   N kB" line of /proc/meminfo in bytes, or -1. */
static int64_t meminfo(const char *key)
{
    char line[256];
    int64_t v = -1;
    size_t klen = strlen(key);
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            long long kb;
            if (sscanf(line + klen + 1, "%lld", &kb) == 1) v = (int64_t)kb * 1024;
            break;
        }
    }
    fclose(f);
    return v;
}

int64_t procstat_mem_total(void)
{
    int64_t total = meminfo("MemTotal");
    if (total < 0) total = (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    /* In a container with a memory limit the limit is what we may use. */
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (f) {
        long long lim;
        if (fscanf(f, "%lld", &lim) == 1 && lim > 0 && lim < total) total = lim;
        fclose(f);
    }
    return total;
}

int64_t procstat_mem_available(void)
{
    return meminfo("MemAvailable");
}
