/* Unit tests of services/worker/memguard.c with an injected RSS reader, so
 * that every number is exact: the limits, admission arithmetic and its
 * message, the pause above soft, spilling a real store back under soft
 * (the simulated RSS is a base plus what the store holds in memory), and
 * the host share counted from registration files of live and dead
 * processes. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "memguard.h"
#include "procstat.h"
#include "store.h"

#define MiB (1LL << 20)
#define GiB (1LL << 30)

static char g_tmp[] = "/tmp/mars-memguard-test-XXXXXX";
static char g_reg[300];

typedef struct fake {
    int64_t base;   /* what the process holds besides the store */
    store_t *store; /* NULL: RSS is base */
} fake_t;

static int64_t fake_rss(void *ctx)
{
    fake_t *f = ctx;
    if (!f->store) return f->base;
    store_stats_t st;
    store_stats(f->store, &st);
    return f->base + st.mem_bytes;
}

static memguard_t *make(int64_t phy, fake_t *f, store_t *store, bool follow, int64_t host)
{
    memguard_opts_t o = {.phy_mem = phy,
                         .host_mem = host,
                         .store = store,
                         .follow_cache = follow,
                         .reg_dir = g_reg,
                         .rss = fake_rss,
                         .rss_ctx = f};
    char err[256];
    memguard_t *m = memguard_create(&o, err, sizeof err);
    if (!m) fail_msg("memguard_create: %s", err);
    return m;
}

static void test_admit_arithmetic(void **state)
{
    fake_t f = {.base = 700 * MiB};
    memguard_t *m = make(GiB, &f, NULL, false, 0);
    assert_int_equal(memguard_limit(m), GiB);
    assert_int_equal(memguard_soft(m), GiB / 100 * 75);
    assert_int_equal(memguard_hard(m), GiB / 100 * 90);
    char err[512] = "";
    assert_int_equal(memguard_admit(m, 512 * MiB, err, sizeof err), -1);
    assert_string_equal(err, "worker memory limit: the job needs 512.0 MiB but the worker holds"
                             " 700.0 MiB of its 921.6 MiB hard limit (90% of --phy-mem 1.0 GiB)");
    assert_int_equal(memguard_reserved(m), 0);
    /* 700 + 100 fits under 921.6; then 700 + 100 + 150 does not. */
    assert_int_equal(memguard_admit(m, 100 * MiB, err, sizeof err), 0);
    assert_int_equal(memguard_reserved(m), 100 * MiB);
    assert_int_equal(memguard_admit(m, 150 * MiB, err, sizeof err), -1);
    assert_non_null(strstr(err, "holds 800.0 MiB"));
    memguard_release(m, 100 * MiB);
    assert_int_equal(memguard_reserved(m), 0);
    assert_int_equal(memguard_admit(m, 150 * MiB, err, sizeof err), 0);
    memguard_release(m, 150 * MiB);
    memguard_release(m, 5); /* never below zero */
    assert_int_equal(memguard_reserved(m), 0);
    /* Exactly at hard is admitted; one byte more is not. */
    int64_t room = memguard_hard(m) - f.base;
    assert_int_equal(memguard_admit(m, room + 1, err, sizeof err), -1);
    assert_int_equal(memguard_admit(m, room, err, sizeof err), 0);
    memguard_release(m, room);
    /* Over hard while running. */
    assert_false(memguard_over_hard(m, err, sizeof err));
    f.base = 950 * MiB;
    assert_true(memguard_over_hard(m, err, sizeof err));
    assert_non_null(strstr(err, "over its 921.6 MiB hard limit (90% of --phy-mem 1.0 GiB)"));
    memguard_free(m);
}

static void test_pause(void **state)
{
    fake_t f = {.base = 500 * MiB};
    memguard_t *m = make(GiB, &f, NULL, false, 0);
    memguard_sample(m);
    assert_false(memguard_paused(m));
    f.base = 800 * MiB; /* soft is 768 MiB */
    memguard_sample(m);
    assert_true(memguard_paused(m));
    assert_int_equal(memguard_rss(m), 800 * MiB);
    f.base = 760 * MiB;
    memguard_sample(m);
    assert_false(memguard_paused(m));
    memguard_free(m);
}

