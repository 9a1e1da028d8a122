# shellcheck shell=bash
# Sourced: apt-get for a Debian suite the machine's sources do not carry
# (Debian 13's trixie-backports, Debian 11's bullseye), without touching
# the machine's apt sources.  Each suite has its own sources list, package
# lists and archives under $CACHE_ROOT/apt-<dir>; both architectures are
# known to it alone.  Used by kernel/fetch-source.sh (linux-source-7.3)
# and tests/vm/infra/fetch-kernel.sh (the 7.3 and 5.10 kernel images).

# suite_root SUITE: the private configuration's directory of SUITE
suite_root() {
	case $1 in
	trixie-backports) echo "$CACHE_ROOT/apt-bpo" ;;
	*) echo "$CACHE_ROOT/apt-$1" ;;
	esac
}

# suite_apt SUITE ARGS...: apt-get with SUITE's private configuration
suite_apt() {
	local root
	root=$(suite_root "$1")
	shift
	apt-get -q -o Dir::Etc::sourcelist="$root/sources.list" \
		-o Dir::Etc::sourceparts=/dev/null -o Dir::State::Lists="$root/lists" \
		-o Dir::Cache="$root/cache" -o Dir::State::status=/dev/null \
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64 "$@"
}

# suite_update SUITE: write SUITE's sources list and refresh its lists,
# one apt at a time (the kernel matrix fetches in parallel); holds fd 8
# as the lock
suite_update() {
	local root
	root=$(suite_root "$1")
	mkdir -p "$root/lists/partial" "$root/cache/archives/partial"
	exec 8>"$root/.lock"
	flock 8
	echo "deb ${PTSCOPE_DEBIAN_MIRROR:-http://deb.debian.org/debian} $1 main" \
		>"$root/sources.list"
	suite_apt "$1" update >&2
}

# bpo_apt ARGS..., bpo_update: the same for trixie-backports
bpo_apt() {
	suite_apt trixie-backports "$@"
}

bpo_update() {
	suite_update trixie-backports
}
