/* inflate.h: the compressed files `dataframe.read_csv` and
 * `dataframe.read_json` read, as pandas 1.5's `compression=` opens them:
 * gzip (zlib; members one after another, zero padding between them), bz2
 * (libbz2; streams one after another), xz (liblzma's auto decoder: .xz and
 * the older .lzma; streams one after another), zstd (libzstd; every frame,
 * skippable ones skipped), zip (one member, stored, deflated or bzip2, its
 * CRC-32 checked; zip64 and data prepended to the archive taken) and tar
 * (one regular file, the archive itself plain, gzip, bz2 or xz, as
 * tarfile's "r:*" opens it; GNU long names and pax headers taken). After
 * the first stream of a bz2 or xz file, bytes that start no stream are
 * ignored, as Python's readers ignore them.
 *
 * A compressed file cannot be cut into byte ranges, so the file is
 * decompressed once into a local copy, which the reader then treats as
 * any file: it is split into ranges read by separate jobs, and its scan is
 * cached. The copy lives under $TMPDIR/mars-inflate-<uid>/ (default /tmp),
 * named after the method and the compressed file's identity (device,
 * inode, size, modification time in nanoseconds), so a replaced file is
 * decompressed again and an unchanged one never is. Every process on a
 * host that reads the graph (the gateway validating it, the supervisor,
 * each worker) finds the copy the first one made: a lock file beside it
 * makes the others wait instead of decompressing it too. Copies are not
 * deleted (like the uploads' local copies, services/common/plan.h).
 *
 * Bounds: memory is the source's mapping and one 1 MiB output buffer
 * (plus xz's dictionary, at most DF_INFLATE_XZ_MEMLIMIT, and zstd's
 * window, at most 128 MiB, zstd's default limit); the copy is written
 * while the disk under it keeps DF_INFLATE_DISK_RESERVE free (or the
 * bytes the environment's MARS_INFLATE_DISK_RESERVE says), else the
 * read fails naming that limit (a file that inflates to more than the
 * disk holds, a "zip bomb", fails so, and its partial copy is removed). */
#ifndef MARS_DF_INFLATE_H
#define MARS_DF_INFLATE_H

#include <stddef.h>
#include <stdint.h>

enum {
    DF_COMP_NONE = 0,
    DF_COMP_GZIP,
    DF_COMP_BZ2,
    DF_COMP_ZIP,
    DF_COMP_XZ,
    DF_COMP_ZSTD,
    DF_COMP_TAR,
    DF_COMP_INFER
};

#define DF_INFLATE_DISK_RESERVE ((uint64_t)256 << 20)
#define DF_INFLATE_XZ_MEMLIMIT ((uint64_t)1 << 30)

/* pandas' name of method c ("gzip", "bz2", "zip", "xz", "zstd", "tar",
 * "infer"); NULL for DF_COMP_NONE. */
const char *df_comp_name(int c);
/* The method pandas names s ("infer" included); -1 for any other name. */
int df_comp_parse(const char *s);
/* pandas' infer_compression of a path: the method its extension names
 * (".gz", ".bz2", ".zip", ".xz", ".zst"; ".tar", ".tar.gz", ".tar.bz2"
 * and ".tar.xz" are tar), in any case; DF_COMP_NONE for any other. */
int df_comp_infer(const char *name);

/* Decompresses buf (len bytes) by method c (neither NONE nor INFER) into
 * fd, failing past cap bytes of output; `name` names the file in
 * messages. 0, or -1 with err. The whole decoder, without files: the
 * fuzzer (fuzz/fuzz_inflate.c) drives it. */
int df_inflate_buf(const unsigned char *buf, size_t len, int c, int fd, uint64_t cap,
                   const char *name, char *err, size_t errlen);

/* The file at `path` (name: the user's path, for messages) decompressed
 * by method c into its local copy (made if missing, as above); writes the
 * copy's path to out. 0, or -1 with err. */
int df_inflate_file(const char *path, const char *name, int c, char *out, size_t outlen, char *err,
                    size_t errlen);

#endif
