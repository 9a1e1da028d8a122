#!/usr/bin/env python3
"""Check what tests/vm/scenarios/maps.sh (maps_scenarios) printed in one VM.

Usage: check_maps.py KERNEL-LABEL CONSOLE-OUTPUT

Prints TAP.  Ground truth comes from outside ptscope: the geometry of each
region (sized in PMDs of the guest's page size, which the holder prints),
the holder's own smaps (AnonHugePages right after its faults and at the
end) and the kernel's counters over the run (nothing else in the guest
faults THPs, so the deltas are the holder's).  maps_units(label) gives the
units to a matrix checker that runs these scenarios among others.
"""
import json
import sys

import check_matrix as cm
from taplib import comment, kernel_row, run, tap

MTHP_SIZE = 64 << 10
MTHP_REGION = 1 << 20


def hold_line(blocks, name):
    """the holder's KEY=VALUE line as a dict of ints (addresses in hex)"""
    text = blocks.get(("hold", None, name), "")
    for line in text.splitlines():
        if line.startswith("hold "):
            return {k: int(v, 0) for k, v in
                    (w.split("=", 1) for w in line.split()[1:])}
    return None


def kcounter_deltas(blocks, name):
    """{KEY: after - before} from the kcounters block"""
    seen = {}
    for line in blocks.get(("kcounters", None, name), "").splitlines():
        when, key, value = line.split()
        seen.setdefault(key, {})[when] = int(value)
    return {k: v["after"] - v["before"] for k, v in seen.items()
            if "after" in v and "before" in v}


def scenario(blocks, name):
    """(maps JSON total, hold line, counter deltas); raises when missing"""
    if ("maps", None, name) not in blocks:
        raise AssertionError("%s: no maps report: %s" % (
            name, blocks.get(("error", None, name), "no error block either")
            .replace("\n", " | ")))
    report = json.loads(blocks[("maps", None, name)])
    hold = hold_line(blocks, name)
    if hold is None:
        raise AssertionError("%s: no hold line" % name)
    return report, hold, kcounter_deltas(blocks, name)


def size_name(nbytes):
    """the JSON's folio size key: "2M", "32M", "64K" """
    kb = nbytes >> 10
    return "%dM" % (kb >> 10) if kb >= 1024 and kb % 1024 == 0 else "%dK" % kb


def pte(total, nbytes, fit, key="folios"):
    return total["pte_mapped"].get(size_name(nbytes), {}).get(fit, {}).get(key, 0)


def large_folios(total, but=()):
    """PTE-mapped large folios of every size but those in BUT"""
    return sum(o[fit]["folios"] for size, o in total["pte_mapped"].items()
               if size not in but for fit in ("aligned", "unaligned", "partial"))


def say(good, text, got, want):
    return tap(good, "%s: got %s, want %s" % (text, got, want))


def check_geometry(label, blocks):
    """1 check: ptscope's page and PMD size are the kernel's"""
    report, hold, _ = scenario(blocks, "thp")
    total = report["total"]
    got = (report["system"]["page_size"], total["pmd_mapped"]["size"])
    want = (hold["page_size"], size_name(hold["pmd_size"]))
    say(got == want and hold["pmd_size"] == hold["page_size"] // 8 * hold["page_size"],
        "%s maps: page size and PMD size" % label, got, want)


