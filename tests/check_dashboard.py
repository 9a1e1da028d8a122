#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every metric the Grafana dashboard or the Prometheus rules query must be
on an exporter page, or at least among the families ptscope can serve.

usage: check_dashboard.py [--ptscope BIN] DASHBOARD.json|RULES.yml PAGE.txt
       check_dashboard.py [--ptscope BIN] --rules RULES.yml

The families come from "BIN schema" (BIN: --ptscope, else $PTSCOPE, else
build/ptscope): per family its type, labels, the catalog metric that owns
it and which of that metric's attach candidates give it (null: all).

With a page: a family the page says it left out ("# NAME left out: why",
e.g. the BPF run-time statistics without --bpf-stats) is accepted with that
note.  Any other family missing from PAGE is accepted only when the schema
has it and the page says why it is not there: its metric is not attached on
that kernel, or is attached by a path and status (ptscope_probe_attached)
of which some candidate does not give it.  A selector's label matchers must
match a sample of the page (job and instance are the scraper's, not the
page's).  A recorded name (level:metric:operations) must be recorded by the
file itself.  Prints "N queries" last; exits 1 naming what is not exported.

--rules, without a page: every ptscope_ name is a family of the schema (a
histogram's only with _bucket, _sum or _count), every recorded name is
recorded by the file, and every value of a matcher on a label whose values
the schema lists (metric, level, reason, class) is one of them.  Prints "N
queries"; exits 1 naming the rest.
"""
import json
import os
import re
import subprocess
import sys

# labels Prometheus adds from the scrape target: never on a page
TARGET_LABELS = ("job", "instance")


def schema(ptscope=None):
    """the families of "ptscope schema" by name, each with the candidates
    of its metric"""
    ptscope = ptscope or os.environ.get("PTSCOPE") or "build/ptscope"
    try:
        out = subprocess.run([ptscope, "schema"], check=True, text=True,
                             stdout=subprocess.PIPE).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit("cannot read the schema from %s (make builds it): %s" % (ptscope, e))
    doc = json.loads(out)
    metrics = {m["name"]: m for m in doc["metrics"]}
    for f in doc["families"]:
        f["candidates"] = metrics[f["metric"]]["candidates"] if f["metric"] else []
    return {f["name"]: f for f in doc["families"]}


def label_values(families):
    """label: every value the schema lists for it, over all families"""
    values = {}
    for f in families.values():
        for label, vals in f.get("label_values", {}).items():
            values.setdefault(label, set()).update(vals)
    return values


def family_of(name, families):
    """the family @name selects (a histogram's series), or None"""
    if name in families:
        return None if families[name]["type"] == "histogram" else name
    base = re.sub(r"_(bucket|sum|count)$", "", name)
    if base != name and families.get(base, {}).get("type") == "histogram":
        return base
    return None


def gives(fam, probe):
    """does the path and status @probe reports for @fam's metric give it,
    whichever of the candidates with that path and status was chosen?"""
    if fam["needs"] is None:
        return True
    given = set(n["candidate"] for n in fam["needs"])
    return all(c["candidate"] in given for c in fam["candidates"]
               if (c["path"], c["status"]) == (probe["path"], probe["status"]))


def values_of(node, key, out):
    """every string value of @key in a JSON or YAML document"""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key and isinstance(v, str):
                out.append(v)
            else:
                values_of(v, key, out)
    elif isinstance(node, list):
        for v in node:
            values_of(v, key, out)
    return out


def exprs_of(node, out):
    return values_of(node, "expr", out)


def metric_names(expr):
    """ptscope_ families and recorded names (with a colon) an expression selects"""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # label values
    expr = re.sub(r"\[[^\]]*\]", "", expr)  # ranges, subqueries
    return set(t for t in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr)
               if t.startswith("ptscope_") or ":" in t)


def matchers(expr):
    """(name, [(label, op, value)]) of each selector of a ptscope_ family or a
    recorded name over one (level:ptscope_...:operations) with matchers"""
    return [(name, re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"', body))
            for name, body in re.findall(
                r"((?:\w+:)?ptscope_[a-z0-9_]+(?::\w+)?)\s*\{([^}]*)\}", expr)]


def matches(labels, label, op, value):
    got = labels.get(label, "")
    hit = re.fullmatch(value, got) if "~" in op else got == value
    return bool(hit) != op.startswith("!")


def unmatched(exprs, page):
    """selectors whose matchers match no sample of the page (when it has the family)"""
    samples = {}
    for name, labels in re.findall(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$", page, re.M):
        samples.setdefault(name, []).append(dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', labels)))
    bad = set()
    for e in exprs:
        for name, ms in matchers(e):
            # a recorded counter rate keeps the labels of its family's samples
            fam = name.split(":")[1] + "_total" if ":" in name else name
            ms = [m for m in ms if m[0] not in TARGET_LABELS and "$" not in m[2]]
            if fam in samples and ms and not any(
                    all(matches(s, *m) for m in ms) for s in samples[fam]):
                bad.add("%s{%s}" % (name, ",".join('%s%s"%s"' % m for m in ms)))
    return sorted(bad)


def check(dash, page, families):
    """(number of queries, notes on absent families, families not exported)
    of @dash against @page; @families from schema()"""
    exprs = exprs_of(dash, [])
    on_page = dict(re.findall(r"^# TYPE (\S+) (\S+)$", page, re.M))
    probes = {m: dict(path=p, status=st, on=v == "1") for m, p, st, v in re.findall(
        r'^ptscope_probe_attached\{metric="([^"]+)",path="([^"]+)",'
        r'status="([^"]+)"\} ([01])$', page, re.M)}
    # "# A and B left out: why" (e.g. BPF run-time statistics without --bpf-stats)
    left_out = {}
    for fams, why in re.findall(r"^# (ptscope_\S+(?: and ptscope_\S+)*) left out: (.*)$",
                                page, re.M):
        for fam in fams.split(" and "):
            left_out[fam] = why
    notes, bad = [], []
    names = set(n for e in exprs for n in metric_names(e))
    recorded = set(values_of(dash, "record", []))
    for name in sorted(names):
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        if ":" in name:
            if name not in recorded:
                bad.append(name)
            continue
        if name in on_page or on_page.get(base) == "histogram":
            continue
        if name in left_out or base in left_out:
            notes.append("%s: left out by the exporter: %s" % (
                name, left_out.get(name, left_out.get(base))))
            continue
        fam = families.get(family_of(name, families))
        probe = probes.get(fam["metric"]) if fam else None
        if not probe:
            bad.append(name)
        elif not probe["on"]:
            notes.append("%s: %s is not attached on this kernel" % (name, fam["metric"]))
        elif not gives(fam, probe):
            notes.append("%s: %s is attached by %s, %s" % (
                name, fam["metric"], probe["path"], probe["status"]))
        else:
            bad.append(name)
    bad += ["%s selects nothing on the page" % s for s in unmatched(exprs, page)]
    return len(exprs), notes, bad


def check_source(doc, families):
    """(number of queries, names not in the schema): the static check of --rules"""
    exprs = exprs_of(doc, [])
    values = label_values(families)
    recorded = set(values_of(doc, "record", []))
    bad = []
    for name in sorted(set(n for e in exprs for n in metric_names(e))):
        if not (name in recorded if ":" in name else family_of(name, families)):
            bad.append(name)
    for e in exprs:
        for name, ms in matchers(e):
            for label, op, value in ms:
                if label not in values:
                    continue
                for v in value.split("|") if "~" in op else [value]:
                    if v not in values[label]:
                        bad.append('%s{%s%s"%s"}' % (name, label, op, v))
    return len(exprs), bad


def load(path):
    """a dashboard (JSON) or a rule file (YAML)"""
    if path.endswith((".yml", ".yaml")):
        import yaml  # python3-yaml
        try:
            return yaml.safe_load(open(path))
        except yaml.YAMLError as e:
            sys.exit("%s is not valid YAML: %s" % (path, e))
    try:
        return json.load(open(path))
    except ValueError as e:
        sys.exit("%s is not valid JSON: %s" % (path, e))


def main():
    args = sys.argv[1:]
    ptscope = None
    if args[:1] == ["--ptscope"] and len(args) > 1:
        ptscope, args = args[1], args[2:]
    if len(args) == 2 and args[0] == "--rules":
        path = args[1]
        nr, bad = check_source(load(path), schema(ptscope))
        notes = []
    elif len(args) == 2 and not args[0].startswith("-"):
        path = args[0]
        nr, notes, bad = check(load(path), open(args[1]).read(), schema(ptscope))
    else:
        sys.exit(__doc__)
    for n in notes:
        print("# " + n)
    print("%d queries" % nr)
    if not nr:
        sys.exit("no expr in " + path)
    if bad:
        sys.exit("%s: %s" % ("not in the schema" if args[0] == "--rules"
                             else "not exported", ", ".join(bad)))


if __name__ == "__main__":
    main()
