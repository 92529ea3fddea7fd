/* yamlout.c - a JSON tree as YAML (see config.h). */
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "config.h"

#define FLOW_MAX_KEYS 5

/* Plain scalars that YAML 1.1 or 1.2 would resolve to a non-string. */
static const char *const typed_re =
    "^([-+]?(0|[1-9][0-9_]*)"                                  /* int */
    "|0x[0-9a-fA-F_]+|0o?[0-7_]+|0b[01_]+"                     /* hex, octal, binary */
    "|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\\.[0-9_]*)?"           /* base 60 */
    "|[-+]?([0-9][0-9_]*)?\\.[0-9._]*([eE][-+]?[0-9]+)?"       /* float (1.1: dots too) */
    "|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
    "|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)"
    "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*"                        /* timestamp */
    "|y|Y|n|N|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE"
    "|on|On|ON|off|Off|OFF|null|Null|NULL|~|=|<<)$";

static int needs_quotes(const char *s)
{
    static regex_t re;
    static int ready;
    if (!ready)
        ready = regcomp(&re, typed_re, REG_EXTENDED | REG_NOSUB) == 0 ? 1 : -1;
    if (!*s)
        return 1;
    return ready < 0 || regexec(&re, s, 0, NULL, 0) == 0;
}

typedef struct {
    yaml_emitter_t em;
    int failed;
} out_ctx;

static void emit(out_ctx *c, yaml_event_t *ev)
{
    if (!c->failed && !yaml_emitter_emit(&c->em, ev))
        c->failed = 1;
}

static void scalar(out_ctx *c, const char *s, int typed)
{
    yaml_event_t ev;
    yaml_scalar_style_t style = !typed && needs_quotes(s) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                                          : YAML_ANY_SCALAR_STYLE;
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s),
                                 style == YAML_ANY_SCALAR_STYLE, 1, style);
    emit(c, &ev);
}

static int is_scalar(const json_t *v)
{
    return !json_is_object(v) && !json_is_array(v);
}

static int all_scalars_object(const json_t *o)
{
    const char *k;
    json_t *v;
    if (json_object_size(o) > FLOW_MAX_KEYS)
        return 0;
    json_object_foreach((json_t *)o, k, v)
        if (!is_scalar(v))
            return 0;
    return 1;
}

static int all_scalars_array(const json_t *a)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
        if (!is_scalar(v))
            return 0;
    return 1;
}

static void node(out_ctx *c, const json_t *v)
{
    yaml_event_t ev;
    char buf[64];
    const char *k;
    json_t *x;
    size_t i;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                            all_scalars_object(v) ? YAML_FLOW_MAPPING_STYLE
                                                                  : YAML_BLOCK_MAPPING_STYLE);
        emit(c, &ev);
        json_object_foreach((json_t *)v, k, x) {
            scalar(c, k, 0);
            node(c, x);
        }
        yaml_mapping_end_event_initialize(&ev);
        emit(c, &ev);
        break;
    case JSON_ARRAY:
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                             all_scalars_array(v) ? YAML_FLOW_SEQUENCE_STYLE
                                                                  : YAML_BLOCK_SEQUENCE_STYLE);
        emit(c, &ev);
        json_array_foreach(v, i, x)
            node(c, x);
        yaml_sequence_end_event_initialize(&ev);
        emit(c, &ev);
        break;
    case JSON_STRING:
        scalar(c, json_string_value(v), 0);
        break;
    case JSON_INTEGER:
        snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        scalar(c, buf, 1);
        break;
    case JSON_REAL:
        snprintf(buf, sizeof buf, "%.15g", json_real_value(v));
        if (!strpbrk(buf, ".eni"))
            strcat(buf, ".0"); /* stays a float when read back */
        scalar(c, buf, 1);
        break;
    case JSON_TRUE:
        scalar(c, "true", 1);
        break;
    case JSON_FALSE:
        scalar(c, "false", 1);
        break;
    case JSON_NULL:
        scalar(c, "null", 1);
        break;
    }
}

int mk_yaml_write(FILE *f, const json_t *root)
{
    out_ctx c = { .failed = 0 };
    yaml_event_t ev;
    if (!yaml_emitter_initialize(&c.em)) {
        fprintf(stderr, "mokka: cannot start the YAML emitter\n");
        return -1;
    }
    yaml_emitter_set_output_file(&c.em, f);
    yaml_emitter_set_unicode(&c.em, 1);
    yaml_emitter_set_width(&c.em, -1);
    yaml_emitter_set_indent(&c.em, 2);
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    emit(&c, &ev);
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    emit(&c, &ev);
    node(&c, root);
    yaml_document_end_event_initialize(&ev, 1);
    emit(&c, &ev);
    yaml_stream_end_event_initialize(&ev);
    emit(&c, &ev);
    if (c.failed)
        fprintf(stderr, "mokka: writing YAML: %s\n",
                c.em.problem ? c.em.problem : "the emitter failed");
    yaml_emitter_delete(&c.em);
    return c.failed ? -1 : 0;
}
