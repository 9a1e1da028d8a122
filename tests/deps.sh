#!/bin/bash
# Install the Debian packages given as arguments, only those missing.
# --arm64 first adds the arm64 architecture (for the static cross build).
set -euo pipefail

if [ "${1:-}" = "--arm64" ]; then
	shift
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		touch /tmp/.ptscope-apt-stale
	fi
fi

native=$(dpkg --print-architecture)
missing=()
for pkg in "$@"; do
	# qualify the architecture: with arm64 added, a bare name is ambiguous
	case "$pkg" in
	*:*) ;;
	*) pkg="$pkg:$native" ;;
	esac
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "ptscope: missing packages: ${missing[*]}; run 'make deps' as root" >&2
	exit 1
fi
echo "ptscope: installing ${missing[*]}"
apt-get update -qq
rm -f /tmp/.ptscope-apt-stale
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
