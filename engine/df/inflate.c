/* inflate.c: compressed files as local plain copies (inflate.h). */
#include "inflate.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lzma.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "../errmsg.h"
#include "csv.h"

static const char *const comp_names[] = {NULL, "gzip", "bz2", "zip", "xz", "zstd", "tar", "infer"};

const char *df_comp_name(int c)
{
    return c > DF_COMP_NONE && c <= DF_COMP_INFER ? comp_names[c] : NULL;
}

int df_comp_parse(const char *s)
{
    for (int c = DF_COMP_GZIP; c <= DF_COMP_INFER; c++)
        if (strcmp(s, comp_names[c]) == 0) return c;
    return -1;
}

int df_comp_infer(const char *name)
{
    /* pandas' _extension_to_compression, in its order */
    static const struct {
        const char *ext;
        int c;
    } tab[] = {{".tar", DF_COMP_TAR},    {".tar.gz", DF_COMP_TAR}, {".tar.bz2", DF_COMP_TAR},
               {".tar.xz", DF_COMP_TAR}, {".gz", DF_COMP_GZIP},    {".bz2", DF_COMP_BZ2},
               {".zip", DF_COMP_ZIP},    {".xz", DF_COMP_XZ},      {".zst", DF_COMP_ZSTD}};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        size_t l = strlen(tab[i].ext);
        if (n >= l && strcasecmp(name + n - l, tab[i].ext) == 0) return tab[i].c;
    }
    return DF_COMP_NONE;
}

/* ---------------------------------------------------------------------------
 * The output: raw bytes to a file, or through the tar filter. */

#define OBUF ((size_t)1 << 20)
#define DISK_CHECK_EVERY ((uint64_t)64 << 20)
#define TAR_META_MAX ((size_t)1 << 20) /* a long name or a pax header */

typedef struct tar tar_t;

typedef struct {
    int fd;
    uint64_t n, cap;
    uint64_t reserve;    /* the disk space kept free (check_disk) */
    uint64_t next_check; /* the disk's free space is checked there */
    bool check_disk;
    const char *name, *dir; /* the file named in messages; where the copy goes */
    bool crc_on;
    uLong crc;
    tar_t *tar;
    unsigned char *buf; /* OBUF bytes */
    char *err;
    size_t errlen;
} out_t;

