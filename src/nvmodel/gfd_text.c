/* gfd_text.c - how gpu-feature-discovery writes a label: the names it
 * sanitises for values (products, machines), and a label set over one of
 * the same key as GFD merges its labelers' maps. */
#include "nvmodel_int.h"

void mk_gfd_set(json_t *labels, const char *key, const char *value)
{
    json_object_set_new(labels, key, json_string(value));
}

void mk_gfd_sanitise(const char *in, char *out, size_t len)
{
    size_t n = 0;
    int blank = 0;
    if (!len)
        return;
    for (const unsigned char *s = (const unsigned char *)in; *s; s++) {
        int c = *s;
        if (c == ' ') {
            blank = n > 0;
            continue;
        }
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.'))
            continue;           /* dropped before the blanks are joined */
        if (blank && n + 1 < len)
            out[n++] = '-';
        blank = 0;
        if (n + 1 < len)
            out[n++] = (char)c;
    }
    out[n] = 0;
}
