/* kube_scrub.h - secrets taken out of text: each occurrence of a secret, and
 * a secret's beginning where the text was cut off, becomes "(redacted)".
 * kube_auth.c knows which secrets there are (mk_kauth_scrub); this file
 * only replaces. */
#ifndef MOKKA_KUBE_SCRUB_H
#define MOKKA_KUBE_SCRUB_H

#include <stddef.h>

typedef struct mk_ksecret {
    const char *s;
    size_t len;          /* 0: ignored */
} mk_ksecret;

/* Rewrites the NUL-terminated `text`, which lives in a buffer of `size`
 * bytes, in place; a result longer than the buffer is cut to fit. Where
 * secrets overlap, the longest wins. */
void mk_kscrub(char *text, size_t size, const mk_ksecret *secrets, size_t n);

#endif
