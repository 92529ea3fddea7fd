/* kube_name.c - names checked as the API server defines them, and built
 * into request paths one encoded segment each (kube_name.h). */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube_name.h"

#define SHOWN 80   /* bytes of a refused name shown in a message */

static int lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int mk_ksubdomain(const char *s, size_t n)
{
    if (n == 0 || n > 253)
        return 0;
    for (size_t i = 0; i < n; i++) {
        int edge = i == 0 || i == n - 1 || s[i - 1] == '.' || s[i + 1] == '.';
        if (!lower_alnum(s[i]) && !((s[i] == '-' || s[i] == '.') && !edge))
            return 0;
    }
    return 1;
}

int mk_kname_ok(const char *s)
{
    return mk_ksubdomain(s, strlen(s));
}

/* A byte as a message shows it: itself when printable ASCII, else \xHH
 * (quotes and backslashes too, so that the quoted name reads back). */
static int shown_byte(unsigned char c, char *out)
{
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
        out[0] = (char)c;
        return 1;
    }
    return sprintf(out, "\\x%02x", c);
}

static void shown_name(const char *s, char *buf, size_t len)
{
    char one[5];
    size_t at = 0, i = 0;
    for (; s[i] && i < SHOWN; i++) {
        int k = shown_byte((unsigned char)s[i], one);
        if (at + (size_t)k + 4 > len)
            break;
        memcpy(buf + at, one, (size_t)k);
        at += (size_t)k;
    }
    if (s[i] && at + 4 <= len) {
        memcpy(buf + at, "...", 3);
        at += 3;
    }
    buf[at] = '\0';
}

/* What breaks the rules first, for someone who has to fix the name. */
static void why_not(const char *s, char *buf, size_t len)
{
    size_t n = strlen(s);
    char one[5];
    if (n == 0) {
        snprintf(buf, len, "it is empty");
        return;
    }
    if (n > 253) {
        snprintf(buf, len, "it has %zu characters", n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-' && s[i] != '.') {
            one[shown_byte((unsigned char)s[i], one)] = '\0';
            snprintf(buf, len, "it holds '%s'", one);
            return;
        }
    snprintf(buf, len, "a part is empty or starts or ends with '-'");
}

int mk_kname_check(const char *where, const char *kind, const char *name, char *err,
                   size_t errlen)
{
    char shown[SHOWN * 4 + 4], why[64];
    if (mk_kname_ok(name))
        return 0;
    shown_name(name, shown, sizeof shown);
    why_not(name, why, sizeof why);
    snprintf(err, errlen, "%s: '%s' is not a %s name: %s (a DNS subdomain: lower-case letters, "
             "digits, '-' and '.', each part starting and ending with a letter or digit, 253 at "
             "most)", where, shown, kind, why);
    return -1;
}

char *mk_kpath_name(const char *collection, const char *name, char *err, size_t errlen)
{
    char shown[SHOWN * 4 + 4], *path = NULL;
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/')) {
        shown_name(name, shown, sizeof shown);
        snprintf(err, errlen, "'%s' cannot name an object in %s: it would name another path",
                 shown, collection);
        return NULL;
    }
    char *seg = curl_easy_escape(NULL, name, 0);
    if (!seg || asprintf(&path, "%s/%s", collection, seg) < 0) {
        path = NULL;
        snprintf(err, errlen, "out of memory");
    }
    curl_free(seg);
    return path;
}

/* 1 when s[0..n) is "." or "..", a dot also written %2E. */
static int dot_segment(const char *s, size_t n)
{
    int dots = 0;
    for (size_t i = 0; i < n; dots++) {
        if (s[i] == '.')
            i++;
        else if (n - i >= 3 && s[i] == '%' && s[i + 1] == '2' && (s[i + 2] == 'e' || s[i + 2] == 'E'))
            i += 3;
        else
            return 0;
    }
    return dots == 1 || dots == 2;
}

int mk_kpath_clean(const char *path)
{
    size_t end = strcspn(path, "?");
    if (memchr(path, '#', end))
        return 0;
    for (size_t at = 0; at <= end;) {
        size_t n = strcspn(path + at, "/?");
        if (at + n > end)
            n = end - at;
        if (dot_segment(path + at, n))
            return 0;
        at += n + 1;
    }
    return 1;
}
