"""TAP for the VM checkers, with a plan that a crash cannot satisfy.

A checker prints its plan ("1..N", the number of checks it will make,
derived from the scenario list before it reads any result), then makes its
checks in units.  A unit says how many checks it makes; if it raises, its
traceback goes into the output as comments and every check it did not make
is a failure; a unit that makes more checks than it said is a failure too.
finish() fails when the checks made differ from the plan.  The shell side
(tests/tap.sh, run_checker) also fails a checker that exits non-zero or
whose results do not match its plan line.
"""
import collections
import contextlib
import json
import os
import sys
import traceback

n = 0
failures = 0
planned = None


def tap(good, text):
    global n, failures
    n += 1
    if not good:
        failures += 1
    print(("ok" if good else "not ok") + " %d - %s" % (n, text))
    return good


def comment(text):
    for line in str(text).splitlines() or [""]:
        print("# " + line)


def plan(total):
    global planned
    planned = total
    print("1..%d" % total)


@contextlib.contextmanager
def unit(name, checks):
    """Run a block that makes exactly CHECKS checks."""
    start = n
    try:
        yield
    except Exception:	# noqa: BLE001 - every error is a failed check
        comment("%s raised:" % name)
        comment(traceback.format_exc())
        tap(False, "%s: checker raised %s" % (name, sys.exc_info()[1].__class__.__name__))
    made = n - start
    for i in range(made, checks):
        tap(False, "%s: check %d of %d not made" % (name, i + 1, checks))
    if made > checks:
        tap(False, "%s: made %d checks, its plan says %d" % (name, made, checks))


def finish():
    """Exit status: 0 when the plan was kept and nothing failed."""
    if planned is not None and n != planned:
        comment("made %d checks, the plan said %d" % (n, planned))
        return 1
    return 1 if failures else 0


def run(main):
    """Run MAIN (which calls plan() and the units) and exit with finish()."""
    try:
        main()
    except Exception:	# noqa: BLE001
        comment(traceback.format_exc())
        tap(False, "checker raised %s" % sys.exc_info()[1].__class__.__name__)
        sys.exit(1)
    sys.exit(finish())


def stat_report(blocks, mode, name):
    """the "ptscope stat --json" report of scenario NAME in MODE from a
    guest's @@BEGIN blocks, or None after a failed check saying why"""
    if ("error", mode, name) in blocks:
        tap(False, "%s %s: ptscope stat failed: %s" % (
            mode, name, blocks[("error", mode, name)][:300]))
        return None
    text = blocks.get(("stat", mode, name))
    if text is None:
        tap(False, "%s %s: no result" % (mode, name))
        return None
    return json.loads(text)


def kernel_row(label):
    """kernel LABEL's row of tests/vm/infra/kernels.tsv, its columns as fields:
    "yes" and "no" as booleans, every other value a string (KeyError for
    a kernel not in the table)"""
    rows, header = {}, None
    with open(os.path.join(os.path.dirname(__file__), "..", "infra", "kernels.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cells = line.rstrip("\n").split("\t")
            if header is None:
                header = collections.namedtuple("Kernel", cells)
                continue
            rows[cells[0]] = header(*({"yes": True, "no": False}.get(c, c)
                                      for c in cells))
    return rows[label]
