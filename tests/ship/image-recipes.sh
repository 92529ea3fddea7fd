#!/bin/sh
# tests/ship/image-recipes.sh - the two image recipes give the same image:
# `make image` (mmdebstrap, no registry) and ci/image/Dockerfile built by
# podman with no registry either: its BASE is make image's own Debian base
# (loaded from the cached layer) and its plugin images are stand-ins built
# FROM scratch with the stand-in plugin. The Dockerfile still runs its
# apt-get steps over that base (from the archive apt uses here), so this
# checks the recipes on top of Debian: the same files with the same modes
# and owners in the whole root filesystem (apt's and dpkg's state left
# out, see image_diff.py), mokka and the plugins byte for byte, the same
# entrypoint and PATH. amd64 only (the Dockerfile's RUN steps run here).
# Exit 1 on any difference, 3 when a tool is missing.
set -eu
cd "$(dirname "$0")/../.."
version=$(sed -n 's/^MOKKA_VERSION := //p' Makefile)
arch=amd64
fail() { echo "image-recipes: FAIL: $*" >&2; exit 1; }
now() { date +%s; }
for t in mmdebstrap podman; do
    command -v $t > /dev/null 2>&1 || { echo "image-recipes: no $t (apt-get install $t)"; exit 3; }
done
work=$(mktemp -d /tmp/mokka-recipes.XXXXXX)
# a private store; limits no higher than a VM without CAP_SYS_RESOURCE allows
pm() { podman --root "$work/podman" --runroot "$work/podman-run" --storage-driver vfs "$@"; }
lim="--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"
cleanup() {
    pm rm -af > /dev/null 2>&1 || true
    umount -R "$work/podman" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

t0=$(now)
mkdir -p build-dist
plugin=build-dist/$arch/build/tests/fake-device-plugin
if ! { make dist DIST_ARCHES=$arch && make -j"$(nproc)" O="build-dist/$arch" "$plugin" &&
        make image IMAGE_ARCHES=$arch PLUGIN="$plugin" PLUGIN_OLD="$plugin" GFD="$plugin"; } > "$work/log" 2>&1; then
    tail -n 30 "$work/log"; fail "make image"
fi
echo "image-recipes: make image $arch ($(($(now) - t0)) s)"

# The Dockerfile's inputs, all local: the base, the two plugin images, the archive.
t0=$(now)
base=$(sh ci/image/base.sh $arch)
python3 ci/image/archive.py "$work/base.tar" --tag mokka-test-base:1 --arch $arch --epoch 0 \
    --entrypoint null --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --layer "$base:base"
pm load -q -i "$work/base.tar" > /dev/null
mkdir -p "$work/plugin" "$work/ctx/dist"
cp "$plugin" "$work/plugin/nvidia-device-plugin"
printf 'FROM scratch\nCOPY nvidia-device-plugin /usr/bin/nvidia-device-plugin\nCOPY nvidia-device-plugin /usr/bin/gpu-feature-discovery\n' \
    > "$work/plugin/Containerfile"
pm build -q -t localhost/test-plugin:new -t localhost/test-plugin:old "$work/plugin" > /dev/null
cp "dist/mokka_${version}_linux_$arch.tar.gz" "$work/ctx/dist/"
for target in mokka device-plugin; do
    name=mokka; [ $target = mokka ] || name=mokka-device-plugin
    # shellcheck disable=SC2086 # $lim: two options
    pm build $lim --pull=never --network=host -f "$PWD/ci/image/Dockerfile" --target $target \
        --build-arg BASE=localhost/mokka-test-base:1 --build-arg PLUGIN_IMAGE=localhost/test-plugin \
        --build-arg PLUGIN_TAG=new --build-arg OLD_PLUGIN_TAG=old --build-arg TARGETARCH=$arch \
        --build-arg MOKKA_VERSION="$version" -t "localhost/dockerfile-$name:1" "$work/ctx" > "$work/build.log" 2>&1 ||
        { tail -n 30 "$work/build.log"; fail "podman build ci/image/Dockerfile --target $target"; }
    pm load -q -i "dist/${name}_${version}_linux_$arch.image.tar" > /dev/null
    for img in "localhost/dockerfile-$name:1" "$name:$version"; do
        c=$(pm create "$img")
        pm export "$c" > "$work/$(echo "$img" | tr '/:' '__').rootfs.tar"
        pm inspect --format '{{json .Config.Entrypoint}} {{json .Config.Env}}' "$img" > "$work/$(echo "$img" | tr '/:' '__').cfg"
        pm rm "$c" > /dev/null
    done
    a="$work/localhost_dockerfile-${name}_1" b="$work/${name}_$version"
    cmp -s "$a.cfg" "$b.cfg" || fail "$name: entrypoint and env differ: Dockerfile $(cat "$a.cfg"), make image $(cat "$b.cfg")"
    echo "image-recipes: $name: the Dockerfile's image and make image's, $(cat "$b.cfg"):"
    python3 tests/ship/image_diff.py "$a.rootfs.tar" "$b.rootfs.tar" || fail "$name: the recipes' files differ"
done
echo "image-recipes: all passed ($(($(now) - t0)) s for the Dockerfile builds and comparisons)"
