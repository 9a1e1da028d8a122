"""The 6.17+ scenarios of tests/vm/scenarios/lib.sh batch_scenarios, checked
against their geometry (imported by check_matrix.py).

multi: one mremap() of three VMAs (two PMD spans, half a PMD span plus
three pages, one PMD span, each on a PMD boundary, the gaps kept):
remap_move() (mm/mremap.c, 6.17+) calls move_page_tables() once per VMA,
so 3 calls (plus the bench's exec stack move), 3 NORMAL_PMD moves, one PTE
extent of PMD/2/page + 3 PTEs, and one mremap call.

batch_mthp / batch_pages: 16 contpte blocks (or half a PMD, when that is
less) moved at PTE level from a PMD boundary to one block past one
(congruent modulo the block, not modulo the PMD): one PTE extent.  A
block is 16 PTEs of 4 KiB (64 KiB) or 128 of 16 KiB (2 MiB: 8 blocks fit
half a 32 MiB PMD).  Over mTHP folios of one block each
(hugepages-<block>kB/stats anon_fault_alloc says how many were faulted)
arm64 maps each as one contpte block, so mremap_folio_pte_batch() makes
one batch per block, each after one vm_normal_folio() lookup.  x86's
pte_batch_hint() is 1: one batch per PTE and no lookup (0b5be138ce00).
Over base pages both make one batch per PTE and no lookup.

batch_big: the same move over mTHP folios of four blocks.  On arm64
folio_pte_batch_flags() goes on past the hinted block to the folio's end:
one batch and one lookup per folio, which ptscope infers only by reading
the folio's order from the memmap.
"""
import json
import re

from taplib import comment, kernel_row, tap
from taplib import stat_report as report_of

KIB = 1 << 10


def contpte_block(page):
    """bytes of an arm64 contpte block, the scenario's mTHP folio size"""
    return (128 if page == 16 * KIB else 16) * page


def bench_value(blocks, mode, name, key):
    m = re.search(r"\b%s=(\d+)" % key, blocks.get(("bench", mode, name), ""))
    return int(m.group(1)) if m else None


MULTI_CHECKS = 3


def check_multi(label, mode, blocks):
    report = report_of(blocks, mode, "multi")
    if report is None:
        return
    counters = report["counters"]
    page = bench_value(blocks, mode, "multi", "page_size") or 0
    pmd = page * page // 8
    calls = sum(c["calls"] for c in counters["mremap"]["classes"].values())
    mpt = counters["move_page_tables"]
    tap(calls == 1 and (mpt["calls"], mpt["stack_moves"]) == (4, 1),
        "%s %s multi: one mremap call (%d), move_page_tables once per VMA "
        "plus the exec stack (%d calls, %d stack)" % (
            label, mode, calls, mpt["calls"], mpt["stack_moves"]))
    levels = counters.get("mremap_levels", {})
    want = dict(pud_moved=0, pmd_moved=3, huge_pmd_moved=0, pte_extents=1,
                ptes=pmd // 2 // page + 3 if page else -1)
    got = {k: levels.get(k) for k in want}
    tap(got == want, "%s %s multi: levels summed over the VMAs %s" % (
        label, mode, got if got == want else "got %s want %s" % (got, want)))
    pages = bench_value(blocks, mode, "multi", "pages_populated")
    tap(pages == (2 * pmd + pmd // 2 + 3 * page + pmd) // page if page else False,
        "%s %s multi: the bench moved and checked %s pages" % (label, mode, pages))


BATCH_CHECKS = 4


def check_batch(label, mode, name, blocks):
    report = report_of(blocks, mode, name)
    if report is None:
        return
    counters = report["counters"]
    moved = bench_value(blocks, mode, name, "bytes") or 0
    pages = bench_value(blocks, mode, name, "pages_populated") or 1
    page = moved // pages
    folio = contpte_block(page) * (4 if name == "batch_big" else 1)
    mthp = name != "batch_pages"
    stats = "hugepages-%dkB" % (folio // KIB)
    folios = report["kernel_counters"].get(stats, {}).get("anon_fault_alloc")
    want_folios = moved // folio if mthp else 0
    tap(folios == want_folios and moved > 0,
        "%s %s %s: %s anon_fault_alloc %s = %d (%d bytes moved)" % (
            label, mode, name, stats, folios, want_folios, moved))
    ptes = moved // page
    per = folio // page if mthp and kernel_row(label).contpte else 1
    levels = counters.get("mremap_levels", {})
    want = dict(pte_extents=1, ptes=ptes, pte_batches=ptes // per,
                folio_lookups=ptes // per if per > 1 else 0)
    got = {k: levels.get(k) for k in want}
    status = report["metrics"].get("mremap.pte_batches", {}).get("status")
    tap(got == want and status == "inferred",
        "%s %s %s: %s batches (%s)" % (
            label, mode, name,
            got if got == want else "got %s want %s" % (got, want), status))
    size = levels.get("pte_batch_size", {})
    buckets = [(b.get("low"), b.get("high"), b.get("count"))
               for b in size.get("buckets", [])]
    tap(size.get("count") == ptes // per and size.get("sum") == ptes,
        "%s %s %s: batch sizes: %s batches, %s PTEs, buckets %s (want %d "
        "of %d)" % (label, mode, name, size.get("count"), size.get("sum"),
                    buckets, ptes // per, per))
    lookups = counters.get("folio_lookups", {}).get("calls")
    want_lookups = ptes // per if per > 1 else 0
    tap(lookups == want_lookups,
        "%s %s %s: vm_normal_folio() inside move_page_tables %s = %d "
        "(fentry/kprobe, exact)" % (label, mode, name, lookups, want_lookups))


def check_diff(label, mode, blocks):
    """ptscope diff --all base pages -> mTHP, one run a side: "not enough
    runs", and on arm64 the batch size and the folio lookups are the counts
    that differ; on x86 (pte_batch_hint() 1) neither does"""
    text = blocks.get(("diff", mode, "batch"), "")
    verdict = text.splitlines()[0] if text else ""
    differ = text.split("counts that differ", 1)[1] if "counts that differ" in text else ""
    differ = differ.split("\n\n", 1)[0]
    named = [k for k in ("pte_batch_size", "folio_lookups") if k in differ]
    table = re.search(r"^  levels\.pte_batch_size_mean +\S+ +\S+ +(\S+)  untested$",
                      text, re.M)
    if kernel_row(label).contpte:
        good = len(named) == 2
        want = "names the batch size and the folio lookups as differing"
    else:
        good = not named and table is not None and table.group(1) == "0.0%"
        want = "batch size unchanged (%s), no lookups" % (
            table.group(1) if table else "no row")
    good = good and "not enough runs" in verdict and "diff exit 0" in text
    if not good:
        comment(text[-1500:])
    return tap(good,
               "%s %s diff base pages vs contpte-block mTHP: %s, one run a "
               "side: not enough runs (named: %s)" % (
                   label, mode, want, ", ".join(named) or "none"))


def batch_units(label, mode):
    """[(unit name, checks, function)] for one attach mode of one kernel"""
    if not kernel_row(label).batches:
        return []
    units = [("%s %s multi" % (label, mode), MULTI_CHECKS,
              lambda b: check_multi(label, mode, b))]
    for name in ("batch_mthp", "batch_pages", "batch_big"):
        units.append(("%s %s %s" % (label, mode, name), BATCH_CHECKS,
                      lambda b, name=name: check_batch(label, mode, name, b)))
    units.append(("%s %s diff" % (label, mode), 1,
                  lambda b: check_diff(label, mode, b)))
    return units
