#!/bin/bash
# The OCI image (make image, deploy/image/): built without network, its
# digest recorded and reproducible; its config (entrypoint, labels,
# architecture, exposed port) and its one layer, read with skopeo and
# umoci, hold exactly the static binary, the dashboards, the rules and the
# copyright, equal to the tree's; the binary unpacked from it runs probe on
# this host.  Then the image runs: with podman (privileged, host PID, /sys
# mounted) where the host lets it start a container, else by hand, as the
# DaemonSet in deploy/kubernetes/ mounts it: its rootfs chrooted in a
# mount namespace with a read-only sysfs, procfs of the host's PID
# namespace, and read-only binds of /sys/kernel/btf, /sys/kernel/tracing
# and /sys/fs/cgroup.  Either way the image's entrypoint serves /metrics
# and counts a known workload exactly.  Why podman could not run it is
# printed; a podman failure other than the runtime refusing the host's
# limits (the known case on sandboxed hosts) fails the test.
. "$(dirname "$0")/lib.sh"
require_root
cd "$(dirname "$0")/../.." || exit 1

VERSION=$(sed -n 's/^#define PTSCOPE_VERSION "\(.*\)"/\1/p' src/main.c)
DARCH=$(dpkg --print-architecture)
MARCH=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
NAME=ptscope-$VERSION-$DARCH
ARCHIVE=build/image/$NAME.oci.tar
STATIC=build/static/$MARCH/ptscope
REF=localhost/ptscope:$VERSION
CONTAINER=ptscope-test-image-$$
LOADED=
RUNNER=

