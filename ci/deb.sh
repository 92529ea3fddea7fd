#!/bin/sh
# ci/deb.sh - the Debian package: copies the sources and ci/debian/ (as
# debian/) into build-deb/mokka-VERSION/, builds it there with
# dpkg-buildpackage (debhelper; a cross build when ARCH is not the
# machine's own, see ci/cross-deps.sh), checks it with lintian (errors fail,
# warnings are printed) and puts dist/mokka_VERSION_ARCH.deb beside the
# archives, updating dist/SHA256SUMS.
#
#   sh ci/deb.sh VERSION [ARCH]        (make deb [DEB_ARCH=arm64])
set -eu
[ $# -ge 1 ] || { echo "usage: sh ci/deb.sh VERSION [ARCH]" >&2; exit 2; }
version=$1
native=$(dpkg --print-architecture)
arch=${2:-$native}
cd "$(dirname "$0")/.."

for tool in dpkg-buildpackage dh lintian; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "deb: $tool is missing: apt-get install dpkg-dev debhelper lintian" >&2; exit 3; }
done
: "${SOURCE_DATE_EPOCH:=$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
export SOURCE_DATE_EPOCH

tree="build-deb/mokka-$version"
rm -rf build-deb
mkdir -p "$tree"
git ls-files -z -- Makefile README.md LICENSE lib src fixtures completions |
    tar --null -T - -cf - | tar -xf - -C "$tree"
cp -R ci/debian "$tree/debian"
cat > "$tree/debian/changelog" <<END
mokka ($version) unstable; urgency=medium

  * Mokka $version.

 -- Mokka maintainers <maintainers@users.noreply.a-seed-d2a8a7bf.example>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
END

set -- -b -us -uc
[ "$arch" = "$native" ] || set -- "$@" -a "$arch" -Pcross,nocheck
(cd "$tree" && dpkg-buildpackage "$@")

deb="build-deb/mokka_${version}_$arch.deb"
lrc=0
lintian --fail-on error --no-tag-display-limit "$deb" > build-deb/lintian.txt 2>&1 || lrc=$?
cat build-deb/lintian.txt
echo "deb: lintian: $(grep -c '^E:' build-deb/lintian.txt || true) errors, $(grep -c '^W:' build-deb/lintian.txt || true) warnings"
[ "$lrc" = 0 ] || { echo "deb: lintian found errors in $deb" >&2; exit 1; }
mkdir -p dist
cp "$deb" dist/
sh ci/sums.sh > /dev/null
echo "deb: dist/mokka_${version}_$arch.deb ($(wc -c < "$deb") bytes)"
