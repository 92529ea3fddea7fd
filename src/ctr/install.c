/* install.c - the node's files that `mokka container-runtime install`
 * writes: the wrapper script containerd runs as the handler's BinaryName
 * (containerd gives that program runc's arguments and nothing else, so
 * the shim's options are baked into it), text files read and written
 * whole (containerd's config.toml), and copies of Mokka's own files when
 * a pod installs onto its node (--host-root). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctr.h"
#include "util/util.h"

#define WRAPPER_MARK "# mokka container-runtime wrapper"

/* 'text' quoted for sh, then a blank. */
static void sh_quote(mk_sb *b, const char *text)
{
    mk_sb_puts(b, "'");
    for (const char *t = text; *t; t++)
        if (*t == '\'')
            mk_sb_puts(b, "'\\''");
        else
            mk_sb_printf(b, "%c", *t);
    mk_sb_puts(b, "' ");
}

char *mk_ctr_wrapper_text(const char *program, int is_mokka, const char *handler,
                          const char *const *opts)
{
    mk_sb b = MK_SB_INIT;
    mk_sb_printf(&b, "#!/bin/sh\n" WRAPPER_MARK " (runtime handler %s)\nexec ", handler);
    sh_quote(&b, program);
    if (is_mokka)
        mk_sb_puts(&b, "container-runtime ");
    for (size_t i = 0; opts[i]; i += 2)
        if (opts[i + 1]) {
            mk_sb_printf(&b, "%s ", opts[i]);
            sh_quote(&b, opts[i + 1]);
        }
    mk_sb_puts(&b, "-- \"$@\"\n");
    return mk_sb_take(&b);
}

int mk_ctr_is_wrapper(const char *text)
{
    return strstr(text, WRAPPER_MARK) != NULL;
}

char *mk_ctr_read_text(const char *path, int *missing, char *err, size_t errlen)
{
    *missing = access(path, F_OK) != 0 && errno == ENOENT;
    if (*missing)
        return mk_xstrdup("");
    size_t len;
    char *text = mk_read_all(path, &len, err, errlen);
    if (text && memchr(text, 0, len)) {
        free(text);
        mk_errf(err, errlen, "%s is not a text file", path);
        return NULL;
    }
    return text;
}

/* Writes len bytes atomically with mode, making the file's directory. */
static int write_bytes(const char *path, const void *data, size_t len, mode_t mode, char *err,
                       size_t errlen)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return mk_errf(err, errlen, "path too long: %s", path);
    char *slash = strrchr(dir, '/');
    const char *name = slash ? slash + 1 : dir, *d = ".";
    if (slash) {
        *slash = 0;
        d = dir[0] ? dir : "/";
    }
    if (mk_mkdir_p(d, 0755, err, errlen) != 0)
        return -1;
    return mk_write_atomic(d, name, data, len, mode, err, errlen);
}

int mk_ctr_write_text(const char *path, const char *text, mode_t mode, char *err, size_t errlen)
{
    return write_bytes(path, text, strlen(text), mode, err, errlen);
}

int mk_ctr_copy_file(const char *src, const char *dst, char *err, size_t errlen)
{
    struct stat sb;
    if (stat(src, &sb) != 0)
        return mk_errf(err, errlen, "cannot read %s: %s", src, strerror(errno));
    size_t len;
    char *data = mk_read_all(src, &len, err, errlen);
    if (!data)
        return -1;
    int rc = write_bytes(dst, data, len, sb.st_mode & 0777, err, errlen);
    free(data);
    return rc;
}
