/* npy.c: .npy headers, readers and a streaming writer (see npy.h). */
#include "errmsg.h"
#include "npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* numpy pads so that magic + length field + header is a multiple of this. */
#define NPY_ALIGN 64
/* numpy 1.24 adds spaces after the dict so that the first dimension can grow
 * to this many digits in place (GROWTH_AXIS_MAX_DIGITS). */
#define NPY_GROWTH_DIGITS 21
/* The writer's buffer: data often arrives as rows of a chunk (a few KiB);
 * gathering 1 MiB per write() keeps the syscall count low, and pieces at
 * least this large go straight to write(). */
#define NPY_WRITER_BUF (1u << 20)

/* ---------------------------------------------------------------------------
 * Writing headers */

int npy_header(dtype_t dt, const shape_t *shape, char *buf, size_t buflen, size_t *hdrlen)
{
    if (shape->ndim < 0 || shape->ndim > MR_MAXDIM) return -1;
    for (int i = 0; i < shape->ndim; i++)
        if (shape->d[i] < 0) return -1;
    /* repr(tuple): "()", "(5,)", "(2, 3)"; at most MR_MAXDIM * 21 + 3 chars */
    char sh[MR_MAXDIM * 21 + 8];
    shape_format(shape, sh, sizeof sh);
    char dict[NPY_HEADER_MAX];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                     dt_npy_descr(dt), sh);
    if (n < 0 || (size_t)n >= sizeof dict) return -1;
    size_t dl = (size_t)n;
    if (shape->ndim > 0) {
        char first[24];
        int fl = snprintf(first, sizeof first, "%lld", (long long)shape->d[0]);
        /* every int64 has at most 19 digits, so this is never negative */
        size_t grow = NPY_GROWTH_DIGITS > fl ? (size_t)(NPY_GROWTH_DIGITS - fl) : 0;
        if (dl + grow >= sizeof dict) return -1;
        memset(dict + dl, ' ', grow);
        dl += grow;
    }
    /* The header proper ends in '\n' and is padded with spaces before it so
     * that 10 + its length is a multiple of 64; numpy pads a whole 64 bytes
     * when it already is one (padlen = 64 - (10 + hlen) % 64). */
    size_t hlen = dl + 1;
    size_t pad = NPY_ALIGN - ((10 + hlen) % NPY_ALIGN);
    size_t total = 10 + hlen + pad;
    if (total > buflen) return -1;
    unsigned hl16 = (unsigned)(hlen + pad); /* < NPY_HEADER_MAX, fits 16 bits */
    memcpy(buf, npy_magic, 6);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (char)(hl16 & 0xff);
    buf[9] = (char)(hl16 >> 8);
    memcpy(buf + 10, dict, dl);
    memset(buf + 10 + dl, ' ', pad);
    buf[total - 1] = '\n';
    *hdrlen = total;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Parsing headers: the dict is a Python literal; this accepts the subset any
 * numpy writes for these dtypes (keys in any order, either quote, optional
 * trailing commas, any whitespace) and nothing that could mean more. Every
 * read is bounded by `end`. */

typedef struct {
    const char *p, *end;
    char *err;
    size_t errlen;
} hp_t;

static void hp_ws(hp_t *h)
{
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r' ||
                             *h->p == '\f' || *h->p == '\v'))
        h->p++;
}

static bool hp_eat(hp_t *h, char c)
{
    hp_ws(h);
    if (h->p < h->end && *h->p == c) {
        h->p++;
        return true;
    }
    return false;
}

