#!/usr/bin/env python3
"""The differential level test: ptscope-cases under ptscope snoop.

tests/vm/scenarios/lib.sh (levels_cases) runs the seeded mremap cases of
tests/vm/cases/mremap-cases.c once per attach mode and prints, per mode, the
generator's case lines and snoop's JSON events.  Each mremap call's level
breakdown is compared case by case:

- between modes: on the patched kernel the patched tracepoints
  (mmap:mm_mremap_move_pud, _pmd, _huge_pmd, _ptes) are the oracle for the fentry and
  kprobe markers; on stock kernels fentry and kprobe must agree;
- with the geometry, where it is exact: a fully written region without
  THP (model() below replays the move_page_tables() loop of mm/mremap.c);
- for cases 0 and 1 (the sparse heap): with 4 KiB pages 2 PMD
  moves and 512 empty steps, in general from the generator's geometry.

Used by check_matrix.py and check_patched.py; each check_* function makes
exactly the number of TAP checks its docstring names.
"""
import json
import re

from taplib import tap, comment

# counters that both the tracepoints and the markers give per call
SHARED_KEYS = ("pud", "pmd", "huge_pmd", "fallbacks", "pte_extents", "ptes",
               "pte_bytes")
# what the tracepoints count and the markers infer from 6.17 (absent before)
BATCH_KEYS = ("pte_batches", "folio_lookups")
SHOW_DISAGREEMENTS = 12


def parse_cases(text):
    """generator output -> (header, {src: case}, exit status or None)"""
    header, cases, status = {}, {}, None
    for line in text.splitlines():
        if line.startswith("seed="):
            header = dict(w.split("=", 1) for w in line.split())
        elif line.startswith("case="):
            c = dict(w.split("=", 1) for w in line.split())
            for k in ("case", "len", "shared", "thp", "written"):
                c[k] = int(c[k])
            for k in ("src", "dst", "ret"):
                c[k] = int(c[k], 16)
            c["write"], c["write_arg"] = c["write"].split(":")
            cases[c["src"]] = c
        elif line.startswith("cases exit "):
            status = int(line.split()[2])
    return header, cases, status


def parse_events(text):
    """snoop --json lines -> {(addr, old_len): [mremap event]}"""
    events = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        ev = json.loads(line)
        if ev.get("type") != "mremap":
            continue
        m = ev["mremap"]
        events.setdefault((m["addr"], m["old_len"]), []).append(m)
    return events


def snoop_summary(text):
    """(exit status, events, dropped) from snoop's stderr, None if absent"""
    status = re.search(r"snoop exit (\d+)", text)
    counts = re.search(r"(\d+) events, (\d+) dropped", text)
    return (int(status.group(1)) if status else None,
            int(counts.group(1)) if counts else None,
            int(counts.group(2)) if counts else None)


def calls(blocks, mode):
    """{case index: (case, levels or None)} for MODE, and the problems"""
    problems = []
    header, cases, status = parse_cases(
        blocks.get(("cases", mode, "levels"), ""))
    if status != 0:
        problems.append("generator exit %s" % status)
    try:
        events = parse_events(blocks.get(("snoop", mode, "levels"), ""))
    except ValueError as e:
        problems.append("snoop JSON unreadable: %s" % e)
        events = {}
    out = {}
    for src, c in cases.items():
        evs = events.get((src, c["len"]), [])
        if len(evs) != 1:
            problems.append("case %d: %d events" % (c["case"], len(evs)))
            out[c["case"]] = (c, None)
        elif evs[0]["result"] != c["dst"] or "levels" not in evs[0]:
            problems.append("case %d: result %#x, levels %s" % (
                c["case"], evs[0]["result"], "levels" in evs[0]))
            out[c["case"]] = (c, None)
        else:
            out[c["case"]] = (c, evs[0]["levels"])
    return header, out, problems


