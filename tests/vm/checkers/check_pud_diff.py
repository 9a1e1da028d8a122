#!/usr/bin/env python3
"""The seed's before/after in ptscope's own words: diff the recordings of
one PUD-aligned PUD move on a kernel without HAVE_MOVE_PUD and on one
with it.

Usage: check_pud_diff.py PTSCOPE BEFORE-LABEL BEFORE-CONSOLE AFTER-LABEL
       AFTER-CONSOLE

Each console holds a "pudmove" block (tests/vm/scenarios/mremap-matrix.sh
pud_recording: ptscope stat --json --repeat 3 of ptscope-bench mremap
--size PUD --align pud).  The recordings are written beside the consoles
(LABEL.pud.json) and compared with PTSCOPE diff.  Ground truth is the
geometry: without HAVE_MOVE_PUD (5.10, mm/mremap.c) move_page_tables()
moves the PUD as its ptrs PMD entries, with it as one PUD entry, so the
diff must say the kernels differ and name pmd_moved ptrs -> 0 and
pud_moved 0 -> 1 as changed, counted exactly, per run.
"""
import json
import os
import subprocess
import sys

from check_matrix import guest_geometry, parse
from taplib import comment, plan, run, tap, unit


def recording(label, console):
    """the pudmove recording of LABEL's console, written beside it"""
    _, blocks = parse(console)
    text = next((v for (kind, _, _), v in blocks.items() if kind == "pudmove"),
                None)
    if text is None:
        return None, None
    path = os.path.join(os.path.dirname(console), label + ".pud.json")
    with open(path, "w") as f:
        f.write(text + "\n")
    return path, guest_geometry(blocks)[0]


def row(result, name):
    return next((r for r in result.get("rows", []) if r["name"].endswith(name)),
                None)


def check(ptscope, before, after):
    paths, geos = [], []
    for label, console in (before, after):
        path, geo = recording(label, console)
        paths.append(path)
        geos.append(geo)
    tap(None not in paths, "PUD move recorded on %s and %s: %s" % (
        before[0], after[0], paths))
    if None in paths:
        return
    text = subprocess.run([ptscope, "diff"] + paths, capture_output=True,
                          text=True)
    comment(text.stdout + text.stderr)
    out = subprocess.run([ptscope, "diff", "--json"] + paths,
                         capture_output=True, text=True)
    result = json.loads(out.stdout)
    tap(result.get("verdict") == "changed" and result.get("kernels_differ"),
        "diff: verdict %s, kernels differ: %s" % (
            result.get("verdict"), result.get("kernels_differ")))
    ptrs = geos[0].ptrs
    for name, want in (("pmd_moved", (ptrs, 0)), ("pud_moved", (0, 1))):
        r = row(result, name) or {}
        got = (r.get("base"), r.get("new"), r.get("test"), r.get("changed"))
        tap(got == want + ("exact", True),
            "diff: %s %s -> %s, test %s, changed %s (want %d -> %d, exact)" % (
                (name,) + got + want))


def main():
    ptscope = sys.argv[1]
    before = (sys.argv[2], sys.argv[3])
    after = (sys.argv[4], sys.argv[5])
    plan(4)
    with unit("PUD move diff", 4):
        check(ptscope, before, after)


if __name__ == "__main__":
    run(main)