/* What the parser is looking at, for messages: a short printable excerpt. */
static const char *hp_near(const hp_t *h, char *buf, size_t len)
{
    size_t n = 0;
    if (h->p >= h->end) return "the end of the header";
    for (const char *q = h->p; q < h->end && n + 1 < len && n < 16; q++)
        buf[n++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
    buf[n] = '\0';
    return buf;
}

static int hp_fail(hp_t *h, const char *what)
{
    char near[24];
    return errmsg(h->err, h->errlen, "npy header: expected %s near '%s'", what,
                  hp_near(h, near, sizeof near));
}

/* A quoted string without escapes, copied (NUL-terminated) into out. A
 * longer string is cut at outlen - 1 and flagged: it is no key or descr we
 * know. */
static int hp_string(hp_t *h, char *out, size_t outlen, bool *cut)
{
    hp_ws(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) return hp_fail(h, "a quoted string");
    char q = *h->p++;
    size_t n = 0;
    *cut = false;
    while (h->p < h->end && *h->p != q) {
        /* escapes would need decoding, and a control byte (a NUL) would let
         * "<f8\0junk" pass as "<f8" */
        if (*h->p == '\\' || (unsigned char)*h->p < 0x20)
            return errmsg(h->err, h->errlen,
                          "npy header: escapes and control characters in strings are not "
                          "supported");
        if (n + 1 < outlen)
            out[n++] = *h->p;
        else
            *cut = true;
        h->p++;
    }
    if (h->p >= h->end) return errmsg(h->err, h->errlen, "npy header: unterminated string");
    h->p++;
    out[n] = '\0';
    return 0;
}

static bool hp_word(hp_t *h, const char *w)
{
    size_t n = strlen(w);
    hp_ws(h);
    if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0) return false;
    /* "Trueish" is a name, not True */
    if ((size_t)(h->end - h->p) > n) {
        char c = h->p[n];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
            return false;
    }
    h->p += n;
    return true;
}

static int hp_int(hp_t *h, int64_t *out)
{
    hp_ws(h);
    if (h->p < h->end && *h->p == '-')
        return errmsg(h->err, h->errlen, "npy header: negative dimension in shape");
    if (h->p >= h->end || *h->p < '0' || *h->p > '9')
        return hp_fail(h, "a dimension (a non-negative integer)");
    int64_t v = 0;
    while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
        if (mul_ovf_i64(v, 10, &v) || add_ovf_i64(v, *h->p - '0', &v))
            return errmsg(h->err, h->errlen, "npy header: dimension does not fit 64 bits");
        h->p++;
    }
    *out = v;
    return 0;
}

/* "(d0, d1, ...)" as repr(tuple) writes it: "()", "(5,)", "(2, 3)", with an
 * optional trailing comma after two or more items. "(5)" is an int, not a
 * tuple, and is refused as numpy refuses it. */
static int hp_shape(hp_t *h, shape_t *shape)
{
    if (!hp_eat(h, '(')) return hp_fail(h, "a shape tuple '('");
    shape->ndim = 0;
    if (hp_eat(h, ')')) return 0;
    for (;;) {
        if (shape->ndim == MR_MAXDIM)
            return errmsg(h->err, h->errlen, "npy header: shape has more than %d dimensions",
                          MR_MAXDIM);
        if (hp_int(h, &shape->d[shape->ndim]) < 0) return -1;
        shape->ndim++;
        if (hp_eat(h, ')')) {
            if (shape->ndim == 1)
                return errmsg(h->err, h->errlen, "npy header: shape (%lld) is not a tuple",
                              (long long)shape->d[0]);
            return 0;
        }
        if (!hp_eat(h, ',')) return hp_fail(h, "',' or ')' in shape");
        if (hp_eat(h, ')')) return 0;
    }
}

