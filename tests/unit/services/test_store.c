/* Unit tests of services/worker/store.c and spilldir.c on real files in a
 * temporary directory: round trips through spill files with byte
 * comparisons, the memory bound, pins, cached copies dropped before owned
 * ones are spilled, cleanup of files and of stale directories, and many
 * threads at once. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
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

#include "spilldir.h"
#include "store.h"

static char g_tmp[] = "/tmp/mars-store-test-XXXXXX";
static char g_d1[300], g_d2[300];

/* n bytes whose values depend on seed and position. */
static void *pattern(size_t n, unsigned seed)
{
    unsigned char *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 31u + i * 7u + (i >> 8));
    return p;
}

static bool matches(const void *data, size_t n, unsigned seed)
{
    void *want = pattern(n, seed);
    bool ok = memcmp(data, want, n) == 0;
    free(want);
    return ok;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strstr(de->d_name, ".chunk")) n++;
    closedir(d);
    return n;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static store_t *make(int64_t limit, int ndirs)
{
    const char *dirs[] = {g_d1, g_d2};
    store_opts_t o = {.mem_limit = limit, .spill_dirs = dirs, .n_spill = ndirs};
    char err[256] = "";
    store_t *s = store_create(&o, err, sizeof err);
    if (!s) fail_msg("store_create: %s", err);
    return s;
}

static void test_put_get_free(void **state)
{
    store_t *s = make(1 << 20, 1);
    assert_int_equal(store_put(s, "chunk:t:1", pattern(1000, 1), 1000, true), 0);
    assert_int_equal(store_size(s, "chunk:t:1"), 1000);
    assert_int_equal(store_size(s, "chunk:t:2"), -1);
    assert_null(store_get(s, "chunk:t:2"));
    store_ref_t *r = store_get(s, "chunk:t:1");
    assert_non_null(r);
    assert_int_equal(r->n, 1000);
    assert_true(matches(r->data, r->n, 1));
    store_release(s, r);
    unsigned char buf[100];
    assert_int_equal(store_read(s, "chunk:t:1", 900, 100, buf), 0);
    unsigned char *want = pattern(1000, 1);
    assert_memory_equal(buf, want + 900, 100);
    free(want);
    assert_int_equal(store_read(s, "chunk:t:1", 901, 100, buf), -2);
    assert_int_equal(store_read(s, "chunk:t:1", 2000, 0, buf), -2);
    assert_int_equal(store_read(s, "nope", 0, 1, buf), -1);
    /* Empty chunks and bad keys. */
    assert_int_equal(store_put(s, "empty", NULL, 0, true), 0);
    assert_int_equal(store_size(s, "empty"), 0);
    char longkey[STORE_KEY_MAX + 2];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    assert_int_equal(store_put(s, longkey, pattern(10, 0), 10, true), -1);
    assert_int_equal(store_put(s, "", pattern(10, 0), 10, true), -1);
    store_stats_t st;
    store_stats(s, &st);
    assert_int_equal(st.chunks, 2);
    assert_int_equal(st.mem_bytes, 1000);
    store_free(s, "chunk:t:1");
    store_free(s, "chunk:t:1"); /* absent: ignored */
    assert_int_equal(store_size(s, "chunk:t:1"), -1);
    store_stats(s, &st);
    assert_int_equal(st.chunks, 1);
    assert_int_equal(st.mem_bytes, 0);
    store_destroy(s);
}

static void test_duplicate_put(void **state)
{
    store_t *s = make(1 << 20, 1);
    assert_int_equal(store_put(s, "k", pattern(100, 1), 100, false), 0);
    /* Owned wins: the cached copy becomes owned (same immutable bytes). */
    assert_int_equal(store_put(s, "k", pattern(100, 1), 100, true), 0);
    store_stats_t st;
    store_stats(s, &st);
    assert_int_equal(st.chunks, 1);
    assert_int_equal(st.cached_bytes, 0);
    assert_int_equal(st.mem_bytes, 100);
    /* A cached put of an owned key changes nothing. */
    assert_int_equal(store_put(s, "k", pattern(100, 1), 100, false), 0);
    store_stats(s, &st);
    assert_int_equal(st.cached_bytes, 0);
    /* And the owned one is spilled, not dropped, under pressure. */
    assert_int_equal(store_spill(s, 100), 100);
    assert_int_equal(store_size(s, "k"), 100);
    store_destroy(s);
}

