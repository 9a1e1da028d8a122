# SPDX-License-Identifier: GPL-2.0
# The demo and the benchmarks.

.PHONY: demo bench bench-overhead bench-overhead-vm bench-kernel-off bench-lab

demo: deps all
	./bench/demo.sh

# The upstream experiment: 1 GiB remapped at PUD, PMD and page alignment,
# user-side times from the bench, kernel-side times from ptscope.
bench: need-deps all
	./bench/bench.sh
	./bench/bench-thp.sh

# What tracing adds per mremap and per fault: no tracer, the floor (empty
# programs on ptscope's hooks), ptscope top/export/stat and bpftrace, one
# interleaved run of ROUNDS rounds; tables on stdout, rows in build/bench/.
ROUNDS ?= 5
bench-overhead: need-deps all
	./bench/overhead.sh --rounds $(ROUNDS)

# the same inside one qemu kernel (fentry and kprobe modes), ratios only
KERNEL ?= 6.12-amd64
VM_ROUNDS ?= 3
bench-overhead-vm: need-deps-vm static
	./tests/vm/bench_overhead.sh $(KERNEL) $(VM_ROUNDS)

# what the tracepoint series costs while off: stock 7.3 against patched,
# booted in turn (bench/kernel-off.sh), ROUNDS pairs of boots
bench-kernel-off: need-deps-vm need-deps-kernel static
	@./kernel/fetch-source.sh >/dev/null
	./bench/kernel-off.sh $(ROUNDS)

# the lab: the bigheap-like workload on the regression and patched kernels
# under qemu -icount, untraced and through the fentry markers; RUNS runs
# each (bench/lab.sh)
RUNS ?= 5
bench-lab: need-deps-vm need-deps-kernel all static
	@./kernel/fetch-source.sh >/dev/null
	./bench/lab.sh $(RUNS)