static int oerr(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int oerr(out_t *o, const char *fmt, ...)
{
    char m[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    return errmsg(o->err, o->errlen, "%.300s: %s", o->name, m);
}

static int write_all(out_t *o, const unsigned char *p, size_t n)
{
    if (n > o->cap - o->n)
        return oerr(o, "decompresses to more than %llu bytes", (unsigned long long)o->cap);
    if (o->check_disk && o->n + n >= o->next_check) {
        struct statvfs vs;
        if (fstatvfs(o->fd, &vs) == 0 && ((uint64_t)vs.f_bavail * vs.f_frsize < n ||
                                          (uint64_t)vs.f_bavail * vs.f_frsize - n < o->reserve))
            return oerr(o,
                        "decompressing it would leave less than %llu MiB free on the disk of "
                        "%.300s (the reserve, MARS_INFLATE_DISK_RESERVE); %llu bytes written",
                        (unsigned long long)(o->reserve >> 20), o->dir, (unsigned long long)o->n);
        o->next_check = o->n + n + DISK_CHECK_EVERY;
    }
    if (o->crc_on) {
        for (size_t k = 0; k < n;) {
            uInt step = n - k > UINT_MAX ? UINT_MAX : (uInt)(n - k);
            o->crc = crc32(o->crc, p + k, step);
            k += step;
        }
    }
    o->n += n;
    while (n) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return oerr(o, "writing its decompressed copy under %.300s: %s", o->dir,
                        w < 0 ? strerror(errno) : "short write");
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* tar: a stream of 512-byte headers, each followed by its data padded to
 * 512 bytes; the one regular file's data is the output. */
struct tar {
    unsigned char hdr[512];
    size_t hn;
    uint64_t left, pad; /* the entry's data and padding still to come */
    int kind;           /* of the data: 0 skipped, 1 the output, 2 meta (long name, pax) */
    char meta_type;
    char *meta;
    size_t metan;
    char *longname; /* 'L' or a pax path, for the next header */
    bool size_set;  /* a pax size for the next header */
    uint64_t pax_size;
    int members;
    bool done; /* the end of the archive (a zero block, or a bad header) */
    char first[256];
};

static uint64_t tar_num(const unsigned char *f, size_t n, bool *ok)
{
    *ok = true;
    if (f[0] & 0x80) { /* base-256, GNU's for sizes past 8 GiB */
        if (f[0] == 0xff) {
            *ok = false; /* negative */
            return 0;
        }
        uint64_t v = f[0] & 0x7f;
        for (size_t i = 1; i < n; i++) {
            if (v >> 56) {
                *ok = false;
                return 0;
            }
            v = v << 8 | f[i];
        }
        return v;
    }
    size_t i = 0;
    while (i < n && (f[i] == ' ' || f[i] == 0))
        i++;
    uint64_t v = 0;
    for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 60) {
            *ok = false;
            return 0;
        }
        v = v * 8 + (uint64_t)(f[i] - '0');
    }
    for (; i < n; i++)
        if (f[i] != ' ' && f[i] != 0) *ok = false;
    return v;
}

static void tar_name(const unsigned char *h, char *out, size_t cap)
{
    char name[101], prefix[156];
    memcpy(name, h, 100);
    name[100] = 0;
    memcpy(prefix, h + 345, 155);
    prefix[155] = 0;
    if (memcmp(h + 257, "ustar", 5) == 0 && prefix[0])
        snprintf(out, cap, "%.150s/%.100s", prefix, name);
    else
        snprintf(out, cap, "%.100s", name);
}

/* A pax header's records "LEN key=value\n": the path and size keys. */
static void tar_pax(tar_t *t)
{
    size_t i = 0;
    while (i < t->metan) {
        size_t j = i, len = 0;
        while (j < t->metan && t->meta[j] >= '0' && t->meta[j] <= '9' && len < TAR_META_MAX)
            len = len * 10 + (size_t)(t->meta[j++] - '0');
        if (j >= t->metan || t->meta[j] != ' ' || len <= j - i + 1 || len > t->metan - i) return;
        const char *kv = t->meta + j + 1;
        size_t kvn = i + len - (j + 1) - 1; /* without the '\n' */
        const char *eq = memchr(kv, '=', kvn);
        if (eq) {
            size_t kn = (size_t)(eq - kv), vn = kvn - kn - 1;
            if (kn == 4 && memcmp(kv, "path", 4) == 0) {
                free(t->longname);
                if ((t->longname = malloc(vn + 1))) {
                    memcpy(t->longname, eq + 1, vn);
                    t->longname[vn] = 0;
                }
            } else if (kn == 4 && memcmp(kv, "size", 4) == 0) {
                uint64_t v = 0;
                bool ok = vn > 0 && vn <= 19;
                for (size_t k = 0; ok && k < vn; k++) {
                    if (eq[1 + k] < '0' || eq[1 + k] > '9') ok = false;
                    v = v * 10 + (uint64_t)(eq[1 + k] - '0');
                }
                if (ok) {
                    t->pax_size = v;
                    t->size_set = true;
                }
            }
        }
        i += len;
    }
}

/* One header block. 0, or -1 with err. */
static int tar_header(out_t *o, tar_t *t)
{
    const unsigned char *h = t->hdr;
    bool zero = true;
    for (int i = 0; i < 512 && zero; i++)
        zero = h[i] == 0;
    if (zero) {
        t->done = true;
        return 0;
    }
    /* the checksum: the header's bytes with its own field as spaces, as
     * an unsigned or (old tars) a signed sum */
    bool ok;
    uint64_t want = tar_num(h + 148, 8, &ok);
    long us = 0, ss = 0;
    for (int i = 0; i < 512; i++) {
        unsigned char b = i >= 148 && i < 156 ? ' ' : h[i];
        us += b;
        ss += (signed char)b;
    }
    if (!ok || (want != (uint64_t)us && (long)want != ss)) {
        if (t->members == 0 && !t->meta_type && !t->longname)
            return oerr(o, "not a TAR archive (its first header's checksum is wrong)");
        t->done = true; /* tarfile ends the archive at a bad later header */
        return 0;
    }
    uint64_t size = tar_num(h + 124, 12, &ok);
    if (!ok) return oerr(o, "a TAR header's size field is malformed");
    char type = (char)h[156];
    bool meta = type == 'L' || type == 'x' || type == 'g' || type == 'K';
    if (!meta && t->size_set) size = t->pax_size; /* a pax size: past the field's 8 GiB */
    t->left = size;
    t->pad = (512 - size % 512) % 512;
    t->meta_type = 0;
    if (meta) {
        if (size > TAR_META_MAX)
            return oerr(o, "a TAR long name or pax header of %llu bytes (more than %zu)",
                        (unsigned long long)size, TAR_META_MAX);
        t->kind = type == 'K' || type == 'g' ? 0 : 2;
        t->meta_type = type;
        t->metan = 0;
        return 0;
    }
    if (type == 'S') return oerr(o, "a sparse TAR member is not supported");
    t->members++;
    char nm[256];
    if (t->longname)
        snprintf(nm, sizeof nm, "%s", t->longname);
    else
        tar_name(h, nm, sizeof nm);
    free(t->longname);
    t->longname = NULL;
    t->size_set = false;
    if (t->members > 1)
        return oerr(o,
                    "Multiple files found in TAR archive. Only one file per TAR archive: "
                    "['%.100s', '%.100s', ...]",
                    t->first, nm);
    snprintf(t->first, sizeof t->first, "%s", nm);
    if (type != '0' && type != 0 && type != '7')
        return oerr(o, "the one member of the TAR archive, '%.200s', is not a regular file", nm);
    t->kind = 1;
    return 0;
}

static int tar_feed(out_t *o, const unsigned char *p, size_t n)
{
    tar_t *t = o->tar;
    while (n && !t->done) {
        if (t->left) {
            size_t k = t->left < n ? (size_t)t->left : n;
            if (t->kind == 1 && write_all(o, p, k)) return -1;
            if (t->kind == 2) {
                char *m = realloc(t->meta, t->metan + k + 1);
                if (!m) return oerr(o, "out of memory");
                t->meta = m;
                memcpy(t->meta + t->metan, p, k);
                t->metan += k;
                t->meta[t->metan] = 0;
            }
            t->left -= k;
            p += k;
            n -= k;
            if (t->left == 0 && t->kind == 2) {
                if (t->meta_type == 'L') {
                    free(t->longname);
                    t->longname = strndup(t->meta, t->metan);
                } else {
                    tar_pax(t);
                }
                t->metan = 0;
            }
            continue;
        }
        if (t->pad) {
            size_t k = t->pad < n ? (size_t)t->pad : n;
            t->pad -= k;
            p += k;
            n -= k;
            continue;
        }
        size_t k = 512 - t->hn < n ? 512 - t->hn : n;
        memcpy(t->hdr + t->hn, p, k);
        t->hn += k;
        p += k;
        n -= k;
        if (t->hn == 512) {
            t->hn = 0;
            if (tar_header(o, t)) return -1;
        }
    }
    return 0;
}

static int tar_end(out_t *o)
{
    tar_t *t = o->tar;
    if (!t->done && (t->left || t->hn))
        return oerr(o, "the TAR archive ends inside %s", t->left ? "a member's data" : "a header");
    if (t->members == 0) return oerr(o, "Zero files found in TAR archive");
    return 0;
}

static int emit(out_t *o, const unsigned char *p, size_t n)
{
    if (!n) return 0;
    return o->tar ? tar_feed(o, p, n) : write_all(o, p, n);
}

/* ---------------------------------------------------------------------------
 * The decoders: buf[0, len) to emit(). */

static const char *const TRUNC =
    "Compressed file ended before the end-of-stream marker was reached";

/* One zlib stream (a gzip member, a raw deflate) from buf + *pos on:
 * inflates until its end, moving *pos past it. 0, or -1 with err. */
static int z_stream_run(z_stream *z, const unsigned char *buf, size_t len, size_t *pos, out_t *o,
                        const char *what)
{
    for (;;) {
        size_t give = len - *pos > UINT_MAX ? UINT_MAX : len - *pos;
        z->next_in = (Bytef *)(buf + *pos);
        z->avail_in = (uInt)give;
        z->next_out = o->buf;
        z->avail_out = (uInt)OBUF;
        int zr = inflate(z, Z_NO_FLUSH);
        *pos += give - z->avail_in;
        if (emit(o, o->buf, OBUF - z->avail_out)) return -1;
        if (zr == Z_STREAM_END) return 0;
        if (zr == Z_BUF_ERROR || (zr == Z_OK && *pos == len && z->avail_out)) {
            if (*pos == len) return oerr(o, "%s", TRUNC);
            continue;
        }
        if (zr != Z_OK)
            return oerr(o, "its %s data is corrupt (%s)", what, z->msg ? z->msg : "zlib error");
    }
}

static int gz_decode(const unsigned char *buf, size_t len, out_t *o)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return oerr(o, "out of memory (zlib)");
    size_t pos = 0;
    int rc = 0;
    while (rc == 0 && pos < len) {
        if (len - pos < 2 || buf[pos] != 0x1f || buf[pos + 1] != 0x8b) {
            if (pos)
                rc = oerr(o,
                          "bytes after its gzip data, at byte %zu, are no gzip member (Not a "
                          "gzipped file)",
                          pos);
            else
                rc = oerr(o, "not a gzip file (Not a gzipped file)");
            break;
        }
        inflateReset(&z);
        rc = z_stream_run(&z, buf, len, &pos, o, "gzip");
        /* zero bytes may pad between members, as gzip.py allows */
        while (rc == 0 && pos < len && buf[pos] == 0)
            pos++;
    }
    inflateEnd(&z);
    return rc;
}

