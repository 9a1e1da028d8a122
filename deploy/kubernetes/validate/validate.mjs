// SPDX-License-Identifier: GPL-2.0
// node validate.mjs FILE...: every YAML document of each FILE against the
// schema of its apiVersion and kind: Kubernetes' own (kubernetes-models,
// generated from Kubernetes' OpenAPI spec) and the Prometheus Operator's
// CRDs (@kubernetes-models/prometheus-operator).  One line per document,
// "valid" or "invalid: why"; exit 1 when any is invalid or of a kind
// without a schema here, 2 on bad usage.
// ES modules resolve packages from the importing file's directory (not
// NODE_PATH): run a copy of this file placed beside the node_modules that
// install.sh installs (tests/tree/test_manifests.sh links them).
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

// apiVersion -> the package directory of its models
function modelPath(apiVersion, kind) {
	if (apiVersion === "monitoring.coreos.com/v1")
		return `@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/${kind}`;
	return `kubernetes-models/${apiVersion}/${kind}`;
}

if (process.argv.length < 3) {
	console.error("usage: node validate.mjs FILE...");
	process.exit(2);
}
let bad = 0;
for (const file of process.argv.slice(2)) {
	const docs = parseAllDocuments(readFileSync(file, "utf8"));
	for (const doc of docs) {
		if (doc.errors.length) {
			console.log(`${file}: invalid: YAML: ${doc.errors[0].message}`);
			bad++;
			continue;
		}
		const obj = doc.toJS();
		if (obj === null)
			continue;
		const what = `${file}: ${obj.kind}/${obj.metadata?.name}`;
		let Model;
		try {
			const mod = await import(modelPath(obj.apiVersion, obj.kind));
			Model = mod[obj.kind];
		} catch (e) {
			Model = undefined;
		}
		if (typeof Model !== "function") {
			console.log(`${what}: invalid: no schema for ${obj.apiVersion} ${obj.kind}`);
			bad++;
			continue;
		}
		try {
			new Model(obj).validate();
			console.log(`${what}: valid`);
		} catch (e) {
			console.log(`${what}: invalid: ${e.message}`);
			bad++;
		}
	}
}
process.exit(bad ? 1 : 0);
