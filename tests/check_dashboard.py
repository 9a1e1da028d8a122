#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every metric the Grafana dashboard queries must be on an exporter page.

usage: check_dashboard.py DASHBOARD.json PAGE.txt src/data/schema.c

A family the page says it left out ("# NAME left out: why", e.g. the BPF
run-time statistics without --bpf-stats) is accepted with that note.
Any other family missing from PAGE is accepted only when the schema has it and the
page says why it is not there (the schema names every family): its metric is not attached on that kernel,
or is attached by a path or with a status that does not give it.  Prints
"N queries" last; exits 1 naming what is not exported.
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
         ("ptscope_khugepaged_", "thp.collapse")]
# families that also need a particular path or status of their metric
# (schema.c needs_any/excludes: fault functions, PTE-table markers, the patched tracepoints)
NEEDS = {
    "ptscope_hugepage_fault_fallback_charges_total": ("path", ("fentry", "kprobe")),
    "ptscope_hugepage_fault_duration_seconds": ("path", ("fentry", "kprobe")),
    "ptscope_huge_zero_page_faults_total": ("path", ("fentry", "kprobe")),
    "ptscope_ptes_moved_total": ("status", ("exact",)),
    "ptscope_pte_batches_total": ("path", ("patched",)),
    "ptscope_pte_batch_folio_lookups_total": ("path", ("patched",)),
    "ptscope_pagetable_empty_extents_total": ("path", ("fentry", "kprobe")),
    "ptscope_pagetable_thp_splits_total": ("path", ("fentry", "kprobe")),
}


def exprs_of(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "expr" and isinstance(v, str):
                out.append(v)
            else:
                exprs_of(v, out)
    elif isinstance(node, list):
        for v in node:
            exprs_of(v, out)
    return out


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
    names = set(n for e in exprs for n in re.findall(r"ptscope_[a-z0-9_]+", e))
    for name in sorted(names):
        base = re.sub(r"_(bucket|sum|count)$", "", name)
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
    return len(exprs), notes, bad


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    try:
        dash = json.load(open(sys.argv[1]))
    except ValueError as e:
        sys.exit("%s is not valid JSON: %s" % (sys.argv[1], e))
    nr, notes, bad = check(dash, open(sys.argv[2]).read(),
                           open(sys.argv[3]).read())
    for n in notes:
        print("# " + n)
    print("%d queries" % nr)
    if not nr:
        sys.exit("no expr in the dashboard")
    if bad:
        sys.exit("not exported: " + ", ".join(bad))


if __name__ == "__main__":
    main()