/* Raw deflate (a zip member): exactly len bytes of input. */
static int deflate_raw(const unsigned char *buf, size_t len, out_t *o)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return oerr(o, "out of memory (zlib)");
    size_t pos = 0;
    int rc = z_stream_run(&z, buf, len, &pos, o, "deflate");
    inflateEnd(&z);
    return rc;
}

/* bz2 streams; `one`: exactly one (a zip member). */
static int bz_decode(const unsigned char *buf, size_t len, out_t *o, bool one)
{
    size_t pos = 0;
    int rc = 0;
    bool first = true;
    while (rc == 0 && pos < len) {
        if (!first && (one || len - pos < 3 || memcmp(buf + pos, "BZh", 3) != 0))
            break; /* what follows starts no stream: ignored, as bz2.py does */
        bz_stream b;
        memset(&b, 0, sizeof b);
        if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK) return oerr(o, "out of memory (bzip2)");
        for (;;) {
            size_t give = len - pos > UINT_MAX ? UINT_MAX : len - pos;
            b.next_in = (char *)(buf + pos);
            b.avail_in = (unsigned)give;
            b.next_out = (char *)o->buf;
            b.avail_out = (unsigned)OBUF;
            int r = BZ2_bzDecompress(&b);
            pos += give - b.avail_in;
            if ((rc = emit(o, o->buf, OBUF - b.avail_out))) break;
            if (r == BZ_STREAM_END) break;
            if (r == BZ_OK) {
                if (pos == len && b.avail_out) {
                    rc = oerr(o, "%s", TRUNC);
                    break;
                }
                continue;
            }
            rc = oerr(o, r == BZ_DATA_ERROR_MAGIC && first
                             ? "not a bz2 file (Invalid data stream)"
                             : "its bz2 data is corrupt (Invalid data stream)");
            break;
        }
        BZ2_bzDecompressEnd(&b);
        first = false;
    }
    return rc;
}

