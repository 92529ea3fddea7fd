/* test_ctr.c - the container edits of `mokka container-runtime` and `mokka
 * cdi generate`: which containers ask for GPUs, where the library goes in
 * an image (its libc directory; over its own copy; libyaml and nvidia-smi
 * only where the image has none), a read-only root filesystem, the spec
 * written (mounts after the spec's own, variables replaced), runc command
 * lines read, containerd's config edited idempotently and the CDI spec. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctr/ctr.h"
#include "support/testutil.h"

static mk_ctr_node node(void)
{
    mk_ctr_node n;
    memset(&n, 0, sizeof n);
    strcpy(n.lib, "/host/lib/libnvidia-ml.so.1");
    strcpy(n.yaml, "/host/lib/libyaml-0.so.2");
    strcpy(n.smi, "/host/lib/nvidia-smi");
    strcpy(n.state, "/run/mokka/run-1/state");
    strcpy(n.config, "/run/mokka/gpus.yaml");
    strcpy(n.node, "node-a");
    return n;
}

/* A root filesystem with these files (NAME or NAME=CONTENT; empty without). */
static const char *rootfs(const char *const *files)
{
    const char *dir = mk_test_tmpdir("rootfs");
    for (size_t i = 0; files[i]; i++) {
        char path[4096], *eq;
        snprintf(path, sizeof path, "%s%s", dir, files[i]);
        eq = strchr(path, '=');
        if (eq)
            *eq = 0;
        for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
            *s = 0;
            mkdir(path, 0755);
            *s = '/';
        }
        mk_test_write(path, eq ? eq + 1 : "");
    }
    return dir;
}

static const mk_ctr_mount *mount_at(const mk_ctr_plan *p, const char *dst)
{
    for (size_t i = 0; i < p->nmount; i++)
        if (strcmp(p->mount[i].dst, dst) == 0)
            return &p->mount[i];
    return NULL;
}

START_TEST(test_wants_gpus)
{
    static const struct { const char *env; int want; } cases[] = {
        { "[\"PATH=/bin\"]", 0 },
        { "[\"NVIDIA_VISIBLE_DEVICES=\"]", 0 },
        { "[\"NVIDIA_VISIBLE_DEVICES=void\"]", 0 },
        { "[\"NVIDIA_VISIBLE_DEVICES=none\"]", 0 },
        { "[\"NVIDIA_VISIBLE_DEVICES_X=1\"]", 0 },
        { "[\"NVIDIA_VISIBLE_DEVICES=all\"]", 1 },
        { "[\"A=1\", \"NVIDIA_VISIBLE_DEVICES=GPU-1,GPU-2\"]", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "{\"process\": {\"env\": %s}}", cases[i].env);
        json_t *spec = json_loads(text, 0, NULL);
        ck_assert_msg(mk_ctr_wants_gpus(spec) == cases[i].want, "%s", cases[i].env);
        json_decref(spec);
    }
    json_t *bare = json_loads("{}", 0, NULL);
    ck_assert_int_eq(mk_ctr_wants_gpus(bare), 0);
    json_decref(bare);
}
END_TEST