static void test_spill_under_soft(void **state)
{
    const char *dirs[] = {g_tmp};
    store_opts_t so = {.mem_limit = 0, .spill_dirs = dirs, .n_spill = 1}; /* no own bound */
    char err[512];
    store_t *s = store_create(&so, err, sizeof err);
    assert_non_null(s);
    /* A 100 MiB worker: soft 75, hard 90, spill target 70. The process
     * holds 30 MiB besides 60 chunks of 1 MiB, 12 of them cached copies. */
    fake_t f = {.base = 30 * MiB, .store = s};
    memguard_t *m = make(100 * MiB, &f, s, false, 0);
    for (int i = 0; i < 60; i++) {
        char key[32];
        snprintf(key, sizeof key, "chunk:t:%d", i);
        void *p = malloc((size_t)MiB);
        memset(p, i, (size_t)MiB);
        store_put(s, key, p, (size_t)MiB, i % 5 != 0);
    }
    assert_int_equal(fake_rss(&f), 90 * MiB);
    memguard_sample(m);
    /* Back to at most 75 - 5 = 70 MiB (memory given back by the store). */
    assert_true(fake_rss(&f) <= memguard_soft(m) - 100 * MiB / 100 * MEMGUARD_MARGIN_PCT);
    /* Above soft at the sample: no new job until a sample finds it under */
    assert_true(memguard_paused(m));
    memguard_sample(m);
    assert_false(memguard_paused(m));
    store_stats_t st;
    store_stats(s, &st);
    assert_true(st.drops >= 12); /* the 12 cached copies went first */
    assert_true(st.spills > 0);
    /* Admission spills to make room too: 70 + 30 is over soft, so the store
     * spills down to 40 (70 - 30) first. */
    assert_int_equal(memguard_admit(m, 30 * MiB, err, sizeof err), 0);
    assert_true(fake_rss(&f) + 30 * MiB <= memguard_soft(m));
    /* that pause ended with the spill: the RSS is back under soft */
    assert_false(memguard_paused(m));
    /* Pinned chunks (read back into memory: 30 + 48 MiB) cannot be spilled:
     * then the job is refused. */
    memguard_release(m, 30 * MiB);
    store_ref_t *refs[60];
    int n = 0;
    for (int i = 0; i < 60; i++) {
        char key[32];
        snprintf(key, sizeof key, "chunk:t:%d", i);
        if (store_size(s, key) >= 0) refs[n++] = store_get(s, key);
    }
    assert_int_equal(memguard_admit(m, 50 * MiB, err, sizeof err), -1);
    assert_non_null(strstr(err, "the job needs 50.0 MiB"));
    /* 78 MiB held, over soft: the admission left the worker paused */
    assert_true(memguard_paused(m));
    for (int i = 0; i < n; i++)
        store_release(s, refs[i]);
    memguard_free(m);
    store_destroy(s);
}

static void touch_file(const char *dir, long pid, const char *content)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%ld", dir, pid);
    FILE *fp = fopen(path, "w");
    fputs(content, fp);
    fclose(fp);
}