static void test_spill_round_trip(void **state)
{
    /* Limit of 3 chunks of 64 KiB over two directories. */
    const size_t n = 64 << 10;
    store_t *s = make(3 * (int64_t)n, 2);
    char key[32];
    for (unsigned i = 0; i < 10; i++) {
        snprintf(key, sizeof key, "chunk:t:%u", i);
        assert_int_equal(store_put(s, key, pattern(n, i), n, true), 0);
        store_stats_t st;
        store_stats(s, &st);
        assert_true(st.mem_bytes <= 3 * (int64_t)n);
    }
    store_stats_t st;
    store_stats(s, &st);
    assert_int_equal(st.chunks, 10);
    assert_int_equal(st.spilled_chunks, 7);
    assert_int_equal(st.spilled_bytes, 7 * (int64_t)n);
    assert_int_equal(st.spills, 7);
    /* Spread round-robin over both directories. */
    int f1 = count_files(store_spill_dir(s, 0)), f2 = count_files(store_spill_dir(s, 1));
    assert_int_equal(f1 + f2, 7);
    assert_true(f1 >= 3 && f2 >= 3);
    /* Every chunk reads back byte for byte: ranges from the file ... */
    unsigned char *buf = malloc(n);
    for (unsigned i = 0; i < 10; i++) {
        snprintf(key, sizeof key, "chunk:t:%u", i);
        assert_int_equal(store_read(s, key, 0, n, buf), 0);
        assert_true(matches(buf, n, i));
    }
    store_stats(s, &st);
    assert_int_equal(st.unspills, 0); /* store_read does not load back */
    /* ... and whole chunks pinned in memory. */
    for (unsigned i = 0; i < 10; i++) {
        snprintf(key, sizeof key, "chunk:t:%u", i);
        store_ref_t *r = store_get(s, key);
        assert_non_null(r);
        assert_true(matches(r->data, r->n, i));
        store_release(s, r);
    }
    store_stats(s, &st);
    assert_true(st.unspills >= 7);
    assert_true(st.mem_bytes <= 3 * (int64_t)n);
    /* Free removes the file. */
    int before = count_files(store_spill_dir(s, 0)) + count_files(store_spill_dir(s, 1));
    store_free(s, "chunk:t:0");
    int after = count_files(store_spill_dir(s, 0)) + count_files(store_spill_dir(s, 1));
    assert_int_equal(after, before - 1);
    char d0[SPILLDIR_PATH_MAX];
    snprintf(d0, sizeof d0, "%s", store_spill_dir(s, 0));
    assert_true(exists(d0));
    free(buf);
    store_destroy(s);
    assert_false(exists(d0)); /* destroy removes the directory */
}

static void test_pins_never_spilled(void **state)
{
    const size_t n = 1000;
    store_t *s = make(2000, 1);
    store_put(s, "a", pattern(n, 1), n, true);
    store_ref_t *ra = store_get(s, "a");
    store_put(s, "b", pattern(n, 2), n, true);
    store_put(s, "c", pattern(n, 3), n, true);
    store_put(s, "d", pattern(n, 4), n, true);
    /* a is the oldest but pinned: b and c went instead. */
    store_stats_t st;
    store_stats(s, &st);
    assert_int_equal(st.spilled_chunks, 2);
    assert_int_equal(count_files(store_spill_dir(s, 0)), 2);
    assert_true(matches(ra->data, ra->n, 1));
    /* Nothing unpinned is left to spill but d; a stays in memory. */
    store_spill(s, 1 << 20);
    assert_true(matches(ra->data, ra->n, 1));
    store_stats(s, &st);
    assert_int_equal(st.mem_bytes, (int64_t)n);
    /* Freed while pinned: gone for others, readable until released. */
    store_free(s, "a");
    assert_int_equal(store_size(s, "a"), -1);
    assert_true(matches(ra->data, ra->n, 1));
    store_release(s, ra);
    store_stats(s, &st);
    assert_int_equal(st.mem_bytes, 0);
    assert_int_equal(st.chunks, 3);
    store_destroy(s);
}