static int xz_decode(const unsigned char *buf, size_t len, out_t *o)
{
    size_t pos = 0;
    int rc = 0;
    bool first = true;
    while (rc == 0 && pos < len) {
        lzma_stream s = LZMA_STREAM_INIT;
        if (lzma_auto_decoder(&s, DF_INFLATE_XZ_MEMLIMIT, 0) != LZMA_OK)
            return oerr(o, "out of memory (xz)");
        uint64_t made = 0;
        for (;;) {
            s.next_in = buf + pos;
            s.avail_in = len - pos;
            s.next_out = o->buf;
            s.avail_out = OBUF;
            lzma_ret r = lzma_code(&s, LZMA_RUN);
            size_t used = (size_t)(s.next_in - (buf + pos));
            size_t got = OBUF - s.avail_out;
            if ((r == LZMA_FORMAT_ERROR || r == LZMA_DATA_ERROR) && !first && made == 0 && !got) {
                pos = len; /* trailing bytes that start no stream: ignored, as lzma.py does */
                break;
            }
            pos += used;
            made += got;
            if ((rc = emit(o, o->buf, got))) break;
            if (r == LZMA_STREAM_END) break;
            if (r == LZMA_OK) {
                if (pos == len && s.avail_out) {
                    rc = oerr(o, "%s", TRUNC);
                    break;
                }
                continue;
            }
            if (r == LZMA_BUF_ERROR) {
                rc = oerr(o, "%s", TRUNC);
            } else if (r == LZMA_MEMLIMIT_ERROR) {
                rc = oerr(o,
                          "its xz data needs %llu MiB of memory to decompress, more than %llu "
                          "MiB (DF_INFLATE_XZ_MEMLIMIT)",
                          (unsigned long long)(lzma_memusage(&s) >> 20),
                          (unsigned long long)(DF_INFLATE_XZ_MEMLIMIT >> 20));
            } else if (r == LZMA_FORMAT_ERROR) {
                rc = oerr(o, "not an xz file (Input format not supported by decoder)");
            } else if (r == LZMA_MEM_ERROR) {
                rc = oerr(o, "out of memory (xz)");
            } else {
                rc = oerr(o, "its xz data is corrupt (Corrupt input data)");
            }
            break;
        }
        lzma_end(&s);
        first = false;
    }
    return rc;
}