START_TEST(test_plan_debian)
{
    static const char *const files[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6=elf", NULL };
    mk_ctr_node n = node();
    mk_ctr_plan p;
    char err[512];
    ck_assert_int_eq(mk_ctr_plan_make(&n, rootfs(files), 0, "x86_64", &p, NULL, err,
                                      sizeof err), 0);
    const mk_ctr_mount *m = mount_at(&p, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m->src, n.lib);
    ck_assert_int_eq(m->rw, 0);
    ck_assert_ptr_nonnull(mount_at(&p, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so"));
    ck_assert_ptr_nonnull(mount_at(&p, "/usr/lib/x86_64-linux-gnu/libyaml-0.so.2"));
    ck_assert_str_eq(mount_at(&p, "/usr/bin/nvidia-smi")->src, n.smi);
    m = mount_at(&p, "/run/mokka/state");
    ck_assert_str_eq(m->src, n.state);
    ck_assert_int_eq(m->rw, 1);   /* the library maps it shared */
    ck_assert_int_eq(mount_at(&p, "/run/mokka/config.yaml")->rw, 0);
    ck_assert_uint_eq(p.nenv, 3);
    ck_assert_str_eq(p.env[0], "MOKKA_STATE_DIR=/run/mokka");
    ck_assert_str_eq(p.env[1], "MOKKA_NODE_NAME=node-a");
    ck_assert_str_eq(p.env[2], "MOKKA_CONFIG=/run/mokka/config.yaml");
    mk_ctr_plan_free(&p);
}
END_TEST

/* Fedora's libc in /usr/lib64, arm64 multiarch, an image without a libc. */
START_TEST(test_plan_libc_dir)
{
    static const char *const fedora[] = { "/usr/lib64/libc.so.6=elf", NULL };
    static const char *const arm[] = { "/lib/aarch64-linux-gnu/libc.so.6=elf", NULL };
    static const char *const scratch[] = { "/app=static", NULL };
    mk_ctr_node n = node();
    mk_ctr_plan p;
    char err[512];
    ck_assert_int_eq(mk_ctr_plan_make(&n, rootfs(fedora), 0, "x86_64", &p, NULL, err,
                                      sizeof err), 0);
    ck_assert_ptr_nonnull(mount_at(&p, "/usr/lib64/libnvidia-ml.so.1"));
    mk_ctr_plan_free(&p);
    ck_assert_int_eq(mk_ctr_plan_make(&n, rootfs(arm), 0, "aarch64", &p, NULL, err,
                                      sizeof err), 0);
    ck_assert_ptr_nonnull(mount_at(&p, "/lib/aarch64-linux-gnu/libnvidia-ml.so.1"));
    mk_ctr_plan_free(&p);
    ck_assert_int_eq(mk_ctr_plan_make(&n, rootfs(scratch), 0, "x86_64", &p, NULL, err,
                                      sizeof err), 0);
    ck_assert_ptr_nonnull(mount_at(&p, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"));
    mk_ctr_plan_free(&p);
    /* CDI: no image to look into */
    ck_assert_int_eq(mk_ctr_plan_make(&n, NULL, 0, "aarch64", &p, NULL, err, sizeof err), 0);
    ck_assert_ptr_nonnull(mount_at(&p, "/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1"));
    ck_assert_ptr_nonnull(mount_at(&p, "/usr/bin/nvidia-smi"));
    mk_ctr_plan_free(&p);
}
END_TEST

/* The image's own libnvidia-ml.so.1 is mounted over (and said so), in
 * another searched directory too; its libyaml and nvidia-smi are kept; an
 * empty file (a mountpoint a runtime left) is not the image's. */
START_TEST(test_plan_image_files)
{
    static const char *const files[] = {
        "/usr/lib/x86_64-linux-gnu/libc.so.6=elf",
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1=driver",
        "/usr/lib64/libnvidia-ml.so.1=driver",
        "/usr/lib/x86_64-linux-gnu/libyaml-0.so.2=yaml",
        "/usr/bin/nvidia-smi=nvidia",
        NULL };
    static const char *const empty[] = {
        "/usr/lib/x86_64-linux-gnu/libc.so.6=elf",
        "/usr/lib64/libnvidia-ml.so.1",
        "/usr/bin/nvidia-smi",
        NULL };
    mk_ctr_node n = node();
    mk_ctr_plan p;
    char err[512], *said = NULL;
    size_t saidlen = 0;
    FILE *notes = open_memstream(&said, &saidlen);
    ck_assert_int_eq(mk_ctr_plan_make(&n, rootfs(files), 0, "x86_64", &p, notes, err,
                                      sizeof err), 0);
    fclose(notes);
    ck_assert_ptr_nonnull(strstr(said, "ships /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1; "
                                       "Mokka's library is mounted over it"));
    ck_assert_ptr_nonnull(strstr(said, "ships /usr/lib64/libnvidia-ml.so.1"));
    free(said);
    ck_assert_str_eq(mount_at(&p, "/usr/lib64/libnvidia-ml.so.1")->src, n.lib);
    ck_assert_ptr_null(mount_at(&p, "/usr/lib/x86_64-linux-gnu/libyaml-0.so.2"));
    ck_assert_ptr_null(mount_at(&p, "/usr/bin/nvidia-smi"));
    mk_ctr_plan_free(&p);
    ck_assert_int_eq(mk_ctr_plan_make(&n, rootfs(empty), 0, "x86_64", &p, NULL, err,
                                      sizeof err), 0);
    ck_assert_ptr_null(mount_at(&p, "/usr/lib64/libnvidia-ml.so.1"));
    ck_assert_ptr_nonnull(mount_at(&p, "/usr/bin/nvidia-smi"));
    mk_ctr_plan_free(&p);
}
END_TEST

/* No twin, no config (the built-in universe): neither is mounted. */
START_TEST(test_plan_optional)
{
    mk_ctr_node n = node();
    n.smi[0] = n.config[0] = n.yaml[0] = 0;
    mk_ctr_plan p;
    char err[512];
    ck_assert_int_eq(mk_ctr_plan_make(&n, NULL, 0, "x86_64", &p, NULL, err, sizeof err), 0);
    ck_assert_ptr_null(mount_at(&p, "/usr/bin/nvidia-smi"));
    ck_assert_ptr_null(mount_at(&p, "/run/mokka/config.yaml"));
    ck_assert_ptr_null(mount_at(&p, "/usr/lib/x86_64-linux-gnu/libyaml-0.so.2"));
    ck_assert_uint_eq(p.nenv, 2);
    mk_ctr_plan_free(&p);
}
END_TEST

/* A root filesystem read-only on the host (not just root.readonly, which
 * runc applies after mounting) needs its mountpoints in the image. Needs
 * root for the read-only bind mount; passes trivially without. */
START_TEST(test_plan_readonly_rootfs)
{
    static const char *const files[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6=elf", NULL };
    const char *dir = rootfs(files);
    mk_ctr_node n = node();
    mk_ctr_plan p;
    char err[512];
    /* root.readonly on a writable directory: fine */
    ck_assert_int_eq(mk_ctr_plan_make(&n, dir, 1, "x86_64", &p, NULL, err, sizeof err), 0);
    mk_ctr_plan_free(&p);
    if (geteuid() != 0 || mount(dir, dir, NULL, MS_BIND, NULL) != 0)
        return;
    if (mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0) {
        umount(dir);
        return;
    }
    int rc = mk_ctr_plan_make(&n, dir, 1, "x86_64", &p, NULL, err, sizeof err);
    umount(dir);
    ck_assert_int_eq(rc, -1);
    ck_assert_ptr_nonnull(strstr(err, "is read-only on this host and has no "
                                      "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"));
}
END_TEST

START_TEST(test_apply)
{
    json_t *spec = json_loads("{\"process\": {\"env\": [\"PATH=/bin\", \"MOKKA_NODE_NAME=pod\"]},"
                              " \"mounts\": [{\"destination\": \"/proc\"}]}", 0, NULL);
    mk_ctr_node n = node();
    mk_ctr_plan p;
    char err[512];
    ck_assert_int_eq(mk_ctr_plan_make(&n, NULL, 0, "x86_64", &p, NULL, err, sizeof err), 0);
    mk_ctr_apply(spec, &p);
    json_t *mounts = json_object_get(spec, "mounts");
    ck_assert_uint_eq(json_array_size(mounts), 1 + p.nmount);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(mounts, 0),
                                                       "destination")), "/proc");
    json_t *lib = json_array_get(mounts, 1);
    ck_assert_str_eq(json_string_value(json_object_get(lib, "type")), "bind");
    ck_assert_str_eq(json_string_value(json_object_get(lib, "source")), n.lib);
    char *opts = json_dumps(json_object_get(lib, "options"), JSON_COMPACT);
    ck_assert_str_eq(opts, "[\"rbind\",\"ro\",\"nosuid\",\"nodev\"]");
    free(opts);
    char *env = json_dumps(json_object_get(json_object_get(spec, "process"), "env"), JSON_COMPACT);
    ck_assert_str_eq(env, "[\"PATH=/bin\",\"MOKKA_NODE_NAME=node-a\","
                          "\"MOKKA_STATE_DIR=/run/mokka\",\"MOKKA_CONFIG=/run/mokka/config.yaml\"]");
    free(env);
    mk_ctr_apply(spec, &p);   /* the same spec again: nothing twice */
    ck_assert_uint_eq(json_array_size(mounts), 1 + p.nmount);
    ck_assert_uint_eq(json_array_size(json_object_get(json_object_get(spec, "process"), "env")),
                      4);
    mk_ctr_plan_free(&p);
    json_decref(spec);
}
END_TEST

START_TEST(test_rootfs)
{
    json_t *spec = json_loads("{\"root\": {\"path\": \"rootfs\", \"readonly\": true}}", 0, NULL);
    char out[4096], err[256];
    int ro = 0;
    ck_assert_int_eq(mk_ctr_rootfs(spec, "/b", out, sizeof out, &ro, err, sizeof err), 0);
    ck_assert_str_eq(out, "/b/rootfs");
    ck_assert_int_eq(ro, 1);
    json_object_set_new(json_object_get(spec, "root"), "path", json_string("/abs/root"));
    json_object_del(json_object_get(spec, "root"), "readonly");
    ck_assert_int_eq(mk_ctr_rootfs(spec, "/b", out, sizeof out, &ro, err, sizeof err), 0);
    ck_assert_str_eq(out, "/abs/root");
    ck_assert_int_eq(ro, 0);
    json_object_del(spec, "root");
    ck_assert_int_eq(mk_ctr_rootfs(spec, "/b", out, sizeof out, &ro, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no root.path"));
    json_decref(spec);
}
END_TEST

START_TEST(test_runc_args)
{
    char *create[] = { "--root", "/run/containerd/runc/k8s.io", "--log", "/b/log.json",
                       "--log-format", "json", "--systemd-cgroup", "create", "--bundle", "/b",
                       "--pid-file", "/b/pid", "ctr", NULL };
    mk_runc_args a;
    mk_runc_args_read(13, create, &a);
    ck_assert_int_eq(a.verb, 7);
    ck_assert_str_eq(a.bundle, "/b");
    ck_assert_str_eq(a.log, "/b/log.json");
    ck_assert_int_eq(a.log_json, 1);
    char *run[] = { "--log=/l", "run", "-b", "/c", "id", NULL };
    mk_runc_args_read(5, run, &a);
    ck_assert_int_eq(a.verb, 1);
    ck_assert_str_eq(a.bundle, "/c");
    ck_assert_str_eq(a.log, "/l");
    ck_assert_int_eq(a.log_json, 0);
    char *start[] = { "--root", "/r", "start", "--bundle", "/not-read", "id", NULL };
    mk_runc_args_read(6, start, &a);
    ck_assert_int_eq(a.verb, 2);
    ck_assert_ptr_null(a.bundle);   /* only create and run have a bundle */
    char *cwd[] = { "create", "--bundle=/d", "id", NULL };
    mk_runc_args_read(3, cwd, &a);
    ck_assert_str_eq(a.bundle, "/d");
    char *none[] = { "--debug", NULL };
    mk_runc_args_read(1, none, &a);
    ck_assert_int_eq(a.verb, -1);
}
END_TEST

START_TEST(test_containerd_edit)
{
    const char *orig = "version = 2\n# keep me\n"
                       "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
                       "  default_runtime_name = \"runc\"\n"
                       "  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                       "    runtime_type = \"io.containerd.runc.v2\"\n";
    char *once = mk_containerd_edit(orig, "mokka", "/usr/local/bin/mokka-container-runtime");
    ck_assert_int_eq(strncmp(once, orig, strlen(orig)), 0);   /* the rest byte for byte */
    ck_assert_ptr_nonnull(strstr(once, "[plugins.\"io.containerd.grpc.v1.cri\".containerd."
                                       "runtimes.mokka]\n"));
    ck_assert_ptr_nonnull(strstr(once, "  runtime_type = \"io.containerd.runc.v2\"\n"));
    ck_assert_ptr_nonnull(strstr(once, "runtimes.mokka.options]\n  BinaryName = "
                                       "\"/usr/local/bin/mokka-container-runtime\"\n"));
    ck_assert_int_eq(mk_containerd_has(once, "mokka"), 1);
    ck_assert_int_eq(mk_containerd_has(once, "mok"), 0);
    ck_assert_int_eq(mk_containerd_has(orig, "mokka"), 0);
    char *twice = mk_containerd_edit(once, "mokka", "/usr/local/bin/mokka-container-runtime");
    ck_assert_str_eq(twice, once);   /* idempotent */
    char *moved = mk_containerd_edit(once, "mokka", "/opt/shim");
    ck_assert_ptr_nonnull(strstr(moved, "BinaryName = \"/opt/shim\""));
    ck_assert_ptr_null(strstr(moved, "mokka-container-runtime"));
    char *gone = mk_containerd_edit(once, "mokka", NULL);
    ck_assert_int_eq(strncmp(gone, orig, strlen(orig)), 0);
    ck_assert_int_eq(mk_containerd_has(gone, "mokka"), 0);
    ck_assert_ptr_nonnull(strstr(gone, "runtimes.runc]"));
    char *fresh = mk_containerd_edit("", "mokka", "/x");
    ck_assert_int_eq(strncmp(fresh, "version = 2\n\n[plugins.", 22), 0);
    /* indented and quoted headers, as `containerd config default` writes them */
    char *quoted = mk_containerd_edit("version = 2\n    [plugins.\"io.containerd.grpc.v1.cri\"."
                                      "containerd.runtimes.\"mokka\"]\n      x = 1\n[other]\n",
                                      "mokka", NULL);
    ck_assert_str_eq(quoted, "version = 2\n[other]\n");
    free(once);
    free(twice);
    free(moved);
    free(gone);
    free(fresh);
    free(quoted);
    char *rc = mk_runtimeclass_yaml("mokka");
    ck_assert_ptr_nonnull(strstr(rc, "kind: RuntimeClass\n"));
    ck_assert_ptr_nonnull(strstr(rc, "handler: mokka\n"));
    free(rc);
}
END_TEST

/* The wrapper script: quoting that sh undoes, options left out when unset. */
START_TEST(test_wrapper_text)
{
    const char *const opts[] = { "--runtime", "/usr/bin/runc", "--config", NULL,
                                 "--state-dir", "/run/it's here", NULL };
    char *text = mk_ctr_wrapper_text("/opt/mokka/bin/mokka", 1, "mokka", opts);
    ck_assert_str_eq(text, "#!/bin/sh\n# mokka container-runtime wrapper (runtime handler mokka)\n"
                           "exec '/opt/mokka/bin/mokka' container-runtime --runtime '/usr/bin/runc' "
                           "--state-dir '/run/it'\\''s here' -- \"$@\"\n");
    ck_assert_int_eq(mk_ctr_is_wrapper(text), 1);
    ck_assert_int_eq(mk_ctr_is_wrapper("#!/bin/sh\nexec runc \"$@\"\n"), 0);
    free(text);
    text = mk_ctr_wrapper_text("/lib/mokka-container-runtime", 0, "gpu", opts + 4);
    ck_assert_str_eq(text, "#!/bin/sh\n# mokka container-runtime wrapper (runtime handler gpu)\n"
                           "exec '/lib/mokka-container-runtime' --state-dir '/run/it'\\''s here' "
                           "-- \"$@\"\n");
    free(text);
}
END_TEST

START_TEST(test_cdi)
{
    const char *uuids[] = { "GPU-aaa", "GPU-bbb" };
    mk_ctr_node n = node();
    mk_ctr_plan p;
    char err[512];
    ck_assert_int_eq(mk_ctr_plan_make(&n, NULL, 0, "x86_64", &p, NULL, err, sizeof err), 0);
    json_t *spec = mk_cdi_spec(uuids, 2, &p);
    ck_assert_str_eq(json_string_value(json_object_get(spec, "kind")), "nvidia.com/gpu");
    ck_assert_str_eq(json_string_value(json_object_get(spec, "cdiVersion")), "0.5.0");
    json_t *devs = json_object_get(spec, "devices");
    ck_assert_uint_eq(json_array_size(devs), 5);
    /* a GPU's two devices set the same variable, one of its own */
    static const char *const want[][2] = { { "0", "0=GPU-aaa" }, { "GPU-aaa", "0=GPU-aaa" },
                                           { "1", "1=GPU-bbb" }, { "GPU-bbb", "1=GPU-bbb" },
                                           { "all", "ALL=all" } };
    for (size_t i = 0; i < 5; i++) {
        json_t *d = json_array_get(devs, i);
        char env[64];
        snprintf(env, sizeof env, "MOKKA_VISIBLE_GPU_%s", want[i][1]);
        ck_assert_str_eq(json_string_value(json_object_get(d, "name")), want[i][0]);
        ck_assert_str_eq(json_string_value(json_array_get(json_object_get(json_object_get(
                             d, "containerEdits"), "env"), 0)), env);
    }
    json_t *edits = json_object_get(spec, "containerEdits");
    ck_assert_uint_eq(json_array_size(json_object_get(edits, "mounts")), p.nmount);
    json_t *m = json_array_get(json_object_get(edits, "mounts"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(m, "hostPath")), n.lib);
    ck_assert_str_eq(json_string_value(json_object_get(m, "containerPath")),
                     "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
    /* NVIDIA_VISIBLE_DEVICES=void, as NVIDIA's specs: an image's `all` adds nothing */
    json_t *env = json_object_get(edits, "env");
    ck_assert_uint_eq(json_array_size(env), p.nenv + 1);
    ck_assert_str_eq(json_string_value(json_array_get(env, 0)), "NVIDIA_VISIBLE_DEVICES=void");
    json_decref(spec);
    mk_ctr_plan_free(&p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("ctr");
    TCase *tc = mk_test_case(s, "ctr", NULL, NULL, 30);
    tcase_add_test(tc, test_wants_gpus);
    tcase_add_test(tc, test_plan_debian);
    tcase_add_test(tc, test_plan_libc_dir);
    tcase_add_test(tc, test_plan_image_files);
    tcase_add_test(tc, test_plan_optional);
    tcase_add_test(tc, test_plan_readonly_rootfs);
    tcase_add_test(tc, test_apply);
    tcase_add_test(tc, test_rootfs);
    tcase_add_test(tc, test_runc_args);
    tcase_add_test(tc, test_containerd_edit);
    tcase_add_test(tc, test_wrapper_text);
    tcase_add_test(tc, test_cdi);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
