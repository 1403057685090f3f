/* ui.c: the dashboard's static files (ui/dist, built by `make`): GET /
 * answers index.html, GET /assets/NAME the hashed modules and styles.
 *
 * Only one flat folder is served, so a NAME is one path segment of
 * [A-Za-z0-9._-] not starting with '.': "..", "%2e%2e", '/', NUL and
 * anything percent-encoded never get as far as the file system. The path is
 * then resolved with realpath and must still lie inside the folder (a
 * symbolic link out of it is refused too). Files are read on the pool (a
 * read may block) and answered whole: they are small (UI_FILE_MAX).
 *
 * Every answer carries a strict Content-Security-Policy: the app has no
 * inline script or style, so script, style and fetch are limited to this
 * origin and nothing may frame the page. index.html must be revalidated
 * (it names the current assets); the assets carry a hash of the sources in
 * their names (ui/build.mjs) and may be cached for ever. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gateway_internal.h"
#include "svc.h"
#include "log.h"

#define LOG_MODULE "gateway"

/* The largest file served: the app's modules are tens of KiB; a file past
 * this is no part of it. */
#define UI_FILE_MAX (8 << 20)
/* The longest asset name: "module.0123456789.js" and the like. */
#define UI_NAME_MAX 128

#define UI_CSP                                                                                     \
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"               \
    " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"                 \
    " frame-ancestors 'none'"

static const char *const HDR_INDEX[] = {"content-security-policy",
                                        UI_CSP,
                                        "x-content-type-options",
                                        "nosniff",
                                        "referrer-policy",
                                        "no-referrer",
                                        "cache-control",
                                        "no-cache",
                                        NULL};
static const char *const HDR_ASSET[] = {"content-security-policy",
                                        UI_CSP,
                                        "x-content-type-options",
                                        "nosniff",
                                        "referrer-policy",
                                        "no-referrer",
                                        "cache-control",
                                        "public, max-age=31536000, immutable",
                                        NULL};

typedef struct ui_arg {
    char root[PATH_MAX];
    char rel[UI_NAME_MAX + 16]; /* "index.html" or "assets/NAME" */
    bool asset;
} ui_arg_t;

int gw_ui_find(const char *opt, char *out, size_t cap)
{
    if (opt && opt[0]) {
        snprintf(out, cap, "%s", opt);
        return 0;
    }
    return svc_find_in_tree("ui/dist", out, cap);
}

/* One segment of [A-Za-z0-9._-], not starting with '.'. */
static bool ui_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > UI_NAME_MAX || s[0] == '.') return false;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

static const char *ui_type(const char *name)
{
    static const char *const T[][2] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".json", "application/json"},
        {".map", "application/json"},
        {".ico", "image/x-icon"},
        {".woff2", "font/woff2"},
        {".txt", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof T / sizeof T[0]; i++)
        if (strcmp(dot, T[i][0]) == 0) return T[i][1];
    return NULL;
}

static void job_ui_file(void *state, void *arg, http_reply_t *out)
{
    ui_arg_t *a = arg;
    char root[PATH_MAX], want[PATH_MAX + sizeof a->rel + 1], path[PATH_MAX];
    if (!realpath(a->root, root)) {
        http_reply_error(out, 503, "unavailable",
                         "the dashboard is not built (%s: %s): run `make`, or give --ui-dir",
                         a->root, strerror(errno));
        return;
    }
    snprintf(want, sizeof want, "%s/%s", root, a->rel);
    size_t rl = strlen(root);
    /* Inside the folder once every link is resolved, or not at all. */
    if (!realpath(want, path) || strncmp(path, root, rl) != 0 || path[rl] != '/') {
        if (a->asset)
            http_reply_error(out, 404, "not_found", "no dashboard file '%s'", a->rel);
        else
            http_reply_error(out, 503, "unavailable",
                             "the dashboard is not built (no %s/index.html): run `make`", root);
        return;
    }
    const char *type = ui_type(path);
    int fd = type ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > UI_FILE_MAX) {
        if (fd >= 0) close(fd);
        http_reply_error(out, 404, "not_found", "no dashboard file '%s'", a->rel);
        return;
    }
    char *body = malloc((size_t)st.st_size + 1);
    if (!body) abort();
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, body + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (got != (size_t)st.st_size) {
        free(body);
        http_reply_error(out, 500, "internal", "reading %s: short read", a->rel);
        return;
    }
    memset(out, 0, sizeof *out);
    out->status = 200;
    out->content_type = type;
    out->body = body;
    out->len = got;
    out->headers = a->asset ? HDR_ASSET : HDR_INDEX;
}

static void ui_send(http_req_t *r, const char *rel, bool asset)
{
    ui_arg_t a = {.asset = asset};
    snprintf(a.root, sizeof a.root, "%s", gw_ui_root(r));
    snprintf(a.rel, sizeof a.rel, "%s", rel);
    http_defer(r, job_ui_file, &a, sizeof a);
}

void gw_h_ui_index(http_req_t *r)
{
    ui_send(r, "index.html", false);
}

void gw_h_ui_asset(http_req_t *r)
{
    const char *name = http_param(r, 0);
    if (!ui_name_ok(name)) {
        gw_send_error(r, 404, "not_found", "no such dashboard file");
        return;
    }
    char rel[UI_NAME_MAX + 16];
    snprintf(rel, sizeof rel, "assets/%s", name);
    ui_send(r, rel, true);
}
