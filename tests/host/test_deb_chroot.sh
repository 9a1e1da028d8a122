#!/bin/bash
# The Debian package in a clean Debian 12: a minimal bookworm made by
# debootstrap (minbase, with systemd), from the machine's own Debian
# mirror.  apt-get, chrooted there, installs the .deb with the dependencies
# it declares, and nothing else of ptscope's is in that tree; that
# system's systemd-analyze verify and security --offline judge the
# installed unit.  Then podman (runc) boots that system with its systemd
# as PID 1, and systemctl starts the unit as an administrator would (port
# and filter in /etc/default/ptscope): systemd applies the unit's
# sandbox, capability bounding set and no_new_privs; its process holds no
# capability once attached and sees a read-only root; its /metrics counts
# a known workload's mremap calls exactly; systemctl stop (SIGTERM) ends
# it with exit status 0.
#
# The bootstrapped system is cached as a tarball under PTSCOPE_CACHE
# (/var/cache/ptscope/debian12-ARCH.tar; about 30 s to make, 240 MB), and
# the packages apt downloads under PTSCOPE_CACHE/debian12-apt; each run
# unpacks a fresh copy.  DEB=FILE tests that package; without it, the
# package make deb built, when it is newer than the tree, else a new one.
# Every mount of the test's own is made in a mount namespace of its own,
# so none outlives it.
. "$(dirname "$0")/lib.sh"
# shellcheck source=unit.sh
. "$(dirname "$0")/unit.sh"
require_root
cd "$(dirname "$0")/../.." || exit 1

CACHE=${PTSCOPE_CACHE:-/var/cache/ptscope}
DARCH=$(dpkg --print-architecture)
BASE=$CACHE/debian12-$DARCH.tar
ARCHIVES=$CACHE/debian12-apt
ROOT=$TMP/root
# shellcheck disable=SC2034 # read by unit.sh
UNIT=$ROOT/lib/systemd/system/ptscope-exporter.service
CONTAINER=ptscope-test-deb-$$
BOOTED=

cleanup() {
	[ -n "$BOOTED" ] && podman rm -f -t 0 "$CONTAINER" >/dev/null 2>&1
	# the mounts were in namespaces that are gone; never descend into one
	if findmnt -rn -o TARGET | grep -q "^$ROOT"; then
		echo "# something is still mounted under $ROOT: left in place"
	else
		rm -rf --one-file-system "$TMP"
	fi
}
trap cleanup EXIT

# in_root CMD...: CMD chrooted into ROOT, in a mount namespace of its own
# with the host's /proc, /sys (btf, tracing, cgroup) and /dev
in_root() {
	unshare -m --propagation private sh -c '
		r=$1
		shift
		mount --rbind /proc "$r/proc" &&
		mount --rbind /sys "$r/sys" &&
		mount --rbind /dev "$r/dev" &&
		mount --bind "$ARCHIVES" "$r/var/cache/apt/archives" &&
		exec chroot "$r" "$@"' sh "$ROOT" "$@"
}
export ARCHIVES

# debian_mirror: the machine's apt source of bookworm main (or
# PTSCOPE_DEBIAN_MIRROR)
debian_mirror() {
	if [ -n "${PTSCOPE_DEBIAN_MIRROR:-}" ]; then
		echo "$PTSCOPE_DEBIAN_MIRROR"
		return
	fi
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
		'Created-By: Packages' 2>/dev/null |
		awk '$2 == "bookworm" && $3 == "main" { print $1; exit }'
}

# --- the clean system: the cached tarball, made once ---
mkdir -p "$CACHE" "$ARCHIVES/partial"
exec 9>"$CACHE/debian12.lock"
flock 9
if [ ! -f "$BASE" ]; then
	mirror=$(debian_mirror)
	[ -n "$mirror" ] || bail "no bookworm main in this machine's apt sources: set PTSCOPE_DEBIAN_MIRROR"
	start=$SECONDS
	if ! debootstrap --variant=minbase --include=systemd --arch "$DARCH" \
		bookworm "$TMP/boot" "$mirror" >"$TMP/debootstrap.log" 2>&1; then
		tail -n 20 "$TMP/debootstrap.log" | sed 's/^/#   /'
		bail "debootstrap bookworm from $mirror failed"
	fi
	tar -C "$TMP/boot" --numeric-owner -cf "$BASE.tmp" . && mv "$BASE.tmp" "$BASE" ||
		bail "writing $BASE failed"
	rm -rf --one-file-system "${TMP:?}/boot"
	ok "debootstrap bookworm (minbase, systemd) from $mirror: $((SECONDS - start)) s, cached in $BASE"
fi
flock -u 9
mkdir "$ROOT" && tar -C "$ROOT" --numeric-owner -xpf "$BASE" || bail "unpacking $BASE failed"
check_eq "the clean system is Debian 12" 12 \
	"$(. "$ROOT/etc/os-release" && echo "$VERSION_ID")"
