/* httpd.c - a small poll()-based HTTP server (see httpd.h).
 *
 * Every socket is non-blocking and every client has a deadline (3 s for
 * its request head, 10 s more for the answer), so a client that connects
 * and says nothing, trickles its request or reads slowly costs one slot
 * until then, never the whole server; and when every slot is taken, a new
 * connection takes the slot of the oldest client still sending its head,
 * so that thousands of held-open sockets cannot keep a scrape out. SIGINT
 * and SIGTERM are blocked except inside ppoll(), so a signal can only
 * arrive while the server waits and is never lost between checking the
 * stop flag and waiting. In the background (mk_http_bg_start) a thread of
 * its own serves, takes no signal, and stops when its pipe is closed. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "httpd.h"

#define MAX_CLIENTS 32
#define REQ_MAX 8192
/* A scraper sends its request head at once: 3 s is plenty, and a client
 * that trickles it (slowloris) or says nothing loses its slot then. The
 * response gets longer, for a scraper that reads slowly. */
#define HEAD_TIMEOUT_MS 3000
#define SEND_TIMEOUT_MS 10000

typedef struct client {
    int fd;
    char req[REQ_MAX];
    size_t nreq;
    char *out;               /* the response, once the request is complete */
    size_t nout, sent;
    uint64_t since_ms;       /* accepted */
    uint64_t deadline_ms;
} client;

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* --- listening ------------------------------------------------------------------------ */

static int split_addr(const char *addr, char *host, size_t hlen, char *port, size_t plen)
{
    const char *colon;
    if (addr[0] == '[') {
        const char *end = strchr(addr, ']');
        if (!end || end[1] != ':')
            return -1;
        snprintf(host, hlen, "%.*s", (int)(end - addr - 1), addr + 1);
        colon = end + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon)
            return -1;
        snprintf(host, hlen, "%.*s", (int)(colon - addr), addr);
    }
    snprintf(port, plen, "%s", colon + 1);
    return port[0] && strspn(port, "0123456789") == strlen(port) ? 0 : -1;
}

static int is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) ||
           (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

static void format_bound(int fd, char *bound, size_t blen, int *loopback)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &s4->sin_addr, host, sizeof host);
        port = ntohs(s4->sin_port);
        snprintf(bound, blen, "%s:%u", host, port);
    } else {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
        port = ntohs(s6->sin6_port);
        snprintf(bound, blen, "[%s]:%u", host, port);
    }
    *loopback = is_loopback(&ss);
}

int mk_http_listen(const char *addr, char *bound, size_t blen, int *loopback, char *err,
                   size_t errlen)
{
    char host[256], port[16];
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *res, *ai;
    if (split_addr(addr, host, sizeof host, port, sizeof port) != 0 || atoi(port) > 65535) {
        snprintf(err, errlen, "'%s' is not HOST:PORT (like 127.0.0.1:9400, [::1]:9400 or :9400)",
                 addr);
        return -2;
    }
    int rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1, e = 0;
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 64) != 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", addr, strerror(e));
        return -1;
    }
    format_bound(fd, bound, blen, loopback);
    return fd;
}

/* --- requests ------------------------------------------------------------------------- */

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Internal Server Error";
    }
}

static void set_response(client *c, int head_only, mk_http_resp *r)
{
    char *hdr = NULL;
    int n = asprintf(&hdr, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "%sConnection: close\r\n\r\n", r->status, reason(r->status),
                     r->type ? r->type : "text/plain; charset=utf-8", r->len,
                     r->status == 405 ? "Allow: GET, HEAD\r\n" : "");
    size_t body = head_only ? 0 : r->len;
    c->out = n < 0 ? NULL : malloc((size_t)n + body);
    if (c->out) {
        memcpy(c->out, hdr, (size_t)n);
        if (body)
            memcpy(c->out + n, r->body, body);
        c->nout = (size_t)n + body;
    }
    free(hdr);
    free(r->body);
}

