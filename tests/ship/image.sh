#!/bin/sh
# tests/ship/image.sh - CI check of ci/image/Dockerfile without docker: lints
# it with dockerfile-utils (npm) and checks that it names what the release
# and the DaemonSets use: the archive's file name, the stages, the plugin
# tag argument, the older plugin where the grey-release overlay looks for
# it, and ci/deploy's image name. Exit 1 on any finding.
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
grep -q '^FROM .* AS mokka$' "$df" || fail "$df has no mokka stage"
grep -q '^FROM mokka AS device-plugin$' "$df" || fail "$df has no device-plugin stage"
grep -q 'COPY dist/mokka_${MOKKA_VERSION}_linux_${TARGETARCH}.tar.gz' "$df" ||
    fail "$df does not copy the release archive by its name in dist/"
version=$(sed -n 's/^MOKKA_VERSION := //p' Makefile)
grep -q "^ARG MOKKA_VERSION=$version\$" "$df" || fail "$df's MOKKA_VERSION is not $version (Makefile)"
grep -q "image: mokka-device-plugin:$version\$" ci/deploy/mokka-daemonset.yaml ||
    fail "ci/deploy/mokka-daemonset.yaml does not run mokka-device-plugin:$version"
echo "image: stages plugin, mokka, device-plugin; archive, version $version and ci/deploy's image name agree"
