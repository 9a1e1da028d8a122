#!/usr/bin/env python3
"""Check what tests/vm/scenarios/cgroup.sh (cgroup_scenarios) printed in one VM.

Usage: check_cgroup.py [--modes MODE,...] KERNEL-LABEL CONSOLE-OUTPUT

Prints TAP.  Ground truth is the workloads' geometry: in cgroup a three
PMD-aligned moves of 16 MiB, in b one.  With 4 KiB pages each call is one
mremap of class pmd and, where the levels are traced, 8 PMD entries (2 MiB
each) moved; the PMD size follows from the report's page size (32 MiB with
16 KiB pages, where 16 MiB moves only PTEs: class pte, no PMD entry).  The ids must be the inode numbers of the cgroup
directories (the guest lists them), which is what bpf_get_current_cgroup_id()
returns.  Modes default to those tests/vm/checkers/check_matrix.py expects of the
kernel.
"""
import sys

from check_matrix import expected_modes, parse
from taplib import kernel_row
from taplib import comment, plan, run, tap, unit
from taplib import stat_report as report

MIB = 1 << 20
SIZE = 16 * MIB
A, B = "/ptscope-cg/a", "/ptscope-cg/b"
CALLS = {A: 3, B: 1}


def geometry(rep):
    """(class, PMD entries moved) of one call, from the page size"""
    page = rep["system"]["page_size"]
    pmd = page // 8 * page
    return ("pmd", SIZE // pmd) if SIZE % pmd == 0 else ("pte", 0)

# checks per scenario: see check_report()
SCENARIOS = {
    "cgroup": ((A, B), 1 + 4 * 2 + 1),
    "cgroup_a": ((A,), 1 + 4 + 1),
    "cgroup_parent": ((A, B), 1 + 4 * 2 + 1),
}


def inodes(blocks, mode):
    """cgroup path -> inode of its directory, as the guest listed them"""
    text = blocks.get(("cgroupids", mode, "cgroup"), "")
    return dict((line.split()[0], int(line.split()[1]))
                for line in text.splitlines() if len(line.split()) == 2)


def check_row(label, mode, name, rep, row, path, ids):
    """4 checks: calls and bytes, levels (or their absence), id"""
    want = CALLS[path]
    cls, entries = geometry(rep)
    moves = row["mremap"]["classes"][cls] if row else {}
    got = (moves.get("calls"), moves.get("old_bytes"), moves.get("new_bytes"))
    tap(got == (want, want * SIZE, want * SIZE),
        "%s %s %s: %s %s calls/old/new bytes %s" % (label, mode, name, path,
                                                    cls, got))
    others = sum(c["calls"] for k, c in row["mremap"]["classes"].items()
                 if k != cls) if row else None
    tap(others == 0, "%s %s %s: %s calls of other classes %s" % (
        label, mode, name, path, others))
    levels = rep["metrics"]["mremap.levels"]["status"] != "unavailable"
    if levels:
        moved = row.get("mremap_levels", {}).get("pmd_moved") if row else None
        tap(moved == want * entries,
            "%s %s %s: %s PMD entries moved %s (want %d)" % (
                label, mode, name, path, moved, want * entries))
    else:
        tap(row is not None and "mremap_levels" not in row,
            "%s %s %s: %s no level counts where levels are not traced" % (
                label, mode, name, path))
    tap(row is not None and row["id"] == ids.get(path),
        "%s %s %s: %s id %s = inode %s" % (label, mode, name, path,
                                           row and row["id"], ids.get(path)))


def check_report(label, mode, name, blocks):
    rep = report(blocks, mode, name)
    if rep is None:
        return
    paths, _ = SCENARIOS[name]
    counters = rep["counters"]
    rows = dict((c["path"], c) for c in counters.get("cgroups", []))
    cls = geometry(rep)[0]
    total = counters["mremap"]["classes"][cls]["calls"]
    tap(total == sum(CALLS[p] for p in paths),
        "%s %s %s: %s calls %d in all" % (label, mode, name, cls, total))
    ids = inodes(blocks, mode)
    for path in paths:
        check_row(label, mode, name, rep, rows.get(path), path, ids)
    if name == "cgroup_a":
        tap(sorted(rows) == [A], "%s %s %s: only %s has a row: %s" % (
            label, mode, name, A, sorted(rows)))
    else:
        added = sum(c["mremap"]["calls"] for c in rows.values())
        tap(added == counters["mremap"]["calls"],
            "%s %s %s: rows add up to the calls (%d of %d)" % (
                label, mode, name, added, counters["mremap"]["calls"]))


def main():
    args = sys.argv[1:]
    modes = None
    if len(args) > 1 and args[0] == "--modes":
        modes = args[1].split(",")
        args = args[2:]
    if len(args) != 2:
        sys.exit(__doc__)
    label, path = args
    # the guest runs them in the first mode with levels only: the per-cgroup
    # rows are counted the same way on every attach path; where no mode
    # gives levels, under the default attach
    if not modes:
        modes = expected_modes(label)[:1] if kernel_row(label).levels else ["auto"]
    units = [(mode, name, checks) for mode in modes
             for name, (_, checks) in SCENARIOS.items()]
    plan(1 + sum(checks for _, _, checks in units))
    kernel, blocks = parse(path)
    tap(kernel is not None, "%s: booted %s" % (label, " ".join(kernel or ["?"])))
    for mode, name, checks in units:
        with unit("%s %s %s" % (label, mode, name), checks):
            check_report(label, mode, name, blocks)
    if not blocks:
        comment("no @@BEGIN blocks in %s" % path)


if __name__ == "__main__":
    run(main)
