/* cpu.c: the CPU level of the hot kernels (cpu.h), and the plain names of
 * the functions level.h renames: each calls the copy of the chosen level.
 *
 * The build defines KERN_HAVE_AVX2 and KERN_HAVE_AVX512 when it compiles
 * those copies (the Makefile); a build that compiles the sources once (the
 * fuzzers) carries the portable copy alone. */
#include "cpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern_internal.h"

#define DECL_LEVEL(L)                                                                              \
    int kern_ew_eval_##L(const ew_prog_t *prog, const arr_t *inputs, arr_t *out, char *err,        \
                         size_t errlen);                                                           \
    size_t kern_red_partial_bytes_##L(op_t op, dtype_t in_dt, int64_t n_out);                      \
    dtype_t kern_red_result_dtype_##L(op_t op, dtype_t in_dt);                                     \
    int kern_red_map_##L(const kern_red_map_t *m, void *partial, char *err, size_t errlen);        \
    void kern_red_combine_##L(op_t op, dtype_t in_dt, int64_t n_out, int n_parts,                  \
                              const void *const *parts, void *out);                                \
    void kern_red_final_##L(op_t op, dtype_t in_dt, int64_t n_out, int64_t n_reduced,              \
                            int64_t ddof, const void *partial, arr_t *out);                        \
    bool kern_red_all_nan_##L(op_t op, const arr_t *out);                                          \
    void kern_random_##L(const kern_gen_t *g, const int64_t *off, arr_t *out);                     \
    void kern_philox4x32_10_##L(uint32_t ctr[4], const uint32_t key[2]);                           \
    ew_ctx_t *ew_ctx_create_##L(const ew_prog_t *prog, const arr_t *inputs, const shape_t *shape,  \
                                char *err, size_t errlen);                                         \
    int ew_ctx_block_##L(ew_ctx_t *c, int64_t start, int64_t n, void *dst, char *err,              \
                         size_t errlen);                                                           \
    void ew_ctx_free_##L(ew_ctx_t *c);

DECL_LEVEL(portable)
#ifdef KERN_HAVE_AVX2
DECL_LEVEL(avx2)
#endif
#ifdef KERN_HAVE_AVX512
DECL_LEVEL(avx512)
#endif

static const char *const names[KERN_CPU_NLEVELS] = {"portable", "avx2", "avx512"};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static kern_cpu_t level = KERN_CPU_PORTABLE;
static int forced;           /* MARS_CPU_LEVEL chose it */
static char init_err[200];   /* MARS_CPU_LEVEL's problem, if any */
static int init_err_printed; /* by the first kernel, when no program asked */

const char *kern_cpu_name(kern_cpu_t l)
{
    return (unsigned)l < KERN_CPU_NLEVELS ? names[l] : "?";
}

int kern_cpu_built(kern_cpu_t l)
{
    switch (l) {
    case KERN_CPU_PORTABLE:
        return 1;
#ifdef KERN_HAVE_AVX2
    case KERN_CPU_AVX2:
        return 1;
#endif
#ifdef KERN_HAVE_AVX512
    case KERN_CPU_AVX512:
        return 1;
#endif
    default:
        return 0;
    }
}

/* What -march=x86-64-v3 and -v4 let the compiler use: the libgcc checks
 * include the operating system's saving of the wider registers (XGETBV). */
int kern_cpu_supported(kern_cpu_t l)
{
    switch (l) {
    case KERN_CPU_PORTABLE:
        return 1;
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
    case KERN_CPU_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("x86-64-v3") != 0;
    case KERN_CPU_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("x86-64-v4") != 0;
#endif
    default:
        return 0;
    }
}

static void choose(void)
{
    level = KERN_CPU_PORTABLE;
    for (int l = KERN_CPU_NLEVELS - 1; l > 0; l--) {
        if (kern_cpu_built((kern_cpu_t)l) && kern_cpu_supported((kern_cpu_t)l)) {
            level = (kern_cpu_t)l;
            break;
        }
    }
    const char *e = getenv("MARS_CPU_LEVEL");
    if (!e || !*e || strcmp(e, "auto") == 0) return;
    for (int l = 0; l < KERN_CPU_NLEVELS; l++) {
        if (strcmp(e, names[l]) != 0) continue;
        if (!kern_cpu_built((kern_cpu_t)l))
            snprintf(init_err, sizeof init_err,
                     "MARS_CPU_LEVEL=%s: this build does not carry that level's kernels", e);
        else if (!kern_cpu_supported((kern_cpu_t)l))
            snprintf(init_err, sizeof init_err,
                     "MARS_CPU_LEVEL=%s: this CPU lacks the instructions of that level", e);
        else {
            level = (kern_cpu_t)l;
            forced = 1;
        }
        return;
    }
    snprintf(init_err, sizeof init_err,
             "MARS_CPU_LEVEL='%.60s' is not a level: portable, avx2, avx512 or auto", e);
}

int kern_cpu_init(char *err, size_t errlen)
{
    pthread_once(&once, choose);
    if (!init_err[0]) return 0;
    if (err && errlen) snprintf(err, errlen, "%s", init_err);
    return -1;
}

