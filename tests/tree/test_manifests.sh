#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Kubernetes manifests (deploy/kubernetes/*.yaml), offline: every
# document is valid against its schema, Kubernetes' own (kubernetes-models,
# generated from Kubernetes' OpenAPI spec) or the Prometheus Operator's
# CRDs (@kubernetes-models/prometheus-operator), both npm packages pinned
# by version and sha512 in deploy/kubernetes/validate/package-lock.json and
# installed under /var/cache/ptscope by make deps-image; broken copies
# (a wrong type, a missing required field, in the DaemonSet and in the
# PodMonitor, an unknown kind) must fail.  The schemas allow fields they
# do not know, so what ptscope relies on is checked by name: the
# DaemonSet's capabilities are the Debian unit's bounding set, its seccomp
# field and annotation agree, every host directory is mounted read-only,
# the image, port and probes match the image's config and version, the
# Service and PodMonitor select its pods.
cd "$(dirname "$0")/../.." || exit 1
# TAP helpers (ok, not_ok, check_eq, tap_finish) and $TMP; nothing here needs root
. tests/host/lib.sh
K8S=deploy/kubernetes

if ! VALIDATOR=$(PTSCOPE_CACHE=${PTSCOPE_CACHE:-/var/cache/ptscope} \
	"$K8S/validate/install.sh" 2>"$TMP/install.err"); then
	sed 's/^/#   /' "$TMP/install.err"
	not_ok "the manifest validator is not installed: run 'make deps-image' as root"
	tap_finish
	exit 1
fi
# validate.mjs beside the pinned node_modules (ES modules resolve from
# the importing file's directory)
ln -s "$VALIDATOR/node_modules" "$TMP/node_modules"
cp "$K8S/validate/validate.mjs" "$TMP/"
echo "# validator: node $(node --version), $(cd "$TMP" && node -p \
	'["kubernetes-models", "@kubernetes-models/prometheus-operator"].map(p =>
	 p + " " + require("./node_modules/" + p + "/package.json").version).join(", ")')"

# validate FILE...: the validator's lines in $TMP/out, its exit code
validate() {
	node "$TMP/validate.mjs" "$@" >"$TMP/out" 2>&1
}