check_eq "the clean system has no ptscope" none \
	"$(chroot "$ROOT" dpkg-query -W -f='${db:Status-Status}' ptscope 2>/dev/null || echo none)"
# apt needs a resolver in there
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"

# --- the package ---
VERSION=$(make -s --no-print-directory version)	# debian/changelog's
# deb_fresh FILE: FILE is newer than every file make deb packages (what
# git lists, tracked or not ignored): test_deb.sh, just before, built it
deb_fresh() {
	local newest
	[ -f "$1" ] || return 1
	newest=$(git ls-files -z --cached --others --exclude-standard |
		xargs -0 stat -c %Y 2>/dev/null | sort -n | tail -n1)
	[ -n "$newest" ] && [ "$(stat -c %Y "$1")" -gt "$newest" ]
}
if [ -z "${DEB:-}" ]; then
	DEB=build/deb/ptscope_${VERSION}_$DARCH.deb
	if deb_fresh "$DEB"; then
		echo "# $DEB is newer than the tree: not built again"
	else
		make_or_bail deb
	fi
fi
[ -f "$DEB" ] || bail "no package $DEB"
cp "$DEB" "$ROOT/tmp/ptscope.deb"
start=$SECONDS
if in_root sh -c 'apt-get -q update && DEBIAN_FRONTEND=noninteractive \
	apt-get -q -y --no-install-recommends install /tmp/ptscope.deb' \
	>"$TMP/apt.log" 2>&1; then
	ok "apt-get install $(basename "$DEB") in the clean system ($((SECONDS - start)) s)"
else
	tail -n 20 "$TMP/apt.log" | sed 's/^/#   /'
	bail "apt-get install of the package in the clean system failed"
fi
sed -n '/^The following NEW packages/,/^[0-9]* upgraded/p' "$TMP/apt.log" | sed 's/^/# apt: /'
check_eq "dpkg: ptscope installed, version" "installed $VERSION" \
	"$(chroot "$ROOT" dpkg-query -W -f='${db:Status-Status} ${Version}' ptscope)"
check_eq "the installed ptscope --version runs" "ptscope $VERSION" \
	"$(chroot "$ROOT" /usr/sbin/ptscope --version | cut -d' ' -f1-2)"

# --- the unit, judged by that system's systemd ---
echo "# $(chroot "$ROOT" systemd-analyze --version | head -n1)"
# --man=no: a minbase system has no man(1) to look Documentation=man:
# up with; the page itself must be there
chroot "$ROOT" systemd-analyze verify --man=no /lib/systemd/system/ptscope-exporter.service \
	>"$TMP/verify.out" 2>&1
rc=$?
sed 's/^/# verify: /' "$TMP/verify.out"
check_eq "systemd-analyze verify in the clean system: exit code and output" "0 0" \
	"$rc $(wc -c <"$TMP/verify.out")"
doc=$(unit_value Documentation)
page=${doc#man:}
check_eq "Documentation=$doc is installed" yes \
	"$([ -f "$ROOT/usr/share/man/man${page//[^0-9]/}/${page%(*}.${page//[^0-9]/}.gz" ] && echo yes)"
chroot "$ROOT" systemd-analyze security --offline=yes --threshold=27 \
	/lib/systemd/system/ptscope-exporter.service >"$TMP/security.out" 2>&1
rc=$?
sed -n 's/^→ /# security: /p' "$TMP/security.out"
check_eq "systemd-analyze security --offline in the clean system: exposure at most 2.7" 0 "$rc"

# --- the unit, started by that system's systemd ---
# podman (runc) boots the clean system with its systemd as PID 1, in the
# host's network namespace, with the host's BTF and tracefs; privileged, so
# that systemd holds what building the unit's sandbox takes (mount
# namespaces, capabilities to bound): the unit's own settings then confine
# ptscope.  The test's port and workload filter go in /etc/default/ptscope,
# where an administrator sets them; a drop-in records how the main process
# ended (ExecStopPost with "+", outside the sandbox).
COMM=ptsdch-$$
COMM=${COMM:0:15}
PORT=$(free_port)
cat >>"$ROOT/etc/default/ptscope" <<EOF
PTSCOPE_LISTEN=127.0.0.1:$PORT
PTSCOPE_ARGS="-c $COMM"
EOF
mkdir -p "$ROOT/etc/systemd/system/ptscope-exporter.service.d"
cat >"$ROOT/etc/systemd/system/ptscope-exporter.service.d/test.conf" <<'EOF'
[Service]
ExecStopPost=+/bin/sh -c 'echo "$SERVICE_RESULT $EXIT_CODE $EXIT_STATUS" >/run/ptscope-exporter.end'
EOF
# runc, and ulimits this host allows (the file says why)
export CONTAINERS_CONF=$PWD/tests/host/containers.conf
if ! podman run -d --name "$CONTAINER" --privileged --network=host --systemd=always \
	-v /sys/kernel/btf:/sys/kernel/btf:ro -v /sys/kernel/tracing:/sys/kernel/tracing:ro \
	--rootfs "$ROOT" /lib/systemd/systemd >"$TMP/boot.out" 2>&1; then
	sed 's/^/#   /' "$TMP/boot.out"
	bail "podman could not boot the clean system's systemd"
fi
BOOTED=yes
in_system() {
	podman exec "$CONTAINER" "$@"
}
booted() {
	case "$(in_system systemctl is-system-running 2>/dev/null)" in
	running | degraded) return 0 ;;
	*) return 1 ;;
	esac
}
wait_for 60 booted
check_eq "the clean system's systemd is up (is-system-running)" running \
	"$(in_system systemctl is-system-running 2>&1)"
