/* diag.h - diagnostics: every config or suite problem as "file:line:col: message".
 *
 * Loaders never stop at the first problem: they append to an mk_diags list so
 * that `mokka lint` can print all of them, while the library prints only the
 * first (one clear stderr line inside someone else's process). */
#ifndef MOKKA_DIAG_H
#define MOKKA_DIAG_H

#include <stddef.h>

/* Diagnostics kept per file; past it they are counted, and one final line
 * of the file says how many were not shown. A hostile file can otherwise
 * make millions, each costing time and memory. */
#define MK_DIAGS_PER_FILE 100

/* A note tells what the loader made of a legal value (which profile a GPU
 * name resolved to); it is always recorded and never counted. */
typedef enum { MK_DIAG_ERROR, MK_DIAG_WARNING, MK_DIAG_NOTE } mk_diag_level;

typedef struct mk_diag {
    mk_diag_level level;
    char *file;   /* may be NULL for problems without a file */
    int line;     /* 1-based; 0 when unknown */
    int col;      /* 1-based; 0 when unknown */
    char *msg;
} mk_diag;

struct mk_diag_seen;
struct mk_diag_file;

typedef struct mk_diags {
    mk_diag *v;
    size_t n, cap;
    size_t errors, warnings;  /* every one found, including those not kept */
    int strict;   /* record warnings for legal but suspicious values */
    /* diag.c's own: what was seen (to keep each once) and per-file counts */
    struct mk_diag_seen *seen;
    size_t nseen, seencap;
    struct mk_diag_file *files;
    size_t nfiles;
} mk_diags;

void mk_diags_init(mk_diags *d);
void mk_diags_free(mk_diags *d);

/* Append a diagnostic; printf-style message. A warning is only recorded when
 * d->strict is set, a note always. One equal to an earlier one is dropped. */
void mk_diag_add(mk_diags *d, mk_diag_level lvl, const char *file, int line,
                 int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Whether `file` already has MK_DIAGS_PER_FILE diagnostics, so that a new one
 * would only be counted: callers can skip costly wording (suggestions). */
int mk_diags_full(const mk_diags *d, const char *file);

/* Format diagnostic i as "file:line:col: error: msg" into buf. */
void mk_diag_format(const mk_diag *g, char *buf, size_t len);

/* The first error (or NULL). */
const mk_diag *mk_diags_first_error(const mk_diags *d);

#endif
