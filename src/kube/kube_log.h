/* kube_log.h - where the cluster client's warnings and (when verbose)
 * progress lines go: one line each, without a trailing newline. */
#ifndef MOKKA_KUBE_LOG_H
#define MOKKA_KUBE_LOG_H

/* `fn` may be called from the watch thread. NULL fn: stderr. */
typedef struct mk_klog {
    void (*fn)(void *ctx, int warning, const char *msg);
    void *ctx;
    int verbose;
} mk_klog;

/* A warning always goes out; a progress line only when verbose. */
void mk_klogf(const mk_klog *l, int warning, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
