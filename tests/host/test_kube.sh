#!/bin/bash
# Kubernetes names on this kernel, without Kubernetes: real cgroups shaped
# as the kubelet makes them, with both cgroup drivers (systemd: pod cart-1
# in namespace shop, burstable, containers web and sidecar under containerd;
# cgroupfs: pod job-7 in namespace batch, besteffort, container worker),
# the kubelet's log directories for them under a temporary --kube-logs,
# and a known workload in each container.  stat (text and JSON), top
# --json and a Prometheus scrape must show each container's mremap calls
# under its namespace/pod/container; a pod-shaped cgroup the logs do not
# list shows its UID; missing log directories give one warning and the
# run goes on.  The hierarchies live under a parent of this run's own and
# are removed on exit.
. "$(dirname "$0")/lib.sh"
require_root
require_cgroup2

TOP=
EXPORTER=
ROOT=$CGROOT/ptscope-kube-$$
LOGS=$TMP/logs

UID1=1b2c3d4e-5f60-4a1b-9c2d-3e4f5a6b7c8d	# shop/cart-1, systemd driver
UID2=2c3d4e5f-6071-4b2c-8d3e-4f5a6b7c8d9e	# batch/job-7, cgroupfs driver
UID3=3d4e5f60-7182-4c3d-9e4f-5a6b7c8d9eaf	# no log entries
cid() {	# cid N: a 64-digit container id
	printf '%064x' "$1"
}
WEB=$(cid 101)
SIDECAR=$(cid 102)
WORKER=$(cid 103)
GHOST=$(cid 104)

POD1=$ROOT/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID1//-/_}.slice
POD2=$ROOT/kubepods/besteffort/pod$UID2
POD3=$ROOT/kubepods/pod$UID3
CG_WEB=$POD1/cri-containerd-$WEB.scope
CG_SIDECAR=$POD1/cri-containerd-$SIDECAR.scope
CG_WORKER=$POD2/$WORKER
CG_GHOST=$POD3/$GHOST

