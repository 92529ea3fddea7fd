#!/bin/sh
# ci/apt-archive.sh - finds the Debian archive this machine's apt already
# uses for a release, so that ci/deps.sh can add components from the same
# place (a mirror, a proxy, a snapshot) instead of naming a host of its own.
#
#   sh ci/apt-archive.sh [--root DIR] CODENAME
#
# Reads /etc/apt/sources.list and /etc/apt/sources.list.d/*.list (one-line
# form: deb [signed-by=K ...] URI SUITE COMPONENTS...) and
# /etc/apt/sources.list.d/*.sources (deb822: Types, URIs, Suites,
# Components, Signed-By, Enabled), in apt's order, under DIR (tests only;
# default /). The first enabled `deb` entry that serves CODENAME itself (not
# only CODENAME-security, which lives in another archive) wins; prints its
# URIs, the suites of that archive (CODENAME and its -updates, -backports,
# ... that the machine uses) and its Signed-By, as deb822 fields:
#
#   URIs: http://mirror.example/debian
#   Suites: bookworm bookworm-updates
#   Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
#
# Exit 1 with a message naming the files read when no entry serves CODENAME.
# ci/deps.sh's own file (mokka-nvidia-peers.sources) is not read.
set -eu
root=""
if [ "${1:-}" = --root ]; then root=${2:?}; shift 2; fi
[ $# = 1 ] || { echo "usage: sh ci/apt-archive.sh [--root DIR] CODENAME" >&2; exit 2; }
codename=$1
apt="$root/etc/apt"

# The files in apt's order: sources.list, then sources.list.d/ by name.
files=""
for f in "$apt/sources.list" "$apt"/sources.list.d/*; do
    [ -f "$f" ] || continue
    case "$f" in
    */mokka-nvidia-peers.sources) continue ;;
    */sources.list|*.list|*.sources) files="$files${files:+
}$f" ;;
    esac
done

found=""
if [ -n "$files" ]; then
    # shellcheck disable=SC2086 # one file per line, no spaces in apt's names
    found=$(IFS='
'; awk -v codename="$codename" '
# Each entry of the release (its suites but -security) becomes one record:
# whether it serves CODENAME itself, uris, suites, signed-by (deb822 lines
# kept as they are, so an inline key block survives), in the order apt reads.
function emit(types, uris, suites, signed, enabled,   n, s, i, keep, hit) {
    if (enabled ~ /^(no|false|0)$/) return
    if ((" " types " ") !~ / deb /) return
    if (uris == "" || uris ~ /^cdrom:/) return
    n = split(suites, s, /[ \t]+/)
    keep = ""
    for (i = 1; i <= n; i++) {
        hit = hit || s[i] == codename
        if (s[i] == codename || (index(s[i], codename "-") == 1 && s[i] != codename "-security"))
            keep = keep (keep == "" ? "" : " ") s[i]
    }
    if (keep == "") return
    gsub(/\n/, "\001", signed)    # one record a line; ci/deps.sh gets the lines back
    printf "%d\t%s\t%s\t%s\n", hit, uris, keep, signed
}
function flush() {
    if (in822) emit(tolower(f["types"]), f["uris"], f["suites"], f["signed-by"], tolower(f["enabled"]))
    in822 = 0; split("", f); last = ""
}
FNR == 1 { flush(); deb822 = FILENAME ~ /\.sources$/ }
deb822 && /^[ \t]*#/ { next }
deb822 && /^[ \t]*$/ { flush(); next }
deb822 && /^[ \t]/ {           # a continuation line (an inline Signed-By key)
    if (last != "") f[last] = f[last] "\n" $0
    next
}
deb822 {
    in822 = 1
    k = tolower($0); sub(/:.*/, "", k)
    v = $0; sub(/^[^:]*:[ \t]*/, "", v); sub(/[ \t]+$/, "", v)
    f[k] = v; last = k
    next
}
{                               # one-line form
    sub(/#.*/, "")
    if (NF < 3 || $1 != "deb") next
    signed = ""; i = 2
    if ($2 ~ /^\[/) {
        opts = ""
        for (; i <= NF; i++) { opts = opts " " $i; if ($i ~ /\]$/) { i++; break } }
        gsub(/[\[\]]/, "", opts)
        n = split(opts, o, /[ \t]+/)
        for (j = 1; j <= n; j++)
            if (tolower(o[j]) ~ /^signed-by=/) { signed = o[j]; sub(/^[^=]*=/, "", signed) }
    }
    emit("deb", $i, $(i + 1), signed, "yes")
}
END { flush() }
' $files)
fi

# The first entry that serves the codename itself; the suites of every entry
# with the same URIs (one-line sources give one suite a line).
first=$(printf '%s\n' "$found" | grep -m 1 '^1' || true)
if [ -z "$first" ]; then
    if [ -n "$files" ]; then
        echo "apt-archive: no enabled 'deb' source serves Debian '$codename' (read: $(printf '%s\n' "$files" | paste -sd ' ' -))" >&2
    else
        echo "apt-archive: there are no apt sources under $apt" >&2
    fi
    echo "apt-archive: add the Debian archive (or its mirror) for '$codename' to apt's sources, then run again" >&2
    exit 1
fi
uris=$(printf '%s' "$first" | cut -f2)
signed=$(printf '%s' "$first" | cut -f4-)
suites=$(printf '%s\n' "$found" | awk -F'\t' -v u="$uris" '$2 == u { n = split($3, s, " "); for (i = 1; i <= n; i++) if (!seen[s[i]]++) out = out (out == "" ? "" : " ") s[i] } END { print out }')
echo "URIs: $uris"
echo "Suites: $suites"
[ -z "$signed" ] || printf 'Signed-By: %s\n' "$signed" | tr '\001' '\n'
