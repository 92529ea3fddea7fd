#!/bin/sh
# ci/image.sh - Mokka's images without a registry: for each architecture,
# mokka-device-plugin:VERSION (what ci/deploy runs: mokka, NVIDIA's
# nvidia-device-plugin and gpu-feature-discovery) and mokka:VERSION (mokka
# alone), as docker-archive
# tarballs dist/NAME_VERSION_linux_ARCH.image.tar, added to dist/SHA256SUMS.
# Same files, paths and entrypoints as ci/image/Dockerfile, built from:
#   - the base: Debian's packages by mmdebstrap (ci/image/base.sh, cached);
#   - the release archive dist/mokka_VERSION_linux_ARCH.tar.gz (ci/dist.sh,
#     run here once the plugins are checked);
#   - NVIDIA's device plugin and gpu-feature-discovery binaries, given per
#     architecture.
#
#   sh ci/image.sh VERSION ARCH...      (make image IMAGE_ARCHES="amd64 arm64")
#
# PLUGIN_<ARCH>=PATH (PLUGIN_amd64, PLUGIN_arm64): the nvidia-device-plugin
# for ARCH; PLUGIN=PATH serves every architecture it is built for.
# GFD_<ARCH> / GFD: gpu-feature-discovery for ARCH (built from the same
# tree as the plugin; NVIDIA's image has both), which the DaemonSet runs
# (`mokka run --cluster --gfd`); without it the image is built and says
# that its pods must run without --gfd.
# PLUGIN_OLD_<ARCH> / PLUGIN_OLD: optional, the older release line the
# grey-release overlay runs (/opt/nvidia-device-plugin-old/).
# Reproducible: layers and archives from ci/image/layer.py and archive.py,
# times from the last commit (SOURCE_DATE_EPOCH), the base's clamped to
# its Debian release's date; two runs give the same bytes.
set -eu
[ $# -ge 2 ] || { echo "usage: sh ci/image.sh VERSION ARCH..." >&2; exit 2; }
version=$1; shift
cd "$(dirname "$0")/.."
: "${SOURCE_DATE_EPOCH:=$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
work=build-image
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
PATH_ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# machine ARCH: the ELF e_machine number of ARCH's programs.
machine() {
    case "$1" in
    amd64) echo 62 ;;
    arm64) echo 183 ;;
    *) echo "image: architecture '$1' is not supported (amd64, arm64)" >&2; exit 2 ;;
    esac
}

# plugin VAR ARCH: the binary VAR_ARCH or VAR names, checked to be an ARCH
# program; empty when neither is set.
plugin() {
    path=$(eval "printf '%s' \"\${$1_$2:-\${$1:-}}\"")
    [ -n "$path" ] || return 0
    { [ -f "$path" ] && [ -x "$path" ]; } || { echo "image: $1=$path is not an executable file" >&2; exit 2; }
    got=$(od -An -tu2 -j18 -N2 "$path" | tr -d ' ')
    if [ "$(head -c 4 "$path" | od -An -c | tr -d ' ')" != '177ELF' ] || [ "$got" != "$(machine "$2")" ]; then
        echo "image: $path is not a linux/$2 program (ELF machine ${got:-none}): give the $2 build as $1_$2=PATH" >&2
        exit 2
    fi
    printf '%s' "$path"
}

triplet() { case "$1" in amd64) echo x86_64-linux-gnu ;; *) echo aarch64-linux-gnu ;; esac; }

# no_plugin ARCH: how to get NVIDIA's plugin for ARCH; exit 2.
no_plugin() {
    cat >&2 <<MSG
image: no NVIDIA device plugin binary for $1: make image PLUGIN_$1=/path/to/nvidia-device-plugin
(PLUGIN=PATH serves every architecture it is built for). To get one:
  - from NVIDIA's release image, on a machine with a registry:
      podman create --platform linux/$1 --name ndp nvcr.io/nvidia/k8s-device-plugin:v0.17.4
      podman cp ndp:/usr/bin/nvidia-device-plugin . && podman cp ndp:/usr/bin/gpu-feature-discovery .
      podman rm ndp
  - or built from its release tag with Go (1.23 or later):
      git clone -b v0.17.4 https://github.com/NVIDIA/k8s-device-plugin && cd k8s-device-plugin
      GOARCH=$1 CGO_ENABLED=1 CC=$(triplet "$1")-gcc go build -ldflags "-s -w \\
        '-extldflags=-Wl,--export-dynamic -Wl,--unresolved-symbols=ignore-in-object-files'" \\
        ./cmd/nvidia-device-plugin ./cmd/gpu-feature-discovery    (and GFD_$1=PATH)
MSG
    exit 2
}

# Every input is checked before anything is built.
for arch in "$@"; do
    machine "$arch" > /dev/null
    new=$(plugin PLUGIN "$arch")
    [ -n "$new" ] || no_plugin "$arch"
    plugin PLUGIN_OLD "$arch" > /dev/null
    plugin GFD "$arch" > /dev/null
