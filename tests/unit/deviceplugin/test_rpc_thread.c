/* test_rpc_thread.c - the gRPC layer (src/rpc*.c) on its own: unary calls,
 * errors and deadlines, server streams with broadcast, cancellation from
 * either side, and that closing everything leaves no threads, sockets or
 * descriptors behind. Runs under TSan with --concurrency. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "deviceplugin/rpc.h"
#include "support/testutil.h"

#define ECHO "/t.Svc/Echo"
#define FAIL "/t.Svc/Fail"
#define SLOW "/t.Svc/Slow"
#define FEED "/t.Svc/Feed"

static int echo(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp, char *msg, size_t ml)
{
    resp->data = malloc(len + 1);
    memcpy(resp->data, req, len);
    resp->len = len;
    return MK_RPC_OK;
}

static int refuse(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp, char *msg, size_t ml)
{
    snprintf(msg, ml, "no such thing: %.*s", (int)len, (const char *)req);
    return MK_RPC_NOT_FOUND;
}

static int slow(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp, char *msg, size_t ml)
{
    mk_test_sleep_ms(300);
    return echo(ctx, req, len, resp, msg, ml);
}

/* Feed: the first message echoes the request; later ones are broadcasts.
 * A request of "refuse" is turned down. */
static int feed_open(void *ctx, mk_rpc_stream *st, const uint8_t *req, size_t len,
                     char *msg, size_t ml)
{
    if (len == 6 && memcmp(req, "refuse", 6) == 0) {
        snprintf(msg, ml, "refused");
        return MK_RPC_FAILED_PRECONDITION;
    }
    return mk_rpc_stream_send(st, req, len) == 0 ? MK_RPC_OK : MK_RPC_INTERNAL;
}

static const mk_rpc_method methods[] = {
    { ECHO, echo, NULL },
    { FAIL, refuse, NULL },
    { SLOW, slow, NULL },
    { FEED, NULL, feed_open },
};

static const char *dir;
static char addr[4200];
static mk_rpc_server *srv;
static int threads0, fds0, sockets0;

static void setup(void)
{
    threads0 = mk_test_thread_baseline();
    fds0 = mk_test_nfds();
    sockets0 = mk_test_nsockets();
    dir = mk_test_tmpdir("rpc");
    snprintf(addr, sizeof addr, "unix:%s/s.sock", dir);
    char err[256];
    srv = mk_rpc_server_start(addr, methods, 4, NULL, err, sizeof err);
    ck_assert_msg(srv, "%s", err);
}

static void teardown(void)
{
    mk_rpc_server_stop(srv);
    srv = NULL;
    mk_test_rmtree(dir);
}

static mk_rpc_channel *dial(void)
{
    char err[256];
    mk_rpc_channel *ch = mk_rpc_dial(addr, MK_TEST_PATIENCE_MS, err, sizeof err);
    ck_assert_msg(ch, "%s", err);
    return ch;
}

START_TEST(unary_roundtrip)
{
    mk_rpc_channel *ch = dial();
    mk_rpc_buf r;
    char err[256];
    ck_assert_int_eq(mk_rpc_call(ch, ECHO, (const uint8_t *)"hello", 5, MK_TEST_PATIENCE_MS,
                                 &r, err, sizeof err), MK_RPC_OK);
    ck_assert_uint_eq(r.len, 5);
    ck_assert(memcmp(r.data, "hello", 5) == 0);
    free(r.data);
    /* An empty message is a message too (protobuf's Empty is zero bytes). */
    ck_assert_int_eq(mk_rpc_call(ch, ECHO, NULL, 0, MK_TEST_PATIENCE_MS, &r, err, sizeof err),
                     MK_RPC_OK);
    ck_assert_uint_eq(r.len, 0);
    free(r.data);
    mk_rpc_channel_close(ch);
}
END_TEST