kern_cpu_t kern_cpu_level(void)
{
    pthread_once(&once, choose);
    if (init_err[0] && !__atomic_exchange_n(&init_err_printed, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "mars: %s; running the %s kernels\n", init_err, names[level]);
    return level;
}

void kern_cpu_describe(char *out, size_t cap)
{
    kern_cpu_t l = kern_cpu_level();
    char built[64] = "", sup[64] = "";
    for (int i = 0; i < KERN_CPU_NLEVELS; i++) {
        if (kern_cpu_built((kern_cpu_t)i))
            snprintf(built + strlen(built), sizeof built - strlen(built), "%s%s",
                     built[0] ? " " : "", names[i]);
        if (kern_cpu_supported((kern_cpu_t)i))
            snprintf(sup + strlen(sup), sizeof sup - strlen(sup), "%s%s", sup[0] ? " " : "",
                     names[i]);
    }
#ifndef KERN_ARCH
#define KERN_ARCH "?"
#endif
    snprintf(out, cap, "cpu level %s (%s; built: %s; portable is -march=%s; cpu: %s)", names[l],
             forced ? "MARS_CPU_LEVEL" : "auto", built, KERN_ARCH, sup);
}

/* ---- the plain names: the chosen level's copy ----------------------------- */
#ifdef KERN_HAVE_AVX2
#define AVX2_CASE(call)                                                                            \
    case KERN_CPU_AVX2:                                                                            \
        return call##_avx2;
#else
#define AVX2_CASE(call)
#endif
#ifdef KERN_HAVE_AVX512
#define AVX512_CASE(call)                                                                          \
    case KERN_CPU_AVX512:                                                                          \
        return call##_avx512;
#else
#define AVX512_CASE(call)
#endif
/* The copy of function F for the chosen level. */
#define PICK(F)                                                                                    \
    switch (kern_cpu_level()) {                                                                    \
        AVX2_CASE(F)                                                                               \
        AVX512_CASE(F)                                                                             \
    default:                                                                                       \
        return F##_portable;                                                                       \
    }

typedef int (*ew_eval_fn)(const ew_prog_t *, const arr_t *, arr_t *, char *, size_t);
typedef int (*red_map_fn)(const kern_red_map_t *, void *, char *, size_t);
typedef void (*red_combine_fn)(op_t, dtype_t, int64_t, int, const void *const *, void *);
typedef void (*red_final_fn)(op_t, dtype_t, int64_t, int64_t, int64_t, const void *, arr_t *);
typedef void (*random_fn)(const kern_gen_t *, const int64_t *, arr_t *);
typedef ew_ctx_t *(*ctx_create_fn)(const ew_prog_t *, const arr_t *, const shape_t *, char *,
                                   size_t);
typedef int (*ctx_block_fn)(ew_ctx_t *, int64_t, int64_t, void *, char *, size_t);
typedef void (*ctx_free_fn)(ew_ctx_t *);

static ew_eval_fn pick_ew_eval(void)
{
    PICK(kern_ew_eval)
}
static red_map_fn pick_red_map(void)
{
    PICK(kern_red_map)
}
static red_combine_fn pick_red_combine(void)
{
    PICK(kern_red_combine)
}
static red_final_fn pick_red_final(void)
{
    PICK(kern_red_final)
}
static random_fn pick_random(void)
{
    PICK(kern_random)
}
static ctx_create_fn pick_ctx_create(void)
{
    PICK(ew_ctx_create)
}
static ctx_block_fn pick_ctx_block(void)
{
    PICK(ew_ctx_block)
}
static ctx_free_fn pick_ctx_free(void){PICK(ew_ctx_free)}

/* Block evaluation (kern_internal.h) for kernel files compiled once: the
 * level is fixed for the process, so a context always meets its own copy. */
ew_ctx_t *ew_ctx_create(const ew_prog_t *prog, const arr_t *inputs, const shape_t *shape, char *err,
                        size_t errlen)
{
    return pick_ctx_create()(prog, inputs, shape, err, errlen);
}

int ew_ctx_block(ew_ctx_t *c, int64_t start, int64_t n, void *dst, char *err, size_t errlen)
{
    return pick_ctx_block()(c, start, n, dst, err, errlen);
}

void ew_ctx_free(ew_ctx_t *c)
{
    pick_ctx_free()(c);
}

int kern_ew_eval(const ew_prog_t *prog, const arr_t *inputs, arr_t *out, char *err, size_t errlen)
{
    return pick_ew_eval()(prog, inputs, out, err, errlen);
}

int kern_red_map(const kern_red_map_t *m, void *partial, char *err, size_t errlen)
{
    return pick_red_map()(m, partial, err, errlen);
}

void kern_red_combine(op_t op, dtype_t in_dt, int64_t n_out, int n_parts, const void *const *parts,
                      void *out)
{
    pick_red_combine()(op, in_dt, n_out, n_parts, parts, out);
}

void kern_red_final(op_t op, dtype_t in_dt, int64_t n_out, int64_t n_reduced, int64_t ddof,
                    const void *partial, arr_t *out)
{
    pick_red_final()(op, in_dt, n_out, n_reduced, ddof, partial, out);
}

void kern_random(const kern_gen_t *g, const int64_t *off, arr_t *out)
{
    pick_random()(g, off, out);
}

/* Not hot: the portable copy (the same code). */
size_t kern_red_partial_bytes(op_t op, dtype_t in_dt, int64_t n_out)
{
    return kern_red_partial_bytes_portable(op, in_dt, n_out);
}

dtype_t kern_red_result_dtype(op_t op, dtype_t in_dt)
{
    return kern_red_result_dtype_portable(op, in_dt);
}

bool kern_red_all_nan(op_t op, const arr_t *out)
{
    return kern_red_all_nan_portable(op, out);
}

void kern_philox4x32_10(uint32_t ctr[4], const uint32_t key[2])
{
    kern_philox4x32_10_portable(ctr, key);
}
