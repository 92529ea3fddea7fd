/* kubeconfig.c (fuzz target "kubeconfig") - drives the kubeconfig loader
 * (src/kube/kubeconfig.c: files found, merged and resolved as kubectl
 * does) on files written from the input: the part before the first NUL
 * byte as --kubeconfig names it, and both parts as $KUBECONFIG lists them
 * (merged). Checks that a failure always says why and that a success names
 * a server.
 *
 * fuzz-flags: -max_len=16384 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kube/kubeconfig.h"

#define CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "kubeconfig: %s fails\n", #cond); abort(); } } while (0)

static char dir[] = "/tmp/mokka-fuzz-kubeconfig-XXXXXX";
static char first[sizeof dir + 16], second[sizeof dir + 16];

static void cleanup(void)
{
    unlink(first);
    unlink(second);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    snprintf(first, sizeof first, "%s/config", dir);
    snprintf(second, sizeof second, "%s/config2", dir);
    atexit(cleanup);
    char list[2 * sizeof first + 2];
    snprintf(list, sizeof list, "%s:%s", first, second);
    setenv("KUBECONFIG", list, 1);
    unsetenv("KUBERNETES_SERVICE_HOST");
    return 0;
}

static void put(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(data, 1, size, f) == size);
    CHECK(fclose(f) == 0);
}

static void load(const char *path)
{
    mk_ktarget t;
    char err[1024] = "";
    memset(&t, 0, sizeof t);
    if (mk_kubeconfig_load(path, NULL, &t, err, sizeof err) == 0) {
        CHECK(t.server && t.source);
        mk_ktarget_free(&t);
    } else {
        CHECK(err[0]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t n1 = nul ? (size_t)(nul - data) : size;
    put(first, data, n1);
    if (nul)
        put(second, nul + 1, size - n1 - 1);
    else
        unlink(second);
    load(first);
    load(NULL);
    return 0;
}
