#!/usr/bin/env python3
"""Check what tests/vm/scenarios/patched.sh printed on a kernel/build kernel.

Usage: check_patched.py VARIANT CONSOLE-OUTPUT [SAVE-DIR [LEVEL-CASES]]

VARIANT is patched or regression (kernel/build).  Prints TAP lines.
SAVE-DIR receives VARIANT.json, the lab_repeat recording (3 runs), for
ptscope diff.

Ground truth:
- the geometry of each mremap scenario (check_matrix.EXPECT), which the
  patched tracepoints and the fentry markers must both give;
- the kernel's own THP counters around each fault scenario, which
  kmem:mm_anon_fault_alloc must match;
- for the lab workload (every PTE present, 4 KiB folios): on the
  regression lab kernel, move_ptes looks up the folio of every present PTE
  but the last of its extent (max_nr == 1 needs no lookup), every batch is
  one PTE, and fentry on vm_normal_folio sees exactly those lookups; on
  7.3 as shipped (pte_batch_hint() is 1 on x86) there are none at all.
"""
import json
import os
import shutil
import subprocess
import sys

import check_levels
import check_matrix as cm
from taplib import kernel_row, plan, run, tap, unit
from taplib import stat_report as stat

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(TOP, "tests"))
import check_dashboard  # noqa: E402