static void test_get_mem(void **state)
{
    /* store_get_mem pins what is in memory and never reads a file back. */
    const size_t n = 1000;
    store_t *s = make(2000, 1);
    store_put(s, "a", pattern(n, 1), n, true);
    store_put(s, "b", pattern(n, 2), n, true);
    store_ref_t *ra = store_get_mem(s, "a");
    assert_non_null(ra);
    assert_true(matches(ra->data, ra->n, 1));
    store_stats_t st;
    store_stats(s, &st);
    assert_int_equal(st.pinned_bytes, (int64_t)n);
    /* pinned: b spills in its place, and is not loaded back */
    store_put(s, "c", pattern(n, 3), n, true);
    store_stats(s, &st);
    assert_int_equal(st.spilled_chunks, 1);
    assert_null(store_get_mem(s, "b"));
    assert_null(store_get_mem(s, "absent"));
    store_stats(s, &st);
    assert_int_equal(st.unspills, 0);
    assert_true(matches(ra->data, ra->n, 1));
    /* unpinned, a may spill; freed while pinned, it stays readable */
    store_ref_t *rc = store_get_mem(s, "c");
    assert_non_null(rc);
    store_free(s, "c");
    assert_int_equal(store_size(s, "c"), -1);
    assert_true(matches(rc->data, rc->n, 3));
    store_unpin(s, rc);
    store_unpin(s, ra);
    store_stats(s, &st);
    assert_int_equal(st.pinned_bytes, 0);
    assert_int_equal(store_spill(s, 1 << 20), (int64_t)n);
    assert_null(store_get_mem(s, "a"));
    store_destroy(s);
}

static void test_cached_dropped_first(void **state)
{
    const size_t n = 1000;
    store_t *s = make(3000, 1);
    store_put(s, "own1", pattern(n, 1), n, true);
    store_put(s, "peer1", pattern(n, 2), n, false);
    store_put(s, "own2", pattern(n, 3), n, true);
    /* Over the bound: the cached copy goes, though own1 is older. */
    store_put(s, "own3", pattern(n, 4), n, true);
    assert_int_equal(store_size(s, "peer1"), -1);
    store_stats_t st;
    store_stats(s, &st);
    assert_int_equal(st.drops, 1);
    assert_int_equal(st.spills, 0);
    assert_int_equal(st.cached_bytes, 0);
    /* Then owned ones are spilled, never dropped. */
    store_put(s, "own4", pattern(n, 5), n, true);
    store_stats(s, &st);
    assert_int_equal(st.spills, 1);
    assert_int_equal(st.chunks, 4);
    for (unsigned i = 1; i <= 4; i++) {
        char key[16];
        snprintf(key, sizeof key, "own%u", i);
        store_ref_t *r = store_get(s, key);
        assert_non_null(r);
        assert_true(matches(r->data, r->n, i == 1 ? 1 : i + 1));
        store_release(s, r);
    }
    /* store_spill: cached first even when asked for a little. */
    store_free(s, "own4");
    store_put(s, "peer2", pattern(n, 9), n, false);
    assert_int_equal(store_spill(s, 1), (int64_t)n);
    assert_int_equal(store_size(s, "peer2"), -1);
    store_destroy(s);
}