in_system systemctl --failed --no-legend --plain | sed 's/^/# failed unit: /'
in_system systemctl start ptscope-exporter.service
check_eq "systemctl start ptscope-exporter: exit status" 0 "$?"
serving() {
	in_system journalctl -u ptscope-exporter.service -o cat 2>/dev/null |
		grep -qxF "ptscope: tracing, Ctrl-C to stop"
}
if ! wait_for 60 serving; then
	in_system systemctl status --no-pager ptscope-exporter.service 2>&1 | sed 's/^/#   /'
	bail "the unit did not attach within 60 s"
fi
check_eq "systemctl is-active ptscope-exporter" active \
	"$(in_system systemctl is-active ptscope-exporter.service)"
in_system systemctl status --no-pager --lines=0 ptscope-exporter.service 2>&1 | sed 's/^/# status: /'

# what systemd gave the main process, read from its /proc: the unit's
# bounding set, no capability once attached, no_new_privs, seccomp filters
# (the unit's SystemCallFilter and friends, then ptscope's own)
MAIN=$(in_system systemctl show -p MainPID --value ptscope-exporter.service)
in_system cat "/proc/$MAIN/status" >"$TMP/status" 2>&1
status_of() {
	awk -v k="$1:" '$1 == k { print $2 }' "$TMP/status"
}
check_eq "the unit's process: CapBnd is CapabilityBoundingSet" \
	"$(unit_value CapabilityBoundingSet | tr ' ' '\n' | sort | tr '\n' ' ')" \
	"$(caps_of "$(status_of CapBnd)")"
eff=$(status_of CapEff)
case "$eff" in 0000008000000000) want=$eff ;; *) want=0000000000000000 ;; esac
check_eq "the unit's process, serving: CapEff" "$want" "$eff"
check_eq "the unit's process: NoNewPrivs Seccomp" "1 2" \
	"$(status_of NoNewPrivs) $(status_of Seccomp)"
echo "# the unit's process: $(status_of Seccomp_filters) seccomp filters"
check_eq "the unit's process sees / read-only (ProtectSystem=strict)" ro \
	"$(in_system findmnt -n -o OPTIONS -N "$MAIN" / 2>/dev/null | cut -d, -f1)"

# the workload: N PMD-aligned moves, one mremap call each, under the comm
# of PTSCOPE_ARGS' -c (a copy of the bench, so no other run mixes in)
scrape() {
	curl -sS --max-time 10 -o "$1" "http://127.0.0.1:$PORT/metrics"
}
N=25
cp "$BENCH" "$TMP/$COMM"
scrape "$TMP/before.txt" || not_ok "the scrape before the workload failed"
"$TMP/$COMM" mremap --size 16M --align pmd --thp never --count $N >"$TMP/workload.out" 2>&1 ||
	{ sed 's/^/#   /' "$TMP/workload.out"; not_ok "the workload failed"; }
counted() {
	scrape "$TMP/after.txt" &&
		[ "$(minus "$(mremap_total "$TMP/after.txt")" "$(mremap_total "$TMP/before.txt")")" = $N ]
}
wait_for 10 counted
check_eq "the unit's /metrics counts the workload's mremap calls ($N moves)" $N \
	"$(minus "$(mremap_total "$TMP/after.txt")" "$(mremap_total "$TMP/before.txt")")"
echo "# the scrape through 127.0.0.1:$PORT:"
grep '^ptscope_mremap_calls_total' "$TMP/after.txt" | sed 's/^/#   /'

start=$(date +%s%N)
in_system systemctl stop ptscope-exporter.service
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check_eq "systemctl stop (SIGTERM) in $ms ms: exit status; how the exporter ended (SERVICE_RESULT EXIT_CODE EXIT_STATUS)" \
	"0 success exited 0" "$rc $(in_system cat /run/ptscope-exporter.end 2>&1)"
in_system journalctl -u ptscope-exporter.service -o cat --no-pager | sed 's/^/# journal: /'
tap_finish
