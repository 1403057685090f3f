/* fuzz_inflate.c: df_inflate_buf (engine/df/inflate.h) on arbitrary bytes
 * must return 0, or -1 with a message naming the file, never crash, read
 * outside the input or write past the output cap. The first byte picks the
 * method (gzip, bz2, zip, xz, zstd, tar: the zip and tar parsers, and tar
 * over gzip, bz2 and xz); the rest is the file. The output goes to
 * /dev/null, at most 64 MiB of it (a larger output fails naming the cap). */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "df/inflate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0 && (fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) abort();
    if (size < 1) return 0;
    int c = DF_COMP_GZIP + data[0] % (DF_COMP_TAR - DF_COMP_GZIP + 1);
    char err[1024] = "";
    int rc =
        df_inflate_buf(data + 1, size - 1, c, fd, (uint64_t)64 << 20, "f.csv", err, sizeof err);
    if (rc != 0 && (rc != -1 || strncmp(err, "f.csv: ", 7) != 0)) abort();
    return 0;
}