static void test_spill_failure_keeps_chunk(void **state)
{
    /* A spill directory that disappears: writes fail, nothing is lost. */
    char dir[400];
    snprintf(dir, sizeof dir, "%s/vanishing", g_tmp);
    mkdir(dir, 0700);
    const char *dirs[] = {dir};
    store_opts_t o = {.mem_limit = 1000, .spill_dirs = dirs, .n_spill = 1};
    char err[256];
    store_t *s = store_create(&o, err, sizeof err);
    assert_non_null(s);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", store_spill_dir(s, 0));
    assert_int_equal(system(cmd), 0);
    store_put(s, "a", pattern(800, 1), 800, true);
    store_put(s, "b", pattern(800, 2), 800, true);
    store_stats_t st;
    store_stats(s, &st);
    assert_int_equal(st.spill_failures, 1);
    assert_int_equal(st.mem_bytes, 1600);
    store_ref_t *r = store_get(s, "a");
    assert_true(matches(r->data, r->n, 1));
    store_release(s, r);
    store_destroy(s);
}

static void test_stale_dirs_removed(void **state)
{
    /* A dead process's directory (a child that exited) and a live one's
     * (ours, under a second store). */
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, NULL, 0);
    char stale[400], file[500], alien[400];
    snprintf(stale, sizeof stale, "%s/mars-worker-%d", g_d1, (int)child);
    mkdir(stale, 0700);
    snprintf(file, sizeof file, "%s/1-1.chunk", stale);
    FILE *f = fopen(file, "w");
    fputs("old", f);
    fclose(f);
    /* pid 1 is alive but no mars-worker and left no owner file: stale. */
    snprintf(alien, sizeof alien, "%s/mars-worker-1", g_d1);
    mkdir(alien, 0700);
    char other[400];
    snprintf(other, sizeof other, "%s/keep-me", g_d1);
    mkdir(other, 0700);
    /* A live process with its own store (owner file): kept. */
    int ready[2], go[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    pid_t live = fork();
    if (live == 0) {
        store_t *cs = make(1000, 1);
        char c = 1;
        if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1) _exit(1);
        store_destroy(cs);
        _exit(0);
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    char live_dir[400];
    snprintf(live_dir, sizeof live_dir, "%s/mars-worker-%d", g_d1, (int)live);
    assert_true(exists(live_dir));
    store_t *s = make(1000, 1);
    assert_false(exists(stale));
    assert_false(exists(alien));
    assert_true(exists(other));
    assert_true(exists(live_dir));
    assert_int_equal(write(go[1], &c, 1), 1);
    int status;
    waitpid(live, &status, 0);
    assert_int_equal(status, 0);
    assert_false(exists(live_dir)); /* its own destroy removed it */
    close(ready[0]);
    close(ready[1]);
    close(go[0]);
    close(go[1]);
    rmdir(other);
    /* Two stores of one process share the directory; the last removes it. */
    store_t *s2 = make(1000, 1);
    store_put(s2, "x", pattern(3000, 1), 3000, true);
    store_spill(s2, 3000);
    char d[SPILLDIR_PATH_MAX];
    snprintf(d, sizeof d, "%s", store_spill_dir(s, 0));
    assert_string_equal(d, store_spill_dir(s2, 0));
    store_destroy(s);
    assert_true(exists(d));
    store_ref_t *r = store_get(s2, "x");
    assert_true(matches(r->data, r->n, 1));
    store_release(s2, r);
    store_destroy(s2);
    assert_false(exists(d));
}

static void test_default_dir(void **state)
{
    char tmpdir[400];
    snprintf(tmpdir, sizeof tmpdir, "%s/tmpdir", g_tmp);
    mkdir(tmpdir, 0700);
    setenv("TMPDIR", tmpdir, 1);
    store_opts_t o = {.mem_limit = 10};
    char err[256], want[600];
    store_t *s = store_create(&o, err, sizeof err);
    unsetenv("TMPDIR");
    assert_non_null(s);
    snprintf(want, sizeof want, "%s/mars-spill/mars-worker-%d", tmpdir, (int)getpid());
    assert_string_equal(store_spill_dir(s, 0), want);
    store_put(s, "a", pattern(100, 7), 100, true);
    assert_int_equal(count_files(want), 1);
    store_destroy(s);
    assert_false(exists(want));
    /* A spill directory that cannot be made: an error naming it. */
    const char *dirs[] = {"/proc/no-such/dir"};
    store_opts_t bad = {.mem_limit = 10, .spill_dirs = dirs, .n_spill = 1};
    assert_null(store_create(&bad, err, sizeof err));
    assert_non_null(strstr(err, "/proc/no-such/dir"));
}

