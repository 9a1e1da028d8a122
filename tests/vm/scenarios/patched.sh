#!/bin/sh
# Guest side of tests/vm/test_patched.sh, on a kernel built by kernel/build
# (uname -r ends in -ptscope-VARIANT).  Every variant runs the lab
# workload, PTE-level moves of 4 KiB pages, with ptscope's own choice of
# probes and through the fentry markers alone, and the differential level
# test; the patched kernel (7.3 as shipped) also runs the mremap scenarios
# through the patched tracepoints and through the fentry markers, and the
# fault scenarios through kmem:mm_anon_fault_alloc.  Runs under busybox sh.

. /lib/ptscope-scenarios.sh

echo madvise >$THP/enabled
echo madvise >$THP/defrag
# MADV_HUGEPAGE on the shared (shmem) cases of ptscope-cases
echo advise >$THP/shmem_enabled

echo "@@KERNEL $(uname -r) $(uname -m)"
# the lab workload with no probes attached, for its own timing per call
ptscope-bench mremap --size 1G --align pud --dst-offset 4K --thp never \
	--count 5 >/tmp/lab.out 2>&1
block bench "mode=none scenario=lab_off4k" /tmp/lab.out
# vm_normal_folio() is timed only when asked for: it costs a trampoline
# per call
extra="--metric mremap.folio_lookups"
probe auto
mode=auto
scenario lab_pte --size 1036K --align page --thp never --count 1
scenario lab_off4k --size 1G --align pud --dst-offset 4K --thp never --count 1
# the regression as diff sees it: 3 runs a variant, regression against patched
extra="--metric mremap.folio_lookups --repeat 3"
scenario lab_repeat --size 128M --align pud --dst-offset 4K --thp never --count 1
extra=

# the exporter on the lab's small move: the page a dashboard would scrape
rm -f /tmp/export.err	# see wait_tracing
ptscope export --metric mremap.folio_lookups -c ptscope-bench \
	--listen 127.0.0.1:9477 -d 120 2>/tmp/export.err &
epid=$!
wait_tracing /tmp/export.err
ptscope-bench mremap --size 1036K --align page --thp never --count 1 >/dev/null
scrape /tmp/scrape.txt
kill -INT $epid
wait $epid
echo "export exit $?" >>/tmp/export.err
block scrape "mode=auto scenario=lab_pte" /tmp/scrape.txt
block exporterr "mode=auto scenario=lab_pte" /tmp/export.err

# the regression as a stock-kernel user sees it: the markers, no --metric
mode=fentry
extra="--repeat 3"
scenario lab_markers --size 128M --align pud --dst-offset 4K --thp never --count 1
extra=

case $(uname -r) in
*-ptscope-patched)
	for mode in patched fentry; do
		probe "$mode"
		mremap_scenarios
	done
	mode=patched
	fault_scenarios
	;;
esac

# the differential level test, on both variants: the tracepoints are the
# oracle for the fentry and kprobe markers (their start-up check in each
# probe block), over folios of every size from 64 KiB to 1 MiB wherever
# the cases' MADV_HUGEPAGE regions fit them, and 2 MiB
for kb in 64 128 256 512 1024; do
	set_size "$kb" inherit
done
for mode in patched fentry kprobe; do
	probe "$mode"
	# the sparse heap as a recording (case 0 alone)
	run sparse_heap ptscope-cases --count 1
	levels_cases "$mode"
done

# The fallback build of the BPF objects (PTSCOPE_BPF_FALLBACK=all: thread
# state in tid-keyed hashes, no BTF task helper, bounded loops), which
# kernels before 5.11 load, on the same cases through the fentry markers:
# the tracepoints' counts again, exactly.  Its blocks say mode
# fentry-fallback.  On the regression variant the batches need the folio
# of every present PTE: the batch scan and the memmap search run too.
fallback() {	# fallback CMD...: CMD's blocks as mode=fentry-fallback
	"$@" | sed -e 's/^\(@@BEGIN [a-z]* mode=fentry\)$/\1-fallback/' \
		-e 's/^\(@@BEGIN [a-z]* mode=fentry\) /\1-fallback /'
}
export PTSCOPE_BPF_FALLBACK=all
fallback probe fentry
fallback levels_cases fentry
unset PTSCOPE_BPF_FALLBACK
