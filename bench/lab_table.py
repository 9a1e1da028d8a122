#!/usr/bin/env python3
"""The lab table of bench/lab.sh.

Usage: lab_table.py WORK-DIR WORKLOAD

WORK-DIR holds VARIANT.out, what tests/vm/scenarios/lab.sh printed on each
lab kernel (regression, patched); this writes VARIANT.json there, the
stat --repeat recording, for ptscope diff.  Prints, per variant, the
untraced realloc rate (calls per 10^9 guest instructions under -icount)
and, from the recording through the fentry markers, the folio lookups per
realloc call and per moved call, beside upstream's hardware figures.
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "vm", "checkers"))
from check_matrix import parse  # noqa: E402

VARIANTS = ("regression", "patched")
# "mm/mremap: avoid expensive folio lookup on mremap folio pte batch"
# (0b5be138ce00): stress-ng bigheap on an Intel Raptor Lake, realloc
# calls/s before the batching, with it (6.17-rc1), with the fix
UPSTREAM = (143857, 81503, 138701)


def bench_rates(text):
    """calls_per_sec=... of each untraced run"""
    return [float(w.split("=", 1)[1]) for line in text.splitlines()
            for w in line.split() if w.startswith("calls_per_sec=")]


def recording_rows(rec):
    """per run: (realloc calls, moved calls, folio lookups, PTEs)"""
    rows = []
    for run in rec.get("runs", []):
        c = run["counters"]
        classes = c["mremap"]["classes"]
        moved = sum(classes[k]["calls"] for k in ("pud", "pmd", "pte"))
        lv = c.get("mremap_levels", {})
        rows.append((c["mremap"]["calls"], moved, lv.get("folio_lookups"),
                     lv.get("ptes")))
    return rows


def variant_row(work, variant):
    _, blocks = parse(os.path.join(work, variant + ".out"))
    rates = bench_rates(blocks.get(("bench", "none", "realloc"), ""))
    text = blocks.get(("stat", "fentry", "realloc"))
    if not rates or text is None:
        raise SystemExit("%s: no untraced rates or no recording (%s)" % (
            variant, blocks.get(("error", "fentry", "realloc"), "")[-300:]))
    with open(os.path.join(work, variant + ".json"), "w") as f:
        f.write(text)
    rec = json.loads(text)
    check = rec["metrics"]["mremap.pte_batches"].get("start_check", {})
    rule = check.get("rule")
    rows = recording_rows(rec)
    calls = sum(r[0] for r in rows)
    moved = sum(r[1] or 0 for r in rows)
    lookups = sum(r[2] or 0 for r in rows)
    ptes = sum(r[3] or 0 for r in rows)
    return {"rate": statistics.median(rates), "rates": rates, "rule": rule,
            "check_ms": check.get("ms", 0),
            "calls": calls, "moved": moved, "lookups": lookups, "ptes": ptes,
            "runs": len(rows)}


def main():
    work, workload = sys.argv[1], sys.argv[2]
    got = {v: variant_row(work, v) for v in VARIANTS}
    print("the lab: %s, qemu TCG -icount shift=0" % workload)
    print("calls/s here are realloc() calls per 10^9 guest instructions, "
          "under emulation: not hardware time\n")
    print("%-11s %14s %5s %7s %10s %13s %14s  %s" % (
        "kernel", "calls/s (med)", "runs", "moved", "lookups", "lookups/call",
        "lookups/moved", "start-up check: rule, M instructions"))
    for v in VARIANTS:
        g = got[v]
        print("%-11s %14.0f %5d %7d %10d %13.2f %14.1f  %s, %.1f" % (
            v, g["rate"], len(g["rates"]), g["moved"], g["lookups"],
            g["lookups"] / g["calls"] if g["calls"] else 0,
            g["lookups"] / g["moved"] if g["moved"] else 0, g["rule"],
            g["check_ms"]))
    r, p = got["regression"]["rate"], got["patched"]["rate"]
    print("\nregression against patched: %+.1f%% realloc calls per "
          "instruction-second (untraced medians)" % ((r / p - 1) * 100))
    print("upstream, x86 hardware (stress-ng bigheap): %d before the "
          "batching, %d with it (%+.1f%%), %d with the fix" % (
              UPSTREAM[0], UPSTREAM[1], (UPSTREAM[1] / UPSTREAM[0] - 1) * 100,
              UPSTREAM[2]))


if __name__ == "__main__":
    main()