# --- the manifests: every document valid ---
manifests=("$K8S"/*.yaml)
validate "${manifests[@]}"
rc=$?
while read -r line; do
	case "$line" in
	*": valid") ok "$line" ;;
	*) not_ok "$line" ;;
	esac
done <"$TMP/out"
[ "$rc" -eq 0 ] || not_ok "the validator exited $rc"
check_eq "kinds" "DaemonSet Namespace PodMonitor Service" \
	"$(sed -n 's/^[^:]*: \([A-Za-z]*\)\/.*: valid$/\1/p' "$TMP/out" | sort | tr '\n' ' ' | sed 's/ $//')"

# --- broken copies must fail, each for its reason ---
# broken NAME FILE PY WHY: FILE with the Python statement PY applied to its
# document "d" must be invalid, with WHY in the validator's message
broken() {
	python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
exec(sys.argv[2])
yaml.safe_dump(d, open(sys.argv[3], "w"))' "$2" "$3" "$TMP/broken.yaml" || {
		not_ok "$1: could not make the broken copy"
		return
	}
	if validate "$TMP/broken.yaml"; then
		not_ok "$1: a broken copy passed: $(cat "$TMP/out")"
	elif grep -q "invalid: .*$4" "$TMP/out"; then
		ok "$1: rejected ($(sed 's/.*invalid: //' "$TMP/out" | head -1))"
	else
		not_ok "$1: rejected, but not for '$4': $(cat "$TMP/out")"
	fi
}
ctr="d['spec']['template']['spec']['containers'][0]"
broken "DaemonSet with a port that is not a number" "$K8S/daemonset.yaml" \
	"${ctr}['ports'][0]['containerPort'] = 'nine'" "containerPort must be integer"
broken "DaemonSet without a selector" "$K8S/daemonset.yaml" \
	"del d['spec']['selector']" "required property selector"
broken "DaemonSet with a container without a name" "$K8S/daemonset.yaml" \
	"del ${ctr}['name']" "required property name"
broken "PodMonitor without a selector" "$K8S/podmonitor.yaml" \
	"del d['spec']['selector']" "required property selector"
broken "PodMonitor with endpoints that are not a list" "$K8S/podmonitor.yaml" \
	"d['spec']['podMetricsEndpoints'] = 'metrics'" "podMetricsEndpoints must be array"
broken "Service with a port that is not a number" "$K8S/service.yaml" \
	"d['spec']['ports'][0]['port'] = 'metrics'" "port must be integer"
broken "a kind without a schema" "$K8S/service.yaml" \
	"d['kind'] = 'Servic'" "no schema"

# --- what ptscope relies on, by name ---
UNIT=debian/ptscope.ptscope-exporter.service
VERSION=$(make -s --no-print-directory version)	# debian/changelog's
python3 - "$K8S" "$UNIT" "$VERSION" deploy/image/Containerfile >"$TMP/rely.out" 2>&1 <<'EOF'
import json, re, sys, yaml
k8s, unit, version, containerfile = sys.argv[1:]
load = lambda n: yaml.safe_load(open(f"{k8s}/{n}.yaml"))
ds, svc, pm = load("daemonset"), load("service"), load("podmonitor")
pod = ds["spec"]["template"]["spec"]
c = pod["containers"][0]
sc = c["securityContext"]

def check(name, want, got):
    print(("ok" if want == got else "not ok") + f" - {name}: want {want!r}, got {got!r}")

bounding = re.search(r"^CapabilityBoundingSet=(.*)$", open(unit).read(), re.M).group(1)
check("capabilities added are the unit's bounding set",
      sorted(x.removeprefix("CAP_") for x in bounding.split()), sorted(sc["capabilities"]["add"]))
check("all other capabilities dropped", ["ALL"], sc["capabilities"]["drop"])
check("not privileged", False, sc.get("privileged"))
check("read-only root filesystem", True, sc.get("readOnlyRootFilesystem"))
# the field for Kubernetes from 1.19, the pod annotation for what reads
# only that (podman 4.3's kube play): the same profile in both
annotations = ds["spec"]["template"]["metadata"].get("annotations", {})
check("seccomp: the container's field and the pod annotation, both unconfined",
      ("Unconfined", "unconfined"),
      (sc.get("seccompProfile", {}).get("type"),
       annotations.get("seccomp.security.alpha.kubernetes.io/pod")))
check("hostPID", True, pod.get("hostPID"))
mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
vols = {v["name"]: v for v in pod["volumes"]}
for path in ["/sys/kernel/btf", "/sys/kernel/tracing", "/sys/fs/cgroup",
             "/var/log/pods", "/var/log/containers"]:
    m = mounts.get(path, {})
    check(f"{path}: the host's, read-only",
          (path, True), (vols.get(m.get("name"), {}).get("hostPath", {}).get("path"), m.get("readOnly")))
check("every mount is read-only", [], [p for p, m in mounts.items() if not m.get("readOnly")])
check("--kube-logs is the parent of the log mounts", ["--kube-logs", "/var/log"], c.get("args"))
check("the image is this version's", f"ptscope:{version}", c["image"])
expose = re.search(r"^EXPOSE (\d+)/tcp$", open(containerfile).read(), re.M).group(1)
ports = {p["name"]: p["containerPort"] for p in c["ports"]}
check("the metrics port is the image's", int(expose), ports.get("metrics"))
for probe in ["readinessProbe", "livenessProbe"]:
    g = c[probe]["httpGet"]
    check(f"{probe} on /metrics of the metrics port", ("/metrics", "metrics"), (g["path"], g["port"]))
for kind in ["requests", "limits"]:
    check(f"resources {kind}: cpu and memory", ["cpu", "memory"], sorted(c["resources"].get(kind, {})))
labels = ds["spec"]["template"]["metadata"]["labels"]
check("the DaemonSet's selector matches its pods",
      True, ds["spec"]["selector"]["matchLabels"].items() <= labels.items())
check("the Service selects the pods", True, svc["spec"]["selector"].items() <= labels.items())
check("the Service targets the metrics port", "metrics", svc["spec"]["ports"][0]["targetPort"])
check("the PodMonitor selects the pods", True,
      pm["spec"]["selector"]["matchLabels"].items() <= labels.items())
check("the PodMonitor scrapes the metrics port's /metrics", [("metrics", "/metrics")],
      [(e["port"], e.get("path")) for e in pm["spec"]["podMetricsEndpoints"]])
namespaces = {ds["metadata"]["namespace"], svc["metadata"]["namespace"], pm["metadata"]["namespace"]}
check("one namespace, the one namespace.yaml makes", {load("namespace")["metadata"]["name"]}, namespaces)
EOF
rc=$?
while read -r line; do
	case "$line" in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) not_ok "${line#not ok - }" ;;
	*) not_ok "the checks by name: $line" ;;
	esac
done <"$TMP/rely.out"
[ "$rc" -eq 0 ] || not_ok "the checks by name exited $rc"
tap_finish
