#!/bin/bash
# The Debian package in a clean Debian 12: a minimal bookworm made by
# debootstrap (minbase, with systemd for systemd-analyze), from the
# machine's own Debian mirror.  apt-get installs the .deb there with the
# dependencies it declares, and nothing else of ptscope's is in that tree;
# systemd-analyze verify and security --offline judge the installed unit
# with that system's systemd; the unit's ExecStart, with the environment
# of its EnvironmentFile, under its capability bounding set and
# no_new_privs (setpriv), chrooted into that system, attaches and serves
# /metrics, which counts a known workload's mremap calls exactly; SIGTERM
# (what systemctl stop sends) ends it with exit status 0.
#
# systemd is not PID 1 on this box (nor in a chroot), so the unit cannot be
# started by systemd itself: systemctl and systemd-run --scope need a
# running systemd manager; the test prints what systemd-run says and runs
# the ExecStart by hand.
#
# The bootstrapped system is cached as a tarball under PTSCOPE_CACHE
# (/var/cache/ptscope/debian12-ARCH.tar; about 30 s to make, 240 MB), and
# the packages apt downloads under PTSCOPE_CACHE/debian12-apt; each run
# unpacks a fresh copy.  DEB=FILE tests that package instead of building
# one.  Every mount is made in a mount namespace of its own, so none
# outlives the test.
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
UNIT=$ROOT/lib/systemd/system/ptscope-exporter.service
RUNNER=

cleanup() {
	[ -n "$RUNNER" ] && kill "$RUNNER" 2>/dev/null && wait "$RUNNER"
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
	rm -rf --one-file-system "$TMP/boot"
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
VERSION=$(sed -n 's/^#define PTSCOPE_VERSION "\(.*\)"/\1/p' src/main.c)
if [ -z "${DEB:-}" ]; then
	make_or_bail deb
	DEB=build/deb/ptscope_${VERSION}_$DARCH.deb
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

# systemd as the manager: not here
in_root systemd-run --scope --quiet true >"$TMP/run.out" 2>&1
echo "# systemd-run --scope in the clean system: exit $?: $(head -n1 "$TMP/run.out"); PID 1 here is $(cat /proc/1/comm), so the ExecStart runs by hand"

# --- the ExecStart, chrooted, under the unit's capabilities ---
COMM=ptsdch-$$
COMM=${COMM:0:15}
PORT=$(free_port)
unit_argv "$ROOT/etc/default/ptscope" "127.0.0.1:$PORT" "-c $COMM"
BSET=$(unit_bset)
echo "# ExecStart: ${ARGV[*]}, setpriv --bounding-set=$BSET --no-new-privs"
check_eq "ExecStart runs the installed binary's export" "/usr/sbin/ptscope export" "${ARGV[*]:0:2}"
in_root setpriv --bounding-set="$BSET" --no-new-privs -- "${ARGV[@]}" \
	>/dev/null 2>"$TMP/export.err" &
RUNNER=$!
if ! wait_for 90 tracing "$TMP/export.err"; then
	sed 's/^/#   /' "$TMP/export.err"
	bail "the unit's ExecStart in the clean system did not attach"
fi
ok "the unit's ExecStart in the clean system attaches and serves"
PID=$(for p in $(pgrep -x ptscope); do
	[ "$(readlink "/proc/$p/root")" = "$ROOT" ] && echo "$p"
done | head -n1)
[ -n "$PID" ] || bail "no ptscope process chrooted into $ROOT"
check_eq "ExecStart: its root is the clean system" "$ROOT" "$(readlink "/proc/$PID/root")"
check_eq "ExecStart: CapBnd is CapabilityBoundingSet" \
	"$(unit_value CapabilityBoundingSet | tr ' ' '\n' | sort | tr '\n' ' ')" \
	"$(caps_of "$(awk '$1 == "CapBnd:" { print $2 }' "/proc/$PID/status")")"
got=$(awk '$1 ~ /^(CapEff|NoNewPrivs|Seccomp):$/ { v[$1] = $2 }
	END { print v["CapEff:"], v["NoNewPrivs:"], v["Seccomp:"] }' "/proc/$PID/status")
case "$got" in
"0000008000000000 1 2") want="$got" ;;
*) want="0000000000000000 1 2" ;;
esac
check_eq "ExecStart, serving: CapEff NoNewPrivs Seccomp" "$want" "$got"

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
check_eq "/metrics counts the workload's mremap calls ($N moves)" $N \
	"$(minus "$(mremap_total "$TMP/after.txt")" "$(mremap_total "$TMP/before.txt")")"
echo "# the scrape through 127.0.0.1:$PORT:"
grep '^ptscope_mremap_calls_total' "$TMP/after.txt" | sed 's/^/#   /'

start=$(date +%s%N)
kill -TERM "$PID"
wait "$RUNNER"
rc=$?
RUNNER=
check_eq "ExecStart: SIGTERM (systemctl stop) exits 0, in $((($(date +%s%N) - start) / 1000000)) ms" 0 "$rc"
tap_finish