cleanup() {
	[ -n "$RUNNER" ] && kill -INT "$RUNNER" 2>/dev/null && wait "$RUNNER"
	if [ -n "$LOADED" ]; then
		podman rm -f "$CONTAINER" >/dev/null 2>&1
		podman rmi "$REF" >/dev/null 2>&1
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# an image of ours already in podman's storage is not ours to remove
if podman image exists "$REF" 2>/dev/null; then
	bail "$REF is in podman's storage already: remove it first"
fi

# --- build, twice: the same digest ---
make_or_bail image
[ -f "$ARCHIVE" ] || bail "no image archive $ARCHIVE"
digest=$(cat "build/image/$NAME.digest")
check_eq "the recorded digest is the archive's manifest digest" "$digest" \
	"$(skopeo inspect --format '{{.Digest}}' "oci-archive:$ARCHIVE")"
./deploy/image/build.sh "$STATIC" "$VERSION" "$TMP/again" >/dev/null 2>"$TMP/again.err" ||
	sed 's/^/#   /' "$TMP/again.err"
check_eq "a second build has the same digest" "$digest" "$(cat "$TMP/again/$NAME.digest" 2>/dev/null)"
echo "# image $ARCHIVE: $(stat -c %s "$ARCHIVE") bytes, $digest"

# --- config ---
skopeo inspect --config "oci-archive:$ARCHIVE" >"$TMP/config.json" ||
	bail "skopeo inspect --config failed"
check_eq "entrypoint" '["/usr/sbin/ptscope", "export", "--listen", "0.0.0.0:9477"]' \
	"$(json "$TMP/config.json" "json.dumps(d['config']['Entrypoint'])")"
check_eq "no command beyond the entrypoint" None \
	"$(json "$TMP/config.json" "d['config'].get('Cmd')")"
check_eq "exposed ports" "['9477/tcp']" \
	"$(json "$TMP/config.json" "sorted(d['config'].get('ExposedPorts', {}))")"
check_eq "architecture/os" "$DARCH/linux" \
	"$(json "$TMP/config.json" "d['architecture'] + '/' + d['os']")"
for label in title=ptscope version="$VERSION" licenses=GPL-2.0-only; do
	check_eq "label org.opencontainers.image.${label%%=*}" "${label#*=}" \
		"$(json "$TMP/config.json" "d['config']['Labels'].get('org.opencontainers.image.${label%%=*}')")"
done
check_eq "one layer" 1 "$(json "$TMP/config.json" "len(d['rootfs']['diff_ids'])")"

# --- the layer, unpacked by umoci: exactly these files, the tree's ---
if ! skopeo copy -q "oci-archive:$ARCHIVE" "oci:$TMP/layout:$VERSION" 2>"$TMP/copy.err" ||
	! umoci unpack --image "$TMP/layout:$VERSION" "$TMP/bundle" >/dev/null 2>"$TMP/unpack.err"; then
	sed 's/^/#   /' "$TMP/copy.err" "$TMP/unpack.err" 2>/dev/null
	bail "skopeo copy to an OCI layout and umoci unpack failed"
fi
ROOT=$TMP/bundle/rootfs
{
	echo "usr/sbin/ptscope $STATIC"
	echo "usr/share/doc/ptscope/copyright debian/copyright"
	for f in dashboards/*.json dashboards/*.yml; do
		echo "usr/share/ptscope/${f#dashboards/} $f"
	done
} | sort >"$TMP/want"
(cd "$ROOT" && find . ! -type d | sed 's|^\./||' | sort) >"$TMP/files"
check_eq "the layer holds exactly the binary, dashboards, rules, copyright" \
	"$(cut -d' ' -f1 "$TMP/want" | tr '\n' ' ')" "$(tr '\n' ' ' <"$TMP/files")"
check_same_files "the image's files equal the tree's" "$TMP/want" "$ROOT/"
check_eq "umoci's runtime config runs the entrypoint" \
	'["/usr/sbin/ptscope", "export", "--listen", "0.0.0.0:9477"]' \
	"$(json "$TMP/bundle/config.json" "json.dumps(d['process']['args'])")"
if readelf -l "$ROOT/usr/sbin/ptscope" | grep -q 'program interpreter'; then
	not_ok "the image's ptscope is dynamically linked (an empty base has no loader)"
else
	ok "the image's ptscope is static"
fi

# --- the binary from the image, on this host ---
if "$ROOT/usr/sbin/ptscope" probe >"$TMP/probe.out" 2>"$TMP/probe.err"; then
	n=$(grep -cE '^  [a-z_]+\.[a-z_]+ +(exact|inferred) ' "$TMP/probe.out")
	if [ "$n" -gt 0 ]; then
		ok "the image's ptscope probe: exit 0, $n metrics attachable here"
	else
		not_ok "the image's ptscope probe: exit 0 but no metric attachable"
		sed 's/^/#   /' "$TMP/probe.out"
	fi
else
	not_ok "the image's ptscope probe failed"
	sed 's/^/#   /' "$TMP/probe.err"
fi

# --- run the image and scrape it ---
WORKLOAD="$TMP/ptsx-img-$$"
cp "$BENCH" "$WORKLOAD"
COMM=$(basename "$WORKLOAD" | cut -c1-15)
PORT=$(free_port)
# arguments after the entrypoint's: the last --listen wins, so the test's
# port on loopback; -c counts only the workload below
ARGS=(--listen "127.0.0.1:$PORT" -c "$COMM")
entry=$(json "$TMP/config.json" "' '.join(d['config']['Entrypoint'])")

# run_podman: 0 when a container started; its error in $TMP/podman.err
run_podman() {
	podman load -q -i "$ARCHIVE" >"$TMP/load.out" 2>"$TMP/podman.err" || return 1
	LOADED=yes
	podman run -d --name "$CONTAINER" --privileged --pid=host --network=host \
		-v /sys:/sys:ro "$REF" "${ARGS[@]}" >"$TMP/podman.out" 2>"$TMP/podman.err"
}

# run_by_hand: the image's rootfs and entrypoint, with the mounts of the
# DaemonSet (deploy/kubernetes/daemonset.yaml), in a mount namespace
run_by_hand() {
	mkdir -p "$ROOT/proc" "$ROOT/sys"
	# shellcheck disable=SC2086,SC2016
	unshare --mount --propagation private sh -c '
		r=$1
		shift
		mount -t proc proc "$r/proc" &&
		mount -t sysfs -o ro sysfs "$r/sys" &&
		for d in /sys/kernel/btf /sys/kernel/tracing /sys/fs/cgroup; do
			mount --bind "$d" "$r$d" &&
			mount -o remount,bind,ro "$r$d" || exit 1
		done &&
		exec chroot "$r" "$@"' sh "$ROOT" $entry "${ARGS[@]}" \
		>"$TMP/run.out" 2>"$TMP/run.err" &
	RUNNER=$!
}

page_up() {
	curl -sf --max-time 5 -o "$TMP/before.txt" "http://127.0.0.1:$PORT/metrics"
}

how=
if run_podman; then
	how="podman run"
elif grep -qE 'setrlimit .*OCI permission denied' "$TMP/podman.err"; then
	echo "# podman could not run the image here: its runtime may not set the"
	echo "# container's resource limits on this host:"
	sed 's/^/#   /' "$TMP/podman.err"
	echo "# so the image's rootfs runs by hand, with the DaemonSet's mounts"
	run_by_hand
	how="the image's rootfs and entrypoint, chrooted"
else
	sed 's/^/#   /' "$TMP/podman.err"
	bail "podman failed for a reason other than the host's limits"
fi
if wait_for 60 page_up; then
	ok "$how: /metrics answers"
else
	[ -n "$LOADED" ] && podman logs "$CONTAINER" 2>&1 | sed 's/^/#   /'
	sed 's/^/#   /' "$TMP/run.err" 2>/dev/null
	bail "$how: /metrics did not answer within 60 s"
fi
calls='ptscope_mremap_calls_total{class="pmd"}'
if "$WORKLOAD" mremap --size 16M --align pmd --count 5 >"$TMP/workload.out" 2>&1 &&
	curl -sf --max-time 5 -o "$TMP/after.txt" "http://127.0.0.1:$PORT/metrics"; then
	check_eq "$how: pmd mremap calls of the workload" 5 \
		"$(minus "$(value "$TMP/after.txt" "$calls")" "$(value "$TMP/before.txt" "$calls")")"
else
	sed 's/^/#   /' "$TMP/workload.out"
	not_ok "the workload or the scrape after it failed"
fi
tap_finish