/* A complete request head is in c->req: answer it. */
static void respond(client *c, mk_http_handler h, void *ctx)
{
    char method[16], target[2048];
    mk_http_resp r = { 0 };
    int head = 0;
    if (sscanf(c->req, "%15s %2047s HTTP/%*d.%*d", method, target) != 2 || target[0] != '/') {
        mk_http_text(&r, 400, NULL, "bad request\n");
    } else if (strcmp(method, "GET") != 0 && !(head = strcmp(method, "HEAD") == 0)) {
        mk_http_text(&r, 405, NULL, "only GET and HEAD\n");
    } else {
        target[strcspn(target, "?#")] = 0;
        h(target, &r, ctx);
    }
    set_response(c, head, &r);
}

static void drop(client *c)
{
    close(c->fd);
    free(c->out);
    c->fd = -1;
    c->out = NULL;
}

static void on_readable(client *c, mk_http_handler h, void *ctx)
{
    ssize_t n = read(c->fd, c->req + c->nreq, REQ_MAX - 1 - c->nreq);
    if (n <= 0) {
        if (n == 0 || (errno != EAGAIN && errno != EINTR))
            drop(c);
        return;
    }
    c->nreq += (size_t)n;
    c->req[c->nreq] = 0;
    if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n")) {
        respond(c, h, ctx);
    } else if (c->nreq == REQ_MAX - 1) {
        mk_http_resp r = { 0 };
        mk_http_text(&r, 431, NULL, "request head too large\n");
        set_response(c, 0, &r);
    } else {
        return; /* the head is not complete yet */
    }
    if (!c->out)
        drop(c); /* out of memory for the response */
    else
        c->deadline_ms = now_ms() + SEND_TIMEOUT_MS;
}

static void on_writable(client *c)
{
    ssize_t n = send(c->fd, c->out + c->sent, c->nout - c->sent, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0 || (c->sent += (size_t)n) == c->nout)
        drop(c);
}

/* --- the loop ------------------------------------------------------------------------- */

/* A free slot; when every one is taken, the one of the client that has
 * waited longest without sending its whole request head (held-open and
 * trickling sockets must not starve a scrape); NULL when every client is
 * being answered. */
static client *slot_for_new(client *cl)
{
    client *oldest = NULL;
    for (int i = 0; i < MAX_CLIENTS; i++) {
        if (cl[i].fd < 0)
            return &cl[i];
        if (!cl[i].out && (!oldest || cl[i].since_ms < oldest->since_ms))
            oldest = &cl[i];
    }
    if (oldest)
        drop(oldest);
    return oldest;
}

/* Every slot is answering a request: a short 503, never a wait. */
static void refuse_busy(int cfd)
{
    static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 5\r\n"
                               "Retry-After: 1\r\nConnection: close\r\n\r\nbusy\n";
    (void)send(cfd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT);   /* or just the close */
    close(cfd);
}

/* Takes every waiting connection. A scraper's request is usually there
 * already, so it is read (and answered, when the answer fits the socket
 * buffer) at once, without waiting for a slot to be polled. */
static void accept_all(int fd, client *cl, mk_http_handler h, void *ctx)
{
    for (;;) {
        int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0)
            return;
        client *c = slot_for_new(cl);
        if (!c) {
            refuse_busy(cfd);
            continue;
        }
        memset(c, 0, sizeof *c);
        c->fd = cfd;
        c->since_ms = now_ms();
        c->deadline_ms = c->since_ms + HEAD_TIMEOUT_MS;
        on_readable(c, h, ctx);
        if (c->fd >= 0 && c->out)
            on_writable(c);
    }
}

/* Serves until *stop is set (by a signal that ppoll lets through with
 * `mask`) or stop_fd becomes readable (-1: none); closes fd. */