cleanup() {
	[ -n "$TOP" ] && kill -INT "$TOP" 2>/dev/null && wait "$TOP"
	[ -n "$EXPORTER" ] && kill -INT "$EXPORTER" 2>/dev/null && wait "$EXPORTER"
	if [ -d "$ROOT" ]; then
		find "$ROOT" -depth -type d | while read -r d; do
			remove_cgroup "$d"
		done
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

if ! mkdir -p "$CG_WEB" "$CG_SIDECAR" "$CG_WORKER" "$CG_GHOST"; then
	not_ok "mkdir the kubelet-shaped cgroups under $ROOT"
	tap_finish
	exit 1
fi
mkdir -p "$LOGS/pods/shop_cart-1_$UID1/web" "$LOGS/pods/shop_cart-1_$UID1/sidecar" \
	"$LOGS/pods/batch_job-7_$UID2/worker" "$LOGS/containers"
for f in "cart-1_shop_web-$WEB" "cart-1_shop_sidecar-$SIDECAR" "job-7_batch_worker-$WORKER"; do
	: >"$LOGS/containers/$f.log"
done

# each container's PMD-aligned moves: web 1, sidecar 2, worker 3, and 4 in
# the pod without log entries
WORKLOADS="run_in $CG_WEB 1 & run_in $CG_SIDECAR 2 & run_in $CG_WORKER 3 & run_in $CG_GHOST 4 & wait"
EXPECT="shop/cart-1/web:1 shop/cart-1/sidecar:2 batch/job-7/worker:3 ?/$UID3/$GHOST:4"

# --- stat, text: one row per container, named, its calls ---
"$PTSCOPE" stat --kube-logs "$LOGS" -- bash -c "$WORKLOADS" >"$TMP/stat.txt" 2>&1
check_eq "stat: exit" 0 "$?"
for e in $EXPECT; do
	check_eq "stat text: ${e%:*} mremap calls" "${e##*:}" \
		"$(awk -v n="${e%:*}" '$NF == n { print $1 }' "$TMP/stat.txt")"
done
check_eq "stat text: no warning about the log directories" 0 \
	"$(grep -c 'warning: --kube-logs' "$TMP/stat.txt")"

# a row's field in a list of cgroup objects: "ns/pod/container" of it
pyrows='import json, sys
def key(c):
    return "%s/%s/%s" % (c["namespace"] or "?", c["pod"], c["container"])
'

# --- stat, JSON: the three fields, and the UID and QoS with them ---
"$PTSCOPE" stat --json --kube-logs "$LOGS" -o "$TMP/stat.json" -- bash -c "$WORKLOADS" \
	>/dev/null 2>"$TMP/stat.err"
check_eq "stat --json: exit" 0 "$?"
got=$(python3 -c "$pyrows"'
d = json.load(open(sys.argv[1]))
print(" ".join("%s:%d" % (key(c), c["mremap"]["calls"]) for c in d["counters"]["cgroups"]
               if c["pod_uid"] and c["container_id"]))' "$TMP/stat.json")
for e in $EXPECT; do
	check_eq "stat --json: ${e%:*}" "$e" "$(tr ' ' '\n' <<<"$got" | grep -xF "$e")"
done
check_eq "stat --json: web's pod UID, QoS, named" "$UID1 burstable True" \
	"$(json "$TMP/stat.json" "' '.join(str(x) for c in d['counters']['cgroups'] if c['container'] == 'web' for x in (c['pod_uid'], c['qos'], c['named']))")"
check_eq "stat --json: worker's QoS (cgroupfs driver)" besteffort \
	"$(json "$TMP/stat.json" "''.join(c['qos'] for c in d['counters']['cgroups'] if c['container'] == 'worker')")"
check_eq "stat --json: the unlisted pod is not named" "False None $UID3" \
	"$(json "$TMP/stat.json" "' '.join(str(x) for c in d['counters']['cgroups'] if c['container_id'] == '$GHOST' for x in (c['named'], c['namespace'], c['pod']))")"

# --- top --json: the per-interval rows add up to each container's calls ---
if top_json_around "$TMP/top.json" "$WORKLOADS" --cgroup "$ROOT" --kube-logs "$LOGS"; then
	got=$(python3 -c "$pyrows"'
n = {}
for line in open(sys.argv[1]):
    for c in json.loads(line).get("cgroups", []):
        if c["pod_uid"] and c["container_id"]:
            n[key(c)] = n.get(key(c), 0) + c["mremap"]["calls"]
print(" ".join("%s:%d" % kv for kv in n.items()))' "$TMP/top.json")
	for e in $EXPECT; do
		check_eq "top --json: ${e%:*} over all intervals" "$e" \
			"$(tr ' ' '\n' <<<"$got" | grep -xF "$e")"
	done
fi

# --- export: the containers' series labelled namespace, pod, container ---
port=$(free_port)
"$PTSCOPE" export --listen "127.0.0.1:$port" --cgroup "$ROOT" --cgroup-labels 10 \
	--kube-logs "$LOGS" >/dev/null 2>"$TMP/export.err" &
EXPORTER=$!
if wait_for 60 tracing "$TMP/export.err"; then
	bash -c "$WORKLOADS"
	curl -sS --max-time 10 -o "$TMP/page.txt" "http://127.0.0.1:$port/metrics"
	kill -INT "$EXPORTER"
	wait "$EXPORTER"
	EXPORTER=
	series=ptscope_cgroup_mremap_calls_total
	rel=${ROOT#"$CGROOT"}
	check_eq "export: web" 1 "$(value "$TMP/page.txt" \
		"$series{cgroup=\"${CG_WEB#"$CGROOT"}\",namespace=\"shop\",pod=\"cart-1\",container=\"web\",class=\"pmd\"}")"
	check_eq "export: sidecar" 2 "$(value "$TMP/page.txt" \
		"$series{cgroup=\"${CG_SIDECAR#"$CGROOT"}\",namespace=\"shop\",pod=\"cart-1\",container=\"sidecar\",class=\"pmd\"}")"
	check_eq "export: worker" 3 "$(value "$TMP/page.txt" \
		"$series{cgroup=\"${CG_WORKER#"$CGROOT"}\",namespace=\"batch\",pod=\"job-7\",container=\"worker\",class=\"pmd\"}")"
	check_eq "export: the unlisted pod by its UID and container id" 4 "$(value "$TMP/page.txt" \
		"$series{cgroup=\"${CG_GHOST#"$CGROOT"}\",namespace=\"\",pod=\"$UID3\",container=\"$GHOST\",class=\"pmd\"}")"
	echo "# the scrape, pmd class:"
	grep "^$series{cgroup=\"$rel/.*class=\"pmd\"" "$TMP/page.txt" | sed 's/^/#   /'
else
	not_ok "export did not start: $(head -c 300 "$TMP/export.err")"
fi

# --- no log directories: one warning, UIDs, and the run goes on ---
"$PTSCOPE" stat --kube-logs "$TMP/none" -- bash -c "$WORKLOADS" >"$TMP/nologs.txt" 2>&1
check_eq "stat without log directories: exit" 0 "$?"
check_eq "stat without log directories: warnings" 1 \
	"$(grep -c 'warning: --kube-logs' "$TMP/nologs.txt")"
check_eq "stat without log directories: web by its pod's UID and id" 1 \
	"$(awk -v n="?/$UID1/$WEB" '$NF == n { print $1 }' "$TMP/nologs.txt")"
tap_finish