def check_run(label, mode, blocks, want_count):
    """1 check: the generator ran every case and snoop saw each call once,
    with nothing dropped."""
    header, got, problems = calls(blocks, mode)
    status, nr_events, dropped = snoop_summary(
        blocks.get(("snooperr", mode, "levels"), ""))
    if status != 0 or dropped != 0:
        problems.append("snoop exit %s, %s dropped" % (status, dropped))
    if len(got) != want_count:
        problems.append("%d cases, want %d" % (len(got), want_count))
    tap(not problems, "%s %s levels cases: seed %s, %d cases, %s events, "
        "%s dropped%s" % (label, mode, header.get("seed"), len(got), nr_events,
                          dropped, "; " + "; ".join(problems[:5]) if problems
                          else ""))


def check_large_batches(label, oracle, blocks, want_batched):
    """1 check: whether the oracle moved PTEs in batches of more than one
    (large folios) in some case, as WANT_BATCHED says it must (the
    regression on any architecture, arm64's contpte) or must not (x86
    with the fix: every PTE alone); the number of such cases is printed."""
    _, got, _ = calls(blocks, oracle)
    batched = [i for i, (_, lv) in got.items() if lv and
               lv.get("pte_batches") is not None and
               lv.get("pte_batches", 0) < lv.get("ptes", 0)]
    looked = sum(1 for _, lv in got.values() if lv and lv.get("folio_lookups"))
    tap(bool(got) and (len(batched) > 0) == want_batched,
        "%s %s levels: %d of %d cases moved PTEs in batches of more than one "
        "(want %s), %d made folio lookups" % (
            label, oracle, len(batched), len(got),
            "some" if want_batched else "none", looked))


def compare(label, oracle, mode, blocks, keys=SHARED_KEYS + BATCH_KEYS):
    """1 check: MODE gives ORACLE's level counts in every case."""
    _, want, _ = calls(blocks, oracle)
    _, got, _ = calls(blocks, mode)
    agree, differ = 0, []
    for i in sorted(want):
        w, g = want[i][1], got.get(i, (None, None))[1]
        if w is None or g is None:
            differ.append((i, "missing", w is None, g is None))
            continue
        d = {k: (w.get(k), g.get(k)) for k in keys if w.get(k) != g.get(k)}
        if d:
            differ.append((i, want[i][0], d))
        else:
            agree += 1
    tap(want and not differ, "%s %s = %s levels in %d of %d cases (%s)" % (
        label, mode, oracle, agree, len(want), ", ".join(keys)))
    for d in differ[:SHOW_DISAGREEMENTS]:
        comment("  case %s: %s" % (d[0], d[1:]))


def model(c, geo, realign, move_pud=True):
    """Level counts of moving a fully written region without THP: the
    move_page_tables() loop (mm/mremap.c) with HAVE_MOVE_PUD (5.11+; before,
    MOVE_PUD false, the loop starts at the PMD step) and HAVE_MOVE_PMD, and
    from 6.7 try_realign_addr() to the PMD boundary below when source and
    destination are equally misaligned and nothing is mapped beneath them
    (true for every case: own slots)."""
    page, pmd, pud = geo
    old, new, end = c["src"], c["dst"], c["src"] + c["len"]
    off = old & (pmd - 1)
    if realign and off and off == new & (pmd - 1) and c["len"] >= pmd - off:
        old, new = old - off, new - off
    lv = dict(pud=0, pmd=0, huge_pmd=0, fallbacks=0, pte_extents=0, ptes=0,
              pte_bytes=0)

    def extent(entry):
        return min(entry - (old & (entry - 1)), end - old,
                   entry - (new & (entry - 1)))

    while old < end:
        ext = extent(pud)
        if move_pud and ext == pud:
            lv["pud"] += 1
        else:
            ext = extent(pmd)
            if ext == pmd:
                lv["pmd"] += 1
            else:
                lv["pte_extents"] += 1
                lv["pte_bytes"] += ext
                lv["ptes"] += (min(old + ext, end) - max(old, c["src"])) // page
        old += ext
        new += ext
    return lv