static int zstd_decode(const unsigned char *buf, size_t len, out_t *o)
{
    if (len == 0) return 0;
    ZSTD_DCtx *d = ZSTD_createDCtx();
    if (!d) return oerr(o, "out of memory (zstd)");
    /* zstd's own default, stated: frames of windows past 128 MiB refused */
    ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, 27);
    ZSTD_inBuffer in = {buf, len, 0};
    size_t r = 0;
    int rc = 0;
    for (;;) {
        ZSTD_outBuffer ob = {o->buf, OBUF, 0};
        r = ZSTD_decompressStream(d, &ob, &in);
        if (ZSTD_isError(r)) {
            if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge)
                rc = oerr(o, "its zstd frame needs a window larger than 128 MiB (zstd's "
                             "limit)");
            else if (ZSTD_getErrorCode(r) == ZSTD_error_prefix_unknown && in.pos == 0)
                rc = oerr(o, "not a zstd file (Unknown frame descriptor)");
            else
                rc = oerr(o, "its zstd data is corrupt (%s)", ZSTD_getErrorName(r));
            break;
        }
        if ((rc = emit(o, o->buf, ob.pos))) break;
        /* all read, and the frame ended (0: flushed too) or nothing is left
         * to flush; calling again after a frame's end would start the next */
        if (in.pos == in.size && (r == 0 || ob.pos < ob.size)) {
            if (r != 0) rc = oerr(o, "%s", TRUNC);
            break;
        }
    }
    ZSTD_freeDCtx(d);
    return rc;
}

