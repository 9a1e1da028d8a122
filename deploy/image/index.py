# SPDX-License-Identifier: GPL-2.0
# index.py LAYOUT REF: in the OCI layout LAYOUT, whose index.json lists one
# image manifest per architecture (buildah push oci:LAYOUT:ARCH), write an
# image index blob of those manifests (amd64 first, then arm64, each with
# its platform) and make index.json name only that index, as REF (the
# org.opencontainers.image.ref.name annotation, which podman load and
# skopeo read).  Prints the index's digest.
import hashlib
import json
import os
import sys

ORDER = ["amd64", "arm64"]


def blob_path(layout, digest):
    algo, hexd = digest.split(":", 1)
    return os.path.join(layout, "blobs", algo, hexd)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: index.py LAYOUT REF")
    layout, ref = sys.argv[1:]
    with open(os.path.join(layout, "index.json")) as f:
        top = json.load(f)
    by_arch = {}
    for desc in top["manifests"]:
        arch = desc.get("annotations", {}).get("org.opencontainers.image.ref.name")
        with open(blob_path(layout, desc["digest"])) as f:
            manifest = json.load(f)
        with open(blob_path(layout, manifest["config"]["digest"])) as f:
            config = json.load(f)
        if config["architecture"] != arch or config["os"] != "linux":
            sys.exit("index.py: manifest %s is %s/%s, named %s" %
                     (desc["digest"], config["os"], config["architecture"], arch))
        by_arch[arch] = {
            "mediaType": desc["mediaType"],
            "digest": desc["digest"],
            "size": desc["size"],
            "platform": {"architecture": arch, "os": "linux"},
        }
    if sorted(by_arch) != ORDER:
        sys.exit("index.py: want manifests for %s, have %s" % (ORDER, sorted(by_arch)))
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [by_arch[a] for a in ORDER],
    }
    body = json.dumps(index, indent=None, separators=(",", ":"), sort_keys=True).encode()
    digest = "sha256:" + hashlib.sha256(body).hexdigest()
    with open(blob_path(layout, digest), "wb") as f:
        f.write(body)
    top = {
        "schemaVersion": 2,
        "manifests": [{
            "mediaType": index["mediaType"],
            "digest": digest,
            "size": len(body),
            "annotations": {"org.opencontainers.image.ref.name": ref},
        }],
    }
    with open(os.path.join(layout, "index.json"), "w") as f:
        json.dump(top, f, separators=(",", ":"), sort_keys=True)
    print(digest)


main()
