/* profiles.c - looking up the built-in GPU profiles: by profile name, and
 * by the GPU name a config gives (see profiles.h for the rule). */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "profiles.h"

#define MAX_WORDS 16
#define WORD_LEN 32

/* The variant a family named alone means, as NVIDIA's documents and the
 * seed's examples use the name: the SXM part of the family's DGX. Families
 * not listed have no default: named alone they are ambiguous. */
static const struct { const char *family, *profile; } family_defaults[] = {
    { "a100", "a100-sxm4-40gb" },
    { "h100", "h100-sxm5-80gb" },
};

typedef struct {
    char w[MAX_WORDS][WORD_LEN];
    size_t n;
} words;

/* Adds the words of s (lower case, without "nvidia"); a word too long to
 * keep is kept cut, which can only make it match less. */
static void split(const char *s, words *out)
{
    while (*s && out->n < MAX_WORDS) {
        size_t len = strcspn(s, " -_");
        if (len) {
            char *w = out->w[out->n];
            size_t k = 0;
            for (; k < len && k < WORD_LEN - 1; k++)
                w[k] = (char)tolower((unsigned char)s[k]);
            w[k] = 0;
            if (strcmp(w, "nvidia") != 0)
                out->n++;
        }
        s += len;
        s += *s != 0;
    }
}

/* `w` is `pw`, or (ending in a letter) `pw` without its trailing digits. */
static int word_matches(const char *w, const char *pw)
{
    size_t n = strlen(w);
    if (strcmp(w, pw) == 0)
        return 1;
    if (!n || !isalpha((unsigned char)w[n - 1]) || strncmp(w, pw, n) != 0)
        return 0;
    return pw[n] && strspn(pw + n, "0123456789") == strlen(pw + n);
}

static int matches(const words *name, const mk_profile *p)
{
    words pw = { .n = 0 };
    split(p->name, &pw);
    if (p->gpu)
        split(p->gpu, &pw);
    for (size_t i = 0; i < name->n; i++) {
        size_t j = 0;
        while (j < pw.n && !word_matches(name->w[i], pw.w[j]))
            j++;
        if (j == pw.n)
            return 0;
    }
    return 1;
}

static const mk_profile *family_default(const words *name, const mk_profile_match *m)
{
    if (name->n != 1)
        return NULL;
    for (size_t i = 0; i < sizeof family_defaults / sizeof family_defaults[0]; i++)
        if (strcmp(name->w[0], family_defaults[i].family) == 0)
            for (size_t k = 0; k < m->n && k < MK_PROFILE_CANDIDATES; k++)
                if (strcmp(m->cand[k]->name, family_defaults[i].profile) == 0)
                    return m->cand[k];
    return NULL;
}

const mk_profile *mk_profile_find(const char *name)
{
    for (const mk_profile *p = mk_profiles; p->name; p++)
        if (strcasecmp(p->name, name) == 0)
            return p;
    return NULL;
}

void mk_profile_resolve(const char *gpu_name, mk_profile_match *m)
{
    memset(m, 0, sizeof *m);
    for (const mk_profile *p = mk_profiles; p->name; p++)
        if (p->gpu && strcmp(p->gpu, gpu_name) == 0) {
            m->p = m->cand[0] = p;
            m->exact = 1;
            m->n = 1;
            return;
        }
    words name = { .n = 0 };
    split(gpu_name, &name);
    if (!name.n)
        return;
    for (const mk_profile *p = mk_profiles; p->name; p++)
        if (matches(&name, p) && m->n++ < MK_PROFILE_CANDIDATES)
            m->cand[m->n - 1] = p;
    if (m->n == 1)
        m->p = m->cand[0];
    else if ((m->p = family_default(&name, m)))
        m->family_default = 1;
}