GIB = 1 << 30
KIB = 1 << 10
MIB = 1 << 20
# name: (PTEs, PTE extents) of one run, and the runs (stat --repeat)
LAB = {"lab_pte": (1036 * KIB // (4 * KIB), 1, 1),
       "lab_off4k": (GIB // (4 * KIB), 1024, 1),
       "lab_repeat": (128 * MIB // (4 * KIB), 128, 3)}


def check_probe(variant, blocks):
    probe = json.loads(blocks.get(("probe", "auto", None), "null") or "null")
    if probe is None:
        tap(False, "%s: no probe output" % variant)
        return
    m = probe["metrics"]
    for metric, path in (("mremap.levels", "patched"),
                         ("thp.fault_alloc", "patched"),
                         ("mremap.folio_lookups", "fentry")):
        got = (m[metric]["status"], m[metric].get("path"))
        tap(got == ("exact", path), "%s: %s %s by %s" % (
            variant, metric, got, m[metric].get("probe", m[metric].get("reason"))))
    # the verifier's count exists from 5.16: asked of the kernel table's 7.3
    cm.check_verifier_cost(BASE.label, "auto", probe)


# the lookup rule the markers' start-up check must find on each variant
# (engine/batch_check.c): the lab undoes the fix 0b5be138ce00
RULE = {"patched": "hinted", "regression": "every-present"}


def check_start_check(variant, blocks):
    """2 checks: the fentry and kprobe markers' start-up check took the
    variant's lookup rule, and the batches stay inferred from it"""
    for mode in ("fentry", "kprobe"):
        probe = json.loads(blocks.get(("probe", mode, None), "null") or "null")
        m = (probe or {}).get("metrics", {}).get("mremap.pte_batches", {})
        sc = m.get("start_check", {})
        got = (m.get("status"), m.get("path"), sc.get("rule"))
        want = ("inferred", mode, RULE[variant])
        tap(got == want, "%s %s: pte_batches status, path, start-up check "
            "rule %s (want %s)" % (variant, mode, got, want))
        if sc.get("ran"):
            print("# %s %s start-up check: %.1f ms, %s" % (
                variant, mode, sc.get("ms", 0), "; ".join(
                    "%s: kernel %s, model %s" % (
                        sh["shape"],
                        sh.get("rules", {}).get(RULE[variant], {}).get(
                            "kernel_lookups"),
                        sh.get("rules", {}).get(RULE[variant], {}).get(
                            "lookups")) if sh["ran"] else
                    "%s: %s" % (sh["shape"], sh["note"])
                    for sh in sc.get("shapes", []))))


def check_lab_markers(variant, blocks, save_dir):
    """3 checks: the lab's 128 MiB move, 3 runs, through the fentry
    markers alone (what a stock-kernel user gets): the PTEs, the batches
    (every batch one PTE: 4 KiB folios) and the folio lookups the kernel
    made, as lab_repeat's tracepoints count them"""
    ptes, extents, runs = LAB["lab_repeat"]
    report = stat(blocks, "fentry", "lab_markers")
    if report is None:
        tap(False, "%s lab_markers: no recording" % variant)
        tap(False, "%s lab_markers: no recording" % variant)
        tap(False, "%s lab_markers: no recording" % variant)
        return
    m = report["metrics"]["mremap.pte_batches"]
    tap(m.get("status") == "inferred" and
        m.get("start_check", {}).get("rule") == RULE[variant],
        "%s lab_markers: batches %s, rule %s (want inferred, %s)" % (
            variant, m.get("status"), m.get("start_check", {}).get("rule"),
            RULE[variant]))
    lv = report["counters"].get("mremap_levels", {})
    want_lookups = (ptes - extents) * runs if variant == "regression" else 0
    got = (lv.get("ptes"), lv.get("pte_batches"))
    tap(got == (ptes * runs, ptes * runs),
        "%s lab_markers: PTEs, batches %s (want %s)" % (
            variant, got, (ptes * runs, ptes * runs)))
    tap(lv.get("folio_lookups") == want_lookups,
        "%s lab_markers: folio lookups %s (want %d, the kernel's)" % (
            variant, lv.get("folio_lookups"), want_lookups))
    if save_dir:
        with open(os.path.join(save_dir, variant + "-markers.json"), "w") as f:
            f.write(blocks[("stat", "fentry", "lab_markers")])


def check_lab(variant, blocks, save_dir, names):
    """4 checks per name, and one per run of a repeated one"""
    for name in names:
        ptes, extents, runs = LAB[name]
        report = stat(blocks, "auto", name)
        if report is None:
            continue
        if runs > 1:
            check_lab_runs(variant, name, report, ptes, extents, runs)
            ptes, extents = ptes * runs, extents * runs
        c = report["counters"]
        lv = c.get("mremap_levels", {})
        lookups = c.get("folio_lookups", {})
        want_lookups = ptes - extents if variant == "regression" else 0
        got = (lv.get("pte_extents"), lv.get("ptes"), lv.get("pte_batches"))
        tap(got == (extents, ptes, ptes),
               "%s %s: %s extents, PTEs, batches (want %s)" % (
                   variant, name, got, (extents, ptes, ptes)))
        maxb = lv.get("pte_max_batch", {})
        tap(maxb.get("count") == extents and maxb.get("sum") == extents,
               "%s %s: every batch is one PTE (largest batch per extent: "
               "count %s, sum %s)" % (variant, name, maxb.get("count"),
                                      maxb.get("sum")))
        tap(lv.get("folio_lookups") == want_lookups,
               "%s %s: move_ptes folio lookups %s, want %d" % (
                   variant, name, lv.get("folio_lookups"), want_lookups))
        lat = lookups.get("latency_ns", {})
        tap(lookups.get("calls") == want_lookups and
               lat.get("count") == want_lookups,
               "%s %s: fentry vm_normal_folio inside move_page_tables %s "
               "calls, %s timed, want %d" % (
                   variant, name, lookups.get("calls"), lat.get("count"),
                   want_lookups))
        if lat.get("count"):
            print("# %s %s: vm_normal_folio inside move_page_tables, mean "
                  "%.0f ns over %d calls (fentry/fexit, qemu TCG)" % (
                      variant, name, lat["sum"] / lat["count"], lat["count"]))
        if name == "lab_repeat" and save_dir:
            with open(os.path.join(save_dir, variant + ".json"), "w") as f:
                f.write(blocks[("stat", "auto", name)])


def check_lab_runs(variant, name, report, ptes, extents, runs):
    """each run of a --repeat recording moved the geometry's PTEs, with
    its lookups; 1 check per run, and 1 for their number"""
    got = report.get("runs", [])
    tap(len(got) == runs, "%s %s: %d runs recorded (want %d)" % (
        variant, name, len(got), runs))
    want = ptes - extents if variant == "regression" else 0
    for i, run in enumerate(got):
        lv = run["counters"].get("mremap_levels", {})
        calls = run["counters"].get("folio_lookups", {}).get("calls")
        tap((lv.get("ptes"), lv.get("folio_lookups"), calls) == (ptes, want, want),
            "%s %s run %d: PTEs, move_ptes lookups, vm_normal_folio calls "
            "%s (want %s)" % (variant, name, i + 1,
                              (lv.get("ptes"), lv.get("folio_lookups"), calls),
                              (ptes, want, want)))


def lab_timing(variant, blocks, save_dir):
    """The lab workload's own time per call, without probes (no assertion:
    timings on this box are for ratios within one run, see README)."""
    text = blocks.get(("bench", "none", "lab_off4k"), "")
    ns = sorted(int(w[3:]) for l in text.splitlines() for w in l.split()
                if l.startswith("mremap ") and w.startswith("ns="))
    tap(len(ns) == 5, "%s lab_off4k without probes: 5 timed calls (%d)" % (
        variant, len(ns)))
    if ns and save_dir:
        with open(os.path.join(save_dir, variant + ".median_ns"), "w") as f:
            f.write("%d\n" % ns[len(ns) // 2])


def check_same_levels(blocks, names):
    """The patched tracepoints and the fentry markers agree, and both
    match the geometry (empty extents and splits only the markers see).
    3 checks per name."""
    for name in names:
        reports = {mode: stat(blocks, mode, name) for mode in ("patched", "fentry")}
        if None in reports.values():
            continue
        levels = {}
        for mode, report in reports.items():
            lv = report["counters"].get("mremap_levels")
            path = report["metrics"]["mremap.levels"].get("path")
            want = dict(cm.EXPECT[name])
            if mode == "patched":
                want.pop("thp_splits", None)
            got = {k: (lv or {}).get(k) for k in want}
            tap(path == mode and got == want, "patched %s %s: levels by %s %s" % (
                mode, name, path, got if got == want else
                "got %s want %s" % (got, want)))
            levels[mode] = lv or {}
        shared = [k for k in levels["patched"] if k in levels["fentry"] and
                  not isinstance(levels["patched"][k], dict)]
        diff = {k: (levels["patched"][k], levels["fentry"][k]) for k in shared
                if levels["patched"][k] != levels["fentry"][k]}
        tap(shared and not diff, "patched %s: tracepoints = fentry markers on %d "
               "counts %s" % (name, len(shared), diff or ""))


FAULT_CHECKS = {"fault_pmd": 5, "fault_zero": 2, "fault_mthp": 2,
                "fault_charge": 8}


def check_faults(blocks, names):
    """kmem:mm_anon_fault_alloc against the vmstat and mTHP stats
    (FAULT_CHECKS per name)."""
    mode = "patched"
    for name in names:
        report = stat(blocks, mode, name)
        if report is None:
            continue
        faults = report["counters"].get("hugepage_faults", {})
        path = report["metrics"]["thp.fault_alloc"].get("path")
        tap(path == "patched" and "huge_zero_page" in faults,
               "patched %s: faults by %s" % (name, path))
        pmd = cm.order_row(report, 9)
        if name == "fault_pmd":
            tap(pmd["alloc"] == 8, "patched %s: 8 PMD folios (%d)" % (name, pmd["alloc"]))
            cm.check_kernel_equal(LABEL % "patched", mode, name, report, 9, "alloc",
                                  "thp_fault_alloc", "anon_fault_alloc",
                                  BASE.mthp_stats)
            small = cm.order_row(report, 0)
            tap(small["alloc"] > 0 and "latency_ns" not in small,
                   "patched %s: %d order-0 faults, no latency on this path" % (
                       name, small["alloc"]))
        elif name == "fault_zero":
            tap(faults.get("huge_zero_page") == 4 and pmd["alloc"] == 0,
                   "patched %s: 4 huge zero page faults (%s), no 2M folio" % (
                       name, faults.get("huge_zero_page")))
        elif name == "fault_mthp":
            cm.check_kernel_equal(LABEL % "patched", mode, name, report, 4, "alloc", None,
                                  "anon_fault_alloc", BASE.mthp_stats)
        else:
            for field, vm, mthp in (
                    ("fallback_charge", "thp_fault_fallback_charge",
                     "anon_fault_fallback_charge"),
                    ("fallback", "thp_fault_fallback", "anon_fault_fallback"),
                    ("alloc", "thp_fault_alloc", "anon_fault_alloc")):
                cm.check_kernel_equal(LABEL % "patched", mode, name, report, 9, field,
                                      vm, mthp, BASE.mthp_stats)
            tap(pmd["fallback_charge"] >= 1, "patched %s: %d charge fallbacks" % (
                name, pmd["fallback_charge"]))


def check_export(variant, blocks):
    """ptscope export scraped in the guest after the lab's 1036 KiB move:
    the page passes promtool, its batching families count the geometry,
    and every metric the dashboard queries is on it."""
    page = blocks.get(("scrape", "auto", "lab_pte"))
    if not page or not page.startswith("# HELP"):
        tap(False, "%s export: no page: %s %s" % (
            variant, (page or "")[:200],
            blocks.get(("exporterr", "auto", "lab_pte"), "")[-300:]))
        return
    ptes, extents, _ = LAB["lab_pte"]
    want_lookups = ptes - extents if variant == "regression" else 0
    samples = cm.prom_samples(page)
    names = ("ptscope_ptes_moved_total", "ptscope_pte_batches_total",
             "ptscope_pte_batch_folio_lookups_total",
             "ptscope_vm_normal_folio_calls_total",
             "ptscope_vm_normal_folio_duration_seconds_count")
    got = [cm.prom_value(samples, n) for n in names]
    want = [ptes, ptes, want_lookups, want_lookups, want_lookups]
    tap(got == want, "%s export: PTEs, batches, folio lookups, "
           "vm_normal_folio calls and timings %s (want %s)" % (
               variant, [None if g is None else int(g) for g in got], want))
    promtool = shutil.which("promtool")
    if not promtool:
        tap(False, "%s export: no promtool (Debian package prometheus)" % variant)
    else:
        # the console block lost the page's final newline
        r = subprocess.run([promtool, "check", "metrics"],
                           input=page.replace("\r", "") + "\n",
                           capture_output=True, text=True)
        tap(r.returncode == 0, "%s export: promtool check metrics %s" % (
            variant, (r.stdout + r.stderr).strip()[:300] or "accepts the page"))
    with open(os.path.join(TOP, "dashboards", "ptscope.json")) as f:
        dash = json.load(f)
    # the host's build of the same source: the schema has no architecture
    families = check_dashboard.schema(os.environ.get(
        "PTSCOPE", os.path.join(TOP, "build", "ptscope")))
    nr, notes, bad = check_dashboard.check(dash, page, families)
    tap(nr and not bad, "%s export: the dashboard's %d queries find their "
           "metrics on the page%s" % (variant, nr,
                                      ", not: " + ", ".join(bad) if bad else ""))
    for n in notes:
        print("# " + n)


LABEL = "7.3-%s"
# kernel/build builds Debian's 7.3 source: what that kernel offers
BASE = kernel_row("7.3-amd64")
LEVEL_MODES = ("patched", "fentry", "kprobe")


def check_sparse_heap(blocks, mode):
    """1 check: ptscope stat of case 0 (2 GiB, first 4 MiB written, moved
    2 MiB past a PUD boundary) records the kernel's 2 PMD moves, and on
    the marker paths the 512 empty steps."""
    report = stat(blocks, mode, "sparse_heap")
    if report is None:
        return
    lv = report["counters"].get("mremap_levels", {})
    want = dict(pud_moved=0, pmd_moved=2, huge_pmd_moved=0, pte_extents=0)
    if mode != "patched":
        want["empty_extents"] = 512
    got = {k: lv.get(k) for k in want}
    tap(got == want and report["metrics"]["mremap.levels"]["status"] == "exact",
        "patched %s sparse_heap: stat levels %s, %s" % (
            mode, got if got == want else "got %s want %s" % (got, want),
            report["metrics"]["mremap.levels"]["status"]))


def machine(blocks):
    """uname -m of the guest, from its probe"""
    probe = json.loads(blocks.get(("probe", "patched", None), "null") or "null")
    return (probe or {}).get("system", {}).get("machine")


def level_units(variant, cases):
    """the differential level test: the tracepoints are the oracle"""
    units = []
    label = LABEL % variant
    for mode in LEVEL_MODES:
        markers = mode != "patched"
        units += [
            ("patched %s sparse_heap" % mode, 1,
             lambda b, m=mode: check_sparse_heap(b, m)),
            ("patched %s levels run" % mode, 1,
             lambda b, m=mode: check_levels.check_run(label, m, b, cases)),
            ("patched %s levels geometry" % mode, 1,
             lambda b, m=mode: check_levels.check_geometry(label, m, b, True)),
            ("patched %s levels issue case" % mode, 2,
             lambda b, m=mode, k=markers: check_levels.check_issue_case(
                 label, m, b, k)),
        ]
    units.append(("%s patched levels batched" % variant, 1,
                  lambda b: check_levels.check_large_batches(
                      label, "patched", b, variant == "regression" or
                      machine(b) == "aarch64")))
    for mode in ("fentry", "kprobe"):
        units.append(("patched levels %s = patched" % mode, 1,
                      lambda b, m=mode: check_levels.compare(label, "patched", m, b)))
    units.append(("patched levels kprobe = fentry", 1,
                  lambda b: check_levels.compare(
                      label, "fentry", "kprobe", b,
                      check_levels.SHARED_KEYS + check_levels.BATCH_KEYS +
                      ("empty",))))
    return units


FALLBACK = "fentry-fallback"


def check_bpf_builds(variant, blocks):
    """2 checks: 7.3 offers every BPF feature, so ptscope loads the
    primary build; PTSCOPE_BPF_FALLBACK=all loads the fallback one, every
    feature forced, and its fentry markers attach with the start-up
    check's rule (engine/bpf_features.c)"""
    builds = {}
    for mode in ("auto", FALLBACK):
        probe = json.loads(blocks.get(("probe", mode, None), "null") or "null")
        builds[mode] = (probe or {}).get("bpf", {})
    feats = builds["auto"].get("features", {})
    tap(builds["auto"].get("build") == "primary" and feats and
        all(f.get("offered") and not f.get("forced") for f in feats.values()),
        "%s probe: BPF build %s, features offered %s" % (
            variant, builds["auto"].get("build"),
            {k: f.get("offered") for k, f in feats.items()}))
    feats = builds[FALLBACK].get("features", {})
    probe = json.loads(blocks.get(("probe", FALLBACK, None), "null") or "null")
    m = (probe or {}).get("metrics", {})
    got = (builds[FALLBACK].get("build"),
           sorted(k for k, f in feats.items() if f.get("forced")),
           m.get("mremap.levels", {}).get("path"),
           m.get("mremap.pte_batches", {}).get("start_check", {}).get("rule"))
    want = ("fallback", ["loop", "task-btf", "thread-map"], "fentry",
            RULE[variant])
    tap(got == want, "%s probe with PTSCOPE_BPF_FALLBACK=all: build, "
        "forced, levels path, batch rule %s (want %s)" % (variant, got, want))


def fallback_units(variant, cases):
    """the fallback build against the oracle: the tracepoints"""
    label = LABEL % variant
    return [
        ("%s BPF builds" % variant, 2, lambda b: check_bpf_builds(variant, b)),
        ("%s fallback levels run" % variant, 1,
         lambda b: check_levels.check_run(label, FALLBACK, b, cases)),
        ("%s fallback levels = patched" % variant, 1,
         lambda b: check_levels.compare(label, "patched", FALLBACK, b)),
        ("%s fallback levels = fentry" % variant, 1,
         lambda b: check_levels.compare(
             label, "fentry", FALLBACK, b, check_levels.SHARED_KEYS +
             check_levels.BATCH_KEYS + ("empty",))),
    ]


def variant_units(variant, save_dir, cases):
    units = [
        ("%s probe" % variant, 4, lambda b: check_probe(variant, b)),
        ("%s lab timing" % variant, 1, lambda b: lab_timing(variant, b, save_dir)),
    ]
    for name, (_, _, runs) in LAB.items():
        checks = 4 + (runs + 1 if runs > 1 else 0)
        units.append(("%s %s" % (variant, name), checks,
                      lambda b, n=name: check_lab(variant, b, save_dir, [n])))
    units.append(("%s export" % variant, 3, lambda b: check_export(variant, b)))
    units.append(("%s start-up check" % variant, 2,
                  lambda b: check_start_check(variant, b)))
    units.append(("%s lab_markers" % variant, 3,
                  lambda b: check_lab_markers(variant, b, save_dir)))
    units += fallback_units(variant, cases)
    if variant != "patched":
        return units + level_units(variant, cases)
    for name in cm.EXPECT:
        units.append(("patched %s" % name, 3,
                      lambda b, n=name: check_same_levels(b, [n])))
    for name in FAULT_CHECKS:
        units.append(("patched %s" % name, FAULT_CHECKS[name],
                      lambda b, n=name: check_faults(b, [n])))
    return units + level_units(variant, cases)


def main():
    variant, path = sys.argv[1], sys.argv[2]
    save_dir = sys.argv[3] if len(sys.argv) > 3 else None
    cases = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    units = variant_units(variant, save_dir, cases)
    plan(1 + sum(checks for _, checks, _ in units))
    kernel, blocks = cm.parse(path)
    release = kernel[0] if kernel else "?"
    tap(release.endswith("-ptscope-" + variant),
        "%s: booted %s" % (variant, release))
    for name, checks, check in units:
        with unit(name, checks):
            check(blocks)


if __name__ == "__main__":
    run(main)
