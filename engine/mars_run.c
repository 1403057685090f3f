/* mars-run: runs one graph document in this process (shared/spec/cluster.md).
 *
 *   mars-run GRAPH.json|- -o DIR [--threads N] [--data-dir DIR] [limits]
 *
 * Exit 0 on success; 2 with one line on stderr for a rejected document or
 * command line; 1 for a failure while running. Each fetched tensor goes to
 * DIR/KEY.npy, a DataFrame or Series to DIR/KEY.json (df/dfexec.h), written
 * to a temporary name and renamed into place, so an existing file is only
 * replaced by a complete one. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "assemble.h"
#include "cuda/gpu.h"
#include "df/dfexec.h"
#include "df/dfgraph.h"
#include "exec.h"
#include "graph.h"
#include "kern/cpu.h"
#include "kern/kern.h"
#include "npy.h"
#include "stage.h"
#include "tile.h"

static const char usage[] =
    "usage: mars-run GRAPH.json|- -o DIR [options]\n"
    "Runs a graph document (docs/graph-format.md) on a thread pool in this process\n"
    "and writes each fetched tensor to DIR/KEY.npy (a DataFrame or Series to\n"
    "DIR/KEY.json).\n"
    "\n"
    "  -o, --output DIR       where the .npy files go (created if missing)\n"
    "  --threads N            worker threads (default: all cores)\n"
    "  --data-dir DIR         where dataframe.read_csv paths resolve (default: .)\n"
    "  --chunk-bytes SIZE     chunk size chosen when a document gives none, also\n"
    "                         read_csv's byte ranges (default 16m)\n"
    "  --sort-block-bytes SIZE  most bytes one sort job reads; a longer 1-D sort\n"
    "                         runs as a merge network of blocks (default 256m)\n"
    "  --max-elements N       largest element count of one tensor\n"
    "  --max-bytes SIZE       largest byte size of one tensor\n"
    "  --max-chunks N         most chunks of one tensor\n"
    "  --max-total-chunks N   most chunk jobs of one graph\n"
    "  --max-document SIZE    largest document in bytes\n"
    "  --stats                print job count, threads and peak chunk memory on stderr\n"
    "  --csv                  also write each fetched DataFrame or Series to DIR/KEY.csv,\n"
    "                         as pandas' to_csv() writes it\n"
    "  --list-ops             print every op with its inputs and parameters (JSON) and exit\n"
    "  --version              print the build's CPU levels and the one chosen, and exit\n"
    "  --cuda-devices LIST    CUDA device indices such as 0,1 (\"\" for none, the default):\n"
    "                         refused (exit 2) when this build has no CUDA or a device\n"
    "                         does not exist. Jobs a GPU can run go to one thread per\n"
    "                         device (the document's \"device\": auto, gpu, cpu; docs/gpu.md)\n"
    "  --cuda-mem SIZE        chunks kept on each device at most (default 90% of its\n"
    "                         free memory); past it the oldest go back to host memory\n"
    "  --repeat N             run the graph N times in this process (benchmarks: --stats\n"
    "                         gives each run's time; the last run's results are written)\n"
    "  -h, --help             this text\n"
    "SIZE: bytes with an optional k, m, g or t suffix.\n"
    "Environment: MARS_CPU_LEVEL=portable|avx2|avx512|auto forces the kernels' CPU level\n"
    "(docs/deploy.md); a level this build or CPU lacks exits 2.\n"
    "Exit status: 0 success, 2 rejected document or command line, 1 failure while running.\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int die2(const char *fmt, const char *a)
{
    fprintf(stderr, "mars-run: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return 2;
}

/* Parses a non-negative SIZE (k/m/g/t suffixes, powers of 1024). */
static int parse_size(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0) return -1;
    int shift = 0;
    if (*end) {
        switch (*end) {
        case 'k':
        case 'K':
            shift = 10;
            break;
        case 'm':
        case 'M':
            shift = 20;
            break;
        case 'g':
        case 'G':
            shift = 30;
            break;
        case 't':
        case 'T':
            shift = 40;
            break;
        default:
            return -1;
        }
        if (end[1] && !((end[1] == 'b' || end[1] == 'B') && !end[2])) return -1;
    }
    if (v > (INT64_MAX >> shift)) return -1;
    *out = (int64_t)v << shift;
    return 0;
}

