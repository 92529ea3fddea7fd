#!/bin/sh
# ci/smi-builds.sh - fetches nvidia-smi builds of other driver lines than the
# one ci/deps.sh installs, for tests/e2e/test_nvidia_smi.py: Debian's
# nvidia-tesla-smi (525) and nvidia-tesla-470-smi (470), unpacked with
# dpkg -x (they cannot be installed beside nvidia-smi) into
#   $MOKKA_SMI_BUILDS (default /var/cache/mokka/nvidia-smi)/PACKAGE_VERSION/nvidia-smi
# Nothing is installed. A package the archive does not have (Ubuntu, other
# releases) is skipped with a message; the tests then skip those builds,
# saying so. Needs the non-free component ci/deps.sh enables.
set -u
dir=${MOKKA_SMI_BUILDS:-/var/cache/mokka/nvidia-smi}
mkdir -p "$dir" || { echo "smi-builds: cannot create $dir" >&2; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for pkg in nvidia-tesla-smi nvidia-tesla-470-smi; do
    ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^  Candidate: //p')
    if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
        echo "smi-builds: $pkg is not in the apt sources here: skipped"
        continue
    fi
    out="$dir/${pkg}_$ver"
    [ -x "$out/nvidia-smi" ] && continue
    if ! (cd "$tmp" && apt-get download -q "$pkg=$ver" > /dev/null 2>&1); then
        echo "smi-builds: could not download $pkg $ver: skipped"
        continue
    fi
    rm -rf "$tmp/x" && mkdir "$tmp/x" && dpkg -x "$tmp"/"$pkg"_*.deb "$tmp/x"
    smi=$(find "$tmp/x" -name nvidia-smi -type f | head -n 1)
    [ -n "$smi" ] || { echo "smi-builds: no nvidia-smi in $pkg $ver: skipped"; continue; }
    mkdir -p "$out" && cp "$smi" "$out/nvidia-smi" && chmod 755 "$out/nvidia-smi"
    echo "smi-builds: $out/nvidia-smi"
    rm -f "$tmp"/*.deb
done
exit 0
