#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# install.sh: the manifest validator's npm packages (package.json, pinned
# with their sha512 integrity in package-lock.json), installed once into
# /var/cache/ptscope/k8s-validate/<lockfile sha256>/; prints that directory.
# npm ci refuses a package whose integrity differs from the lockfile's.
# Later runs find the directory and touch no network; the npm cache lives
# beside it, so a reinstall of the same lockfile needs no network either.
# PTSCOPE_CACHE overrides /var/cache/ptscope.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${PTSCOPE_CACHE:-/var/cache/ptscope}
sum=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-16)
dir=$cache/k8s-validate/$sum
if [ -f "$dir/.installed" ]; then
	echo "$dir"
	exit 0
fi
command -v npm >/dev/null ||
	{ echo "validate/install.sh: npm not found; run 'make deps-image' as root" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
cp "$here/package.json" "$here/package-lock.json" "$dir/"
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error \
	--cache "$cache/npm") >&2
touch "$dir/.installed"
echo "$dir"
