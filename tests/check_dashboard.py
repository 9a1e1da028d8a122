#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every metric the Grafana dashboard or the Prometheus rules query must be
on an exporter page, or at least in the source.

usage: check_dashboard.py DASHBOARD.json|RULES.yml PAGE.txt src/data/schema.c
       check_dashboard.py --rules RULES.yml SOURCE...

With a page: a family the page says it left out ("# NAME left out: why",
e.g. the BPF run-time statistics without --bpf-stats) is accepted with that
note.  Any other family missing from PAGE is accepted only when the schema
has it and the page says why it is not there (the schema names every
family): its metric is not attached on that kernel, or is attached by a path
or with a status that does not give it.  A selector's label matchers must
match a sample of the page (job and instance are the scraper's, not the
page's).  A recorded name (level:metric:operations) must be recorded by the
file itself.  Prints "N queries" last; exits 1 naming what is not exported.

--rules, without a page (SOURCE: src/data/schema.c, src/export/prom.c,
src/engine/catalog.c): every ptscope_ name is a family of the sources (a
histogram's only with _bucket, _sum or _count), every recorded name is
recorded by the file, and every value of a metric, level or reason matcher
is a string of the sources.  Prints "N queries"; exits 1 naming the rest.
"""
import json
import re
import sys

# metric of the catalog that owns each family (by name prefix)
OWNER = [("ptscope_mremap_", "mremap.calls"),
         ("ptscope_move_page_tables_", "mremap.move_page_tables"),
         ("ptscope_pagetable_", "mremap.levels"), ("ptscope_pte", "mremap.levels"),
         ("ptscope_vm_normal_folio_", "mremap.folio_lookups"),
         ("ptscope_hugepage_", "thp.fault_alloc"),
         ("ptscope_huge_zero", "thp.fault_alloc"),
         ("ptscope_khugepaged_", "thp.collapse"),
         ("ptscope_madv_collapse_", "thp.collapse")]
# families that also need a particular path or status of their metric
# (schema.c needs_any/excludes: fault functions, PTE-table markers, the patched tracepoints)
NEEDS = {
    "ptscope_hugepage_fault_duration_seconds": ("path", ("fentry", "kprobe")),
    "ptscope_huge_zero_page_faults_total": ("path", ("fentry", "kprobe")),
    "ptscope_ptes_moved_total": ("status", ("exact",)),
    "ptscope_pte_batches_total": ("path", ("patched",)),
    "ptscope_pte_batch_folio_lookups_total": ("path", ("patched",)),
    "ptscope_pagetable_empty_extents_total": ("path", ("fentry", "kprobe")),
    "ptscope_pagetable_thp_splits_total": ("path", ("fentry", "kprobe")),
}


# label matchers of rules checked against the source: their values are literals there
# (catalog.c metric names, schema.c fixed labels)
SOURCE_LABELS = ("metric", "level", "reason")
# labels Prometheus adds from the scrape target: never on a page
TARGET_LABELS = ("job", "instance")


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


def check(dash, page, source):
    """(number of queries, notes on absent families, families not exported)"""
    exprs = exprs_of(dash, [])
    families = dict(re.findall(r"^# TYPE (\S+) (\S+)$", page, re.M))
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
        if name in families or families.get(base) == "histogram":
            continue
        if name in left_out or base in left_out:
            notes.append("%s: left out by the exporter: %s" % (
                name, left_out.get(name, left_out.get(base))))
            continue
        fam = name if '"%s"' % name in source else base
        metric = next((m for p, m in OWNER if name.startswith(p)), None)
        probe = probes.get(metric)
        if '"%s"' % fam not in source or not probe:
            bad.append(name)
        elif not probe["on"]:
            notes.append("%s: %s is not attached on this kernel" % (name, metric))
        elif fam in NEEDS and probe[NEEDS[fam][0]] not in NEEDS[fam][1]:
            notes.append("%s: %s is attached by %s, %s" % (
                name, metric, probe["path"], probe["status"]))
        else:
            bad.append(name)
    bad += ["%s selects nothing on the page" % s for s in unmatched(exprs, page)]
    return len(exprs), notes, bad


def check_source(doc, source):
    """(number of queries, names not in the source): the static check of --rules"""
    exprs = exprs_of(doc, [])
    families = set(re.findall(r'"(ptscope_[a-z0-9_]+)"', source))
    hists = set(re.findall(r'PTS_FIELD_HIST\b[^}]*?\.prom = "([^"]+)"', source, re.S))
    recorded = set(values_of(doc, "record", []))
    bad = []
    for name in sorted(set(n for e in exprs for n in metric_names(e))):
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        if ":" in name:
            ok = name in recorded
        else:
            ok = (name in families and name not in hists) or base in hists - {name}
        if not ok:
            bad.append(name)
    for e in exprs:
        for name, ms in matchers(e):
            for label, op, value in ms:
                if label not in SOURCE_LABELS:
                    continue
                for v in value.split("|") if "~" in op else [value]:
                    if '"%s"' % v not in source:
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
    if len(sys.argv) >= 4 and sys.argv[1] == "--rules":
        path = sys.argv[2]
        nr, bad = check_source(load(path),
                               "".join(open(f).read() for f in sys.argv[3:]))
        notes = []
    elif len(sys.argv) == 4:
        path = sys.argv[1]
        nr, notes, bad = check(load(path), open(sys.argv[2]).read(),
                               open(sys.argv[3]).read())
    else:
        sys.exit(__doc__)
    for n in notes:
        print("# " + n)
    print("%d queries" % nr)
    if not nr:
        sys.exit("no expr in " + path)
    if bad:
        sys.exit("%s: %s" % ("not in the source" if sys.argv[1] == "--rules"
                             else "not exported", ", ".join(bad)))


if __name__ == "__main__":
    main()
