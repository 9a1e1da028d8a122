# shellcheck shell=bash
# Sourced: apt-get for Debian 13 (trixie) backports without touching the
# machine's apt sources.  Its own sources list, package lists and archives
# live under $CACHE_ROOT/apt-bpo; both architectures are known to it alone.
# Used by kernel/fetch-source.sh (linux-source-7.3) and
# tests/vm/infra/fetch-kernel.sh (the 7.3 kernel images).

# bpo_apt ARGS...: apt-get with the private configuration
bpo_apt() {
	local root=$CACHE_ROOT/apt-bpo
	apt-get -q -o Dir::Etc::sourcelist="$root/sources.list" \
		-o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists="$root/lists" \
		-o Dir::Cache="$root/cache" -o Dir::State::status=/dev/null \
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64 "$@"
}

# bpo_update: write the sources list and refresh the lists, one apt at a
# time (the kernel matrix fetches in parallel); holds fd 8 as the lock
bpo_update() {
	local root=$CACHE_ROOT/apt-bpo
	mkdir -p "$root/lists/partial" "$root/cache/archives/partial"
	exec 8>"$root/.lock"
	flock 8
	echo "deb ${PTSCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian} trixie-backports main" \
		>"$root/sources.list"
	bpo_apt update >&2
}
