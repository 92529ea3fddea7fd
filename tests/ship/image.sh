#!/bin/sh
# tests/ship/image.sh - CI check of ci/image/Dockerfile without docker: lints
# it with dockerfile-utils (npm) and checks that it names what the release
# and the DaemonSets use: the archive's file name, the stages, the plugin
# tag argument, the older plugin where the grey-release overlay looks for
# it, and ci/deploy's image name; that make image (ci/image.sh) installs the same
# packages and refuses a missing or foreign plugin. Exit 1 on any finding.
# shellcheck disable=SC2016 # the Dockerfile's ${...} are matched literally
set -eu
cd "$(dirname "$0")/../.."
df=ci/image/Dockerfile
fail() { echo "image: FAIL: $*" >&2; exit 1; }
bin=$(sh tests/ship/npmtool.sh dockerfile-utils@0.16.3)
"$bin/dockerfile-utils" lint "$df" || fail "dockerfile-utils lint $df"
echo "image: dockerfile-utils lint $df: no problems"
grep -q '^ARG PLUGIN_TAG=' "$df" || fail "$df has no PLUGIN_TAG argument"
grep -q '^FROM ${PLUGIN_IMAGE}:${PLUGIN_TAG} AS plugin$' "$df" || fail "$df does not start from NVIDIA's plugin image"
grep -q '^FROM ${PLUGIN_IMAGE}:${OLD_PLUGIN_TAG} AS plugin-old$' "$df" ||
    fail "$df has no stage for the older plugin line (the grey-release overlay's)"
old_path=$(sed -n 's/.*MOKKA_DEVICE_PLUGIN_OLD, value: \([^}]*\)}.*/\1/p' \
    ci/deploy/grey-release/daemonset-grey.yaml)
grep -q "^COPY --from=plugin-old /usr/bin/nvidia-device-plugin $old_path\$" "$df" ||
    fail "$df does not put the older plugin where ci/deploy/grey-release looks ($old_path)"
grep -q '^COPY --from=plugin /usr/bin/gpu-feature-discovery /usr/bin/gpu-feature-discovery$' "$df" ||
    fail "$df does not copy gpu-feature-discovery from NVIDIA's image (the DaemonSet runs --gfd)"
grep -q '^FROM .* AS mokka$' "$df" || fail "$df has no mokka stage"
grep -q '^FROM mokka AS device-plugin$' "$df" || fail "$df has no device-plugin stage"
grep -q 'COPY dist/mokka_${MOKKA_VERSION}_linux_${TARGETARCH}.tar.gz' "$df" ||
    fail "$df does not copy the release archive by its name in dist/"
version=$(sed -n 's/^MOKKA_VERSION := //p' Makefile)
grep -q "^ARG MOKKA_VERSION=$version\$" "$df" || fail "$df's MOKKA_VERSION is not $version (Makefile)"
grep -q "image: mokka-device-plugin:$version\$" ci/deploy/mokka-daemonset.yaml ||
    fail "ci/deploy/mokka-daemonset.yaml does not run mokka-device-plugin:$version"
echo "image: stages plugin, mokka, device-plugin; archive, version $version and ci/deploy's image name agree"

# make image (ci/image.sh) builds what the Dockerfile builds: the same packages
# over Debian, and it refuses a missing or foreign plugin before building anything.
pkgs=$(sed -n '/apt-get install/,/rm -rf/p' "$df" | tr -s ' ' '\n' | grep -E '^(lib|ca-)' | sort | paste -sd' ' -)
[ "$pkgs" = "$(grep -v '^#' ci/image/packages | sort | paste -sd' ' -)" ] ||
    fail "$df installs $pkgs; ci/image/packages (make image) lists otherwise"
out=$(PLUGIN='' PLUGIN_arm64='' sh ci/image.sh "$version" arm64 2>&1) && fail "ci/image.sh ran without a plugin"
{ echo "$out" | grep -q 'no NVIDIA device plugin binary for arm64: make image PLUGIN_arm64=' &&
    echo "$out" | grep -q 'nvcr.io/nvidia/k8s-device-plugin' && echo "$out" | grep -q 'go build'; } ||
    fail "ci/image.sh without a plugin does not say how to get one: $out"
out=$(PLUGIN=/bin/true sh ci/image.sh "$version" arm64 2>&1) && fail "ci/image.sh took an amd64 program for arm64"
echo "$out" | grep -q 'is not a linux/arm64 program' || fail "ci/image.sh on a foreign plugin: $out"
out=$(PLUGIN=/bin/true GFD=/etc/os-release sh ci/image.sh "$version" amd64 2>&1) && fail "ci/image.sh took a GFD that is no program"
echo "$out" | grep -q 'GFD=/etc/os-release is not an executable file' || fail "ci/image.sh on a bad GFD: $out"
echo "image: make image lists the Dockerfile's packages, refuses a missing plugin (saying how to get one) and a foreign plugin, and a GFD that is no program"
