/* cpu.h: the CPU level the hot kernels run at (docs/deploy.md, "CPU level").
 *
 * ew.c, reduce.c and random.c are compiled once per level the build carries
 * (the Makefile: `portable` with the build's -march=$(ARCH), `avx2` with
 * -march=x86-64-v3, `avx512` with -march=x86-64-v4); the level is chosen
 * once per process, the highest this CPU supports, or the one named by the
 * environment variable MARS_CPU_LEVEL (portable, avx2, avx512 or auto).
 * Every level gives the same bits: the sources use no fused multiply-add
 * (-ffp-contract=off) and no reassociation, so wider vectors only run the
 * same IEEE operations in the same order. */
#ifndef MARS_KERN_CPU_H
#define MARS_KERN_CPU_H

#include <stddef.h>

typedef enum { KERN_CPU_PORTABLE, KERN_CPU_AVX2, KERN_CPU_AVX512, KERN_CPU_NLEVELS } kern_cpu_t;

/* Chooses the level now (idempotent; the first call of any kernel does it
 * too). 0, or -1 with a message in err when MARS_CPU_LEVEL names an unknown
 * level, one this build does not carry or one this CPU lacks: programs call
 * it at start-up and exit 2 with the message; a kernel that gets there first
 * prints the message once on stderr and runs the highest supported level. */
int kern_cpu_init(char *err, size_t errlen);
/* The level the kernels run at. */
kern_cpu_t kern_cpu_level(void);
/* "portable", "avx2", "avx512". */
const char *kern_cpu_name(kern_cpu_t l);
/* Whether this build carries the level and this CPU can run it. */
int kern_cpu_built(kern_cpu_t l);
int kern_cpu_supported(kern_cpu_t l);
/* One line for --version and start-up logs, such as
 * "cpu level avx2 (auto; built: portable avx2 avx512; cpu: portable avx2)". */
void kern_cpu_describe(char *out, size_t cap);

#endif
