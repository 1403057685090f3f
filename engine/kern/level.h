/* level.h: the hot kernel files (ew.c, reduce.c, random.c) are compiled once
 * per CPU level (the Makefile: KERN_LEVEL=portable with the build's ARCH,
 * avx2 with -march=x86-64-v3, avx512 with -march=x86-64-v4). Included first
 * in each, this renames their external functions to NAME_<level>, so the
 * copies link side by side; cpu.c defines the plain names and calls the copy
 * of the level chosen at start-up (docs/deploy.md, "CPU level"). Other
 * kernel files, compiled once, may still call ew_ctx_create and the rest by
 * their plain names: they reach the chosen copy through cpu.c.
 *
 * A file that adds an external function to one of those files adds its
 * name here too (otherwise the link fails on a duplicate symbol). */
#ifndef MARS_KERN_LEVEL_H
#define MARS_KERN_LEVEL_H

#ifndef KERN_LEVEL
#define KERN_LEVEL portable /* builds that compile the sources once (fuzzers) */
#endif

#define KERN_LV_CAT2(a, b) a##_##b
#define KERN_LV_CAT(a, b) KERN_LV_CAT2(a, b)
#define KERN_LV(name) KERN_LV_CAT(name, KERN_LEVEL)

/* ew.c */
#define kern_ew_eval KERN_LV(kern_ew_eval)
#define ew_ctx_create KERN_LV(ew_ctx_create)
#define ew_ctx_block KERN_LV(ew_ctx_block)
#define ew_ctx_free KERN_LV(ew_ctx_free)
/* ew_int.c */
#define ew_int_loop KERN_LV(ew_int_loop)
#define ew_cast_loop KERN_LV(ew_cast_loop)
/* reduce.c */
#define kern_red_partial_bytes KERN_LV(kern_red_partial_bytes)
#define kern_red_result_dtype KERN_LV(kern_red_result_dtype)
#define kern_red_map KERN_LV(kern_red_map)
#define kern_red_combine KERN_LV(kern_red_combine)
#define kern_red_final KERN_LV(kern_red_final)
#define kern_red_all_nan KERN_LV(kern_red_all_nan)
/* random.c */
#define kern_random KERN_LV(kern_random)
#define kern_philox4x32_10 KERN_LV(kern_philox4x32_10)

#endif
