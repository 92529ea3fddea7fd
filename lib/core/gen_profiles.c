/* gen_profiles.c - a build tool, not part of the library: parses the GPU
 * profiles (fixtures/profiles) and the config of the built-in universe with
 * the same loader as user configs and prints them as C, packed trees
 * (ypack.h) that profiles.h declares. A file that does not parse stops the
 * build with its file:line:col.
 *
 *   gen_profiles [--default CONFIG] fixtures/profiles/NAME.yaml... > profiles.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ypack.h"

#define MAX_FIELD 65535u   /* mk_ypnode keeps lines, columns and counts in 16 bits */

typedef struct {
    const char **v;        /* unique texts, in order of first use */
    size_t n, cap;
    unsigned bytes;        /* offset of the next one */
    unsigned *off;
} strtab;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        fprintf(stderr, "gen_profiles: out of memory\n");
        exit(1);
    }
    return p;
}

static unsigned intern(strtab *t, const char *s)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i], s) == 0)
            return t->off[i];
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->v = xrealloc(t->v, t->cap * sizeof *t->v);
        t->off = xrealloc(t->off, t->cap * sizeof *t->off);
    }
    t->v[t->n] = s;
    t->off[t->n] = t->bytes;
    t->bytes += (unsigned)strlen(s) + 1;
    return t->off[t->n++];
}

static int fits(const mk_ynode *y)
{
    if ((unsigned)y->line <= MAX_FIELD && (unsigned)y->col <= MAX_FIELD && y->n <= MAX_FIELD)
        return 1;
    fprintf(stderr, "%s:%d:%d: error: a built-in profile must stay under %u lines, columns and "
            "entries per map or list\n", y->file, y->line, y->col, MAX_FIELD);
    return 0;
}

/* Prints the nodes of `y` in preorder; counts them and their child slots. */
static int emit_node(const mk_ynode *y, strtab *t, unsigned *nodes, unsigned *slots)
{
    if (!fits(y))
        return -1;
    unsigned str = y->kind == MK_Y_SCALAR ? intern(t, y->str) : 0;
    printf("    { %d, %d, %d, %d, %zu, %u },\n", y->line, y->col, (int)y->kind,
           y->kind == MK_Y_SCALAR && y->quoted, y->n, str);
    (*nodes)++;
    *slots += (unsigned)(y->kind == MK_Y_MAP ? 2 * y->n : y->kind == MK_Y_SEQ ? y->n : 0);
    for (size_t i = 0; i < y->n && y->kind != MK_Y_SCALAR; i++)
        if ((y->kind == MK_Y_MAP && emit_node(y->keys[i], t, nodes, slots) != 0) ||
            emit_node(y->vals[i], t, nodes, slots) != 0)
            return -1;
    return 0;
}

/* `s` as a C string literal, with `nul` a \0 at its end: the string table is
 * one literal per text, so that a \0 is never read as the start of a longer
 * octal escape. '?' is escaped too (trigraphs). */
static void c_literal(const char *s, int nul)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f || *c == '?')
            printf("\\%03o", *c);
        else
            putchar(*c);
    }
    fputs(nul ? "\\0\"" : "\"", stdout);
}

/* The profile's name for the table: its file name without .yaml. */
static void base_name(const char *path, char *out, size_t len)
{
    const char *b = strrchr(path, '/');
    snprintf(out, len, "%s", b ? b + 1 : path);
    char *dot = strstr(out, ".yaml");
    if (dot && dot[5] == 0)
        *dot = 0;
}

typedef struct {
    char name[256];
    const char *gpu;       /* the root map's `name:`, or NULL */
    unsigned nodes, slots;
    mk_ydoc *doc;
} packed;

/* Loads a file and names it after the file; prints what is wrong with it. */
static int load(const char *path, packed *p)
{
    mk_diags d;
    mk_diags_init(&d);
    p->doc = mk_yload_file(path, &d);
    for (size_t k = 0; k < d.n; k++) {
        char line[1024];
        mk_diag_format(&d.v[k], line, sizeof line);
        fprintf(stderr, "%s\n", line);
    }
    mk_diags_free(&d);
    base_name(path, p->name, sizeof p->name);
    return p->doc ? 0 : -1;
}

/* Prints the tree as the arrays n<tag> (when not empty) and s<tag>. */
static int emit_tree(const char *tag, packed *p)
{
    strtab t = { 0 };
    int rc = 0;
    const mk_ynode *root = p->doc->root, *gpu = mk_yget(root, "name");
    p->gpu = gpu && gpu->kind == MK_Y_SCALAR ? gpu->str : NULL;
    if (root) {
        printf("static const mk_ypnode n%s[] = {\n", tag);
        rc = emit_node(root, &t, &p->nodes, &p->slots);
        printf("};\n");
    }
    printf("static const char s%s[] =\n", tag);
    for (size_t k = 0; k < t.n; k++) {
        fputs("    ", stdout);
        c_literal(t.v[k], 1);
        putchar('\n');
    }
    printf("    \"\";\n");
    free(t.v);
    free(t.off);
    return rc;
}

/* The mk_ypacked initializer of an emitted tree. */
static void emit_ref(const char *tag, const packed *p)
{
    if (p->nodes)
        printf("{ n%s, %u, %u, s%s }", tag, p->nodes, p->slots, tag);
    else
        printf("{ 0, 0, 0, s%s }", tag);
}

int main(int argc, char **argv)
{
    packed def = { 0 };
    const char *def_path = NULL;
    if (argc > 2 && strcmp(argv[1], "--default") == 0) {
        def_path = argv[2];
        argc -= 2;
        argv += 2;
    }
    int n = argc - 1, rc = 0;
    packed *ps = calloc((size_t)n + 1, sizeof *ps);
    if (!ps)
        return 1;
    printf("/* Generated by lib/core/gen_profiles.c from fixtures. Do not edit. */\n"
           "#include \"profiles.h\"\n");
    for (int i = 0; i < n && rc == 0; i++) {
        char tag[16];
        snprintf(tag, sizeof tag, "%d", i);
        if (load(argv[i + 1], &ps[i]) != 0 || emit_tree(tag, &ps[i]) != 0)
            rc = 1;
    }
    if (rc == 0 && def_path && (load(def_path, &def) != 0 || emit_tree("_default", &def) != 0))
        rc = 1;
    if (rc == 0) {
        printf("const mk_profile mk_profiles[] = {\n");
        for (int i = 0; i < n; i++) {
            char tag[16];
            snprintf(tag, sizeof tag, "%d", i);
            printf("    { \"%s\", ", ps[i].name);
            if (ps[i].gpu)
                c_literal(ps[i].gpu, 0);
            else
                putchar('0');
            printf(", ");
            emit_ref(tag, &ps[i]);
            printf(" },\n");
        }
        printf("    { 0, 0, { 0, 0, 0, 0 } }\n};\n");
        if (def_path) {
            printf("const mk_ypacked mk_default_config = ");
            emit_ref("_default", &def);
            printf(";\n");
        }
    }
    for (int i = 0; i < n; i++)
        mk_yfree(ps[i].doc);
    mk_yfree(def.doc);
    free(ps);
    return rc;
}
