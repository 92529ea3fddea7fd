/* util.h - small helpers every engine may use: exit codes and diagnostics on
 * stderr, colour, children that die with their parent, deadlines,
 * durations, files, growing strings, text cleaning and allocation that
 * cannot fail. Depends on nothing in src/. */
#ifndef MOKKA_UTIL_H
#define MOKKA_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* cli.c: exit codes, colour and diagnostics on stderr, shared by every
 * command and engine. stdout is for data, stderr for diagnostics and
 * progress. */
/* Exit codes (documented in README and mokka(1)). */
enum {
    MK_EXIT_OK = 0,      /* passed */
    MK_EXIT_FAIL = 1,    /* assertions failed */
    MK_EXIT_USAGE = 2,   /* usage or config error */
    MK_EXIT_ENV = 3      /* environment or infrastructure error */
};

/* Prints "mokka CMD: message" and a hint to stderr; returns MK_EXIT_USAGE. */
int mk_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

extern int mk_quiet;
/* Colour: decided once from --color (auto|always|never), NO_COLOR and
 * whether the stream is a terminal. */
int mk_color_set(const char *when);      /* 0 ok, -1 bad value */
int mk_color_on(FILE *f);
/* "\033[<code>m" or ""; the result stays valid for the next 7 calls, so
 * one printf may take several. */
const char *mk_sgr(FILE *f, const char *code);

/* Diagnostics on stderr: "mokka CMD: ..." (mk_err) and, unless --quiet,
 * progress/info lines (mk_info). */
void mk_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_info(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A log callback of the kube client and the fault agent that prints as
 * command `cmd` (a const char *): warnings with mk_err, the rest with
 * mk_info. */
void mk_log_as(void *cmd, int warning, const char *msg);
/* Formats a message for such a callback (log NULL: stderr, as "mokka:
 * [warning: ]MSG"). */
void mk_logf(void (*log)(void *ctx, int warning, const char *msg), void *ctx, int warning,
             const char *fmt, ...) __attribute__((format(printf, 4, 5)));


/* child.c: called first in a forked child with the pid of the process that
 * forked it: the child gets `sig` when that thread's process dies (Linux
 * sends it when the forking *thread* ends, so fork from a thread that
 * outlives the child). -1 when it could not be arranged or the parent is
 * already gone: the child should _exit at once. */
int mk_child_die_with(pid_t parent, int sig);
/* In the child before exec: every signal mokka catches or ignores goes back
 * to its default action (exec would do it, but only at exec). */
void mk_child_default_signals(void);

/* treeguard.c: every process started after mk_tree_guard, and all their
 * descendants (setsid and double-forked ones too), end when this process
 * ends, even by SIGKILL: a keeper process kills them, by a cgroup v2 of
 * their own where one can be made, else by the mark below. Idempotent and
 * thread-safe; call it before starting anything. Returns how ("in cgroup
 * DIR ...", or the mark only and why), for a -v line. */
const char *mk_tree_guard(void);
/* "MOKKA_TREE=..." for the environment of every program started (NULL
 * before mk_tree_guard or when it could not be arranged). */
const char *mk_tree_mark(void);
/* The keeper's pid (a child of this process, 0 when none): a reaper of
 * stray children leaves it alone. */
pid_t mk_tree_keeper(void);

/* abstime.c: absolute deadlines for pthread_cond_timedwait: "in 500 ms" on
 * the clock a condition variable waits by; and the monotonic clock that
 * every deadline of the CLI is kept on, in seconds or milliseconds. */
/* Now on `clock`, plus ms milliseconds (ms >= 0). */
struct timespec mk_abstime_in(clockid_t clock, long long ms);
double mk_now_s(void);
long long mk_now_ms(void);


/* duration.c: durations as suites write them ("500ms", "30s", "5m", "1h",
 * "1m30s") and as reports print them (seconds with three decimals). */
#define MK_DURATION_MAX_MS (24LL * 60 * 60 * 1000)

/* Parses a sum of <integer><unit> terms (units ms, s, m, h), or "0".
 * Returns 0 with *ms set, or -1 for anything else or more than a day. */
int mk_duration_parse(const char *s, long long *ms);
/* "30s", "1m30s", "1h", "250ms", "2.5s": the shortest exact form. */
void mk_duration_format(long long ms, char *buf, size_t len);
/* "12.345": seconds with three decimals and always a '.', whatever the
 * locale (JUnit time attributes). */
void mk_secs_format(long long ms, char *buf, size_t len);


/* fsutil.c: small file-system helpers the CLI shares: directory trees,
 * the per-user directory under /tmp, and files published atomically. */
/* mkdir -p with `mode` for the directories it creates; 0 or -1 with err. */
int mk_mkdir_p(const char *path, mode_t mode, char *err, size_t errlen);
/* /tmp/mokka-<uid>, created 0700; refused when it exists but is not a
 * directory owned by this user that only this user can write. */
int mk_user_tmp_dir(char *out, size_t len, char *err, size_t errlen);
/* Writes len bytes to dir/name through a temporary file in dir and an
 * atomic rename, with exactly `mode`; 0 or -1 with err. */
int mk_write_atomic(const char *dir, const char *name, const void *data, size_t len,
                    mode_t mode, char *err, size_t errlen);
/* The whole file, malloc'd and followed by a NUL (not counted), its size
 * in *len; NULL with err. */
char *mk_read_all(const char *path, size_t *len, char *err, size_t errlen);
/* 1 when the file at path holds exactly these bytes, 0 when not or
 * unreadable. */
int mk_file_equals(const char *path, const void *data, size_t len);


/* strbuf.c: a growing string, for messages and details built piece by
 * piece, and the error buffer of parsers. */
typedef struct mk_sb {
    char *s;        /* NUL-terminated once anything was added; else NULL */
    size_t len, cap;
} mk_sb;

#define MK_SB_INIT {0, 0, 0}

void mk_sb_printf(mk_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_sb_puts(mk_sb *b, const char *s);
/* The text so far ("" when empty). */
const char *mk_sb_str(const mk_sb *b);
/* Hands the text to the caller (NULL when empty) and empties the buffer. */
char *mk_sb_take(mk_sb *b);
void mk_sb_free(mk_sb *b);
/* Writes a message into err[errlen] and returns -1: `return mk_errf(err,
 * errlen, "bad %s", what);` for parsers that report through a buffer. */
int mk_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));


