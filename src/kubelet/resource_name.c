/* resource_name.c - the kubelet's test for extended resource names, which
 * is what a device plugin may register: "domain/name", outside the
 * kubernetes.io domain, where "requests.<domain>" is a DNS-1123 subdomain
 * and the name a qualified-name part (as Kubernetes validates them). */
#include <stdio.h>
#include <string.h>
#include "kubelet.h"

static int alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* One DNS-1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])? */
static int dns_label(const char *s, size_t n)
{
    if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            return 0;
    return 1;
}

/* Dot-separated labels, at most 253 characters with the "requests." that
 * Kubernetes puts in front when it checks quota names. */
static int dns_subdomain(const char *s, size_t n)
{
    if (n + strlen("requests.") > 253)
        return 0;
    for (size_t start = 0; start <= n;) {
        const char *dot = memchr(s + start, '.', n - start);
        size_t end = dot ? (size_t)(dot - s) : n;
        if (!dns_label(s + start, end - start))
            return 0;
        start = end + 1;
    }
    return 1;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 characters. */
static int name_part(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || !alnum(s[0]) || !alnum(s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return 0;
    return 1;
}

int mk_extended_resource_name_check(const char *name, char *why, size_t whylen)
{
    const char *slash = strchr(name, '/');
    if (!slash)
        snprintf(why, whylen, "it must be domain/name, like nvidia.com/gpu");
    else if (strstr(name, "kubernetes.io/"))
        snprintf(why, whylen, "the kubernetes.io domain is reserved for native resources");
    else if (strncmp(name, "requests.", 9) == 0)
        snprintf(why, whylen, "it must not start with \"requests.\"");
    else if (strchr(slash + 1, '/'))
        snprintf(why, whylen, "it must contain exactly one '/'");
    else if (!dns_subdomain(name, (size_t)(slash - name)))
        snprintf(why, whylen, "the domain \"%.*s\" is not a DNS-1123 subdomain (lower-case "
                 "letters, digits, '-' and '.', starting and ending with a letter or digit)",
                 (int)(slash - name), name);
    else if (!name_part(slash + 1))
        snprintf(why, whylen, "the name \"%s\" must be 1-63 letters, digits, '-', '_' or '.', "
                 "starting and ending with a letter or digit", slash + 1);
    else
        return 0;
    return -1;
}
