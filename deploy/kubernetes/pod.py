#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# pod.py [--image REF] [--host-port [IP:]PORT] [--host-path VOLUME=DIR]...
#        [DAEMONSET]
# The pod that the DaemonSet (deploy/kubernetes/daemonset.yaml unless
# given) runs on each node, as a Pod manifest on standard output, for
# `podman kube play` on one host: its template's metadata and spec as
# they are, with what the options change:
#   --image REF              the container's image (where podman has it)
#   --host-port [IP:]PORT    publish the metrics port there (a DaemonSet
#                            pod is reached on its pod IP; podman's on a
#                            host port)
#   --host-path VOLUME=DIR   mount DIR for the hostPath volume VOLUME
# Bad input: a message and exit 2.
import argparse
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("pod.py: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_args():
    ap = argparse.ArgumentParser(description="the DaemonSet's pod as a Pod")
    ap.add_argument("--image")
    ap.add_argument("--host-port")
    ap.add_argument("--host-path", action="append", default=[])
    ap.add_argument("daemonset", nargs="?",
                    default=os.path.join(HERE, "daemonset.yaml"))
    return ap.parse_args()


def publish(container, arg):
    ip, _, port = arg.rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        fail("--host-port %s: want [IP:]PORT" % arg)
    ports = [p for p in container.get("ports", []) if p.get("name") == "metrics"]
    if len(ports) != 1:
        fail("the container has no port named metrics")
    ports[0]["hostPort"] = int(port)
    if ip:
        ports[0]["hostIP"] = ip


def rebind(spec, arg):
    name, sep, path = arg.partition("=")
    if not sep or not path.startswith("/"):
        fail("--host-path %s: want VOLUME=/DIR" % arg)
    vols = [v for v in spec.get("volumes", [])
            if v.get("name") == name and "hostPath" in v]
    if len(vols) != 1:
        fail("--host-path %s: no hostPath volume %s" % (arg, name))
    vols[0]["hostPath"]["path"] = path


def main():
    args = parse_args()
    try:
        with open(args.daemonset) as f:
            ds = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        fail("%s: %s" % (args.daemonset, e))
    if not isinstance(ds, dict) or ds.get("kind") != "DaemonSet":
        fail("%s: not a DaemonSet" % args.daemonset)
    template = ds["spec"]["template"]
    meta = dict(template.get("metadata", {}))
    meta["name"] = ds["metadata"]["name"]
    spec = template["spec"]
    containers = spec["containers"]
    if len(containers) != 1:
        fail("want one container, the DaemonSet has %d" % len(containers))
    if args.image:
        containers[0]["image"] = args.image
    if args.host_port:
        publish(containers[0], args.host_port)
    for arg in args.host_path:
        rebind(spec, arg)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    yaml.safe_dump(pod, sys.stdout, sort_keys=False)


main()
