/* containerd.c - the shim as a runtime handler in containerd's config.toml
 * (config version 2, containerd 1.6 and 1.7): the handler's two tables,
 * written or removed as text so that everything else in the file (and
 * its comments and layout) stays byte for byte. Kubernetes picks the
 * handler through a RuntimeClass of the same name. */
#include <string.h>
#include "ctr.h"
#include "util/util.h"

#define RUNTIMES "plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes."

/* Whether the line (leading blanks skipped) is a table header. */
static const char *header(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    return *line == '[' ? line : NULL;
}

/* Whether header h opens handler name's table or one under it
 * (runtimes.NAME or runtimes."NAME", then ] or .). */
static int is_ours(const char *h, const char *name)
{
    size_t n = strlen(RUNTIMES), k = strlen(name);
    if (strncmp(h + 1, RUNTIMES, n) != 0)
        return 0;
    const char *p = h + 1 + n;
    int quoted = *p == '"';
    p += quoted;
    if (strncmp(p, name, k) != 0)
        return 0;
    p += k;
    if (quoted && *p++ != '"')
        return 0;
    return *p == ']' || *p == '.';
}

/* The text without handler name's tables (each runs from its header to
 * the next header) and the blank line that install puts before them, so
 * that uninstall gives back the file as it was, byte for byte. */
static char *without(const char *toml, const char *name, int *found)
{
    mk_sb out = MK_SB_INIT;
    int skipping = 0;
    *found = 0;
    for (const char *line = toml; *line;) {
        size_t len = strcspn(line, "\n");
        const char *h = header(line);
        if (h) {
            skipping = is_ours(h, name);
            if (skipping && !*found && out.len >= 2 && strcmp(out.s + out.len - 2, "\n\n") == 0)
                out.s[--out.len] = 0;
            *found |= skipping;
        }
        if (!skipping)
            mk_sb_printf(&out, "%.*s%s", (int)len, line, line[len] ? "\n" : "");
        line += len + (line[len] == '\n');
    }
    char *s = mk_sb_take(&out);
    return s ? s : mk_xstrdup("");
}

int mk_containerd_has(const char *toml, const char *name)
{
    int found;
    free(without(toml, name, &found));
    return found;
}

char *mk_containerd_edit(const char *toml, const char *name, const char *binary)
{
    int found;
    char *rest = without(toml, name, &found);
    if (!binary)
        return rest;
    mk_sb out = MK_SB_INIT;
    size_t len = strlen(rest);
    mk_sb_puts(&out, rest);
    if (len == 0)
        mk_sb_puts(&out, "version = 2\n");
    else if (rest[len - 1] != '\n')
        mk_sb_puts(&out, "\n");
    mk_sb_puts(&out, "\n");   /* always: uninstall takes exactly this one away */
    mk_sb_printf(&out,
                 "[" RUNTIMES "%s]\n"
                 "  # added by `mokka container-runtime install`; `... uninstall` removes it\n"
                 "  runtime_type = \"io.containerd.runc.v2\"\n"
                 "\n"
                 "[" RUNTIMES "%s.options]\n"
                 "  BinaryName = \"%s\"\n",
                 name, name, binary);
    free(rest);
    return mk_sb_take(&out);
}

char *mk_runtimeclass_yaml(const char *name)
{
    return mk_xasprintf("# A pod runs under Mokka's runtime shim with runtimeClassName: %s\n"
                        "apiVersion: node.k8s.io/v1\n"
                        "kind: RuntimeClass\n"
                        "metadata:\n"
                        "  name: %s\n"
                        "handler: %s\n",
                        name, name, name);
}