START_TEST(unary_errors)
{
    mk_rpc_channel *ch = dial();
    mk_rpc_buf r;
    char err[256];
    ck_assert_int_eq(mk_rpc_call(ch, FAIL, (const uint8_t *)"x", 1, MK_TEST_PATIENCE_MS,
                                 &r, err, sizeof err), MK_RPC_NOT_FOUND);
    ck_assert_str_eq(err, "NOT_FOUND: no such thing: x");
    ck_assert_ptr_null(r.data);
    ck_assert_int_eq(mk_rpc_call(ch, "/t.Svc/Nope", NULL, 0, MK_TEST_PATIENCE_MS,
                                 &r, err, sizeof err), MK_RPC_UNIMPLEMENTED);
    ck_assert_msg(strstr(err, "unknown method /t.Svc/Nope"), "%s", err);
    mk_rpc_channel_close(ch);
}
END_TEST

/* Messages up to the stated limit pass; one byte more is refused with
 * RESOURCE_EXHAUSTED rather than buffered whole. */
START_TEST(message_size_limit)
{
    mk_rpc_channel *ch = dial();
    mk_rpc_buf r;
    char err[256];
    uint8_t *big = calloc(1, MK_RPC_MAX_MESSAGE + 1);
    ck_assert_int_eq(mk_rpc_call(ch, ECHO, big, MK_RPC_MAX_MESSAGE, MK_TEST_PATIENCE_MS,
                                 &r, err, sizeof err), MK_RPC_OK);
    ck_assert_uint_eq(r.len, MK_RPC_MAX_MESSAGE);
    free(r.data);
    ck_assert_int_eq(mk_rpc_call(ch, ECHO, big, MK_RPC_MAX_MESSAGE + 1, MK_TEST_PATIENCE_MS,
                                 &r, err, sizeof err), MK_RPC_RESOURCE_EXHAUSTED);
    ck_assert_msg(strstr(err, "RESOURCE_EXHAUSTED"), "%s", err);
    free(big);
    mk_rpc_channel_close(ch);
}
END_TEST

START_TEST(unary_deadline)
{
    mk_rpc_channel *ch = dial();
    mk_rpc_buf r;
    char err[256];
    double t0 = mk_test_now_ms();
    ck_assert_int_eq(mk_rpc_call(ch, SLOW, NULL, 0, 100, &r, err, sizeof err),
                     MK_RPC_DEADLINE_EXCEEDED);
    /* Not before the deadline, and not hanging past it. */
    double took = mk_test_now_ms() - t0;
    ck_assert_msg(took >= 90 && took < 5000, "deadline took %.0f ms", took);
    mk_rpc_channel_close(ch);
}
END_TEST

START_TEST(dial_failures_are_fast_and_clear)
{
    char err[256], a[4300];
    double t0 = mk_test_now_ms();
    snprintf(a, sizeof a, "unix:%s/missing.sock", dir);
    ck_assert_ptr_null(mk_rpc_dial(a, 5000, err, sizeof err));
    ck_assert_msg(strstr(err, "missing.sock: No such file or directory"), "%s", err);

    /* A socket file nobody listens on, as a crashed server leaves it. */
    snprintf(a, sizeof a, "unix:%s/stale.sock", dir);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t n = strlen(a + 5);
    ck_assert_uint_lt(n, sizeof sa.sun_path);
    memcpy(sa.sun_path, a + 5, n + 1);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    close(fd);
    ck_assert_int_eq(mk_unix_socket_live(a + 5), 0);
    ck_assert_ptr_null(mk_rpc_dial(a, 5000, err, sizeof err));
    ck_assert_msg(strstr(err, "Connection refused"), "%s", err);
    ck_assert_ptr_null(mk_rpc_dial("tcp:127.0.0.1:1", 5000, err, sizeof err));
    ck_assert_msg(strstr(err, "not a unix:/absolute/path"), "%s", err);
    /* Told at once, not after the 5 s dial timeouts. */
    ck_assert_msg(mk_test_now_ms() - t0 < 5000, "dial failures took %.0f ms", mk_test_now_ms() - t0);
    ck_assert_int_eq(mk_unix_socket_live(addr + 5), 1);
}
END_TEST

/* What a watch received, guarded for the watch thread vs the test. */
typedef struct seen {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char msgs[16][32];
    int n, ended, code;
    char end_msg[256];
} seen;