def check_geometry(label, mode, blocks, realign, keys=SHARED_KEYS,
                   move_pud=True):
    """1 check: every fully written case without THP gives the geometry's
    counts (at least one such case must have run)."""
    header, got, _ = calls(blocks, mode)
    try:
        geo = (int(header["page"]), int(header["pmd"]), int(header["pud"]))
    except (KeyError, ValueError):
        tap(False, "%s %s levels geometry: no generator header" % (label, mode))
        return
    checked, differ = 0, []
    for i, (c, lv) in sorted(got.items()):
        if c["write"] != "all" or c["thp"]:
            continue
        checked += 1
        want = model(c, geo, realign, move_pud)
        d = {k: (want[k], (lv or {}).get(k)) for k in keys
             if want[k] != (lv or {}).get(k)}
        if d:
            differ.append((i, c["src"], c["dst"], c["len"], d))
    tap(checked and not differ, "%s %s levels = geometry in %d of %d fully "
        "written cases without THP" % (label, mode, checked - len(differ),
                                       checked))
    for d in differ[:SHOW_DISAGREEMENTS]:
        comment("  case %d src %#x dst %#x len %d: (want, got) %s" % d)


def issue_case_levels(header, c, markers, ptes, pmd_read):
    """Levels of case 0 or 1: two PUDs at a PUD boundary, the first pages
    written (4 MiB), moved one PMD past a PUD boundary.  Every step of the
    first PUD is a PMD step (both sides PMD aligned): the ones holding
    written pages move their PTE table, the other ptrs - moved are empty.
    The second PUD is none: its steps end at the destination's PUD
    boundary, PUD - PMD and then PMD long, 2 empty PUD steps.  With 4 KiB
    pages: 2 PMD moves, 510 + 2 empty; 16 KiB: 1 PMD move, 2047 + 2."""
    page, pmd = int(header["page"]), int(header["pmd"])
    ptrs = pmd // page
    moved = (c["written"] * page + pmd - 1) // pmd if c else None
    want = dict(pud=0, pmd=moved if pmd_read else ptrs, huge_pmd=0,
                fallbacks=0, pte_extents=0, ptes=0 if ptes else None)
    if markers:
        want["empty"] = ptrs - moved + 2 if pmd_read and c else 2
    return want


def check_issue_case(label, mode, blocks, markers, ptes=True, pmd_read=True):
    """2 checks: cases 0 and 1 (2 PUDs, first 4 MiB written, destination
    a PMD past a PUD boundary) moved the PMD entries of the written pages
    and nothing else; the markers also saw the empty PMD and PUD steps
    (issue_case_levels()).  PTES: whether the path counts PTEs (else the
    key must be absent).  Markers that cannot read PMD entries (PMD_READ
    false) give the upper bound the metric then claims: every PMD step of
    the first PUD a move (512 with 4 KiB pages), 2 empty steps."""
    header, got, _ = calls(blocks, mode)
    for i in (0, 1):
        c, lv = got.get(i, (None, None))
        if "page" not in header:
            tap(False, "%s %s levels case %d: no generator header" % (label, mode, i))
            continue
        want = issue_case_levels(header, c, markers, ptes, pmd_read)
        g = {k: (lv or {}).get(k) for k in want}
        tap(g == want, "%s %s levels case %d (2 PUDs %s, %s pages written): %s" % (
            label, mode, i, "shared" if c and c["shared"] else "private",
            c["written"] if c else "?",
            g if g == want else "got %s want %s" % (g, want)))


def main():
    """check_levels.py LABEL CONSOLE-OUTPUT CASES ORACLE MODE...: the
    level units alone (tests/vm/fuzz_levels.sh)."""
    import sys
    from taplib import plan, run, unit
    from check_matrix import parse

    label, path, cases, oracle = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    modes = sys.argv[5:]

    def checks():
        units = []
        for mode in [oracle] + modes:
            units += [
                (mode + " run", 1, lambda b, m=mode: check_run(label, m, b, cases)),
                (mode + " geometry", 1,
                 lambda b, m=mode: check_geometry(label, m, b, True)),
                (mode + " issue case", 2, lambda b, m=mode: check_issue_case(
                    label, m, b, m != "patched")),
            ]
        for mode in modes:
            units.append((mode + " = " + oracle, 1,
                          lambda b, m=mode: compare(label, oracle, m, b)))
        plan(sum(c for _, c, _ in units))
        _, blocks = parse(path)
        for name, count, check in units:
            with unit(name, count):
                check(blocks)
    run(checks)


if __name__ == "__main__":
    main()