/* ---------------------------------------------------------------------------
 * zip: the central directory's one entry, its data through the method. */

static uint32_t rd16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
    return rd16(p) | rd16(p + 2) << 16;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static int zip_decode(const unsigned char *buf, size_t len, out_t *o)
{
    const char *bad = "not a zip file (File is not a zip file)";
    if (len < 22) return oerr(o, "%s", bad);
    /* the end of central directory record: its last occurrence among the
     * last 64 KiB + 22 bytes (a comment of up to 65535 bytes may follow
     * it), as zipfile.py finds it */
    size_t e = len - 22, stop = len - 22 > 65535 ? len - 22 - 65535 : 0;
    for (;; e--) {
        if (memcmp(buf + e, "PK\5\6", 4) == 0) break;
        if (e == stop) return oerr(o, "%s", bad);
    }
    uint64_t cd_size = rd32(buf + e + 12), cd_off = rd32(buf + e + 16);
    size_t cd_end = e; /* the central directory ends where the records start */
    if (e >= 20 && memcmp(buf + e - 20, "PK\6\7", 4) == 0) {
        /* zip64: its end record right before the locator (where
         * zipfile.py looks) */
        size_t zr = e - 20 >= 56 ? e - 20 - 56 : SIZE_MAX;
        if (zr == SIZE_MAX || memcmp(buf + zr, "PK\6\6", 4) != 0)
            return oerr(o, "its zip64 end record is missing (File is not a zip file)");
        cd_size = rd64(buf + zr + 40);
        cd_off = rd64(buf + zr + 48);
        cd_end = zr;
    }
    if (cd_size > cd_end) return oerr(o, "its central directory is truncated");
    size_t cd = cd_end - (size_t)cd_size;
    if (cd_off > cd) return oerr(o, "its central directory is truncated");
    size_t concat = cd - (size_t)cd_off; /* bytes prepended to the archive */
    /* the entries: exactly one */
    char first[256] = "", second[256] = "";
    size_t p = cd, n = 0;
    uint64_t usize = 0, csize = 0, lho = 0;
    uint32_t method = 0, flags = 0, crc = 0;
    while (p + 46 <= cd_end && memcmp(buf + p, "PK\1\2", 4) == 0) {
        uint32_t nl = rd16(buf + p + 28), xl = rd16(buf + p + 30), cl = rd16(buf + p + 32);
        if (p + 46 + nl + xl + cl > cd_end) return oerr(o, "its central directory is truncated");
        char *nm = n == 0 ? first : second;
        snprintf(nm, 256, "%.*s", (int)(nl < 255 ? nl : 255), (const char *)buf + p + 46);
        if (n == 0) {
            flags = rd16(buf + p + 8);
            method = rd16(buf + p + 10);
            crc = rd32(buf + p + 16);
            csize = rd32(buf + p + 20);
            usize = rd32(buf + p + 24);
            lho = rd32(buf + p + 42);
            /* zip64's extra field: the sizes and offset too big for 32 bits */
            const unsigned char *x = buf + p + 46 + nl, *xe = x + xl;
            while (x + 4 <= xe) {
                uint32_t id = rd16(x), sz = rd16(x + 2);
                if (x + 4 + sz > xe) break;
                if (id == 1) {
                    const unsigned char *f = x + 4, *fe = x + 4 + sz;
                    if (usize == 0xffffffffu && f + 8 <= fe) usize = rd64(f), f += 8;
                    if (csize == 0xffffffffu && f + 8 <= fe) csize = rd64(f), f += 8;
                    if (lho == 0xffffffffu && f + 8 <= fe) lho = rd64(f), f += 8;
                }
                x += 4 + sz;
            }
        }
        n++;
        p += 46 + nl + xl + cl;
    }
    if (n == 0) return oerr(o, "Zero files found in ZIP file");
    if (n > 1)
        return oerr(o,
                    "Multiple files found in ZIP file. Only one file per ZIP: ['%.100s', "
                    "'%.100s'%s]",
                    first, second, n > 2 ? ", ..." : "");
    if (flags & 1) return oerr(o, "its member '%.200s' is encrypted", first);
    if (lho > len - concat || len - concat - lho < 30 ||
        memcmp(buf + concat + lho, "PK\3\4", 4) != 0)
        return oerr(o, "Bad magic number for file header of member '%.200s'", first);
    const unsigned char *lh = buf + concat + lho;
    uint32_t lnl = rd16(lh + 26), lxl = rd16(lh + 28);
    size_t data = concat + (size_t)lho + 30 + lnl + lxl;
    if (data > len || strlen(first) != (lnl < 255 ? lnl : 255) ||
        memcmp(lh + 30, first, strlen(first)) != 0)
        return oerr(o, "File name in directory '%.200s' and header differ", first);
    if (csize > len - data) return oerr(o, "member '%.200s' is truncated", first);
    o->crc_on = true;
    o->crc = crc32(0, Z_NULL, 0);
    uint64_t before = o->n;
    int rc;
    if (method == 0)
        rc = emit(o, buf + data, (size_t)csize);
    else if (method == 8)
        rc = deflate_raw(buf + data, (size_t)csize, o);
    else if (method == 12)
        rc = bz_decode(buf + data, (size_t)csize, o, true);
    else
        return oerr(o,
                    "member '%.200s' is compressed by method %u (%s), which is not supported "
                    "(stored, deflate or bzip2)",
                    first, method,
                    method == 14   ? "LZMA"
                    : method == 93 ? "zstd"
                                   : "unknown");
    if (rc) return rc;
    if (o->n - before != usize)
        return oerr(o, "member '%.200s' decompresses to %llu bytes, not the %llu it records", first,
                    (unsigned long long)(o->n - before), (unsigned long long)usize);
    if ((uint32_t)o->crc != crc) return oerr(o, "Bad CRC-32 for file '%.200s'", first);
    return 0;
}