static bool exists_pid(const char *dir, long pid)
{
    char path[400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%ld", dir, pid);
    return stat(path, &st) == 0;
}

static void test_host_share(void **state)
{
    /* A dead worker's file, a live one's (a sleeping child), garbage. */
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    pid_t live = fork();
    if (live == 0) {
        pause();
        _exit(0);
    }
    touch_file(g_reg, dead, "1\n");
    touch_file(g_reg, live, ""); /* no start time: alive by its pid */
    char junk[400];
    snprintf(junk, sizeof junk, "%s/not-a-pid", g_reg);
    fclose(fopen(junk, "w"));

    const char *dirs[] = {g_tmp};
    store_opts_t so = {.mem_limit = 1, .spill_dirs = dirs, .n_spill = 1};
    char err[256];
    store_t *s = store_create(&so, err, sizeof err);
    fake_t f = {.base = 10 * MiB};
    /* No --phy-mem: 12 GiB over this process and the live child. */
    memguard_t *m = make(0, &f, s, true, 12 * GiB);
    assert_false(exists_pid(g_reg, dead));
    assert_true(exists_pid(g_reg, live));
    assert_true(exists_pid(g_reg, getpid()));
    assert_int_equal(memguard_limit(m), 6 * GiB);
    store_stats_t st;
    store_stats(s, &st);
    assert_int_equal(st.mem_limit, 6 * GiB / 100 * MEMGUARD_CACHE_PCT);
    char msg[512];
    f.base = 6 * GiB;
    assert_int_equal(memguard_admit(m, GiB, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "the host's 12.0 GiB shared by 2 workers; set --phy-mem"));
    /* The child ends: the share grows back at the next evaluation. */
    kill(live, SIGKILL);
    waitpid(live, NULL, 0);
    memguard_refresh_share(m);
    assert_int_equal(memguard_limit(m), 12 * GiB);
    store_stats(s, &st);
    assert_int_equal(st.mem_limit, 12 * GiB / 100 * MEMGUARD_CACHE_PCT);
    assert_false(exists_pid(g_reg, live));
    /* With --phy-mem the share is not used. */
    memguard_t *m2 = make(3 * GiB, &f, NULL, false, 12 * GiB);
    assert_int_equal(memguard_limit(m2), 3 * GiB);
    assert_int_equal(memguard_count_workers(g_reg), 1); /* one process, one file */
    memguard_free(m2);
    memguard_free(m);
    assert_false(exists_pid(g_reg, getpid()));
    store_destroy(s);
    unlink(junk);
}

static void test_thread(void **state)
{
    /* The sampler thread pauses and resumes by itself. */
    fake_t f = {.base = 10 * MiB};
    memguard_t *m = make(100 * MiB, &f, NULL, false, 0);
    char err[128];
    assert_int_equal(memguard_start(m, err, sizeof err), 0);
    __atomic_store_n(&f.base, 80 * MiB, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 100 && !memguard_paused(m); i++)
        usleep(10000);
    assert_true(memguard_paused(m));
    __atomic_store_n(&f.base, 10 * MiB, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 100 && memguard_paused(m); i++)
        usleep(10000);
    assert_false(memguard_paused(m));
    memguard_free(m);
}

static void test_fmt(void **state)
{
    char b[32];
    memguard_fmt_size(512, b, sizeof b);
    assert_string_equal(b, "512 B");
    memguard_fmt_size(1536, b, sizeof b);
    assert_string_equal(b, "1.5 KiB");
    memguard_fmt_size(GiB, b, sizeof b);
    assert_string_equal(b, "1.0 GiB");
}

static int setup(void **state)
{
    if (!mkdtemp(g_tmp)) return -1;
    snprintf(g_reg, sizeof g_reg, "%s/reg", g_tmp);
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    return system(cmd) == 0 ? 0 : -1;
}

/* The real sampler (one statm descriptor, re-read): it sees memory
 * touched, and agrees with procstat_self. */
static void test_rss_sampler(void **state)
{
    int64_t r0 = procstat_rss();
    assert_true(r0 > 0);
    const size_t n = 64 << 20;
    char *p = malloc(n);
    assert_non_null(p);
    memset(p, 1, n);
    int64_t r1 = procstat_rss();
    assert_true(r1 >= r0 + (int64_t)(n / 2));
    procstat_t ps;
    char err[128];
    assert_int_equal(procstat_self(&ps, err, sizeof err), 0);
    assert_true(ps.rss_bytes >= (int64_t)(n / 2) && ps.rss_bytes < r1 + (16 << 20));
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_admit_arithmetic), cmocka_unit_test(test_pause),
        cmocka_unit_test(test_spill_under_soft), cmocka_unit_test(test_host_share),
        cmocka_unit_test(test_thread),           cmocka_unit_test(test_fmt),
        cmocka_unit_test(test_rss_sampler),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