/* Reads the whole document, refusing one over max bytes before reading it all. */
static char *read_doc(const char *path, int64_t max, size_t *len, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if ((int64_t)cap > max) {
                snprintf(err, errlen, "document: larger than the limit of %lld bytes",
                         (long long)max);
                goto fail;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
                goto fail;
            }
            break;
        }
    }
    if (!buf) {
        snprintf(err, errlen, "out of memory reading %s", path);
        goto fail;
    }
    if ((int64_t)n > max) {
        snprintf(err, errlen, "document: larger than the limit of %lld bytes", (long long)max);
        goto fail;
    }
    if (f != stdin) fclose(f);
    *len = n;
    return buf;
fail:
    free(buf);
    if (f != stdin) fclose(f);
    return NULL;
}

static int mkdir_p(const char *dir)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp) return -1;
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0777) && errno != EEXIST) return -1;
            *p = '/';
        }
    }
    if (mkdir(tmp, 0777) && errno != EEXIST) return -1;
    struct stat st;
    return stat(tmp, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

typedef struct {
    const exec_result_t *r;
    const tgrid_t *G;
} chunks_t;

static const void *result_chunk(void *ctx, int64_t li)
{
    const chunks_t *c = ctx;
    return exec_result_chunk(c->r, c->G->job[li]);
}

static int writer_sink(void *ctx, const void *data, size_t n)
{
    return npy_writer_write(ctx, data, n, NULL, 0);
}

/* Writes tensor `node` to path, slab by slab (assemble.h). */
static int write_tensor(const tile_t *t, const exec_result_t *r, int node, const char *path,
                        char *err, size_t errlen)
{
    const tgrid_t *G = t->grid[node];
    npy_writer_t w;
    if (npy_writer_open(&w, path, G->dt, &G->shape, err, errlen)) return -1;
    chunks_t ctx = {r, G};
    err[0] = 0;
    if (asm_stream_raw(G, result_chunk, &ctx, writer_sink, &w, err, errlen)) {
        /* the writer keeps the first write error; close reports it */
        char werr[512];
        if (npy_writer_close(&w, werr, sizeof werr) && strstr(err, "stopped"))
            snprintf(err, errlen, "%s", werr);
        return -1;
    }
    return npy_writer_close(&w, err, errlen);
}

/* The staged results the document fetched (stage.h), as .npy files; frees
 * st when there is nothing else to run (g NULL: the caller returns). 0 or 1. */
static int write_staged(const stage_t *st, const char *outdir)
{
    if (stage_n_fetched(st) > 0 && mkdir_p(outdir)) {
        fprintf(stderr, "mars-run: cannot create output directory %s: %s\n", outdir,
                strerror(errno));
        return 1;
    }
    for (int i = 0; i < stage_n_fetched(st); i++) {
        dtype_t dt;
        shape_t sh;
        const void *data;
        size_t n;
        const char *key = stage_fetched(st, i, &dt, &sh, &data, &n);
        char fin[PATH_MAX], tmp[PATH_MAX], err[512];
        if (snprintf(fin, sizeof fin, "%s/%s.npy", outdir, key) >= (int)sizeof fin ||
            snprintf(tmp, sizeof tmp, "%s/.%s.npy.tmp%d", outdir, key, (int)getpid()) >=
                (int)sizeof tmp) {
            fprintf(stderr, "mars-run: output path too long for node \"%s\"\n", key);
            return 1;
        }
        npy_writer_t w;
        err[0] = '\0';
        int bad = npy_writer_open(&w, tmp, dt, &sh, err, sizeof err);
        if (!bad) {
            bad = npy_writer_write(&w, data, n, err, sizeof err);
            char cerr[256];
            if (npy_writer_close(&w, cerr, sizeof cerr) && !bad) {
                bad = 1;
                snprintf(err, sizeof err, "%s", cerr);
            }
        }
        if (bad || rename(tmp, fin)) {
            fprintf(stderr, "mars-run: writing %s: %s\n", fin, err[0] ? err : strerror(errno));
            unlink(tmp);
            return 1;
        }
    }
    return 0;
}

static int file_sink(void *ctx, const void *data, size_t n)
{
    return fwrite(data, 1, n, ctx) == n ? 0 : -1;
}

/* Writes DataFrame, Series or to_tensor node `node` to path: JSON (see
 * dfexec.h), or .npy for a to_tensor result; and as CSV to csv_path when
 * given (written to csv_tmp, then renamed). */
static int write_frame(const tile_t *t, const exec_result_t *r, int node, const char *path,
                       const char *csv_tmp, const char *csv_path, char *err, size_t errlen)
{
    const tgrid_t *G = t->grid[node];
    const graph_node_t *n = &t->g->nodes[node];
    const void **blobs = calloc((size_t)G->total + 1, sizeof(void *));
    size_t *lens = calloc((size_t)G->total + 1, sizeof(size_t));
    frame_t f = {0};
    int rc = -1;
    FILE *fp = NULL;
    if (!blobs || !lens) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (int64_t k = 0; k < G->total; k++) {
        blobs[k] = exec_result_chunk(r, G->job[k]);
        lens[k] = exec_result_chunk_len(r, G->job[k]);
    }
    if (dfx_assemble(blobs, lens, G->total, &f, err, errlen)) goto done;
    if (!(fp = fopen(path, "wb"))) {
        snprintf(err, errlen, "cannot create it: %s", strerror(errno));
        goto done;
    }
    bool held = n->df && n->df->held;
    int wrc = held ? dfx_write_tensor_npy(&f, n->oshape.ndim, file_sink, fp)
                   : dfx_write_json(&f, file_sink, fp);
    if (fclose(fp) || wrc) {
        snprintf(err, errlen, "cannot write it: %s", strerror(errno));
        goto done;
    }
    if (csv_path && !held) {
        if (!(fp = fopen(csv_tmp, "wb"))) {
            snprintf(err, errlen, "cannot create the CSV: %s", strerror(errno));
            goto done;
        }
        wrc = dfx_write_csv(&f, file_sink, fp);
        if (fclose(fp) || wrc || rename(csv_tmp, csv_path)) {
            snprintf(err, errlen, "cannot write the CSV: %s", strerror(errno));
            unlink(csv_tmp);
            goto done;
        }
    }
    rc = 0;
done:
    frame_free(&f);
    free(blobs);
    free(lens);
    return rc;
}

int main(int argc, char **argv)
{
    enum {
        O_THREADS = 256,
        O_DATA,
        O_CHUNK,
        O_SORTB,
        O_MAXEL,
        O_MAXB,
        O_MAXCH,
        O_MAXTOT,
        O_MAXDOC,
        O_STATS,
        O_LISTOPS,
        O_VERSION,
        O_CUDA,
        O_CUDA_MEM,
        O_REPEAT,
        O_CSV
    };
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'},
        {"threads", required_argument, 0, O_THREADS},
        {"data-dir", required_argument, 0, O_DATA},
        {"chunk-bytes", required_argument, 0, O_CHUNK},
        {"sort-block-bytes", required_argument, 0, O_SORTB},
        {"max-elements", required_argument, 0, O_MAXEL},
        {"max-bytes", required_argument, 0, O_MAXB},
        {"max-chunks", required_argument, 0, O_MAXCH},
        {"max-total-chunks", required_argument, 0, O_MAXTOT},
        {"max-document", required_argument, 0, O_MAXDOC},
        {"stats", no_argument, 0, O_STATS},
        {"csv", no_argument, 0, O_CSV},
        {"list-ops", no_argument, 0, O_LISTOPS},
        {"version", no_argument, 0, O_VERSION},
        {"cuda-devices", required_argument, 0, O_CUDA},
        {"cuda-mem", required_argument, 0, O_CUDA_MEM},
        {"repeat", required_argument, 0, O_REPEAT},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    exec_keep_freed_memory();
    graph_limits_t lim;
    graph_limits_default(&lim);
    tile_opts_t topts;
    tile_opts_default(&topts);
    const char *outdir = NULL;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = ncpu > 0 ? (int)ncpu : 1;
    bool stats = false, csv = false;
    int n_cuda = 0, cuda_dev[GPU_MAX_DEVICES];
    int64_t cuda_mem = 0, repeat = 1;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        int64_t v;
        switch (c) {
        case 'o':
            outdir = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            return 0;
        case O_THREADS:
            if (parse_size(optarg, &v) || v < 1 || v > 1024)
                return die2("--threads wants an integer from 1 to 1024, not '%s'", optarg);
            threads = (int)v;
            break;
        case O_DATA: {
            struct stat st;
            if (stat(optarg, &st) || !S_ISDIR(st.st_mode))
                return die2("--data-dir '%s' is not a directory", optarg);
            lim.data_dir = optarg;
            break;
        }
        case O_SORTB:
            if (parse_size(optarg, &v) || v < 16)
                return die2("--sort-block-bytes wants a SIZE of 16 bytes or more, not '%s'",
                            optarg);
            topts.sort_block_bytes = v;
            break;
        case O_CHUNK:
            if (parse_size(optarg, &v) || v < 1)
                return die2("--chunk-bytes wants a positive SIZE, not '%s'", optarg);
            topts.target_chunk_bytes = v;
            lim.csv_chunk_bytes = v; /* read_csv's byte ranges too */
            break;
        case O_MAXEL:
        case O_MAXB:
        case O_MAXCH:
        case O_MAXTOT:
        case O_MAXDOC:
            if (parse_size(optarg, &v) || v < 1)
                return die2("limits want a positive number, not '%s'", optarg);
            if (c == O_MAXEL)
                lim.max_elements = v;
            else if (c == O_MAXB)
                lim.max_bytes = v;
            else if (c == O_MAXCH)
                lim.max_chunks = v;
            else if (c == O_MAXTOT)
                lim.max_total_chunks = v;
            else
                lim.max_document_bytes = v;
            break;
        case O_STATS:
            stats = true;
            break;
        case O_CSV:
            csv = true;
            break;
        case O_LISTOPS: {
            char *ops = graph_ops_json();
            if (!ops) return die2("%s", "out of memory");
            puts(ops);
            free(ops);
            return 0;
        }
        case O_VERSION: {
            char lv[200];
            if (kern_cpu_init(lv, sizeof lv)) return die2("%s", lv);
            kern_cpu_describe(lv, sizeof lv);
            printf("mars-run (mars-c): %s\ncuda: %s\n", lv, gpu_build_info());
            return 0;
        }
        case O_CUDA: {
            int dev[GPU_MAX_DEVICES], ndev;
            char e[512];
            if (gpu_parse_devices(optarg, dev, &ndev, e, sizeof e) ||
                gpu_check_devices(dev, ndev, e, sizeof e)) {
                fprintf(stderr, "mars-run: --cuda-devices '%s': %s\n", optarg, e);
                return 2;
            }
            n_cuda = ndev;
            memcpy(cuda_dev, dev, sizeof(int) * (size_t)ndev);
            break;
        }
        case O_REPEAT:
            if (parse_size(optarg, &v) || v < 1 || v > 1000)
                return die2("--repeat: '%s' is not a count from 1 to 1000", optarg);
            repeat = v;
            break;
        case O_CUDA_MEM:
            if (parse_size(optarg, &v) || v <= 0)
                return die2("--cuda-mem: '%s' is not a size such as 8g", optarg);
            cuda_mem = v;
            break;
        default:
            if (optopt)
                return die2("unknown or incomplete option -%c (see --help)",
                            (char[]){(char)optopt, 0});
            return die2("unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return die2("%s", "expects one GRAPH.json (or -) and -o DIR (see --help)");
    if (!outdir) return die2("%s", "-o DIR is required (see --help)");
    const char *path = argv[optind];

    char err[1024];
    if (kern_cpu_init(err, sizeof err)) return die2("%s", err);
    for (int i = 0; i < n_cuda; i++)
        if (gpu_open(cuda_dev[i], cuda_mem, err, sizeof err)) {
            fprintf(stderr, "mars-run: --cuda-devices: %s\n", err);
            return 2;
        }
    size_t len;
    char *doc = read_doc(path, lim.max_document_bytes, &len, err, sizeof err);
    if (!doc) return die2("%s", err);
    double t0 = now_s();
    /* BLAS on one thread before anything runs, parsing included (a worker
     * does the same): multivariate_normal's factor, made when a document is
     * read, must have the bits a worker's has */
    kern_init();
    graph_t *g = NULL;
    stage_t *st = NULL;
    /* held results an op of the document takes run first (stage.h) */
    int src = stage_run(&doc, &len, &lim, &topts, threads, stderr, &g, &st, err, sizeof err);
    free(doc);
    if (src == 2) return die2("%s", err);
    if (src) {
        fprintf(stderr, "mars-run: %s\n", err);
        return 1;
    }
    if (!g) {
        int wrc = write_staged(st, outdir);
        stage_free(st);
        return wrc;
    }
    double t1 = now_s();
    tile_t *t = NULL;
    if (tile_build(g, &lim, &topts, &t, err, sizeof err)) {
        graph_free(g);
        stage_free(st);
        return die2("%s", err);
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        if (op_kind(n->op) == OPK_RANDOM && !n->has_seed)
            fprintf(stderr, "mars-run: node \"%s\" (%s): drew seed %llu\n", n->key, op_name(n->op),
                    (unsigned long long)n->seed);
    }
    double t2 = now_s();
    int rc = 0;
    exec_result_t *res = NULL;
    exec_opts_t eo = {.threads = threads, .n_gpus = n_cuda, .gpus = cuda_dev};
    eo.place = g->device;
    if (st) {
        eo.source = stage_source;
        eo.source_ctx = st;
    }
    double t_last = 0;
    for (int64_t rep = 0; rep < repeat; rep++) {
        /* --repeat: the same graph again in this warm process (benchmarks) */
        exec_result_free(res);
        res = NULL;
        double tr = now_s();
        if (exec_run(t, &eo, &res, err, sizeof err)) {
            fprintf(stderr, "mars-run: %s\n", err);
            rc = 1;
            goto done;
        }
        t_last = now_s() - tr;
        if (stats && repeat > 1)
            fprintf(stderr, "mars-run: run %lld of %lld: %.4f s\n", (long long)rep + 1,
                    (long long)repeat, t_last);
    }
    double t3 = now_s();
    if (stats) {
        int64_t live = 0;
        for (int32_t j = 0; j < t->n_jobs; j++)
            live += t->live[j];
        fprintf(stderr,
                "mars-run: %d jobs (%lld run), %d threads, peak chunk memory %zu bytes; "
                "parse %.3f s, tile %.3f s, run %.3f s; kernels at cpu level %s\n",
                t->n_jobs, (long long)live, threads, exec_result_peak_bytes(res), t1 - t0, t2 - t1,
                repeat > 1 ? t_last : t3 - t2, kern_cpu_name(kern_cpu_level()));
        if (n_cuda > 0)
            fprintf(stderr, "mars-run: %lld jobs on devices (device \"%s\")\n",
                    (long long)exec_result_gpu_jobs(res), graph_device_name(eo.place));
        for (int i = 0; i < n_cuda; i++) {
            int64_t used, limit, peak;
            gpu_store_stats(cuda_dev[i], &used, &limit, &peak);
            fprintf(stderr, "mars-run: device %d: peak chunk memory %lld of %lld bytes\n",
                    cuda_dev[i], (long long)peak, (long long)limit);
        }
    }
    if (mkdir_p(outdir)) {
        fprintf(stderr, "mars-run: cannot create output directory %s: %s\n", outdir,
                strerror(errno));
        rc = 1;
        goto done;
    }
    for (int k = 0; k < g->n_fetch; k++) {
        const graph_node_t *n = &g->nodes[g->fetch[k]];
        char tmp[PATH_MAX], fin[PATH_MAX], ctmp[PATH_MAX], cfin[PATH_MAX];
        bool frame = n->vkind != VK_TENSOR;
        bool held = n->df && n->df->held;
        const char *ext = frame ? "json" : "npy";
        if (snprintf(fin, sizeof fin, "%s/%s.%s", outdir, n->key, ext) >= (int)sizeof fin ||
            snprintf(tmp, sizeof tmp, "%s/.%s.%s.tmp%d", outdir, n->key, ext, (int)getpid()) >=
                (int)sizeof tmp ||
            snprintf(cfin, sizeof cfin, "%s/%s.csv", outdir, n->key) >= (int)sizeof cfin ||
            snprintf(ctmp, sizeof ctmp, "%s/.%s.csv.tmp%d", outdir, n->key, (int)getpid()) >=
                (int)sizeof ctmp) {
            fprintf(stderr, "mars-run: output path too long for node \"%s\"\n", n->key);
            rc = 1;
            goto done;
        }
        if ((frame || held ? write_frame(t, res, g->fetch[k], tmp, ctmp, csv && frame ? cfin : NULL,
                                         err, sizeof err)
                           : write_tensor(t, res, g->fetch[k], tmp, err, sizeof err))) {
            fprintf(stderr, "mars-run: writing %s: %s\n", fin, err);
            unlink(tmp);
            rc = 1;
            goto done;
        }
        if (rename(tmp, fin)) {
            fprintf(stderr, "mars-run: cannot rename %s to %s: %s\n", tmp, fin, strerror(errno));
            unlink(tmp);
            rc = 1;
            goto done;
        }
    }
    if (st && write_staged(st, outdir)) rc = 1;
done:
    if (stats && n_cuda > 0) {
        int64_t ib, ob;
        double is, os;
        gpu_copy_stats(&ib, &is, &ob, &os);
        fprintf(stderr,
                "mars-run: all copies: %lld bytes to devices in %.3f s (%lld of them prefetched "
                "while a job ran), %lld back in %.3f s (results are copied back as they are "
                "written, after the run)\n",
                (long long)ib, is, (long long)gpu_prefetched_bytes(-1), (long long)ob, os);
    }
    exec_result_free(res);
    tile_free(t);
    graph_free(g);
    stage_free(st);
    return rc;
}