/* tar: the archive itself compressed, as tarfile's "r:*" finds it */
static int tar_decode(const unsigned char *buf, size_t len, out_t *o)
{
    tar_t t;
    memset(&t, 0, sizeof t);
    o->tar = &t;
    int rc;
    if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b)
        rc = gz_decode(buf, len, o);
    else if (len >= 3 && memcmp(buf, "BZh", 3) == 0)
        rc = bz_decode(buf, len, o, false);
    else if (len >= 6 && memcmp(buf,
                                "\xfd"
                                "7zXZ\0",
                                6) == 0)
        rc = xz_decode(buf, len, o);
    else
        rc = emit(o, buf, len);
    if (rc == 0) rc = tar_end(o);
    o->tar = NULL;
    free(t.meta);
    free(t.longname);
    return rc;
}

static int decode(const unsigned char *buf, size_t len, int c, out_t *o)
{
    switch (c) {
    case DF_COMP_GZIP:
        return gz_decode(buf, len, o);
    case DF_COMP_BZ2:
        return bz_decode(buf, len, o, false);
    case DF_COMP_XZ:
        return xz_decode(buf, len, o);
    case DF_COMP_ZSTD:
        return zstd_decode(buf, len, o);
    case DF_COMP_ZIP:
        return zip_decode(buf, len, o);
    case DF_COMP_TAR:
        return tar_decode(buf, len, o);
    default:
        return oerr(o, "compression %d is no method", c);
    }
}

int df_inflate_buf(const unsigned char *buf, size_t len, int c, int fd, uint64_t cap,
                   const char *name, char *err, size_t errlen)
{
    out_t o = {.fd = fd, .cap = cap, .name = name, .dir = "", .err = err, .errlen = errlen};
    if (!(o.buf = malloc(OBUF))) return errmsg(err, errlen, "%.300s: out of memory", name);
    int rc = decode(buf, len, c, &o);
    free(o.buf);
    return rc;
}