static void on_msg(void *ctx, const uint8_t *m, size_t len)
{
    seen *s = ctx;
    pthread_mutex_lock(&s->mu);
    if (s->n < 16)
        snprintf(s->msgs[s->n++], 32, "%.*s", (int)len, (const char *)m);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void on_end(void *ctx, int code, const char *msg)
{
    seen *s = ctx;
    pthread_mutex_lock(&s->mu);
    s->ended++;
    s->code = code;
    snprintf(s->end_msg, sizeof s->end_msg, "%s", msg);
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void seen_init(seen *s)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
}

/* Waits until s has n messages (or ended when n < 0). */
static int seen_wait(seen *s, int n, int timeout_ms)
{
    double end = mk_test_now_ms() + timeout_ms;
    pthread_mutex_lock(&s->mu);
    while ((n < 0 ? !s->ended : s->n < n) && mk_test_now_ms() < end) {
        pthread_mutex_unlock(&s->mu);
        mk_test_sleep_ms(2);
        pthread_mutex_lock(&s->mu);
    }
    int ok = n < 0 ? s->ended : s->n >= n;
    pthread_mutex_unlock(&s->mu);
    return ok;
}

static int has_streams(void *arg)
{
    return mk_rpc_server_nstreams(srv, FEED) == (size_t)(long)arg;
}

START_TEST(stream_in_order_then_server_stop)
{
    mk_rpc_channel *ch = dial();
    seen s;
    seen_init(&s);
    char err[256];
    mk_rpc_watch *w = mk_rpc_watch_open(ch, FEED, (const uint8_t *)"first", 5, on_msg, on_end, &s,
                                        err, sizeof err);
    ck_assert_msg(w, "%s", err);
    ck_assert(mk_test_wait_for(has_streams, (void *)1L, MK_TEST_PATIENCE_MS));
    for (int i = 0; i < 10; i++) {
        char m[8];
        int n = snprintf(m, sizeof m, "m%d", i);
        ck_assert_uint_eq(mk_rpc_server_broadcast(srv, FEED, (const uint8_t *)m, (size_t)n), 1);
    }
    ck_assert(seen_wait(&s, 11, MK_TEST_PATIENCE_MS));
    ck_assert_str_eq(s.msgs[0], "first");
    for (int i = 0; i < 10; i++) {
        char m[8];
        snprintf(m, sizeof m, "m%d", i);
        ck_assert_str_eq(s.msgs[i + 1], m);
    }
    /* The server goes away: the client sees the stream end, not a hang. */
    mk_rpc_server_stop(srv);
    srv = NULL;
    ck_assert(seen_wait(&s, -1, MK_TEST_PATIENCE_MS));
    ck_assert_int_ne(s.code, MK_RPC_OK);
    mk_rpc_watch_close(w);
    ck_assert_int_eq(s.ended, 1);
    mk_rpc_channel_close(ch);
}
END_TEST

START_TEST(stream_client_close_and_refusal)
{
    mk_rpc_channel *ch = dial();
    seen s, r;
    seen_init(&s);
    seen_init(&r);
    char err[256];
    mk_rpc_watch *w = mk_rpc_watch_open(ch, FEED, (const uint8_t *)"a", 1, on_msg, on_end, &s,
                                        err, sizeof err);
    ck_assert(seen_wait(&s, 1, MK_TEST_PATIENCE_MS));
    mk_rpc_watch_close(w);
    ck_assert_int_eq(s.ended, 1);
    ck_assert_int_eq(s.code, MK_RPC_CANCELLED);
    /* The server notices and drops the stream from its broadcast list. */
    ck_assert(mk_test_wait_for(has_streams, (void *)0L, MK_TEST_PATIENCE_MS));
    ck_assert_uint_eq(mk_rpc_server_broadcast(srv, FEED, (const uint8_t *)"x", 1), 0);

    w = mk_rpc_watch_open(ch, FEED, (const uint8_t *)"refuse", 6, on_msg, on_end, &r, err, sizeof err);
    ck_assert(seen_wait(&r, -1, MK_TEST_PATIENCE_MS));
    ck_assert_int_eq(r.code, MK_RPC_FAILED_PRECONDITION);
    ck_assert_str_eq(r.end_msg, "FAILED_PRECONDITION: refused");
    ck_assert_int_eq(r.n, 0);
    mk_rpc_watch_close(w);
    mk_rpc_channel_close(ch);
}
END_TEST

/* Many threads calling at once on one channel while streams come and go. */
static mk_rpc_channel *shared_ch;

static void *hammer(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < 50; i++) {
        char m[32], err[256];
        int n = snprintf(m, sizeof m, "t%ld-%d", id, i);
        mk_rpc_buf r;
        if (mk_rpc_call(shared_ch, ECHO, (const uint8_t *)m, (size_t)n, MK_TEST_PATIENCE_MS,
                        &r, err, sizeof err))
            return (void *)1;
        int same = r.len == (size_t)n && memcmp(r.data, m, (size_t)n) == 0;
        free(r.data);
        if (!same)
            return (void *)1;
        mk_rpc_server_broadcast(srv, FEED, (const uint8_t *)m, (size_t)n);
    }
    return NULL;
}

