/* httpd.h - the small HTTP server behind `mokka metrics`, `debug: true`
 * beside `mokka run`/`exec`, and the library's debug server. */
#ifndef MOKKA_HTTPD_H
#define MOKKA_HTTPD_H

#include <stddef.h>

/* httpd.c: the small HTTP server: one thread, poll()
 * over the listening socket and its clients (so a slow client cannot hold up
 * a scrape; held-open sockets give their slots up to new connections), GET
 * and HEAD only, one response per connection, and a clean stop on SIGINT or
 * SIGTERM. */
typedef struct mk_http_resp {
    int status;            /* 200, 404, 503, ... */
    const char *type;      /* Content-Type */
    char *body;            /* malloc'd; the server frees it */
    size_t len;
} mk_http_resp;

/* Fills r with a copy of body as status and type (type NULL: plain text). */
void mk_http_text(mk_http_resp *r, int status, const char *type, const char *body);

/* Fills r for a GET of `path` (without the query string). */
typedef void (*mk_http_handler)(const char *path, mk_http_resp *r, void *ctx);

/* Binds and listens on "HOST:PORT", "[V6ADDR]:PORT" or ":PORT" (every
 * interface). Writes the bound address (with the real port when PORT is 0)
 * and whether it is a loopback address. Returns the socket, or with err -2
 * when addr is not of that form and -1 when it cannot be used. */
int mk_http_listen(const char *addr, char *bound, size_t blen, int *loopback, char *err,
                   size_t errlen);

/* Serves until SIGINT or SIGTERM; closes fd. Returns 0, or -1 with err on a
 * failure of the server itself. */
int mk_http_serve(int fd, mk_http_handler h, void *ctx, char *err, size_t errlen);
/* Serves fd from a thread of its own until mk_http_bg_stop (which closes
 * fd); NULL with err (fd closed) when the thread cannot start. */
typedef struct mk_http_bg mk_http_bg;
mk_http_bg *mk_http_bg_start(int fd, mk_http_handler h, void *ctx, char *err, size_t errlen);
void mk_http_bg_stop(mk_http_bg *b);

#endif