/* textclean.c: text from plugins, nodes and suites made fit for reports:
 * valid UTF-8 (each bad byte becomes U+FFFD), no ANSI escape sequences, and
 * no control characters other than tab and newline. XML 1.0 forbids most
 * control characters, JSON needs valid UTF-8, and terminals act on escapes. */
/* A cleaned copy (NULL stays NULL). A lone CR becomes a newline; CRLF one. */
char *mk_text_clean(const char *s);
/* A cleaned copy on one line: whitespace runs become one space, ends are
 * trimmed, and text over `max` bytes is cut on a character boundary with
 * "..." appended (max 0: no limit). */
char *mk_text_line(const char *s, size_t max);
/* A snippet of text from untrusted input for an error message, without
 * allocating (parsers that must not abort on memory): printable ASCII,
 * every other byte '?', at most `max` bytes of s and then "...". */
void mk_text_snip(const char *s, size_t max, char *buf, size_t len);
/* s on one line with every control character and non-UTF-8 byte escaped
 * as C writes them (lib/core/textesc.h), whole; malloc'd. For values from
 * outside shown as they are (an environment variable): nothing dropped. */
char *mk_text_escaped(const char *s);
/* s with each byte that is not UTF-8 replaced by U+FFFD and nothing else
 * changed (JSON escapes control characters itself); malloc'd. */
char *mk_text_utf8(const char *s);


/* xalloc.c: allocation that cannot fail: the CLI's engines (suite, report)
 * treat running out of memory as fatal, like git's xmalloc, so that callers
 * are not littered with checks that can never be tested. Not for lib/: the
 * NVML library must never abort its host process. */
void *mk_xmalloc(size_t n);
void *mk_xcalloc(size_t n, size_t size);
void *mk_xrealloc(void *p, size_t n);
/* A copy of s; NULL stays NULL. */
char *mk_xstrdup(const char *s);
char *mk_xstrndup(const char *s, size_t n);
char *mk_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *mk_xvasprintf(const char *fmt, va_list ap);
/* A NULL-terminated string vector (an argv or envp) of *n strings grown by
 * s, which it takes; v NULL starts one. mk_argv_free frees it and its
 * strings. */
char **mk_xargv_push(char **v, size_t *n, char *s);
void mk_argv_free(char **v);


#endif