START_TEST(concurrent_calls_and_broadcasts)
{
    shared_ch = dial();
    seen s;
    seen_init(&s);
    char err[256];
    mk_rpc_watch *w = mk_rpc_watch_open(shared_ch, FEED, (const uint8_t *)"0", 1, on_msg, on_end,
                                        &s, err, sizeof err);
    ck_assert(mk_test_wait_for(has_streams, (void *)1L, MK_TEST_PATIENCE_MS));
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, hammer, (void *)i);
    for (int i = 0; i < 4; i++) {
        void *rv;
        pthread_join(t[i], &rv);
        ck_assert_ptr_null(rv);
    }
    ck_assert(seen_wait(&s, 16, MK_TEST_PATIENCE_MS));
    mk_rpc_watch_close(w);
    mk_rpc_channel_close(shared_ch);
}
END_TEST

/* A server, a channel and a stream, then all of it closed again. */
static void cycle(void)
{
    char err[256];
    if (!srv) {
        srv = mk_rpc_server_start(addr, methods, 4, NULL, err, sizeof err);
        ck_assert_msg(srv, "%s", err);
    }
    mk_rpc_channel *ch = dial();
    seen s;
    seen_init(&s);
    mk_rpc_watch *w = mk_rpc_watch_open(ch, FEED, (const uint8_t *)"a", 1, on_msg, on_end, &s,
                                        err, sizeof err);
    ck_assert(seen_wait(&s, 1, MK_TEST_PATIENCE_MS));
    mk_rpc_server_stop(srv);
    srv = NULL;
    mk_rpc_watch_close(w);
    mk_rpc_channel_close(ch);
}

START_TEST(nothing_left_behind)
{
    /* gRPC keeps a few descriptors (epoll and eventfd, close-on-exec) for
     * the life of the process once initialised: the baseline for
     * descriptors is taken after a first cycle; sockets and threads must go
     * back to what there was before anything started. */
    cycle();
    int fds1 = mk_test_wait_nfds(fds0 + 2, MK_TEST_PATIENCE_MS);
    for (int i = 0; i < 3; i++)
        cycle();
    struct stat st;
    ck_assert_int_ne(stat(addr + 5, &st), 0);
    ck_assert_int_eq(mk_test_wait_nthreads(threads0, MK_TEST_PATIENCE_MS), threads0);
    ck_assert_int_eq(mk_test_wait_nsockets(sockets0, MK_TEST_PATIENCE_MS), sockets0);
    ck_assert_int_le(mk_test_wait_nfds(fds1, MK_TEST_PATIENCE_MS), fds1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rpc");
    TCase *tc = mk_test_case(s, "rpc", setup, teardown, 20);
    tcase_add_test(tc, unary_roundtrip);
    tcase_add_test(tc, unary_errors);
    tcase_add_test(tc, message_size_limit);
    tcase_add_test(tc, unary_deadline);
    tcase_add_test(tc, dial_failures_are_fast_and_clear);
    tcase_add_test(tc, stream_in_order_then_server_stop);
    tcase_add_test(tc, stream_client_close_and_refusal);
    tcase_add_test(tc, concurrent_calls_and_broadcasts);
    tcase_add_test(tc, nothing_left_behind);
    return mk_test_run(s);
}
