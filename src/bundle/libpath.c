/* libpath.c - a real file holding Mokka's libnvidia-ml.so.1 (see bundle.h):
 * a copy beside the binary when it has the same bytes, else the embedded
 * copy materialised once in a per-user cache named by its hash. */
#include <errno.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/util.h"
#include "bundle.h"

static int fits(int n, size_t len)
{
    return n >= 0 && (size_t)n < len;
}

/* The directory an install keeps the library in (make install LIBDIR=;
 * the Debian package: /usr/lib/<triplet>/mokka). */
#ifndef MOKKA_LIBDIR
#define MOKKA_LIBDIR "/usr/local/lib/mokka"
#endif

/* A release archive keeps the library beside mokka, the build tree in
 * <dir of mokka>/lib, an install in <prefix>/lib/mokka next to
 * <prefix>/bin/mokka or in MOKKA_LIBDIR. */
static int beside_binary(char *dir, size_t dirlen)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = 0;
    const char *bindir = dirname(exe);
    const char *const rel[] = { ".", "lib", "../lib/mokka", MOKKA_LIBDIR };
    size_t len;
    const unsigned char *blob = mk_lib_bytes(&len);
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char file[4200];
        if (rel[i][0] == '/')
            snprintf(file, sizeof file, "%s/" MK_LIB_SONAME, rel[i]);
        else
            snprintf(file, sizeof file, "%s/%s/" MK_LIB_SONAME, bindir, rel[i]);
        if (mk_file_equals(file, blob, len)) {
            char *real = realpath(file, NULL);
            int ok = real && fits(snprintf(dir, dirlen, "%s", dirname(real)), dirlen);
            free(real);
            if (ok)
                return 0;
        }
    }
    return -1;
}

/* $XDG_CACHE_HOME/mokka, else ~/.cache/mokka. */
static int cache_root(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/')
        return fits(snprintf(out, len, "%s/mokka", xdg), len) ? 0 : -1;
    const char *home = getenv("HOME");
    if (!home || home[0] != '/') {
        struct passwd *pw = getpwuid(getuid());
        home = pw ? pw->pw_dir : NULL;
    }
    struct stat sb;
    if (!home || home[0] != '/' || stat(home, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return -1; /* no home to keep a cache in; never create one */
    return fits(snprintf(out, len, "%s/.cache/mokka", home), len) ? 0 : -1;
}

/* Makes root/<hash>/libnvidia-ml.so.1 hold the embedded bytes. */
static int materialise(const char *root, char *dir, size_t dirlen, char *err, size_t errlen)
{
    if (!fits(snprintf(dir, dirlen, "%s/%016llx", root, (unsigned long long)mk_lib_hash()),
              dirlen)) {
        snprintf(err, errlen, "cache path too long under %s", root);
        return -1;
    }
    return mk_lib_extract(dir, err, errlen);
}

static int user_tmp_cache(char *dir, size_t dirlen, char *err, size_t errlen)
{
    char base[256], root[300];
    if (mk_user_tmp_dir(base, sizeof base, err, errlen) != 0)
        return -1;
    snprintf(root, sizeof root, "%s/lib", base);
    return materialise(root, dir, dirlen, err, errlen);
}

int mk_lib_path(char *dir, size_t dirlen, char *file, size_t filelen, char *err, size_t errlen)
{
    char root[4096], why[600] = "";
    int ok = beside_binary(dir, dirlen) == 0;
    if (!ok && cache_root(root, sizeof root) == 0)
        ok = materialise(root, dir, dirlen, why, sizeof why) == 0;
    if (!ok) {
        char tmperr[600];
        ok = user_tmp_cache(dir, dirlen, tmperr, sizeof tmperr) == 0;
        if (!ok) {
            snprintf(err, errlen, "cannot write the bundled %s anywhere: %s%s%s", MK_LIB_SONAME,
                     why, why[0] ? "; " : "", tmperr);
            return -1;
        }
    }
    if (!fits(snprintf(file, filelen, "%s/" MK_LIB_SONAME, dir), filelen)) {
        snprintf(err, errlen, "library path too long: %s", dir);
        return -1;
    }
    return 0;
}

int mk_lib_extract(const char *dir, char *err, size_t errlen)
{
    size_t len;
    const unsigned char *blob = mk_lib_bytes(&len);
    char file[4200];
    snprintf(file, sizeof file, "%s/" MK_LIB_SONAME, dir);
    if (mk_file_equals(file, blob, len))
        return 0;
    if (mk_mkdir_p(dir, 0755, err, errlen) != 0)
        return -1;
    return mk_write_atomic(dir, MK_LIB_SONAME, blob, len, 0644, err, errlen);
}