/* ---------------------------------------------------------------------------
 * The local copy. */

static int copy_dir(char *dir, size_t cap, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");
    if (snprintf(dir, cap, "%s/mars-inflate-%d", tmp && *tmp ? tmp : "/tmp", (int)getuid()) >=
        (int)cap)
        return errmsg(err, errlen, "$TMPDIR is too long");
    if (mkdir(dir, 0700) && errno != EEXIST)
        return errmsg(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    struct stat st;
    /* another user's directory there would see (or plant) the copies */
    if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
        return errmsg(err, errlen, "%s is not a private directory of this user", dir);
    return 0;
}

int df_inflate_file(const char *path, const char *name, int c, char *out, size_t outlen, char *err,
                    size_t errlen)
{
    struct stat st;
    if (stat(path, &st)) return errmsg(err, errlen, "%.300s: %s", name, strerror(errno));
    char dir[512];
    if (copy_dir(dir, sizeof dir, err, errlen)) return -1;
    if (snprintf(out, outlen, "%s/%s-%llx-%llx-%lld-%lld.%09ld", dir, df_comp_name(c),
                 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                 (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                 (long)st.st_mtim.tv_nsec) >= (int)outlen)
        return errmsg(err, errlen, "%.300s: the path of its decompressed copy is too long", name);
    struct stat cs;
    if (stat(out, &cs) == 0 && S_ISREG(cs.st_mode)) return 0; /* made before */
    char lock[4200], tmpf[4200];
    snprintf(lock, sizeof lock, "%s.lock", out);
    int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lfd < 0) return errmsg(err, errlen, "%s: %s", lock, strerror(errno));
    int rc = -1;
    while (flock(lfd, LOCK_EX) && errno == EINTR)
        ;
    if (stat(out, &cs) == 0 && S_ISREG(cs.st_mode)) { /* made while this one waited */
        rc = 0;
        goto unlock;
    }
    csv_file_t f = {0};
    char msg[512];
    if (csv_file_open(&f, path, msg, sizeof msg)) {
        errmsg(err, errlen, "%.300s: %s", name, msg);
        goto unlock;
    }
    snprintf(tmpf, sizeof tmpf, "%s.tmp%d.%lx", out, (int)getpid(), (unsigned long)pthread_self());
    int fd = open(tmpf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        errmsg(err, errlen, "%s: %s", tmpf, strerror(errno));
        csv_file_close(&f);
        goto unlock;
    }
    const char *rv = getenv("MARS_INFLATE_DISK_RESERVE");
    char *end = NULL;
    unsigned long long r = rv && *rv ? strtoull(rv, &end, 10) : 0;
    out_t o = {.fd = fd,
               .cap = UINT64_MAX,
               .reserve = end && !*end ? (uint64_t)r : DF_INFLATE_DISK_RESERVE,
               .check_disk = true,
               .name = name,
               .dir = dir,
               .err = err,
               .errlen = errlen};
    if (!(o.buf = malloc(OBUF)))
        errmsg(err, errlen, "%.300s: out of memory", name);
    else
        rc = decode((const unsigned char *)f.buf, f.len, c, &o);
    free(o.buf);
    csv_file_close(&f);
    if (close(fd) && rc == 0)
        rc =
            errmsg(err, errlen, "%.300s: writing its decompressed copy: %s", name, strerror(errno));
    if (rc == 0 && rename(tmpf, out))
        rc = errmsg(err, errlen, "%.300s: %s: %s", name, out, strerror(errno));
    if (rc) unlink(tmpf);
    /* a waiter holding the old lock file finds the copy; a later one
     * finds it before any lock */
    if (rc == 0) unlink(lock);
unlock:
    flock(lfd, LOCK_UN);
    close(lfd);
    return rc;
}
