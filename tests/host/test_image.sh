#!/bin/bash
# The OCI image (make image, deploy/image/) under a real container runtime.
#
# The archive: one image index of linux/amd64 and linux/arm64, built
# without network, reproducible (a second build gives the same bytes);
# each image's config (entrypoint, labels, architecture, exposed port) and
# its one layer, read with skopeo and umoci, hold exactly that
# architecture's static binary, the dashboards, the rules and the
# copyright; this host's binary from the image runs probe, the other
# architecture's runs --version under qemu-user (qemu-user-static; a host
# without it fails unless PTSCOPE_ALLOW_SKIP=1).
#
# podman with runc runs the image as the DaemonSet in deploy/kubernetes/
# would have it run (its args, capabilities, read-only root, no privilege
# escalation, unconfined seccomp, host PID namespace, read-only mounts,
# all read from the manifest): /metrics through the published port counts
# a known workload, the process holds no capability once attached and
# ptscope's own seccomp filter only; podman stop (SIGTERM, SIGKILL after
# the grace period) ends it with exit status 0 within the grace period,
# also when SIGTERM comes while it attaches.  Then `podman kube play` runs
# the DaemonSet's pod, converted by deploy/kubernetes/pod.py: ready on
# /metrics, a kubelet-shaped cgroup's calls under the namespace, pod and
# container names that --kube-logs reads from the mounted log directories,
# and a stop within terminationGracePeriodSeconds; without the manifest's
# seccomp annotation, the exporter exits 1 (podman 4.3 ignores the field).
# The README's push, skopeo copy --all, is run against a registry on
# loopback (docker-registry).
#
# podman runs with tests/host/containers.conf (CONTAINERS_CONF): runtime
# runc, since crun refuses hosts whose cgroups are in hybrid mode; and
# default ulimits (nofile, nproc 1024) that the runtime can set, since
# podman's defaults ask more than some hosts' hard RLIMIT_NOFILE allows
# and runc then fails with "error setting rlimits".  No other ptscope and
# no other BPF user on the box changes a check: the workload's counts are
# lower bounds on the box-wide series, exact on a cgroup of the test's own.
. "$(dirname "$0")/lib.sh"
# shellcheck source=unit.sh
. "$(dirname "$0")/unit.sh"	# caps_of
require_root
require_cgroup2
cd "$(dirname "$0")/../.." || exit 1

VERSION=$(make -s --no-print-directory version)	# debian/changelog's
DARCH=$(dpkg --print-architecture)
NAME=ptscope-$VERSION
ARCHIVE=build/image/$NAME.oci.tar
DS=deploy/kubernetes/daemonset.yaml
REF=localhost/ptscope:$VERSION
CONTAINER=ptscope-test-image-$$
KUBE=$TMP/pod.yaml
LOADED=
PLAYED=
REGISTRY=
CGDIR=$CGROOT/ptscope-image-$$
# each Debian architecture's static binary in build/static/, and the
# qemu-user emulator that runs it
declare -A STATIC=([amd64]=build/static/x86/ptscope [arm64]=build/static/arm64/ptscope)
declare -A QEMU=([amd64]=qemu-x86_64-static [arm64]=qemu-aarch64-static)

# runc, and ulimits this host allows (the file says why)
export CONTAINERS_CONF=$PWD/tests/host/containers.conf

