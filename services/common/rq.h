/* rq.h: Redis client over hiredis (synchronous API).
 *
 * One rq_t is one connection, used by one thread at a time. hiredis leaves
 * a context unusable after any I/O error or timeout (STACK-NOTES), so the
 * context is then freed and recreated on the next call, with exponential
 * backoff between failed attempts (100 ms doubling to 5 s).
 *
 * Socket timeout and blocking commands: a blocking command (BLMOVE,
 * BRPOP, ...) whose own timeout is not shorter than the socket timeout
 * fails with EAGAIN and kills the context. rq_command_blocking therefore
 * refuses block timeouts within RQ_BLOCK_MARGIN_MS of the socket timeout. */
#ifndef MARS_SVC_RQ_H
#define MARS_SVC_RQ_H

#include <stdbool.h>
#include <stddef.h>

#include <hiredis.h>

typedef struct rq rq_t;

/* Socket timeout for ordinary commands: Redis answers in microseconds;
 * 2 s means the server or the network is in trouble. */
#define RQ_DEFAULT_TIMEOUT_MS 2000
/* What a blocking command's timeout must stay below the socket timeout:
 * the server's own timer and a round trip. */
#define RQ_BLOCK_MARGIN_MS 1000

/* Parses url (redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] or
 * unix:///PATH[?db=N]) without connecting. NULL with err on a bad URL. */
rq_t *rq_create(const char *url, int timeout_ms, char *err, size_t errlen);
void rq_free(rq_t *r);
int rq_connect(rq_t *r, char *err, size_t errlen);
/* Connects, retrying until timeout_ms passes (stop as for db_connect_wait). */
int rq_connect_wait(rq_t *r, int timeout_ms, bool (*stop)(int wait_ms), char *err, size_t errlen);

/* Runs a command (hiredis format: %s strings, %b binary with length).
 * Returns the reply (caller: freeReplyObject), or NULL with err for a
 * connection failure or an error reply. */
redisReply *rq_command(rq_t *r, char *err, size_t errlen, const char *fmt, ...);
/* A blocking command whose server-side timeout is block_ms; refused
 * unless block_ms + RQ_BLOCK_MARGIN_MS <= the socket timeout. */
redisReply *rq_command_blocking(rq_t *r, int block_ms, char *err, size_t errlen, const char *fmt,
                                ...);
/* Pipelining: queue commands with rq_append, then rq_flush sends them and
 * reads every reply, failing if any is an error. */
int rq_append(rq_t *r, char *err, size_t errlen, const char *fmt, ...);
int rq_flush(rq_t *r, char *err, size_t errlen);
/* Queues one command given as argc strings (argvlen NULL: NUL-terminated),
 * e.g. one LPUSH of many values. */
int rq_append_argv(rq_t *r, int argc, const char **argv, const size_t *argvlen, char *err,
                   size_t errlen);
/* The same, handing the replies over: out[i] is the reply of the i-th
 * queued command (the caller frees each with freeReplyObject). n must be
 * the number of commands queued. On any failure or error reply every reply
 * is freed and -1 returned with err. */
int rq_flush_replies(rq_t *r, redisReply **out, int n, char *err, size_t errlen);
int rq_ping(rq_t *r, char *err, size_t errlen);

#endif