static int serve(int fd, mk_http_handler h, void *ctx, const sigset_t *mask,
                 const volatile sig_atomic_t *stop, int stop_fd, char *err, size_t errlen)
{
    client *cl = calloc(MAX_CLIENTS, sizeof *cl);
    int rc = 0;
    if (!cl) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < MAX_CLIENTS; i++)
        cl[i].fd = -1;
    while (!*stop) {
        struct pollfd pfd[MAX_CLIENTS + 2];
        client *who[MAX_CLIENTS + 2];
        nfds_t n = 0;
        uint64_t now = now_ms(), next = now + 60000;
        pfd[n] = (struct pollfd){ fd, POLLIN, 0 };
        who[n++] = NULL;
        pfd[n] = (struct pollfd){ stop_fd, POLLIN, 0 };
        who[n++] = NULL;
        for (int i = 0; i < MAX_CLIENTS; i++) {
            if (cl[i].fd < 0)
                continue;
            if (cl[i].deadline_ms <= now) {
                drop(&cl[i]);
                continue;
            }
            if (cl[i].deadline_ms < next)
                next = cl[i].deadline_ms;
            pfd[n] = (struct pollfd){ cl[i].fd, cl[i].out ? POLLOUT : POLLIN, 0 };
            who[n++] = &cl[i];
        }
        struct timespec ts = { (time_t)((next - now) / 1000), (long)((next - now) % 1000) * 1000000 };
        if (ppoll(pfd, n, &ts, mask) < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errlen, "poll: %s", strerror(errno));
            rc = -1;
            break;
        }
        if (pfd[1].revents)
            break;
        for (nfds_t i = 2; i < n; i++) {
            if (!pfd[i].revents)
                continue;
            if (who[i]->out)
                on_writable(who[i]);
            else
                on_readable(who[i], h, ctx);
        }
        if (pfd[0].revents & POLLIN)
            accept_all(fd, cl, h, ctx);
    }
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (cl[i].fd >= 0)
            drop(&cl[i]);
    free(cl);
    close(fd);
    return rc;
}

int mk_http_serve(int fd, mk_http_handler h, void *ctx, char *err, size_t errlen)
{
    struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    stop_requested = 0;
    int rc = serve(fd, h, ctx, &old_mask, &stop_requested, -1, err, errlen);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    return rc;
}

/* --- in the background ---------------------------------------------------------------- */

struct mk_http_bg {
    pthread_t thread;
    int fd, stop[2];
    mk_http_handler h;
    void *ctx;
};

static void *bg_main(void *arg)
{
    mk_http_bg *b = arg;
    static const volatile sig_atomic_t never = 0;
    char err[256];
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    if (serve(b->fd, b->h, b->ctx, &mask, &never, b->stop[0], err, sizeof err) != 0)
        fprintf(stderr, "mokka: the metrics server stopped: %s\n", err);
    return NULL;
}

mk_http_bg *mk_http_bg_start(int fd, mk_http_handler h, void *ctx, char *err, size_t errlen)
{
    mk_http_bg *b = calloc(1, sizeof *b);
    if (!b || pipe2(b->stop, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "%s", b ? strerror(errno) : "out of memory");
        free(b);
        close(fd);
        return NULL;
    }
    b->fd = fd;
    b->h = h;
    b->ctx = ctx;
    /* The server's thread takes no signal: they are the command's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&b->thread, NULL, bg_main, b);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the server thread: %s", strerror(rc));
        close(b->stop[0]);
        close(b->stop[1]);
        close(fd);
        free(b);
        return NULL;
    }
    return b;
}

void mk_http_bg_stop(mk_http_bg *b)
{
    if (!b)
        return;
    close(b->stop[1]);
    pthread_join(b->thread, NULL);
    close(b->stop[0]);
    free(b);
}

void mk_http_text(mk_http_resp *r, int status, const char *type, const char *body)
{
    r->status = status;
    r->type = type ? type : "text/plain; charset=utf-8";
    r->body = strdup(body);
    r->len = r->body ? strlen(r->body) : 0;
}
