/* kube_name.h - names that become part of an API path: checked as the API
 * server defines them (DNS-1123 subdomains: Nodes, GPUFaults, their
 * reports), and each path segment percent-encoded, so that no name can
 * reach another object. Without both, "../../api/v1/nodes/x" as a GPUFault
 * name is folded by libcurl into /api/v1/nodes/x, and "" or "#" turns a
 * DELETE of one object into a DELETE of its whole collection.
 *
 *     if (mk_kname_check("--clear", "GPUFault", name, err, sizeof err))   // at parsing
 *         return mk_usage_error("inject", "%s", err);
 *     char *path = mk_kpath_name(MK_GF_PATH, name, err, sizeof err);      // when building
 */
#ifndef MOKKA_KUBE_NAME_H
#define MOKKA_KUBE_NAME_H

#include <stddef.h>

/* 1 when s[0..n) is a DNS subdomain (RFC 1123: dot-separated parts of
 * lower-case letters, digits and '-', each starting and ending with a
 * letter or digit; 253 at most), as object names, node names and label key
 * prefixes are. */
int mk_ksubdomain(const char *s, size_t n);
int mk_kname_ok(const char *s);

/* 0 when name is a DNS subdomain; else -1 with err: "--clear: '../x' is
 * not a GPUFault name: it holds '/' (a DNS subdomain: ...)", where names
 * the option (or variable) the name came from and kind the object; the
 * name is shown escaped (\xHH for bytes outside printable ASCII) and cut
 * to 80 bytes. */
int mk_kname_check(const char *where, const char *kind, const char *name, char *err,
                   size_t errlen);

/* "COLLECTION/NAME" with NAME percent-encoded as one path segment (every
 * byte but letters, digits and "-._~"), malloc'd; NULL with err when name
 * is empty, "." or "..", or holds '/' (the API server decodes %2F before it
 * splits the path), or when out of memory. The second defence behind the
 * checks at parsing: whatever a name holds, it names one object. */
char *mk_kpath_name(const char *collection, const char *name, char *err, size_t errlen);

/* 1 when path (up to its query) has no "." or ".." segment, also as %2E,
 * and no '#' (which would end it): a path that no client or server folds
 * into another. Every request is checked (kube_http.c). */
int mk_kpath_clean(const char *path);

#endif