int npy_parse_header(const void *buf, size_t len, dtype_t *dt, shape_t *shape, size_t *data_offset,
                     char *err, size_t errlen)
{
    const unsigned char *b = buf;
    if (len < 10)
        return errmsg(err, errlen, "npy header: %zu bytes, too short for a .npy header", len);
    if (memcmp(b, npy_magic, 6) != 0)
        return errmsg(err, errlen, "npy header: not a .npy file (no \\x93NUMPY magic)");
    int major = b[6], minor = b[7];
    size_t prefix, hlen;
    if (major == 1 && minor == 0) {
        prefix = 10;
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
    } else if ((major == 2 || major == 3) && minor == 0) {
        /* 2.0 widened the length to 4 bytes; 3.0 made the header UTF-8, which
         * changes nothing for the ASCII this accepts. */
        if (len < 12)
            return errmsg(err, errlen, "npy header: %zu bytes, too short for a version %d.0 header",
                          len, major);
        prefix = 12;
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
    } else {
        return errmsg(err, errlen, "npy header: unsupported format version %d.%d", major, minor);
    }
    if (hlen > NPY_HEADER_LEN_MAX)
        return errmsg(err, errlen, "npy header: header length %zu exceeds the limit of %d bytes",
                      hlen, NPY_HEADER_LEN_MAX);
    if (len - prefix < hlen)
        return errmsg(err, errlen,
                      "npy header: truncated, the header announces %zu bytes and %zu follow", hlen,
                      len - prefix);

    hp_t h = {(const char *)b + prefix, (const char *)b + prefix + hlen, err, errlen};
    bool have_descr = false, have_order = false, have_shape = false;
    dtype_t t = DT_FLOAT64;
    shape_t s = {0};
    if (!hp_eat(&h, '{')) return hp_fail(&h, "'{'");
    while (!hp_eat(&h, '}')) {
        char key[32], val[32];
        bool cut;
        if (hp_string(&h, key, sizeof key, &cut) < 0) return -1;
        if (!hp_eat(&h, ':')) return hp_fail(&h, "':'");
        if (!cut && strcmp(key, "descr") == 0) {
            if (have_descr) return errmsg(err, errlen, "npy header: key 'descr' appears twice");
            have_descr = true;
            hp_ws(&h);
            if (h.p < h.end && (*h.p == '[' || *h.p == '('))
                return errmsg(err, errlen,
                              "npy header: structured dtypes are not supported (descr is a list)");
            if (hp_string(&h, val, sizeof val, &cut) < 0) return -1;
            if (cut || dt_parse_npy_descr(val, &t) < 0)
                return errmsg(err, errlen,
                              "npy header: unsupported dtype descr '%s%s' (supported: <f8 <f4 <i8 "
                              "<i4 <i2 |i1 <u8 <u4 <u2 |u1 |b1)",
                              val, cut ? "..." : "");
        } else if (!cut && strcmp(key, "fortran_order") == 0) {
            if (have_order)
                return errmsg(err, errlen, "npy header: key 'fortran_order' appears twice");
            have_order = true;
            if (hp_word(&h, "True"))
                return errmsg(err, errlen,
                              "npy header: fortran_order True is not supported (C order only)");
            if (!hp_word(&h, "False")) return hp_fail(&h, "True or False for fortran_order");
        } else if (!cut && strcmp(key, "shape") == 0) {
            if (have_shape) return errmsg(err, errlen, "npy header: key 'shape' appears twice");
            have_shape = true;
            if (hp_shape(&h, &s) < 0) return -1;
        } else {
            return errmsg(err, errlen, "npy header: unknown key '%s%s'", key, cut ? "..." : "");
        }
        if (!hp_eat(&h, ',')) {
            if (hp_eat(&h, '}')) break;
            return hp_fail(&h, "',' or '}'");
        }
    }
    hp_ws(&h);
    if (h.p != h.end) return hp_fail(&h, "nothing after the dict");
    if (!have_descr || !have_order || !have_shape)
        return errmsg(err, errlen, "npy header: missing key '%s'",
                      !have_descr   ? "descr"
                      : !have_order ? "fortran_order"
                                    : "shape");

    /* The data size must be representable: count * itemsize in int64 (and so
     * in size_t on this 64-bit target). */
    int64_t count = shape_size(&s), bytes;
    if (count < 0 || mul_ovf_i64(count, (int64_t)dt_size(t), &bytes) ||
        (uint64_t)bytes > SIZE_MAX - (prefix + hlen)) {
        char sh[MR_MAXDIM * 21 + 8];
        shape_format(&s, sh, sizeof sh);
        return errmsg(err, errlen, "npy header: shape %s of %s overflows 64-bit byte counts", sh,
                      dt_name(t));
    }
    *dt = t;
    *shape = s;
    *data_offset = prefix + hlen;
    return 0;
}

