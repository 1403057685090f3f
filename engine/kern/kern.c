/* kern.c: kernel set-up shared by every kernel file. */
#include <cblas.h>

#include "kern.h"

void kern_init(void)
{
    /* Parallelism comes from chunk jobs running side by side: BLAS inside a
     * job stays on the calling thread, or jobs oversubscribe the cores. */
    openblas_set_num_threads(1);
}
