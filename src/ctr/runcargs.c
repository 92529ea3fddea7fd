/* runcargs.c - the runc command line the shim is given (by containerd's
 * runc shim, cri-o or docker), read without changing it: the verb, the
 * bundle of create and run, and where runc's caller reads its errors
 * from (--log, --log-format). And finding the real runc. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ctr.h"
#include "util/util.h"

/* runc's global options that take a value (runc 1.1). */
static int takes_value(const char *opt)
{
    static const char *const with[] = { "--root", "--log", "--log-format", "--criu",
                                        "--rootless", NULL };
    for (size_t i = 0; with[i]; i++)
        if (strcmp(opt, with[i]) == 0)
            return 1;
    return 0;
}

/* The value of option --name (or -short) in argv[i]: "--name V", "--name=V"
 * or "-s V"; *i is moved past a separate value. NULL when argv[i] is
 * another option. */
static const char *value_of(int argc, char *const *argv, int *i, const char *name,
                            const char *shrt)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) == 0 && a[n] == '=')
        return a + n + 1;
    if ((strcmp(a, name) == 0 || (shrt && strcmp(a, shrt) == 0)) && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

void mk_runc_args_read(int argc, char *const *argv, mk_runc_args *a)
{
    memset(a, 0, sizeof *a);
    a->verb = -1;
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *v;
        if ((v = value_of(argc, argv, &i, "--log", NULL)))
            a->log = v;
        else if ((v = value_of(argc, argv, &i, "--log-format", NULL)))
            a->log_json = strcmp(v, "json") == 0;
        else if (takes_value(argv[i]) && i + 1 < argc)
            i++;
    }
    if (i >= argc)
        return;
    a->verb = i;
    if (strcmp(argv[i], "create") != 0 && strcmp(argv[i], "run") != 0)
        return;
    for (i++; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *v = value_of(argc, argv, &i, "--bundle", "-b");
        if (v)
            a->bundle = v;
    }
}

static int is_self(const char *path)
{
    char *self = realpath("/proc/self/exe", NULL), *real = realpath(path, NULL);
    int same = self && real && strcmp(self, real) == 0;
    free(self);
    free(real);
    return same;
}

char *mk_runc_find(const char *name, char *err, size_t errlen)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) != 0) {
            mk_errf(err, errlen, "cannot run the OCI runtime %s: %s", name, strerror(errno));
            return NULL;
        }
        if (is_self(name)) {
            mk_errf(err, errlen, "--runtime %s is mokka itself: name the real runc", name);
            return NULL;
        }
        return mk_xstrdup(name);
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char buf[4200];
        if (n && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, name) < (int)sizeof buf &&
            access(buf, X_OK) == 0 && !is_self(buf))
            return mk_xstrdup(buf);
        path += n + (path[n] == ':');
    }
    mk_errf(err, errlen, "no OCI runtime '%s' on PATH (%s): install runc, or name it with "
            "--runtime PATH", name, getenv("PATH") ? getenv("PATH") : "unset");
    return NULL;
}