cleanup() {
	[ -n "$REGISTRY" ] && kill "$REGISTRY" 2>/dev/null
	[ -n "$PLAYED" ] && podman kube down "$KUBE" >/dev/null 2>&1
	if [ -n "$LOADED" ]; then
		podman rm -f "$CONTAINER" "$CONTAINER-term" >/dev/null 2>&1
		podman rmi "$REF" >/dev/null 2>&1
	fi
	if [ -d "$CGDIR" ]; then
		find "$CGDIR" -depth -type d | while read -r d; do
			remove_cgroup "$d"
		done
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# an image or a pod of ours already in podman's storage is not ours to remove
if podman image exists "$REF" 2>/dev/null; then
	bail "$REF is in podman's storage already: remove it first"
fi
if podman pod exists ptscope 2>/dev/null; then
	bail "a pod named ptscope exists in podman already: remove it first"
fi

# --- build, twice: the same bytes ---
make_or_bail image
[ -f "$ARCHIVE" ] || bail "no image archive $ARCHIVE"
digest=$(cat "build/image/$NAME.digest")
skopeo inspect --raw "oci-archive:$ARCHIVE" >"$TMP/index.json" ||
	bail "skopeo inspect --raw $ARCHIVE failed"
check_eq "the recorded digest is the archive's image index's" "$digest" \
	"sha256:$(sha256sum <"$TMP/index.json" | cut -d' ' -f1)"
./deploy/image/build.sh "$VERSION" "$TMP/again" "${STATIC[amd64]}" \
	"${STATIC[arm64]}" >/dev/null 2>"$TMP/again.err" ||
	sed 's/^/#   /' "$TMP/again.err"
check_eq "a second build: the same index digest" "$digest" \
	"$(cat "$TMP/again/$NAME.digest" 2>/dev/null)"
check_eq "a second build: the same archive bytes" "$(sha256sum <"$ARCHIVE")" \
	"$(sha256sum <"$TMP/again/$NAME.oci.tar" 2>/dev/null)"
echo "# image $ARCHIVE: $(stat -c %s "$ARCHIVE") bytes, index $digest"

# --- the index: amd64 and arm64, one manifest each ---
check_eq "index media type" application/vnd.oci.image.index.v1+json \
	"$(json "$TMP/index.json" "d['mediaType']")"
check_eq "index platforms" "linux/amd64 linux/arm64" \
	"$(json "$TMP/index.json" "' '.join(m['platform']['os'] + '/' + m['platform']['architecture'] for m in d['manifests'])")"

# blob DIGEST: a blob of the archive, checked against its digest
mkdir -p "$TMP/oci" && tar -xf "$ARCHIVE" -C "$TMP/oci" || bail "tar -xf $ARCHIVE failed"
blob() {
	local f=$TMP/oci/blobs/${1/://}
	[ "sha256:$(sha256sum <"$f" | cut -d' ' -f1)" = "$1" ] && cat "$f"
}

# check_arch ARCH: the image of ARCH in the index; its rootfs in
# $TMP/bundle-ARCH/rootfs
check_arch() {
	local arch=$1 dir=$TMP/$1 root=$TMP/bundle-$1/rootfs label
	mkdir -p "$dir"
	# the index's manifest for ARCH, and the config skopeo picks for ARCH
	blob "$(json "$TMP/index.json" "[m['digest'] for m in d['manifests'] if m['platform']['architecture'] == '$arch'][0]")" \
		>"$dir/manifest.json" &&
		skopeo inspect --config --raw --override-arch "$arch" "oci-archive:$ARCHIVE" \
			>"$dir/config.json" ||
		{ not_ok "$arch: its manifest or config could not be read"; return 1; }
	check_eq "$arch: the config skopeo picks is the manifest's" \
		"$(json "$dir/manifest.json" "d['config']['digest']")" \
		"sha256:$(sha256sum <"$dir/config.json" | cut -d' ' -f1)"
	check_eq "$arch: one gzip layer" application/vnd.oci.image.layer.v1.tar+gzip \
		"$(json "$dir/manifest.json" "' '.join(l['mediaType'] for l in d['layers'])")"
	check_eq "$arch: entrypoint" '["/usr/sbin/ptscope", "export", "--listen", "0.0.0.0:9477"]' \
		"$(json "$dir/config.json" "json.dumps(d['config']['Entrypoint'])")"
	check_eq "$arch: no command beyond the entrypoint" None \
		"$(json "$dir/config.json" "d['config'].get('Cmd')")"
	check_eq "$arch: exposed ports" "['9477/tcp']" \
		"$(json "$dir/config.json" "sorted(d['config'].get('ExposedPorts', {}))")"
	check_eq "$arch: config architecture/os" "$arch/linux" \
		"$(json "$dir/config.json" "d['architecture'] + '/' + d['os']")"
	for label in title=ptscope version="$VERSION" licenses=GPL-2.0-only; do
		check_eq "$arch: label org.opencontainers.image.${label%%=*}" "${label#*=}" \
			"$(json "$dir/config.json" "d['config']['Labels'].get('org.opencontainers.image.${label%%=*}')")"
	done
	check_eq "$arch: one layer in the config" 1 \
		"$(json "$dir/config.json" "len(d['rootfs']['diff_ids'])")"
	# the layer, unpacked by umoci: exactly these files, the tree's
	if ! skopeo copy -q --override-arch "$arch" "oci-archive:$ARCHIVE" \
		"oci:$TMP/layout-$arch:$VERSION" 2>"$dir/copy.err" ||
		! umoci unpack --image "$TMP/layout-$arch:$VERSION" "$TMP/bundle-$arch" \
			>/dev/null 2>"$dir/unpack.err"; then
		sed 's/^/#   /' "$dir/copy.err" "$dir/unpack.err" 2>/dev/null
		not_ok "$arch: skopeo copy to an OCI layout and umoci unpack failed"
		return 1
	fi
	{
		echo "usr/sbin/ptscope ${STATIC[$arch]}"
		echo "usr/share/doc/ptscope/copyright debian/copyright"
		for f in dashboards/*.json dashboards/*.yml; do
			echo "usr/share/ptscope/${f#dashboards/} $f"
		done
	} | sort >"$dir/want"
	(cd "$root" && find . ! -type d | sed 's|^\./||' | sort) >"$dir/files"
	check_eq "$arch: the layer holds exactly the binary, dashboards, rules, copyright" \
		"$(cut -d' ' -f1 "$dir/want" | tr '\n' ' ')" "$(tr '\n' ' ' <"$dir/files")"
	check_same_files "$arch: the image's files equal the tree's" "$dir/want" "$root/"
	if readelf -l "$root/usr/sbin/ptscope" | grep -q 'program interpreter'; then
		not_ok "$arch: the image's ptscope is dynamically linked (an empty base has no loader)"
	else
		ok "$arch: the image's ptscope is static"
	fi
}
check_arch amd64
check_arch arm64

# --- the binaries from the image: this host's probes, the other's runs ---
root=$TMP/bundle-$DARCH/rootfs
if "$root/usr/sbin/ptscope" probe >"$TMP/probe.out" 2>"$TMP/probe.err"; then
	n=$(grep -cE '^  [a-z_]+\.[a-z_]+ +(exact|inferred) ' "$TMP/probe.out")
	if [ "$n" -gt 0 ]; then
		ok "$DARCH image's ptscope probe: exit 0, $n metrics attachable here"
	else
		not_ok "$DARCH image's ptscope probe: exit 0 but no metric attachable"
		sed 's/^/#   /' "$TMP/probe.out"
	fi
else
	not_ok "$DARCH image's ptscope probe failed"
	sed 's/^/#   /' "$TMP/probe.err"
fi
for arch in amd64 arm64; do
	[ "$arch" = "$DARCH" ] && continue
	qemu=${QEMU[$arch]}
	if ! command -v "$qemu" >/dev/null; then
		if [ "${PTSCOPE_ALLOW_SKIP:-}" = 1 ]; then
			echo "# $arch image's ptscope --version: did not run (no $qemu); PTSCOPE_ALLOW_SKIP=1 allows that"
		else
			not_ok "$arch image's ptscope --version: did not run: no $qemu ('make deps-image'; PTSCOPE_ALLOW_SKIP=1 allows that)"
		fi
		continue
	fi
	check_eq "$arch image's ptscope --version under $qemu" "ptscope $VERSION" \
		"$("$qemu" "$TMP/bundle-$arch/rootfs/usr/sbin/ptscope" --version 2>&1 | cut -d' ' -f1-2)"
done

# --- the README's push: skopeo copy --all to a registry (docker-registry
# on loopback, its storage in $TMP); the registry serves the same index ---
cat >"$TMP/registry.yml" <<EOF
version: 0.1
log:
  level: error
storage:
  filesystem:
    rootdirectory: $TMP/registry
http:
  addr: 127.0.0.1:$(free_port)
EOF
REGISTRY_ADDR=$(sed -n 's/^  addr: //p' "$TMP/registry.yml")
docker-registry serve "$TMP/registry.yml" >"$TMP/registry.log" 2>&1 &
REGISTRY=$!
registry_up() {
	curl -sf --max-time 2 -o /dev/null "http://$REGISTRY_ADDR/v2/"
}
DEST=docker://$REGISTRY_ADDR/ptscope:$VERSION
if wait_for 30 registry_up &&
	skopeo copy -q --all --dest-tls-verify=false "oci-archive:$ARCHIVE" "$DEST" \
		>"$TMP/push.out" 2>&1; then
	check_eq "skopeo copy --all to a registry: it serves the index" "$digest" \
		"sha256:$(skopeo inspect --raw --tls-verify=false "$DEST" | sha256sum | cut -d' ' -f1)"
	check_eq "the registry's arm64 image" arm64 \
		"$(skopeo inspect --tls-verify=false --override-arch arm64 --format '{{.Architecture}}' "$DEST")"
else
	sed 's/^/#   /' "$TMP/push.out" "$TMP/registry.log" 2>/dev/null
	not_ok "skopeo copy --all oci-archive:$ARCHIVE $DEST failed"
fi
kill "$REGISTRY" && wait "$REGISTRY" 2>/dev/null
REGISTRY=

# --- podman run, as the DaemonSet runs it ---
podman load -q -i "$ARCHIVE" >"$TMP/load.out" 2>&1 ||
	{ sed 's/^/#   /' "$TMP/load.out"; bail "podman load $ARCHIVE failed"; }
LOADED=yes
echo "# podman load -i $ARCHIVE: $(cat "$TMP/load.out")"
check_eq "podman load: the index, and this host's image of it" "$digest $DARCH" \
	"$(podman image inspect --format '{{.Digest}} {{.Architecture}}' "$REF" 2>/dev/null)"

# the manifest's pod: its container's args, security context, mounts and
# grace period, as podman run options (one a line) and values
python3 - "$DS" >"$TMP/ds.env" <<'PYEOF' || bail "reading $DS failed"
import shlex, sys, yaml
ds = yaml.safe_load(open(sys.argv[1]))
spec = ds["spec"]["template"]["spec"]
c = spec["containers"][0]
sc = c["securityContext"]
vols = {v["name"]: v["hostPath"]["path"] for v in spec["volumes"]}
opts = ["--pid=host"] if spec.get("hostPID") else []
opts += ["--cap-drop=" + x.lower() for x in sc["capabilities"]["drop"]]
opts += ["--cap-add=" + x for x in sc["capabilities"]["add"]]
if sc.get("readOnlyRootFilesystem"):
    opts.append("--read-only")
if sc.get("allowPrivilegeEscalation") is False:
    opts.append("--security-opt=no-new-privileges")
if sc["seccompProfile"]["type"] == "Unconfined":
    opts.append("--security-opt=seccomp=unconfined")
for m in c["volumeMounts"]:
    opts.append("--volume=%s:%s:%s" % (vols[m["name"]], m["mountPath"],
                                       "ro" if m.get("readOnly") else "rw"))
print("RUN_OPTS=(%s)" % " ".join(shlex.quote(o) for o in opts))
print("ARGS=(%s)" % " ".join(shlex.quote(a) for a in c.get("args", [])))
print("GRACE=%d" % spec["terminationGracePeriodSeconds"])
print("CAPS=%s" % shlex.quote(" ".join("CAP_" + x for x in sorted(sc["capabilities"]["add"]))))
PYEOF
RUN_OPTS=() ARGS=() GRACE='' CAPS=''
# shellcheck source=/dev/null
. "$TMP/ds.env"
# the kubelet's log directories: a temporary pair (hostPath substitutes)
LOGS=$TMP/logs
mkdir -p "$LOGS/pods" "$LOGS/containers"
for i in "${!RUN_OPTS[@]}"; do
	case "${RUN_OPTS[$i]}" in
	--volume=/var/log/pods:*) RUN_OPTS[i]=--volume=$LOGS/pods:${RUN_OPTS[$i]#--volume=/var/log/pods:} ;;
	--volume=/var/log/containers:*) RUN_OPTS[i]=--volume=$LOGS/containers:${RUN_OPTS[$i]#--volume=/var/log/containers:} ;;
	esac
done
PORT=$(free_port)

# podman_run NAME: the image as the DaemonSet runs it, detached, its
# metrics port published on 127.0.0.1:$PORT
podman_run() {
	podman run -d --name "$1" "${RUN_OPTS[@]}" -p "127.0.0.1:$PORT:9477" \
		"$REF" "${ARGS[@]}"
}
echo "# podman run -d --name $CONTAINER ${RUN_OPTS[*]} -p 127.0.0.1:$PORT:9477 $REF ${ARGS[*]}"
podman_run "$CONTAINER" >"$TMP/run.out" 2>&1 ||
	{ sed 's/^/#   /' "$TMP/run.out"; bail "podman run (runc) failed"; }
echo "# $(cat "$TMP/run.out")"

# logs_have NAME LINE: the container's output has LINE
logs_have() {
	podman logs "$1" 2>&1 | grep -qxF "$2"
}
if wait_for 60 logs_have "$CONTAINER" "ptscope: tracing, Ctrl-C to stop"; then
	ok "podman run: the entrypoint attaches"
else
	podman logs "$CONTAINER" 2>&1 | sed 's/^/#   /'
	bail "podman run: the entrypoint did not attach within 60 s"
fi
podman logs "$CONTAINER" 2>&1 | sed 's/^/# podman logs: /'

# scrape FILE: GET /metrics through the published port
scrape() {
	curl -sf --max-time 10 -o "$1" "http://127.0.0.1:${2:-$PORT}/metrics"
}
wait_for 30 scrape "$TMP/before.txt" || bail "podman run: /metrics does not answer on 127.0.0.1:$PORT"
ok "podman run: /metrics answers on the published port"

# what the process holds once attached: no capability (CAP_BPF where the
# kernel needs it to read maps), its bounding set the manifest's,
# no_new_privs, one seccomp filter (ptscope's own: the runtime added
# none), a read-only root, the host's PID namespace
PID=$(podman inspect --format '{{.State.Pid}}' "$CONTAINER")
status_of() {
	awk -v k="$1:" '$1 == k { print $2 }' "/proc/$PID/status"
}
eff=$(status_of CapEff)
case "$eff" in 0000008000000000) want=$eff ;; *) want=0000000000000000 ;; esac
check_eq "podman run, serving: CapEff" "$want" "$eff"
check_eq "podman run: CapBnd is the manifest's capabilities" \
	"$(tr ' ' '\n' <<<"$CAPS" | sort | tr '\n' ' ')" "$(caps_of "$(status_of CapBnd)")"
check_eq "podman run: NoNewPrivs Seccomp Seccomp_filters" "1 2 1" \
	"$(status_of NoNewPrivs) $(status_of Seccomp) $(status_of Seccomp_filters)"
check_eq "podman run: its root is mounted read-only" ro \
	"$(awk '$5 == "/" { split($6, o, ","); print o[1] }' "/proc/$PID/mountinfo")"
check_eq "podman run: the host's PID namespace" "$(readlink /proc/self/ns/pid)" \
	"$(readlink "/proc/$PID/ns/pid")"

# the known workload on the host, while the container exports: N
# PMD-aligned moves, each one call of class pmd; the box-wide series grows
# by at least N (other processes may move memory too)
N=200
calls='ptscope_mremap_calls_total{class="pmd"}'
"$BENCH" mremap --size 16M --align pmd --thp never --count $N >"$TMP/workload.out" 2>&1 ||
	{ sed 's/^/#   /' "$TMP/workload.out"; not_ok "the workload failed"; }
scrape "$TMP/after.txt" || not_ok "podman run: the scrape after the workload failed"
grew=$(minus "$(value "$TMP/after.txt" "$calls")" "$(value "$TMP/before.txt" "$calls")")
if [ -n "$grew" ] && [ "$grew" -ge $N ]; then
	ok "podman run: $calls grew by $grew >= the workload's $N"
else
	not_ok "podman run: $calls grew by '$grew', the workload made $N"
fi
echo "# the scrape through 127.0.0.1:$PORT, mremap calls:"
grep '^ptscope_mremap_calls_total' "$TMP/after.txt" | sed 's/^/#   /'

# stopped CONTAINER CMD...: CMD stops CONTAINER (SIGTERM, SIGKILL after
# the grace period): exit status 0, within the grace period
stopped() {
	local name=$1 start ms
	shift
	start=$(date +%s%N)
	"$@" >/dev/null 2>"$TMP/stop.err"
	ms=$((($(date +%s%N) - start) / 1000000))
	check_eq "$*: $name's exit status" 0 \
		"$(podman inspect --format '{{.State.ExitCode}}' "$name")"
	if [ "$ms" -lt $((GRACE * 1000)) ]; then
		ok "$*: stopped in $ms ms, within the grace period of $GRACE s"
	else
		not_ok "$*: took $ms ms, the grace period is $GRACE s"
	fi
}
stopped "$CONTAINER" podman stop -t "$GRACE" "$CONTAINER"
# what it said after attaching: its closing line for the runtime's
# SIGTERM, and no error
podman logs "$CONTAINER" 2>&1 | sed '1,/^ptscope: tracing, Ctrl-C to stop$/d' >"$TMP/after-stop.log"
sed 's/^/# after SIGTERM: /' "$TMP/after-stop.log"
check_eq "podman stop: the exporter attached, closed with its SIGTERM line, said no error" "yes yes 0" \
	"$(podman logs "$CONTAINER" 2>&1 | grep -qxF 'ptscope: tracing, Ctrl-C to stop' && echo yes) $(grep -qxF 'ptscope: Terminated, detaching; exit 0' "$TMP/after-stop.log" && echo yes) $(grep -ciE 'error|fail|cannot|refused' "$TMP/after-stop.log")"

# SIGTERM while it attaches: a poller finds the container's process by its
# cgroup, and sends SIGTERM once its handler is installed (SigCgt) while
# it still holds its capabilities (it drops them when attached and
# listening); up to 5 tries for one that lands there
term_during_attach() {
	local name=$CONTAINER-term id
	podman rm -f "$name" >/dev/null 2>&1
	id=$(podman create --name "$name" "${RUN_OPTS[@]}" -p "127.0.0.1:$PORT:9477" \
		"$REF" "${ARGS[@]}") || return 2
	python3 - "$id" >"$TMP/term.out" <<'PYEOF' &
import os, signal, sys, time
cid, deadline = sys.argv[1], time.time() + 30
def status(pid):
    with open("/proc/%s/status" % pid) as f:
        return dict(l.split(":\t", 1) for l in f.read().splitlines() if ":\t" in l)
while time.time() < deadline:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if cid not in open("/proc/%s/cgroup" % pid).read():
                continue
            if os.readlink("/proc/%s/exe" % pid) != "/usr/sbin/ptscope":
                continue
            st = status(pid)
            if not int(st["SigCgt"], 16) & (1 << (signal.SIGTERM - 1)):
                continue
            eff = st["CapEff"].strip()
            os.kill(int(pid), signal.SIGTERM)
            print("%s %s" % (pid, eff))
            sys.exit(0)
        except (OSError, KeyError):
            continue
print("none")
PYEOF
	local poller=$!
	start=$(date +%s%N)
	podman start "$name" >/dev/null 2>"$TMP/term.err" || { wait $poller; return 2; }
	wait $poller
	podman wait "$name" >/dev/null 2>&1
	ms=$((($(date +%s%N) - start) / 1000000))
	TERM_RC=$(podman inspect --format '{{.State.ExitCode}}' "$name")
	TERM_EFF=$(cut -d' ' -f2 "$TMP/term.out")
	podman logs "$name" >"$TMP/term.log" 2>&1
	[ "$TERM_EFF" != none ] && [ "$TERM_EFF" != 0000000000000000 ]
}
tries=0 rc=1 TERM_EFF=
while [ $rc -eq 1 ] && [ $tries -lt 5 ]; do
	tries=$((tries + 1))
	term_during_attach
	rc=$?
done
[ $rc -eq 2 ] && sed 's/^/#   /' "$TMP/term.err"
if [ "$TERM_EFF" != none ] && [ "$TERM_EFF" != 0000000000000000 ] && [ -n "$TERM_EFF" ]; then
	ok "SIGTERM while attaching (CapEff $TERM_EFF, not yet dropped)"
	check_eq "SIGTERM while attaching: exit status" 0 "$TERM_RC"
	if [ "$ms" -lt $((GRACE * 1000)) ]; then
		ok "SIGTERM while attaching: ended $ms ms after podman start, within $GRACE s"
	else
		not_ok "SIGTERM while attaching: ended $ms ms after podman start (grace $GRACE s)"
	fi
	sed 's/^/# its log: /' "$TMP/term.log"
else
	not_ok "no SIGTERM landed while the exporter attached in $tries tries ($(cat "$TMP/term.out"))"
fi
podman rm -f "$CONTAINER" "$CONTAINER-term" >/dev/null 2>&1

# --- podman kube play: the DaemonSet's pod ---
# a kubelet-shaped cgroup (systemd driver, containerd) and its log
# directories, for the pod's --kube-logs
UID1=5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b
WEB=$(printf '%064x' 201)
CG_WEB=$CGDIR/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID1//-/_}.slice/cri-containerd-$WEB.scope
mkdir -p "$CG_WEB" || bail "mkdir $CG_WEB"
mkdir -p "$LOGS/pods/shop_cart-1_$UID1/web"
: >"$LOGS/containers/cart-1_shop_web-$WEB.log"
KPORT=$(free_port)
./deploy/kubernetes/pod.py --host-port "127.0.0.1:$KPORT" \
	--host-path "pod-logs=$LOGS/pods" --host-path "container-logs=$LOGS/containers" \
	"$DS" >"$KUBE" || bail "deploy/kubernetes/pod.py failed"
check_eq "the pod carries the seccomp annotation, equal to the field" "unconfined Unconfined" \
	"$(json <(python3 -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' "$KUBE") \
		"d['metadata']['annotations']['seccomp.security.alpha.kubernetes.io/pod'] + ' ' + d['spec']['containers'][0]['securityContext']['seccompProfile']['type']")"
echo "# python3 deploy/kubernetes/pod.py --host-port 127.0.0.1:$KPORT --host-path pod-logs=... --host-path container-logs=... | podman kube play -"
start=$(date +%s%N)
if ! podman kube play "$KUBE" >"$TMP/play.out" 2>&1; then
	sed 's/^/#   /' "$TMP/play.out"
	bail "podman kube play failed"
fi
PLAYED=yes
sed 's/^/# kube play: /' "$TMP/play.out"
KC=ptscope-ptscope	# kube play names it POD-CONTAINER
# readiness as the kubelet probes it: GET the readinessProbe's path on its
# port (a name: the container's port of that name), here through the host
# port that pod.py published it on
probe_path=$(python3 -c 'import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))["spec"]["containers"][0]
print(c["readinessProbe"]["httpGet"]["path"])' "$KUBE")
ready() {
	curl -sf --max-time 5 -o "$TMP/kready.txt" "http://127.0.0.1:$KPORT$probe_path"
}
if wait_for 60 ready; then
	ok "kube play: ready on $probe_path after $((($(date +%s%N) - start) / 1000000)) ms"
else
	podman logs "$KC" 2>&1 | sed 's/^/#   /'
	bail "kube play: $probe_path did not answer within 60 s"
fi
podman logs "$KC" 2>&1 | sed 's/^/# kube play logs: /'
KPID=$(podman inspect --format '{{.State.Pid}}' "$KC")
PID=$KPID
check_eq "kube play: NoNewPrivs Seccomp Seccomp_filters (the annotation's unconfined, ptscope's own filter)" \
	"1 2 1" "$(status_of NoNewPrivs) $(status_of Seccomp) $(status_of Seccomp_filters)"
check_eq "kube play: StopTimeout is the manifest's terminationGracePeriodSeconds" "$GRACE" \
	"$(podman inspect --format '{{.Config.StopTimeout}}' "$KC")"
if [ "$(readlink "/proc/$KPID/ns/pid")" != "$(readlink /proc/self/ns/pid)" ]; then
	echo "# kube play did not apply hostPID: the exporter is PID $(awk '$1 == "NSpid:" { print $NF }' "/proc/$KPID/status") of a PID namespace of its own"
fi
# the cgroup's calls under the names --kube-logs read from the mounted log
# directories: exact, nothing else runs in that cgroup
KN=7
run_in "$CG_WEB" $KN
series="ptscope_cgroup_mremap_calls_total{cgroup=\"${CG_WEB#"$CGROOT"}\",namespace=\"shop\",pod=\"cart-1\",container=\"web\",class=\"pmd\"}"
named() {
	scrape "$TMP/kafter.txt" "$KPORT" && [ -n "$(value "$TMP/kafter.txt" "$series")" ]
}
wait_for 15 named
check_eq "kube play: shop/cart-1/web's pmd calls, named from the mounted logs" $KN \
	"$(value "$TMP/kafter.txt" "$series")"
echo "# the scrape through 127.0.0.1:$KPORT, the pod's cgroup:"
grep -F "${CG_WEB#"$CGROOT"}" "$TMP/kafter.txt" | grep '^ptscope_cgroup_mremap_calls_total' |
	sed 's/^/#   /'
check_eq "kube play: no warning about the log directories" 0 \
	"$(podman logs "$KC" 2>&1 | grep -c 'warning: --kube-logs')"
# stop the pod: its containers get SIGTERM, SIGKILL after StopTimeout
# (terminationGracePeriodSeconds, checked above)
stopped "$KC" podman pod stop ptscope
podman kube down "$KUBE" >/dev/null 2>&1 && PLAYED=

# without the annotation podman 4.3 applies its default seccomp profile
# (it ignores the field): bpf() is refused, and the exporter says so and
# exits 1; this is why the manifest carries the annotation.
python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
del d["metadata"]["annotations"]["seccomp.security.alpha.kubernetes.io/pod"]
d["spec"]["restartPolicy"] = "Never"
yaml.safe_dump(d, sys.stdout, sort_keys=False)' "$KUBE" >"$TMP/bare.yaml"
cp "$TMP/bare.yaml" "$KUBE"	# what cleanup takes down
if podman kube play "$KUBE" >"$TMP/bare.out" 2>&1; then
	PLAYED=yes
	rc=$(timeout 60 podman wait "$KC")
	podman logs "$KC" >"$TMP/bare.log" 2>&1
	check_eq "kube play without the annotation: exit status, and bpf() refused (EPERM) under podman's default profile (a podman that applies the field: update the manifest's comment)" \
		"1 yes" "$rc $(grep -q 'refused BPF programs .* with EPERM' "$TMP/bare.log" && echo yes)"
	sed 's/^/# without the annotation: /' "$TMP/bare.log"
	podman kube down "$KUBE" >/dev/null 2>&1 && PLAYED=
else
	sed 's/^/#   /' "$TMP/bare.out"
	not_ok "podman kube play without the annotation failed to start"
fi
tap_finish