static size_t data_bytes(dtype_t dt, const shape_t *shape)
{
    /* checked by npy_parse_header */
    return (size_t)shape_size(shape) * dt_size(dt);
}

int npy_parse(const void *buf, size_t len, dtype_t *dt, shape_t *shape, const void **data,
              size_t *nbytes, char *err, size_t errlen)
{
    size_t off;
    if (npy_parse_header(buf, len, dt, shape, &off, err, errlen) < 0) return -1;
    size_t want = data_bytes(*dt, shape);
    if (len - off != want)
        return errmsg(err, errlen, "npy: the header announces %zu data bytes and %zu follow", want,
                      len - off);
    *data = (const char *)buf + off;
    *nbytes = want;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Files */

/* Reads up to n bytes; returns how many arrived before end of file, or -1. */
static ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static int write_full(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = write(fd, (const char *)buf + done, n - done);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) {
            /* a regular file only writes nothing when it cannot grow */
            errno = ENOSPC;
            return -1;
        }
        done += (size_t)r;
    }
    return 0;
}

int npy_read_file(const char *path, dtype_t *dt, shape_t *shape, void **data, size_t *nbytes,
                  char *err, size_t errlen)
{
    int rc = -1;
    char *hdr = NULL, *out = NULL;
    char msg[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errmsg(err, errlen, "%s: cannot open: %s", path, strerror(errno));

    /* The fixed prefix first (12 bytes cover every version), then exactly
     * the announced header, bounded by NPY_HEADER_LEN_MAX before allocating. */
    unsigned char pre[12];
    ssize_t got = read_full(fd, pre, sizeof pre);
    if (got < 0) {
        errmsg(err, errlen, "%s: read error: %s", path, strerror(errno));
        goto close_fd;
    }
    size_t prefix = (got >= 8 && pre[6] == 1) ? 10 : 12;
    if ((size_t)got < prefix) {
        /* let the parser name what is wrong with so short a file */
        if (npy_parse_header(pre, (size_t)got, dt, shape, &prefix, msg, sizeof msg) < 0)
            errmsg(err, errlen, "%s: %s", path, msg);
        else
            errmsg(err, errlen, "%s: file ends inside the header", path);
        goto close_fd;
    }
    size_t hlen = prefix == 10 ? ((size_t)pre[8] | (size_t)pre[9] << 8)
                               : ((size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
                                  (size_t)pre[11] << 24);
    if (hlen > NPY_HEADER_LEN_MAX) {
        /* the parser names the limit; nothing more is read */
        npy_parse_header(pre, (size_t)got, dt, shape, &prefix, msg, sizeof msg);
        errmsg(err, errlen, "%s: %s", path, msg);
        goto close_fd;
    }
    /* + sizeof pre: the 12 bytes already read may pass a short v1 header */
    hdr = malloc(prefix + hlen + sizeof pre);
    if (!hdr) {
        errmsg(err, errlen, "%s: out of memory for a %zu-byte header", path, hlen);
        goto close_fd;
    }
    memcpy(hdr, pre, (size_t)got);
    size_t have = (size_t)got;
    if (have < prefix + hlen) {
        got = read_full(fd, hdr + have, prefix + hlen - have);
        if (got < 0) {
            errmsg(err, errlen, "%s: read error: %s", path, strerror(errno));
            goto free_hdr;
        }
        have += (size_t)got;
    }
    size_t off;
    if (npy_parse_header(hdr, have, dt, shape, &off, msg, sizeof msg) < 0) {
        errmsg(err, errlen, "%s: %s", path, msg);
        goto free_hdr;
    }
    size_t want = data_bytes(*dt, shape);

    /* A regular file's size is known: refuse a truncated or padded file
     * before allocating what a (possibly hostile) header announces. */
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size != off + want) {
        errmsg(err, errlen, "%s: the header announces %zu data bytes but the file holds %lld", path,
               want, (long long)st.st_size - (long long)off);
        goto free_hdr;
    }
    out = malloc(want ? want : 1);
    if (!out) {
        errmsg(err, errlen, "%s: out of memory for %zu data bytes", path, want);
        goto free_hdr;
    }
    /* Reading the prefix may have taken up to 2 data bytes with it. */
    size_t pre_data = have - off;
    if (pre_data > want) {
        errmsg(err, errlen, "%s: more data after the %zu data bytes the header announces", path,
               want);
        goto free_hdr;
    }
    memcpy(out, hdr + off, pre_data);
    got = read_full(fd, out + pre_data, want - pre_data);
    if (got < 0) {
        errmsg(err, errlen, "%s: read error: %s", path, strerror(errno));
        goto free_out;
    }
    if ((size_t)got != want - pre_data) {
        errmsg(err, errlen, "%s: the header announces %zu data bytes but the file holds %zu", path,
               want, pre_data + (size_t)got);
        goto free_out;
    }
    char extra;
    got = read_full(fd, &extra, 1);
    if (got != 0) {
        errmsg(err, errlen, "%s: %s after the %zu data bytes the header announces", path,
               got < 0 ? "read error" : "more data", want);
        goto free_out;
    }
    *data = out;
    *nbytes = want;
    out = NULL;
    rc = 0;
free_out:
    free(out);
free_hdr:
    free(hdr);
close_fd:
    close(fd);
    return rc;
}

/* ---------------------------------------------------------------------------
 * Streaming writer */

/* The shape a writer is opened with: valid dims and a byte count that fits
 * 64 bits. Checked before a path is created or truncated. */
static int writer_check(dtype_t dt, const shape_t *shape, char hdr[NPY_HEADER_MAX], size_t *hl,
                        int64_t *bytes, char *err, size_t errlen)
{
    int64_t count = shape_size(shape);
    *bytes = 0;
    *hl = 0;
    if (npy_header(dt, shape, hdr, NPY_HEADER_MAX, hl) < 0 || count < 0 ||
        mul_ovf_i64(count, (int64_t)dt_size(dt), bytes)) {
        char sh[MR_MAXDIM * 21 + 8];
        shape_format(shape, sh, sizeof sh);
        return errmsg(err, errlen, "npy: invalid shape %s for %s", sh, dt_name(dt));
    }
    return 0;
}

/* Takes the header writer_check made; only allocation can fail here. */
static int writer_start(npy_writer_t *w, int fd, bool own, const char *path, const char *hdr,
                        size_t hl, int64_t bytes, char *err, size_t errlen)
{
    *w = (npy_writer_t){.fd = fd, .own_fd = own, .expected = (uint64_t)bytes};
    w->buf = malloc(NPY_WRITER_BUF);
    if (!w->buf) return errmsg(err, errlen, "npy: out of memory for the write buffer");
    if (own) {
        struct stat st;
        w->remove_on_fail = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
        w->path = strdup(path);
        if (!w->path) {
            free(w->buf);
            w->buf = NULL;
            return errmsg(err, errlen, "npy: out of memory");
        }
    }
    memcpy(w->buf, hdr, hl);
    w->buf_used = hl;
    return 0;
}

int npy_writer_open(npy_writer_t *w, const char *path, dtype_t dt, const shape_t *shape, char *err,
                    size_t errlen)
{
    size_t hl;
    int64_t bytes;
    char hdr[NPY_HEADER_MAX];
    if (writer_check(dt, shape, hdr, &hl, &bytes, err, errlen) < 0) return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errmsg(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    if (writer_start(w, fd, true, path, hdr, hl, bytes, err, errlen) < 0) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
        close(fd);
        return -1;
    }
    return 0;
}

int npy_writer_open_fd(npy_writer_t *w, int fd, dtype_t dt, const shape_t *shape, char *err,
                       size_t errlen)
{
    size_t hl;
    int64_t bytes;
    char hdr[NPY_HEADER_MAX];
    if (writer_check(dt, shape, hdr, &hl, &bytes, err, errlen) < 0) return -1;
    return writer_start(w, fd, false, NULL, hdr, hl, bytes, err, errlen);
}

static const char *writer_name(const npy_writer_t *w)
{
    return w->path ? w->path : "npy";
}

static void writer_flush(npy_writer_t *w)
{
    if (w->buf_used && !w->error && write_full(w->fd, w->buf, w->buf_used) < 0) w->error = errno;
    w->buf_used = 0;
}

int npy_writer_write(npy_writer_t *w, const void *data, size_t n, char *err, size_t errlen)
{
    if (w->error)
        return errmsg(err, errlen, "%s: write error: %s", writer_name(w), strerror(w->error));
    if (w->overrun || n > w->expected - w->received) {
        w->overrun = true;
        return errmsg(err, errlen,
                      "%s: %zu more bytes would pass the %llu data bytes announced (%llu written)",
                      writer_name(w), n, (unsigned long long)w->expected,
                      (unsigned long long)w->received);
    }
    w->received += n;
    if (n > NPY_WRITER_BUF - w->buf_used) {
        writer_flush(w);
        if (n >= NPY_WRITER_BUF) {
            if (!w->error && write_full(w->fd, data, n) < 0) w->error = errno;
            n = 0;
        }
    }
    if (n) {
        memcpy(w->buf + w->buf_used, data, n);
        w->buf_used += n;
    }
    if (w->error)
        return errmsg(err, errlen, "%s: write error: %s", writer_name(w), strerror(w->error));
    return 0;
}

int npy_writer_close(npy_writer_t *w, char *err, size_t errlen)
{
    if (!w->buf) return errmsg(err, errlen, "npy: writer is not open");
    int rc = 0;
    writer_flush(w);
    if (w->error)
        rc = errmsg(err, errlen, "%s: write error: %s", writer_name(w), strerror(w->error));
    else if (w->overrun)
        rc = errmsg(err, errlen, "%s: more data was given than the %llu bytes announced",
                    writer_name(w), (unsigned long long)w->expected);
    else if (w->received != w->expected)
        rc = errmsg(err, errlen, "%s: %llu of the %llu data bytes announced were written",
                    writer_name(w), (unsigned long long)w->received,
                    (unsigned long long)w->expected);
    if (w->own_fd) {
        /* close reports errors some file systems defer (NFS, quotas) */
        if (close(w->fd) < 0 && rc == 0)
            rc = errmsg(err, errlen, "%s: close: %s", w->path, strerror(errno));
        if (rc < 0 && w->remove_on_fail) unlink(w->path);
    }
    free(w->buf);
    free(w->path);
    *w = (npy_writer_t){.fd = -1};
    return rc;
}

int npy_write_file(const char *path, dtype_t dt, const shape_t *shape, const void *data, char *err,
                   size_t errlen)
{
    npy_writer_t w;
    if (npy_writer_open(&w, path, dt, shape, err, errlen) < 0) return -1;
    /* npy_writer_open checked the byte count */
    size_t n = (size_t)shape_size(shape) * dt_size(dt);
    if (npy_writer_write(&w, data, n, err, errlen) < 0) {
        npy_writer_close(&w, NULL, 0);
        return -1;
    }
    return npy_writer_close(&w, err, errlen);
}
