#!/bin/sh
# tests/ship/npmtool.sh - installs an npm package at a fixed version once,
# in a cache of its own ($MOKKA_NPM_CACHE, default ~/.cache/mokka-ci/npm),
# and prints the directory of its commands.
#
#   bin=$(sh tests/ship/npmtool.sh gitlab-ci-local@4.60.1)
set -eu
spec=$1
dir="${MOKKA_NPM_CACHE:-${HOME:-/tmp}/.cache/mokka-ci/npm}/$spec"
if [ ! -f "$dir/.done" ]; then
    command -v npm >/dev/null 2>&1 || { echo "npmtool: npm is missing (Node 20: apt-get install nodejs npm)" >&2; exit 3; }
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$spec" >&2
    touch "$dir/.done"
fi
echo "$dir/node_modules/.bin"
