#!/bin/sh
# ci/sums.sh - writes dist/SHA256SUMS over every release file in dist/: the
# archives (ci/dist.sh), the Debian packages (ci/deb.sh) and the image
# archives (ci/image.sh), so that each of them can add its own without
# dropping the others'. Prints the file.
set -eu
cd "$(dirname "$0")/../dist"
# shellcheck disable=SC2046 # file names without spaces, by construction
sha256sum $(ls -- mokka_*.tar.gz mokka_*.deb *.image.tar 2>/dev/null) > SHA256SUMS
cat SHA256SUMS