def check_thp(label, blocks):
    """4 checks: a PMD-aligned MADV_HUGEPAGE region, all PMD-mapped"""
    report, hold, d = scenario(blocks, "thp")
    total, pmd = report["total"], hold["pmd_size"]
    got = total["pmd_mapped"]["folios"]
    say(got == hold["anon_huge_kb"] * 1024 // pmd == hold["faulted_huge_kb"] * 1024 // pmd,
        "%s maps thp: PMD-mapped = smaps AnonHugePages / PMD" % label, got,
        hold["anon_huge_kb"] * 1024 // pmd)
    say(got == d.get("thp_fault_alloc"),
        "%s maps thp: PMD-mapped = thp_fault_alloc delta" % label, got,
        d.get("thp_fault_alloc"))
    want = hold["size"] // pmd if d.get("thp_fault_fallback") == 0 else got
    say(got == want, "%s maps thp: geometry (thp_fault_fallback +%s)"
        % (label, d.get("thp_fault_fallback")), got, want)
    say(large_folios(total) == 0 and total["anon_bytes"] == total["smaps_anon_bytes"],
        "%s maps thp: no PTE-mapped large folio, anonymous = smaps" % label,
        (large_folios(total), total["anon_bytes"]), (0, total["smaps_anon_bytes"]))


def check_mprotect(label, blocks):
    """3 checks: one read-only page splits its PMD, not its folio"""
    report, hold, d = scenario(blocks, "mprotect")
    total, pmd = report["total"], hold["pmd_size"]
    now = hold["anon_huge_kb"] * 1024 // pmd
    got = total["pmd_mapped"]["folios"]
    say(got == now, "%s maps mprotect: PMD-mapped = smaps AnonHugePages / PMD"
        % label, got, now)
    split = hold["faulted_huge_kb"] * 1024 // pmd - now
    got = pte(total, pmd, "aligned")
    say(got == split == d.get("thp_split_pmd") and d.get("thp_split_page") == 0,
        "%s maps mprotect: whole PTE-mapped PMD-order folios = faulted - "
        "PMD-mapped = thp_split_pmd delta, no thp_split_page" % label,
        (got, d.get("thp_split_pmd"), d.get("thp_split_page")), (split, split, 0))
    got = (total["pmd_mapped"]["folios"], pte(total, pmd, "aligned"),
           large_folios(total) - pte(total, pmd, "aligned"))
    want = (hold["size"] // pmd - 1, 1, 0)
    say(got == want, "%s maps mprotect: geometry (PMD, PTE whole, other)" % label,
        got, want)


def check_punch(label, blocks):
    """3 checks: one unmapped page leaves its folio partial"""
    report, hold, d = scenario(blocks, "punch")
    total, pmd, page = report["total"], hold["pmd_size"], hold["page_size"]
    now = hold["anon_huge_kb"] * 1024 // pmd
    got = total["pmd_mapped"]["folios"]
    say(got == now, "%s maps punch: PMD-mapped = smaps AnonHugePages / PMD"
        % label, got, now)
    got = (pte(total, pmd, "partial"), pte(total, pmd, "partial", "pages"),
           d.get("thp_split_page"))
    want = (1, pmd // page - 1, 0)
    say(got == want, "%s maps punch: one partial folio, all but a page "
        "(no thp_split_page)" % label, got, want)
    got = (total["pmd_mapped"]["folios"], hold["anon_kb"] * 1024)
    want = (hold["size"] // pmd - 1, hold["size"] - page)
    say(got == want, "%s maps punch: geometry (PMD-mapped, smaps Anonymous)"
        % label, got, want)


def check_moved(label, blocks):
    """2 checks: moved a page off alignment, whole but unaligned"""
    report, hold, _ = scenario(blocks, "moved")
    total, pmd = report["total"], hold["pmd_size"]
    got = pte(total, pmd, "unaligned")
    want = hold["faulted_huge_kb"] * 1024 // pmd
    say(got == want == hold["size"] // pmd,
        "%s maps moved: whole unaligned PMD-order folios = faulted THPs = "
        "geometry" % label, got, (want, hold["size"] // pmd))
    got = (total["pmd_mapped"]["folios"], hold["anon_huge_kb"])
    say(got == (0, 0), "%s maps moved: none PMD-mapped (smaps agrees)" % label,
        got, (0, 0))


def check_small(label, blocks):
    """2 checks: MADV_NOHUGEPAGE, order-0 pages only"""
    report, hold, _ = scenario(blocks, "small")
    total = report["total"]
    got = (total["pmd_mapped"]["folios"], large_folios(total))
    say(got == (0, 0), "%s maps small: no large folio" % label, got, (0, 0))
    pages = total["order0"]["pages"]
    want = hold["size"] // hold["page_size"]
    say(pages >= want and total["order0"]["share"] == 1.0,
        "%s maps small: order-0 pages hold the region and all of the rest"
        % label, (pages, total["order0"]["share"]), (">= %d" % want, 1.0))


def check_mthp(label, blocks, name, fit):
    """2 checks: a 1 MiB MADV_HUGEPAGE region of 64 KiB folios"""
    report, hold, d = scenario(blocks, name)
    total = report["total"]
    got = pte(total, MTHP_SIZE, fit)
    want = MTHP_REGION // MTHP_SIZE
    alloc = d.get("mthp64_anon_fault_alloc")
    say(got == want == alloc, "%s maps %s: %s 64K folios = geometry = "
        "hugepages-64kB anon_fault_alloc delta" % (label, name, fit),
        got, (want, alloc))
    got = (total["pmd_mapped"]["folios"], large_folios(total, ("64K",)))
    say(got == (0, 0), "%s maps %s: no other large folio" % (label, name),
        got, (0, 0))


def maps_units(label):
    """the checks of maps_scenarios on kernel LABEL: (name, checks, fn)"""
    units = [
        ("%s maps geometry" % label, 1, lambda b: check_geometry(label, b)),
        ("%s maps thp" % label, 4, lambda b: check_thp(label, b)),
        ("%s maps mprotect" % label, 3, lambda b: check_mprotect(label, b)),
        ("%s maps punch" % label, 3, lambda b: check_punch(label, b)),
        ("%s maps moved" % label, 2, lambda b: check_moved(label, b)),
        ("%s maps small" % label, 2, lambda b: check_small(label, b)),
    ]
    if kernel_row(label).mthp_stats:
        units += [
            ("%s maps mthp" % label, 2,
             lambda b: check_mthp(label, b, "mthp", "aligned")),
            ("%s maps mthp_moved" % label, 2,
             lambda b: check_mthp(label, b, "mthp_moved", "unaligned")),
        ]
    else:
        comment("%s: no mTHP before 6.8, the 64K cases do not run" % label)
    return units


def main():
    label, path = sys.argv[1], sys.argv[2]
    cm.check_units(label, path, maps_units(label))


if __name__ == "__main__":
    run(main)