typedef struct {
    store_t *s;
    int id;
    int errors;
} worker_arg_t;

static void *hammer(void *p)
{
    worker_arg_t *a = p;
    char key[32];
    for (unsigned i = 0; i < 200; i++) {
        unsigned seed = (unsigned)a->id * 1000 + i;
        size_t n = 1000 + (i % 7) * 500;
        snprintf(key, sizeof key, "chunk:%d:%u", a->id, i);
        store_put(a->s, key, pattern(n, seed), n, i % 3 != 0);
        /* Read back one of ours and one of another thread's. */
        unsigned j = i / 2;
        snprintf(key, sizeof key, "chunk:%d:%u", a->id, j);
        store_ref_t *r = store_get(a->s, key);
        if (r) {
            if (!matches(r->data, r->n, (unsigned)a->id * 1000 + j)) a->errors++;
            store_release(a->s, r);
        } else if (j % 3 != 0 && !(j % 10 == 0 && j + 9 <= i)) {
            a->errors++; /* an owned chunk must never go missing */
        }
        snprintf(key, sizeof key, "chunk:%d:%u", (a->id + 1) % 4, j);
        int64_t sz = store_size(a->s, key);
        if (sz > 0) {
            unsigned char *buf = malloc((size_t)sz);
            int rc = store_read(a->s, key, 0, (uint64_t)sz, buf);
            if (rc == 0 && !matches(buf, (size_t)sz, (unsigned)((a->id + 1) % 4) * 1000 + j))
                a->errors++;
            free(buf);
        }
        if (i % 50 == 49) store_spill(a->s, 20000);
        if (i % 10 == 9) {
            snprintf(key, sizeof key, "chunk:%d:%u", a->id, i - 9);
            store_free(a->s, key);
        }
    }
    return NULL;
}

static void test_threads(void **state)
{
    store_t *s = make(40000, 2);
    pthread_t th[4];
    worker_arg_t args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (worker_arg_t){.s = s, .id = i};
        pthread_create(&th[i], NULL, hammer, &args[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].errors, 0);
    }
    store_stats_t st;
    store_stats(s, &st);
    assert_true(st.spills > 0);
    assert_true(st.mem_bytes <= 40000);
    assert_int_equal(st.pinned_bytes, 0);
    /* Every owned chunk not freed is still there, byte for byte. */
    for (int t = 0; t < 4; t++) {
        for (unsigned i = 0; i < 200; i++) {
            char key[32];
            snprintf(key, sizeof key, "chunk:%d:%u", t, i);
            bool freed = i % 10 == 0;
            if (freed || i % 3 == 0) continue;
            store_ref_t *r = store_get(s, key);
            assert_non_null(r);
            assert_true(matches(r->data, r->n, (unsigned)t * 1000 + i));
            store_release(s, r);
        }
    }
    store_destroy(s);
}

static int setup(void **state)
{
    if (!mkdtemp(g_tmp)) return -1;
    snprintf(g_d1, sizeof g_d1, "%s/d1", g_tmp);
    snprintf(g_d2, sizeof g_d2, "%s/d2", g_tmp);
    return mkdir(g_d1, 0700) || mkdir(g_d2, 0700);
}

static int teardown(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_free),
        cmocka_unit_test(test_duplicate_put),
        cmocka_unit_test(test_get_mem),
        cmocka_unit_test(test_spill_round_trip),
        cmocka_unit_test(test_pins_never_spilled),
        cmocka_unit_test(test_cached_dropped_first),
        cmocka_unit_test(test_spill_failure_keeps_chunk),
        cmocka_unit_test(test_stale_dirs_removed),
        cmocka_unit_test(test_default_dir),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
