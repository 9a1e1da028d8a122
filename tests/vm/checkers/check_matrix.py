#!/usr/bin/env python3
"""Check what tests/vm/scenarios/mremap-matrix.sh printed in one VM.

Usage: check_matrix.py KERNEL-LABEL CONSOLE-OUTPUT [LEVEL-CASES]

Prints TAP lines ("ok N - ..." / "not ok N - ...").  Ground truth is the
geometry of each scenario, derived by hand below from the move_page_tables()
loop (mm/mremap.c): a whole PUD/PMD entry moves when source and destination
both sit on its boundary with a whole entry left; otherwise the extent runs
to the nearest PMD boundary of either side.  The sizes come from the page
size the guest reports (@@GEOMETRY, from ptscope-bench geometry): a table
is a page of 8-byte entries, so PMD = page * page/8 and PUD = PMD * page/8
(2 MiB and 1 GiB with 4 KiB pages, 32 MiB and 64 GiB with 16 KiB pages).
"""
import json
import os
import re
import subprocess
import sys

import check_batch
import check_levels
from taplib import comment, kernel_row, plan, run, tap, unit

GIB = 1 << 30
MIB = 1 << 20
KIB = 1 << 10


class Geometry:
    """Page-table geometry from the page size: PTRS_PER_PTE = page / 8
    entries per table, each level up maps that many times more."""

    def __init__(self, page):
        self.page = page
        self.ptrs = page // 8
        self.pmd = page * self.ptrs
        self.pud = self.pmd * self.ptrs
        # folio orders: the PMD THP (9 with 4 KiB pages, 11 with 16 KiB)
        # and the 64 KiB mTHP of fault_mthp (4 and 2)
        self.pmd_order = self.ptrs.bit_length() - 1
        self.mthp_order = (64 * KIB // page).bit_length() - 1

    def size_kb(self, order):
        """the hugepages-<N>kB directory of a folio order"""
        return (self.page << order) // KIB


def expect(geo, populate, move_pud=True):
    """scenario -> (size, expected mremap level counts for one call).
    POPULATE is how the PUD-sized scenarios (pud, off4k, mixed) were
    written: "full" (every page), or "sparse" (ptscope-bench --populate
    sparse: the first page of every PMD-sized stretch, when a PUD does not
    fit in the VM twice: 64 GiB with 16 KiB pages); the others are
    always full.  PTEs moved = the populated pages the PTE extents move.

    pud:      one PUD-aligned PUD: 1 PUD entry, no PTE level at all
    pmd, huge_pmd: 8 PMD-aligned PMDs (not PUD-aligned): 8 entries (THP
              backed: 8 huge PMDs)
    pte:      ptrs/2 + 3 pages (1036 KiB with 4 KiB pages), src and dst a
              page and two pages past a PMD boundary: one PTE extent
    off4k:    one PUD, destination a page off: source PMD boundaries at
              k*PMD (ptrs - 1 inside), destination ones at PMD - page +
              k*PMD (ptrs inside): 2*ptrs - 1 boundaries, 2*ptrs extents
    mixed:    PUD + 2 PMD + 3 pages (1052684 KiB): 1 PUD, 2 PMDs, then one
              PTE extent of 3 pages; sparse writes only the first of them
    split:    two PMD THPs whose destination is off by a page: both split,
              extents [0,PMD-page) [PMD-page,PMD) [PMD,2PMD-page)
              [2PMD-page,2PMD), every page a PTE

    MOVE_PUD false (before 5.11, no CONFIG_HAVE_MOVE_PUD): the loop of
    move_page_tables() (mm/mremap.c, 5.10) never tries a PUD entry, so
    a PUD-aligned PUD moves as its ptrs PMD entries.
    """
    page, ptrs, pmd, pud = geo.page, geo.ptrs, geo.pmd, geo.pud
    sparse = populate == "sparse"
    pte_pages = ptrs // 2 + 3
    puds, pud_pmds = (1, 0) if move_pud else (0, ptrs)
    return {
        "pud": (pud, dict(pud_moved=puds, pud_fallback=0, pmd_moved=pud_pmds,
                          huge_pmd_moved=0, pte_extents=0, ptes=0,
                          pte_extent_bytes=0, thp_splits=0)),
        "pmd": (8 * pmd, dict(pud_moved=0, pmd_moved=8, huge_pmd_moved=0,
                              pte_extents=0, ptes=0, thp_splits=0)),
        "huge_pmd": (8 * pmd, dict(pud_moved=0, pmd_moved=0, huge_pmd_moved=8,
                                   huge_pmd_fallback=0, pte_extents=0, ptes=0,
                                   thp_splits=0)),
        "pte": (pte_pages * page, dict(pud_moved=0, pmd_moved=0,
                                       huge_pmd_moved=0, pte_extents=1,
                                       ptes=pte_pages,
                                       pte_extent_bytes=pte_pages * page)),
        "off4k": (pud, dict(pud_moved=0, pud_fallback=0, pmd_moved=0,
                            pmd_fallback=0, huge_pmd_moved=0,
                            pte_extents=2 * ptrs,
                            ptes=pud // pmd if sparse else pud // page,
                            pte_extent_bytes=pud)),
        "mixed": (pud + 2 * pmd + 3 * page,
                  dict(pud_moved=puds, pud_fallback=0, pmd_moved=pud_pmds + 2,
                       pmd_fallback=0, huge_pmd_moved=0, pte_extents=1,
                       ptes=1 if sparse else 3, pte_extent_bytes=3 * page)),
        "split": (2 * pmd, dict(pud_moved=0, pmd_moved=0, huge_pmd_moved=0,
                                huge_pmd_fallback=0, thp_splits=2,
                                pte_extents=4, ptes=2 * ptrs,
                                pte_extent_bytes=2 * pmd)),
    }


# the 4 KiB-page numbers, for check_patched.py (kernel/build: x86-64)
EXPECT = {k: v[1] for k, v in expect(Geometry(4096), "full").items()}
SIZES = {k: v[0] for k, v in expect(Geometry(4096), "full").items()}
# the mremap syscall's alignment class for each scenario
CLASS = {"pud": "pud", "pmd": "pmd", "huge_pmd": "pmd", "pte": "pte",
         "off4k": "pte", "mixed": "pud", "split": "pte"}


def geometry_words(blocks):
    """the guest's @@GEOMETRY line as {word: value}; raises if it is
    missing (never a 4 KiB guess)."""
    line = blocks.get(("geometry", None, None))
    if line is None:
        raise ValueError("the guest printed no @@GEOMETRY line")
    return dict(w.split("=", 1) for w in line.split())


def guest_geometry(blocks):
    """(Geometry, populate of the PUD-sized scenarios) from the guest's
    @@GEOMETRY line"""
    words = geometry_words(blocks)
    return Geometry(int(words["page"])), words["populate_pud"]


def guest_expect(label, blocks):
    """expect() for what the guest of kernel LABEL ran"""
    return expect(*guest_geometry(blocks), kernel_row(label).move_pud)


def level_keys(label):
    """what a call's level breakdown has on this kernel"""
    keys = check_levels.SHARED_KEYS
    return keys if kernel_row(label).pte_marker else tuple(k for k in keys if k != "ptes")


def parse(path):
    blocks = {}
    cur = None
    lines = []
    kernel = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("@@KERNEL "):
            kernel = line.split()[1:]
        elif line.startswith("@@GEOMETRY "):
            blocks[("geometry", None, None)] = line.split(None, 1)[1]
        elif line.startswith("@@BEGIN "):
            parts = line.split()
            attrs = dict(p.split("=", 1) for p in parts[2:])
            cur = (parts[1], attrs.get("mode"), attrs.get("scenario"))
            lines = []
        elif line == "@@END" and cur:
            blocks[cur] = "\n".join(lines)
            cur = None
        elif cur:
            lines.append(line)
    return kernel, blocks


def check_geometry(label, blocks):
    """1 check: the guest's geometry holds together: the PMD and PUD sizes
    ptscope-bench printed are page * page/8 and PMD * page/8, and ptscope's
    probes saw the same page size."""
    geo, populate = guest_geometry(blocks)
    words = geometry_words(blocks)
    seen = []
    for mode in ("fentry", "kprobe"):
        text = blocks.get(("probe", mode, None))
        try:
            seen.append(json.loads(text)["system"]["page_size"] if text else None)
        except ValueError:
            seen.append("unreadable")
    ok = (int(words["pmd"]) == geo.pmd and int(words["pud"]) == geo.pud and
          populate in ("full", "sparse") and seen == [geo.page, geo.page])
    tap(ok, "%s: page %d B, PMD %d KiB (%d entries per table), PUD %d MiB, "
        "PUD-sized scenarios populated %s; ptscope's page size %s" % (
            label, geo.page, geo.pmd // KIB, geo.ptrs, geo.pud // MIB,
            populate, seen))


# the most instructions the kernel's verifier may go through for one
# program: a tenth of its limit (BPF_COMPLEXITY_LIMIT_INSNS, 1,000,000).
# A program near the limit takes seconds to load on a real machine, and
# minutes under TCG: a PTE-table marker at 956,000 made the 7.3 guests run
# out their time, and one more branch pushed it over (E2BIG).
VERIFIER_BUDGET = 100000


def reports_verified_insns(label):
    """bpf_prog_info.verified_insns exists from 5.16 (kernel/bpf/syscall.c)"""
    version = tuple(int(x) for x in kernel_row(label).version.split("."))
    return version >= (5, 16)


def check_verifier_cost(label, mode, probe):
    """every attached program verified within VERIFIER_BUDGET; the kernel
    says how many instructions it went through (bpf_prog_info, 5.16+).
    An older kernel does not say: then every program must have loaded, and
    none may claim a count."""
    hooks = probe.get("hooks", [])
    costs = sorted((h.get("verified_insns", 0), h["program"]) for h in hooks)
    if not reports_verified_insns(label):
        told = [p for n, p in costs if n > 0]
        tap(bool(hooks) and not told,
            "%s %s: %d programs loaded; %s reports no verified instruction "
            "count before 5.16%s" % (label, mode, len(costs), label,
                                     ", yet claimed: " + " ".join(told) if told else ""))
        return
    unknown = [p for n, p in costs if n <= 0]
    top = costs[-1] if costs else (0, "none")
    tap(bool(hooks) and not unknown and top[0] <= VERIFIER_BUDGET,
        "%s %s: %d programs verified, the largest %s in %d instructions "
        "(at most %d)%s" % (label, mode, len(costs), top[1], top[0],
                            VERIFIER_BUDGET,
                            ", unknown: " + " ".join(unknown) if unknown else ""))


def expected_modes(label):
    return ["fentry", "kprobe"] if kernel_row(label).fentry else ["kprobe"]


def check_probe(label, mode, blocks):
    text = blocks.get(("probe", mode, None))
    if text is None:
        tap(False, "%s %s: no probe output" % (label, mode))
        return False
    try:
        probe = json.loads(text)
    except ValueError as e:
        tap(False, "%s %s: probe JSON unreadable: %s" % (label, mode, e))
        return False
    metrics = probe["metrics"]
    levels = metrics["mremap.levels"]
    mpt = metrics["mremap.move_page_tables"]
    if mode not in expected_modes(label):
        reason = mpt.get("reason", "")
        tap(mpt["status"] == "unavailable" and
            ("-524" in reason or "split by the compiler" in reason),
            "%s %s: unavailable as expected (%s)" % (label, mode, reason))
        return False
    tap(mpt["status"] == "exact" and mpt["path"] == mode,
        "%s %s: move_page_tables attached by %s" % (label, mode,
                                                    mpt.get("probe", mpt.get("reason"))))
    # a trampoline on the syscall function, not the syscall tracepoints,
    # wherever fentry works (it has no kprobe candidate: kprobe mode too)
    calls = metrics["mremap.calls"]
    want = "fentry" if "fentry" in expected_modes(label) else "tracepoint"
    tap(calls["status"] == "exact" and calls.get("path") == want,
        "%s %s: mremap calls attached by %s (want %s)" % (
            label, mode, calls.get("probe", calls.get("reason")), want))
    kern = kernel_row(label)
    status = "exact" if kern.pte_marker and kern.pmd_read else "inferred"
    bound = kern.pmd_read or "upper bound" in levels.get("inferred_from", "")
    tap(levels["status"] == status and levels.get("path") == mode and bound,
        "%s %s: levels %s by %s%s" % (label, mode, levels["status"],
                                      levels.get("probe", levels.get("reason")),
                                      "" if kern.pmd_read else
                                      " (%s)" % levels.get("inferred_from")))
    faults = metrics["thp.fault_alloc"]
    tap(faults["status"] == "exact" and faults.get("path") == mode,
        "%s %s: hugepage faults %s by %s" % (label, mode, faults["status"],
                                            faults.get("probe", faults.get("reason"))))
    check_start_check(label, mode, metrics["mremap.pte_batches"], kern)
    check_verifier_cost(label, mode, probe)
    return True


def check_start_check(label, mode, batches, kern):
    """1 check: where the kernel batches PTEs (6.17+) the markers' start-up
    check ran and took 7.3's rule (Debian ships the fix), leaving the
    batches inferred; before, it did not run, the metric being absent"""
    sc = batches.get("start_check", {})
    if kern.batches:
        got = (sc.get("ran"), sc.get("rule"), batches.get("status"))
        want = (True, "hinted", "inferred")
    else:
        got = (sc.get("ran"), sc.get("note", "")[:7], batches.get("status"))
        want = (False, "not run", "unavailable")
    tap(got == want, "%s %s: start-up check of the batch model %s (want %s), "
        "%.1f ms" % (label, mode, got, want, sc.get("ms", 0)))
    for sh in sc.get("shapes", []):
        rules = sh.get("rules", {})
        print("#   %s: %s" % (sh["shape"], ", ".join(
            "%s %s/%s" % (r, c["lookups"], c["kernel_lookups"])
            for r, c in rules.items()) if sh["ran"] else sh["note"]))


def check_scenario(label, mode, name, blocks):
    key = ("stat", mode, name)
    if ("error", mode, name) in blocks:
        tap(False, "%s %s %s: ptscope stat failed: %s" % (
            label, mode, name, blocks[("error", mode, name)][:300]))
        return
    if key not in blocks:
        tap(False, "%s %s %s: no result" % (label, mode, name))
        return
    report = json.loads(blocks[key])
    counters = report["counters"]
    levels = counters.get("mremap_levels")
    mpt = counters.get("move_page_tables")
    if levels is None or mpt is None:
        tap(False, "%s %s %s: levels or move_page_tables missing" % (label, mode, name))
        return
    size, want = guest_expect(label, blocks)[name]
    want = dict(want)
    # before 6.5 no helper sees the PTE table: the count is absent, never
    # zero, and the metric says it is inferred; from 6.5 the markers, with
    # the PMD entries read through the direct map, are exact
    kern = kernel_row(label)
    status = "exact" if kern.pte_marker and kern.pmd_read else "inferred"
    if not kern.pte_marker:
        want.pop("ptes", None)
    tap(report["metrics"]["mremap.levels"]["status"] == status and
        ("ptes" in levels) == kern.pte_marker,
        "%s %s %s: levels %s, PTE count %s" % (
            label, mode, name, report["metrics"]["mremap.levels"]["status"],
            "present" if "ptes" in levels else "absent"))
    got = {k: levels.get(k) for k in want}
    tap(got == want, "%s %s %s: levels %s" % (
        label, mode, name, got if got == want else "got %s want %s" % (got, want)))
    # one exec (the bench) moves its stack once, the mremap once
    got_mpt = (mpt["calls"], mpt["stack_moves"], mpt["partial"])
    tap(got_mpt == (2, 1, 0), "%s %s %s: move_page_tables calls/stack/partial %s" % (
        label, mode, name, got_mpt))
    cls = counters["mremap"]["classes"][CLASS[name]]
    tap(cls["calls"] == 1 and cls["old_bytes"] == size,
        "%s %s %s: mremap class %s calls=%d bytes=%d" % (
            label, mode, name, CLASS[name], cls["calls"], cls["old_bytes"]))
    if name in ("huge_pmd", "split"):
        bench = blocks.get(("bench", mode, name), "")
        kb = [int(l.split("=")[1]) for l in bench.splitlines()
              if l.startswith("anon_huge_kb=")]
        tap(kb and kb[0] == size // KIB,
            "%s %s %s: source THP-backed (AnonHugePages kB %s)" % (label, mode, name, kb))


def order_row(report, order):
    for row in report["counters"]["hugepage_faults"]["orders"]:
        if row["order"] == order:
            return row
    return {"alloc": 0, "fallback": 0, "fallback_charge": 0,
            "latency_ns": {"count": 0}}


def kernel(report, group, name):
    return report["kernel_counters"].get(group, {}).get(name)


def kernel_equal_checks(label, vmstat_key):
    return (1 if vmstat_key else 0) + (1 if kernel_row(label).mthp_stats else 0)


def check_kernel_equal(label, mode, name, report, order, field, vmstat_key,
                       mthp_key, mthp_stats):
    """ptscope's per-order count must equal the kernel's counters, the
    mTHP stats too where the kernel has them (MTHP_STATS) (as many checks
    as kernel_equal_checks() says).  The mTHP stats directory of ORDER is
    named by its size in KiB: the page size the guest's ptscope reports
    (check_geometry() holds it to the guest's own) shifted by ORDER."""
    got = order_row(report, order)[field]
    if vmstat_key:
        want = kernel(report, "vmstat", vmstat_key)
        tap(got == want, "%s %s %s: order %d %s %d = vmstat %s %s" % (
            label, mode, name, order, field, got, vmstat_key, want))
    size = "hugepages-%dkB" % (report["system"]["page_size"] // KIB << order)
    want = kernel(report, size, mthp_key)
    if mthp_stats:
        tap(got == want, "%s %s %s: order %d %s %d = %s/%s %s" % (
            label, mode, name, order, field, got, size, mthp_key, want))


def fault_names(label):
    names = ["fault_pmd", "fault_zero", "fault_charge"]
    if kernel_row(label).mthp_stats:
        names.insert(2, "fault_mthp")
    return names


def fault_checks(label, name):
    """how many checks check_faults() makes for NAME"""
    keq = kernel_equal_checks(label, "thp_fault_alloc")
    return {"fault_pmd": 3 + keq, "fault_zero": 1,
            "fault_mthp": 2 + kernel_equal_checks(label, None),
            "fault_charge": 1 + 3 * keq}[name]


def check_faults(label, mode, blocks, names):
    """the fault scenarios are sized in PMDs (lib.sh fault_scenarios):
    fault_pmd 2 x 4 PMDs, fault_zero 4 PMDs read one PMD apart, fault_mthp
    4 x 1 MiB of 64 KiB folios, fault_charge 16 PMDs one PMD apart in a
    memcg of 2.5 PMDs"""
    geo = guest_geometry(blocks)[0]
    pmd_kb = geo.pmd // KIB
    mthp_stats = kernel_row(label).mthp_stats
    for name in names:
        key = ("stat", mode, name)
        if ("error", mode, name) in blocks or key not in blocks:
            tap(False, "%s %s %s: no result %s" % (
                label, mode, name, blocks.get(("error", mode, name), "")[:300]))
            continue
        report = json.loads(blocks[key])
        faults = report["counters"].get("hugepage_faults")
        if faults is None or "huge_zero_page" not in faults:
            tap(False, "%s %s %s: fault counters missing" % (label, mode, name))
            continue
        pmd = order_row(report, geo.pmd_order)
        if name == "fault_pmd":
            tap(pmd["alloc"] == 8, "%s %s %s: 2 x %d KiB = 8 PMD folios (%d)" % (
                label, mode, name, 4 * pmd_kb, pmd["alloc"]))
            check_kernel_equal(label, mode, name, report, geo.pmd_order,
                               "alloc", "thp_fault_alloc", "anon_fault_alloc",
                               mthp_stats)
            tap(pmd["latency_ns"]["count"] == 8,
                "%s %s %s: 8 latency samples for %d KiB faults (%d)" % (
                    label, mode, name, pmd_kb, pmd["latency_ns"]["count"]))
            small = order_row(report, 0)
            tap(small["alloc"] > 0 and small["latency_ns"]["count"] == small["alloc"],
                "%s %s %s: order 0 faults %d with %d latency samples" % (
                    label, mode, name, small["alloc"], small["latency_ns"]["count"]))
        elif name == "fault_zero":
            tap(faults["huge_zero_page"] == 4 and pmd["alloc"] == 0,
                "%s %s %s: 4 read faults mapped the huge zero page (%d), "
                "no %d KiB folio (%d)" % (label, mode, name,
                                          faults["huge_zero_page"], pmd_kb,
                                          pmd["alloc"]))
        elif name == "fault_mthp":
            mthp = order_row(report, geo.mthp_order)
            # the bench's own stack and buffers may add a few 64K folios
            tap(mthp["alloc"] >= 64, "%s %s %s: 4 x 1 MiB >= 64 x 64K folios (%d)" % (
                label, mode, name, mthp["alloc"]))
            per_proc = sum(p["fault_alloc"].get("64K", 0)
                           for p in report["counters"]["processes"])
            tap(per_proc == mthp["alloc"], "%s %s %s: per-process 64K folios add up (%d)" % (
                label, mode, name, per_proc))
            check_kernel_equal(label, mode, name, report, geo.mthp_order,
                               "alloc", None, "anon_fault_alloc", mthp_stats)
        elif name == "fault_charge":
            tap(pmd["fallback_charge"] >= 1,
                "%s %s %s: memcg refused %d PMD charges" % (
                    label, mode, name, pmd["fallback_charge"]))
            for field, vmstat_key, mthp_key in (
                    ("fallback_charge", "thp_fault_fallback_charge",
                     "anon_fault_fallback_charge"),
                    ("fallback", "thp_fault_fallback", "anon_fault_fallback"),
                    ("alloc", "thp_fault_alloc", "anon_fault_alloc")):
                check_kernel_equal(label, mode, name, report, geo.pmd_order,
                                   field, vmstat_key, mthp_key, mthp_stats)


def scenario_checks(name):
    return 4 + (1 if name in ("huge_pmd", "split") else 0)


def check_snoop(label, mode, blocks):
    text = blocks.get(("snoop", mode, "mixed"))
    if text is None:
        tap(False, "%s %s snoop: no output %s" % (
            label, mode, blocks.get(("snooperr", mode, "mixed"), "")[:300]))
        return
    events = [json.loads(l) for l in text.splitlines() if l.strip()]
    moves = [e for e in events if e["type"] == "mremap"]
    mixed = guest_expect(label, blocks)["mixed"][1]
    want = {"pud": mixed["pud_moved"], "pmd": mixed["pmd_moved"], "huge_pmd": 0,
            "fallbacks": 0, "pte_extents": 1}
    got = None
    if len(moves) == 1 and "levels" in moves[0]["mremap"]:
        lv = moves[0]["mremap"]["levels"]
        got = {k: lv[k] for k in want}
        if kernel_row(label).pte_marker:
            want["ptes"] = mixed["ptes"]
            got["ptes"] = lv.get("ptes")
    tap(got == want and moves[0]["mremap"]["class"] == "pud",
        "%s %s snoop: one mixed mremap event with levels %s" % (label, mode, got))


def check_top(label, mode, blocks):
    """top -c ptscope-bench saw the three 8-PMD (16 MiB with 4 KiB pages)
    PMD-aligned moves: the
    intervals add up to 3 pmd-class calls and 24 PMD moves, and the bench
    is in the per-process table with them."""
    text = blocks.get(("top", mode, "pmd3"))
    if text is None:
        tap(False, "%s %s top: no output %s" % (
            label, mode, blocks.get(("toperr", mode, "pmd3"), "")[:300]))
        return
    try:
        frames = [json.loads(l) for l in text.splitlines() if l.strip()]
    except ValueError as e:
        tap(False, "%s %s top: bad JSON line: %s" % (label, mode, e))
        return
    calls = sum(f["mremap"]["classes"]["pmd"]["calls"] for f in frames)
    pmds = sum(f.get("mremap_levels", {}).get("pmd_moved", 0) for f in frames)
    per_proc = sum(p["mremap_calls"]["pmd"] for f in frames
                   for p in f["processes"] if p["comm"] == "ptscope-bench")
    tap(len(frames) >= 2 and (calls, pmds, per_proc) == (3, 24, 3),
        "%s %s top: %d intervals, pmd calls %d, PMD moves %d, bench row %d" % (
            label, mode, len(frames), calls, pmds, per_proc))


def prom_samples(text):
    """Prometheus text format -> [(name, {label: value}, float)]"""
    out = []
    for line in text.splitlines():
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$', line)
        if m:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
            out.append((m.group(1), labels, float(m.group(3))))
    return out


def prom_value(samples, name, **labels):
    """the one sample of @name whose labels include @labels, or None"""
    hits = [v for n, l, v in samples
            if n == name and all(l.get(k) == w for k, w in labels.items())]
    return hits[0] if len(hits) == 1 else None


def check_top_scrape(label, mode, blocks):
    """top --listen served /metrics off the maps its own view reads: the
    scrapes around the three 8-PMD PMD-aligned moves differ by 3 pmd-class
    calls and 24 PMD entries, and the page names the attach path."""
    before = prom_samples(blocks.get(("scrape0", mode, "pmd3"), ""))
    after = prom_samples(blocks.get(("scrape1", mode, "pmd3"), ""))
    got = []
    for name, lab in (("ptscope_mremap_calls_total", {"class": "pmd"}),
                      ("ptscope_pagetable_entries_moved_total", {"level": "pmd"})):
        a, b = prom_value(after, name, **lab), prom_value(before, name, **lab)
        got.append(None if a is None or b is None else int(a - b))
    attached = prom_value(after, "ptscope_probe_attached",
                          metric="mremap.levels", path=mode)
    tap(got == [3, 24] and attached == 1,
        "%s %s top --listen: /metrics deltas pmd calls, PMD moves %s, "
        "mremap.levels attached by %s: %s" % (label, mode, got, mode, attached))
    if got != [3, 24]:
        print("#   " + blocks.get(("scrape1", mode, "pmd3"), "no scrape")[:300])


def probe_json(label, mode, blocks, checks):
    """MODE's probe JSON, or None after CHECKS failures"""
    text = blocks.get(("probe", mode, None))
    if text is None:
        for _ in range(checks):
            tap(False, "%s %s: no probe output" % (label, mode))
        return None
    return json.loads(text)


def check_mpt_nolevels(label, mode, mpt):
    """move_page_tables() attached by MODE, or withheld because the
    compiler split it (Debian's 5.10: move_vma() calls
    move_page_tables.part.0, a probe on move_page_tables would miss it)"""
    tap((mpt["status"] == "exact" and mpt.get("path") == mode) or
        (mpt["status"] == "unavailable" and
         "split by the compiler" in mpt.get("reason", "")),
        "%s %s: move_page_tables %s: %s" % (label, mode, mpt["status"],
                                            mpt.get("probe", mpt.get("reason"))))


def check_probe_nolevels(label, mode, blocks):
    """3 checks, a kernel where no marker set gives the levels (5.10: no
    get_old_pud(), which mm/mremap.c gains in 5.11), under --mode MODE:
    move_page_tables() as check_mpt_nolevels() says, the levels
    unavailable with a reason, every program loaded"""
    probe = probe_json(label, mode, blocks, 3)
    if probe is None:
        return
    check_nolevels(label, mode, probe["metrics"])
    check_verifier_cost(label, mode, probe)


def check_nolevels(label, mode, metrics):
    """2 checks: move_page_tables() as check_mpt_nolevels() says, the
    levels unavailable with a reason"""
    check_mpt_nolevels(label, mode, metrics["mremap.move_page_tables"])
    levels = metrics["mremap.levels"]
    tap(levels["status"] == "unavailable" and levels.get("reason"),
        "%s %s: levels %s (%s)" % (label, mode, levels["status"],
                                   levels.get("reason", "")[:200]))


def check_probe_auto(label, blocks):
    """6 checks, the same kernel under the default attach: as
    check_probe_nolevels(), and the calls exact, the faults counted
    (exact, or inferred from the tracepoints), no batch check (6.17+)"""
    probe = probe_json(label, "auto", blocks, 6)
    if probe is None:
        return
    metrics = probe["metrics"]
    check_nolevels(label, "auto", metrics)
    calls = metrics["mremap.calls"]
    tap(calls["status"] == "exact", "%s auto: mremap calls %s by %s" % (
        label, calls["status"], calls.get("probe", calls.get("reason"))))
    faults = metrics["thp.fault_alloc"]
    tap(faults["status"] in ("exact", "inferred"),
        "%s auto: hugepage faults %s by %s" % (label, faults["status"],
                                              faults.get("probe", faults.get("reason"))))
    check_start_check(label, "auto", metrics["mremap.pte_batches"], kernel_row(label))
    check_verifier_cost(label, "auto", probe)


def fault_vmstat(label, name, report, field, order, vmstat_key):
    """1 check: ptscope's FIELD of ORDER equals the kernel's vmstat delta"""
    got = order_row(report, order)[field]
    want = kernel(report, "vmstat", vmstat_key)
    tap(got == want, "%s auto %s: order %d %s %d = vmstat %s %s" % (
        label, name, order, field, got, vmstat_key, want))


# the checks check_faults_auto() makes per fault scenario
FAULT_AUTO_CHECKS = {"fault_pmd": 2, "fault_zero": 1, "fault_charge": 3}


def check_faults_auto(label, name, blocks):
    """the fault scenarios under the default attach, where it counts the
    faults from the page allocator's tracepoints (inferred: no huge zero
    page, no order 0): the 2 MiB folios, and the charge fallbacks, equal
    the kernel's vmstat counters over the run"""
    key = ("stat", "auto", name)
    if key not in blocks:
        for _ in range(FAULT_AUTO_CHECKS[name]):
            tap(False, "%s auto %s: no result %s" % (
                label, name, blocks.get(("error", "auto", name), "")[:300]))
        return
    report = json.loads(blocks[key])
    geo = guest_geometry(blocks)[0]
    pmd = order_row(report, geo.pmd_order)
    if name == "fault_pmd":
        tap(pmd["alloc"] == 8, "%s auto %s: 2 x 4 PMDs = 8 PMD folios (%d)" % (
            label, name, pmd["alloc"]))
        fault_vmstat(label, name, report, "alloc", geo.pmd_order, "thp_fault_alloc")
    elif name == "fault_zero":
        fault_vmstat(label, name, report, "alloc", geo.pmd_order, "thp_fault_alloc")
    else:
        tap(pmd["fallback_charge"] >= 1, "%s auto %s: memcg refused %d PMD "
            "charges" % (label, name, pmd["fallback_charge"]))
        fault_vmstat(label, name, report, "fallback_charge", geo.pmd_order,
                     "thp_fault_fallback_charge")
        fault_vmstat(label, name, report, "alloc", geo.pmd_order, "thp_fault_alloc")


def check_class(label, name, blocks):
    """2 checks: the default attach saw one mremap of NAME's class and
    size, and left the levels out (absent, not zero)"""
    key = ("stat", "auto", name)
    if key not in blocks:
        tap(False, "%s auto %s: no result %s" % (
            label, name, blocks.get(("error", "auto", name), "")[:300]))
        tap(False, "%s auto %s: no result" % (label, name))
        return
    report = json.loads(blocks[key])
    size = guest_expect(label, blocks)[name][0]
    cls = report["counters"]["mremap"]["classes"][CLASS[name]]
    tap(cls["calls"] == 1 and cls["old_bytes"] == size,
        "%s auto %s: mremap class %s calls=%d bytes=%d (want 1, %d)" % (
            label, name, CLASS[name], cls["calls"], cls["old_bytes"], size))
    status = report["metrics"]["mremap.levels"]["status"]
    tap(status == "unavailable" and "mremap_levels" not in report["counters"],
        "%s auto %s: levels %s, %s in the counters" % (
            label, name, status, "absent" if "mremap_levels" not in
            report["counters"] else "present"))


def check_export_auto(label, blocks):
    """3 checks: ptscope export under the default attach served the three
    8-PMD PMD-aligned moves as 3 pmd-class calls between two scrapes, no
    level family (absent, not zero) and mremap.levels as not attached; the
    page passes promtool; SIGTERM ended it with its closing line, exit 0"""
    before = blocks.get(("escrape0", "auto", "export"), "")
    after = blocks.get(("escrape1", "auto", "export"), "")
    a = prom_samples(after)
    b = prom_samples(before)
    lab = {"class": "pmd"}
    va = prom_value(a, "ptscope_mremap_calls_total", **lab)
    vb = prom_value(b, "ptscope_mremap_calls_total", **lab)
    delta = None if va is None or vb is None else int(va - vb)
    levels = [n for n, _, _ in a if n == "ptscope_pagetable_entries_moved_total"]
    attached = prom_value(a, "ptscope_probe_attached", metric="mremap.levels")
    tap(delta == 3 and not levels and attached == 0,
        "%s auto export: pmd calls +%s, %d level samples, mremap.levels "
        "attached %s" % (label, delta, len(levels), attached))
    if delta != 3:
        comment((after or "no scrape")[:300])
    lint = subprocess.run([os.environ.get("PROMTOOL", "promtool"), "check",
                           "metrics"], input=after + "\n", capture_output=True,
                          text=True)
    tap(bool(after) and lint.returncode == 0,
        "%s auto export: promtool check metrics: exit %d %s" % (
            label, lint.returncode, (lint.stdout + lint.stderr)[:200]))
    err = blocks.get(("exporterr", "auto", "export"), "")
    tap("ptscope: Terminated, detaching; exit 0" in err and "export exit 0" in err,
        "%s auto export: SIGTERM answered: %s" % (label, err.strip().splitlines()[-2:]))


def nolevels_units(label):
    """the default attach's units where no mode gives levels"""
    units = [("%s auto probe" % label, 6, lambda b: check_probe_auto(label, b))]
    for name, checks in FAULT_AUTO_CHECKS.items():
        units.append(("%s auto %s" % (label, name), checks,
                      lambda b, name=name: check_faults_auto(label, name, b)))
    for name in ("pmd", "pte"):
        units.append(("%s auto %s" % (label, name), 2,
                      lambda b, name=name: check_class(label, name, b)))
    units.append(("%s auto export" % label, 3,
                  lambda b: check_export_auto(label, b)))
    units.append(("%s auto overhead" % label, 1,
                  lambda b: check_overhead(label, "auto", b)))
    return units


def mode_units(label, mode, cases):
    """[(unit name, checks, function)] for one attach mode of one kernel"""
    if mode not in expected_modes(label):
        return [("%s %s probe" % (label, mode), 1,
                 lambda b: check_probe(label, mode, b))]
    if not kernel_row(label).levels:
        return [("%s %s probe" % (label, mode), 3,
                 lambda b: check_probe_nolevels(label, mode, b))]
    units = [("%s %s probe" % (label, mode), 6,
              lambda b: check_probe(label, mode, b))]
    for name in fault_names(label):
        units.append(("%s %s %s" % (label, mode, name), fault_checks(label, name),
                      lambda b, name=name: check_faults(label, mode, b, [name])))
    for name in EXPECT:
        units.append(("%s %s %s" % (label, mode, name), scenario_checks(name),
                      lambda b, name=name: check_scenario(label, mode, name, b)))
    units += [
        ("%s %s snoop" % (label, mode), 1, lambda b: check_snoop(label, mode, b)),
        ("%s %s top" % (label, mode), 1, lambda b: check_top(label, mode, b)),
        ("%s %s top --listen" % (label, mode), 1,
         lambda b: check_top_scrape(label, mode, b)),
    ] + check_batch.batch_units(label, mode) + level_units(label, mode, cases) + [
        ("%s %s overhead" % (label, mode), 1,
         lambda b: check_overhead(label, mode, b)),
    ]
    return units


def check_overhead(label, mode, blocks):
    """bench/overhead.sh --vm --tiny ran: every row a ratio or a reason"""
    text = blocks.get(("overhead", mode, None))
    if text is None:
        return tap(False, "%s %s overhead: no output" % (label, mode))
    bad = [] if "overhead.sh exit 0" in text else ["exit status"]
    for w in ("inplace", "fault_4k"):
        if not re.search(r"^%s: " % w, text, re.M):
            bad.append("no %s table" % w)
    for row in ("none", "floor (empty programs)", "ptscope export"):
        rows = re.findall(r"^  %s +(\d+\.\d+|not run: .+)" % re.escape(row),
                          text, re.M)
        if len(rows) < 2:
            bad.append("%s: %d rows" % (row, len(rows)))
    if bad:
        comment(text[-2000:])
    return tap(not bad, "%s %s overhead.sh --vm --tiny: ratio or reason per row%s"
               % (label, mode, ": " + ", ".join(bad) if bad else ""))


def level_units(label, mode, cases):
    """the seeded mremap cases (check_levels.py) under MODE"""
    keys = level_keys(label)
    units = [
        ("%s %s levels run" % (label, mode), 1,
         lambda b: check_levels.check_run(label, mode, b, cases)),
        ("%s %s levels geometry" % (label, mode), 1,
         lambda b: check_levels.check_geometry(label, mode, b,
                                               kernel_row(label).realigns, keys,
                                               kernel_row(label).move_pud)),
        ("%s %s levels issue case" % (label, mode), 2,
         lambda b: check_levels.check_issue_case(label, mode, b, True,
                                                 kernel_row(label).pte_marker,
                                                 kernel_row(label).pmd_read)),
    ]
    modes = expected_modes(label)
    if mode == modes[-1] and len(modes) > 1:
        units.append(("%s levels %s = %s" % (label, mode, modes[0]), 1,
                      lambda b: check_levels.compare(label, modes[0], mode, b,
                                                     keys + check_levels.BATCH_KEYS +
                                                     ("empty",))))
    return units


def check_units(label, path, units):
    """plan UNITS (name, checks, fn(blocks)) and a boot check, parse the
    console output at PATH, run them"""
    plan(1 + sum(checks for _, checks, _ in units))
    kernel, blocks = parse(path)
    tap(kernel is not None, "%s: booted %s" % (label, " ".join(kernel or ["?"])))
    for name, checks, check in units:
        with unit(name, checks):
            check(blocks)


def main():
    label, path = sys.argv[1], sys.argv[2]
    # ptscope-cases per mode; test_matrix.sh gives the guest the same
    cases = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    units = [("%s geometry" % label, 1, lambda b: check_geometry(label, b))]
    units += [u for mode in ("fentry", "kprobe")
              for u in mode_units(label, mode, cases)]
    if not kernel_row(label).levels:
        units += nolevels_units(label)
    check_units(label, path, units)


if __name__ == "__main__":
    run(main)
