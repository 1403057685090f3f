/* spilldir.c: spill directories and their cleanup (spilldir.h). */
#include "spilldir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PREFIX "mars-worker-"

/* Directories this process uses, with how many stores use each: the last
 * store to close one removes it. */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char path[SPILLDIR_PATH_MAX];
    int refs;
} g_dirs[CFG_MAX_SPILL * 4];
static unsigned g_instance;

/* Field 22 of /proc/<pid>/stat: start time in clock ticks since boot. "" when
 * unreadable. */
void spilldir_start_time(long pid, char *out, size_t cap)
{
    char path[64], buf[1024];
    out[0] = '\0';
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command may hold spaces and parens */
    if (!p) return;
    /* After ") ": field 3 (state) ... field 22 is the 20th from there. */
    int field = 2;
    for (p++; *p && field < 22; p++)
        if (*p == ' ') field++;
    size_t len = strcspn(p, " \n");
    if (field == 22 && len > 0 && len < cap) {
        memcpy(out, p, len);
        out[len] = '\0';
    }
}

bool spilldir_owner_alive(const char *dir, long pid)
{
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return false;
    char path[SPILLDIR_PATH_MAX + 16], want[32] = "", have[32];
    snprintf(path, sizeof path, "%s/owner", dir);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(want, sizeof want, f)) want[0] = '\0';
        fclose(f);
        want[strcspn(want, "\n")] = '\0';
    }
    spilldir_start_time(pid, have, sizeof have);
    if (want[0] && have[0]) return strcmp(want, have) == 0; /* a reused pid differs */
    if (!have[0]) return true; /* another pid namespace: cannot tell, keep it */
    /* No owner file (made before it was written): a worker by its name. */
    char comm[64] = "";
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    f = fopen(path, "r");
    if (!f) return true;
    if (!fgets(comm, sizeof comm, f)) comm[0] = '\0';
    fclose(f);
    return strncmp(comm, "mars-worker", 11) == 0;
}

/* Removes dir and the plain files in it (spill directories hold no more). */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
            unlinkat(dirfd(d), de->d_name, 0);
        }
        closedir(d);
    }
    rmdir(dir);
}

static bool parse_pid(const char *name, long *pid)
{
    if (strncmp(name, PREFIX, strlen(PREFIX)) != 0) return false;
    const char *p = name + strlen(PREFIX);
    if (*p < '1' || *p > '9' || strlen(p) > 9) return false;
    long v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (*p - '0');
    }
    *pid = v;
    return true;
}

int spilldir_sweep(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d) return 0;
    int removed = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        long pid;
        if (!parse_pid(de->d_name, &pid) || pid == (long)getpid()) continue;
        char path[SPILLDIR_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", parent, de->d_name);
        if (spilldir_owner_alive(path, pid)) continue;
        remove_tree(path);
        removed++;
    }
    closedir(d);
    return removed;
}

/* Under g_mu: counts one more user of path; makes it the first time. */
static int take_dir(const char *path, char *err, size_t errlen)
{
    int free_slot = -1;
    for (size_t i = 0; i < sizeof g_dirs / sizeof g_dirs[0]; i++) {
        if (g_dirs[i].refs > 0 && strcmp(g_dirs[i].path, path) == 0) {
            g_dirs[i].refs++;
            return 0;
        }
        if (g_dirs[i].refs == 0 && free_slot < 0) free_slot = (int)i;
    }
    if (free_slot < 0) {
        snprintf(err, errlen, "spill: too many spill directories in one process");
        return -1;
    }
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "spill directory %s: %s", path, strerror(errno));
        return -1;
    }
    char owner[SPILLDIR_PATH_MAX + 16], st[32];
    snprintf(owner, sizeof owner, "%s/owner", path);
    spilldir_start_time((long)getpid(), st, sizeof st);
    FILE *f = fopen(owner, "w");
    if (!f || fprintf(f, "%s\n", st) < 0 || fclose(f) != 0) {
        snprintf(err, errlen, "spill directory %s: cannot write %s", path, owner);
        return -1;
    }
    snprintf(g_dirs[free_slot].path, sizeof g_dirs[free_slot].path, "%s", path);
    g_dirs[free_slot].refs = 1;
    return 0;
}

static void drop_dir(const char *path)
{
    for (size_t i = 0; i < sizeof g_dirs / sizeof g_dirs[0]; i++) {
        if (g_dirs[i].refs > 0 && strcmp(g_dirs[i].path, path) == 0) {
            if (--g_dirs[i].refs == 0) remove_tree(path);
            return;
        }
    }
}

/* Removes this instance's files `<instance>-*.chunk` in dir. */
static void remove_instance_files(const char *dir, unsigned instance)
{
    char prefix[32];
    int pl = snprintf(prefix, sizeof prefix, "%u-", instance);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, prefix, (size_t)pl) == 0) unlinkat(dirfd(d), de->d_name, 0);
    closedir(d);
}

static int default_parent(char *out, size_t cap, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0]) tmp = "/tmp";
    if ((size_t)snprintf(out, cap, "%s/mars-spill", tmp) >= cap) {
        snprintf(err, errlen, "spill: TMPDIR %s is too long", tmp);
        return -1;
    }
    if (mkdir(out, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "spill directory %s: %s", out, strerror(errno));
        return -1;
    }
    return 0;
}

int spilldir_open(spilldir_t *d, const char *const *dirs, int n, char *err, size_t errlen)
{
    char def[CFG_STR_MAX];
    const char *one[1] = {def};
    if (n <= 0) {
        if (default_parent(def, sizeof def, err, errlen)) return -1;
        dirs = one;
        n = 1;
    }
    if (n > CFG_MAX_SPILL) {
        snprintf(err, errlen, "spill: %d directories, at most %d", n, CFG_MAX_SPILL);
        return -1;
    }
    memset(d, 0, sizeof *d);
    pthread_mutex_lock(&g_mu);
    d->instance = ++g_instance;
    for (int i = 0; i < n; i++) {
        if (strlen(dirs[i]) >= CFG_STR_MAX) {
            snprintf(err, errlen, "spill directory %d is longer than %d bytes", i + 1,
                     CFG_STR_MAX - 1);
            goto dirs;
        }
        spilldir_sweep(dirs[i]);
        snprintf(d->path[i], sizeof d->path[i], "%s/" PREFIX "%ld", dirs[i], (long)getpid());
        if (take_dir(d->path[i], err, errlen)) goto dirs;
        d->n = i + 1;
    }
    pthread_mutex_unlock(&g_mu);
    return 0;
dirs:
    pthread_mutex_unlock(&g_mu);
    spilldir_close(d);
    return -1;
}

void spilldir_close(spilldir_t *d)
{
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < d->n; i++) {
        remove_instance_files(d->path[i], d->instance);
        drop_dir(d->path[i]);
    }
    d->n = 0;
    pthread_mutex_unlock(&g_mu);
}