done
sh ci/dist.sh "$version" "$@"

# image ARCH NAME ENTRYPOINT DESCRIPTION LAYER...: one archive in dist/.
image() {
    arch=$1 name=$2 entrypoint=$3 description=$4; shift 4
    set -- "dist/${name}_${version}_linux_$arch.image.tar" --tag "$name:$version" --arch "$arch" \
        --epoch "$SOURCE_DATE_EPOCH" --entrypoint "$entrypoint" --env "$PATH_ENV" \
        --label "org.opencontainers.image.title=$name" \
        --label "org.opencontainers.image.description=$description" \
        --label "org.opencontainers.image.version=$version" \
        --label "org.opencontainers.image.revision=$revision" \
        --label "org.opencontainers.image.created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)" \
        --label "org.opencontainers.image.licenses=Apache-2.0" \
        --label "io.mokka.base=$base_label" "$@"
    python3 ci/image/archive.py "$@"
    echo "image: $1 ($(wc -c < "$1") bytes)"
}

# build ARCH: the base, the mokka layer, the plugin layer, both archives.
build() {
    arch=$1 t0=$(date +%s)
    base=$(sh ci/image/base.sh "$arch")
    t_base=$(($(date +%s) - t0))
    base_label="debian $codename, mmdebstrap, release of $(date -u -d "@$(sed -n 's/^ *"epoch": \([0-9]*\).*/\1/p' "$base.json")" +%F)"
    w="$work/$arch"
    rm -rf "$w" && mkdir -p "$w/mokka/opt" "$w/mokka/usr/local/bin" "$w/plugin/usr/bin"
    tar -xzf "dist/mokka_${version}_linux_$arch.tar.gz" -C "$w/mokka/opt"
    mv "$w/mokka/opt/mokka_${version}_linux_$arch" "$w/mokka/opt/mokka"
    ln -s /opt/mokka/mokka "$w/mokka/usr/local/bin/mokka"
    python3 ci/image/layer.py dir "$w/mokka" "$w/mokka-layer" --epoch "$SOURCE_DATE_EPOCH"
    new=$(plugin PLUGIN "$arch")
    install -m 755 "$new" "$w/plugin/usr/bin/nvidia-device-plugin"
    old=$(plugin PLUGIN_OLD "$arch")
    if [ -n "$old" ]; then
        install -D -m 755 "$old" "$w/plugin/opt/nvidia-device-plugin-old/nvidia-device-plugin"
    else
        echo "image: no PLUGIN_OLD for $arch: the grey-release overlay's older plugin is not in the image"
    fi
    gfd=$(plugin GFD "$arch")
    if [ -n "$gfd" ]; then
        install -m 755 "$gfd" "$w/plugin/usr/bin/gpu-feature-discovery"
    else
        echo "image: no GFD for $arch: gpu-feature-discovery is not in the image; ci/deploy's DaemonSet" \
            "runs it (--gfd): give GFD_$arch=PATH, or drop --gfd from its command" >&2
    fi
    python3 ci/image/layer.py dir "$w/plugin" "$w/plugin-layer" --epoch "$SOURCE_DATE_EPOCH"
    from="debian $codename packages, mmdebstrap --variant=apt (ci/image/base.sh)"
    add="ADD mokka_${version}_linux_$arch.tar.gz as /opt/mokka, /usr/local/bin/mokka"
    image "$arch" mokka '["mokka"]' "Mokka: NVIDIA GPUs mocked for tests, no GPU needed" \
        --layer "$base:$from" --layer "$w/mokka-layer:$add"
    image "$arch" mokka-device-plugin '["mokka","run","--cluster","--hold","--","nvidia-device-plugin"]' \
        "NVIDIA's device plugin on Mokka's virtual GPUs" --layer "$base:$from" --layer "$w/mokka-layer:$add" \
        --layer "$w/plugin-layer:COPY nvidia-device-plugin (sha256 $(sha256sum < "$new" | cut -c1-64))${gfd:+, gpu-feature-discovery}${old:+ and the older line}"
    echo "image: $arch built in $(($(date +%s) - t0)) s (the base $t_base s)"
    # for make bench (tests/bench/run.sh): this build's numbers
    {
        echo "commit $revision"
        echo "seconds $(($(date +%s) - t0))"
        echo "base_seconds $t_base"
        for name in mokka mokka-device-plugin; do
            echo "$name.bytes $(wc -c < "dist/${name}_${version}_linux_$arch.image.tar")"
        done
        echo "base.built_seconds $(sed -n 's/^ *"build_seconds": \([0-9]*\).*/\1/p' "$base.json")"
        echo "base.unpacked $(sed -n 's/^ *"unpacked": \([0-9]*\).*/\1/p' "$base.json")"
    } > "$w/stats"
}

mkdir -p dist
for arch in "$@"; do build "$arch"; done
sh ci/sums.sh
