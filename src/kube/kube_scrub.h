/* kube_scrub.h - secrets taken out of text: each occurrence of a secret, and
 * a secret's beginning where the text was cut off, becomes "(redacted)".
 * kube_auth.c knows which secrets there are (mk_kauth_scrub); this file
 * keeps a list of them and replaces. */
#ifndef MOKKA_KUBE_SCRUB_H
#define MOKKA_KUBE_SCRUB_H

#include <stddef.h>

/* Secrets a list holds at most: the tokens and the password, and the lines
 * of two PEM keys (a 16384-bit RSA key has about 200). */
#define MK_KSECRETS_MAX 512

typedef struct mk_ksecret {
    const char *s;
    size_t len;
} mk_ksecret;

/* Pointers into the caller's strings, which must outlive the list. */
typedef struct mk_ksecrets {
    mk_ksecret v[MK_KSECRETS_MAX];
    size_t n;
} mk_ksecrets;

/* A NUL-terminated secret; NULL and "" are ignored. */
void mk_ksecrets_add(mk_ksecrets *l, const char *secret);
/* A PEM key: the whole text, and each line of its base64 (a message would
 * rather quote a line than the key), not its BEGIN and END lines. */
void mk_ksecrets_add_pem(mk_ksecrets *l, const char *pem, size_t len);

/* Rewrites the NUL-terminated `text`, which lives in a buffer of `size`
 * bytes, in place; a result longer than the buffer is cut to fit. Where
 * secrets overlap, the longest wins. */
void mk_kscrub(char *text, size_t size, const mk_ksecrets *l);

#endif
