# SPDX-License-Identifier: GPL-2.0
# Tests: unit, sanitizer, fuzz, tree, host, the kernel matrix; make check.

.PHONY: unit-check san san-check harness-check tree-check host-check vm-check \
	fuzz-build fuzz check

UNIT_TESTS := test_hist test_options test_engine test_catalog test_format test_diff test_stats test_prom \
	test_schema test_listen test_httpd test_mapscan test_cgroup test_selfcheck \
	test_kube test_schema_json test_start test_batch_check test_kminimum \
	test_bpf_features
UNIT_BINS := $(patsubst %,$(OUT)/tests/%,$(UNIT_TESTS))

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(OUT)/tests
	$(CC) $(CFLAGS) $(DEPFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

unit-check: need-deps $(UNIT_BINS)
	@./tests/run.sh unit $(UNIT_BINS)

# Sanitizer build: the unit tests and ptscope once more through clang's
# AddressSanitizer and UndefinedBehaviorSanitizer, in $(SAN_OUT); make
# check runs the unit and host tests again with them.  Any report ends the
# process with exit code 86 and is also written under $(SAN_LOGS), which
# tests/san/check_reports.sh turns into a failed test (a host test that
# expects exit 1 would not notice the exit code alone).  LeakSanitizer
# works as root here (it needs ptrace-like access to the process's own
# threads, which this box allows), so leaks are reported too.
SAN_OUT := $(OUT)/asan
SAN_LOGS := $(SAN_OUT)/reports
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
SAN_CFLAGS := -O1 -g $(SAN_FLAGS) $(VERSION_DEF) -std=gnu11 -Wall -Wextra \
	-Wno-unused-parameter -Wno-missing-field-initializers -Iinclude \
	-I$(BPF_OUT) -Isrc
SAN_LIB_OBJS := $(patsubst src/%.c,$(SAN_OUT)/$(ARCH)/%.o,$(LIB_SRCS))
SAN_PTSCOPE := $(SAN_OUT)/ptscope
SAN_UNIT_BINS := $(patsubst %,$(SAN_OUT)/tests/%,$(UNIT_TESTS))
SAN_ENV := ASAN_OPTIONS=halt_on_error=1:exitcode=86:detect_leaks=1:log_path=$(abspath $(SAN_LOGS))/asan \
	UBSAN_OPTIONS=halt_on_error=1:exitcode=86:print_stacktrace=1:log_path=$(abspath $(SAN_LOGS))/ubsan \
	LSAN_OPTIONS=exitcode=86 PTSCOPE_SAN_LOGS=$(abspath $(SAN_LOGS))
# tests/run.sh arguments: the sanitizer pass over unit and host tests
# (not test_deb.sh, test_deb_chroot.sh nor test_image.sh: they test the
# package's and the image's own ptscope, never $(PTSCOPE); nor
# test_bench_overhead.sh: a
# bench of the sanitizer build measures the sanitizer, and the commands
# it starts are the other tests' own)
SAN_SKIP := tests/host/test_deb.sh tests/host/test_deb_chroot.sh \
	tests/host/test_image.sh \
	tests/host/test_bench_overhead.sh
SAN_RUN := --suite asan $(SAN_ENV) PTSCOPE=$(SAN_PTSCOPE) $(SAN_UNIT_BINS) \
	$(filter-out $(SAN_SKIP),$(wildcard tests/host/test_*.sh)) \
	tests/san/check_reports.sh

$(eval $(call compile,$(SAN_OUT)/$(ARCH),$$(CLANG) $$(SAN_CFLAGS)))

$(SAN_PTSCOPE): $(SAN_LIB_OBJS) $(SAN_OUT)/$(ARCH)/main.o
	$(CLANG) $(SAN_FLAGS) $^ -o $@ $(LDLIBS)

$(SAN_OUT)/tests/%: tests/unit/%.c $(SAN_LIB_OBJS)
	@mkdir -p $(SAN_OUT)/tests
	$(CLANG) $(SAN_CFLAGS) $(DEPFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

san: $(SAN_PTSCOPE) $(SAN_UNIT_BINS)

# the sanitizer pass alone: unit tests, then the host tests with its ptscope
san-check: need-deps san all
	@rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS)
	@./tests/run.sh asan $(SAN_RUN)

# tests/run.sh itself: short, planless or dying runs must turn it red
HARNESS_TESTS := tests/harness/test_run.sh tests/vm/test_harness.sh
harness-check:
	@./tests/run.sh harness $(HARNESS_TESTS)

# the source tree: no layer includes one above it (docs/layout.md); the
# Prometheus rules pass promtool and their unit tests, and name only
# families of "ptscope schema"; the Kubernetes manifests pass their
# schemas (the validator comes with deps-image); docs/kernels.md lists the
# kernels of tests/vm/infra/kernels.tsv
TREE_TESTS := tests/tree/test_layers.sh tests/tree/test_rules.sh tests/tree/test_docs.sh \
	tests/tree/test_manifests.sh tests/tree/test_kernels.sh
tree-check: need-deps-image $(PTSCOPE)
	@./tests/run.sh tree $(TREE_TESTS)

host-check: need-deps need-deps-deb need-deps-image all
	@./tests/run.sh host tests/host/test_*.sh

vm-check: need-deps-vm static
	@VM_KERNELS="$(VM_KERNELS)" ./tests/run.sh vm tests/vm/test_matrix.sh

# libFuzzer targets, tests/fuzz/NAME.c, each run for FUZZ_SECONDS over a
# copy of its seed corpus tests/fuzz/corpus/NAME/ by tests/fuzz/run.sh,
# which reports TAP ("ok N - fuzz_diff 20 s, X runs").  Add new targets
# (fuzz_http for the HTTP path) to FUZZ_TARGETS.  The library sources are
# built with coverage and sanitizers into $(FUZZ_OUT)/$(ARCH).
FUZZ_TARGETS := fuzz_diff fuzz_options fuzz_listen fuzz_http
FUZZ_SECONDS ?= 20
FUZZ_OUT := $(OUT)/fuzz
FUZZ_CFLAGS := -O1 -g $(VERSION_DEF) -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer -std=gnu11 -Wall \
	-Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Iinclude -I$(BPF_OUT) -Isrc
FUZZ_LIB_OBJS := $(patsubst src/%.c,$(FUZZ_OUT)/$(ARCH)/%.o,$(LIB_SRCS))
FUZZ_BINS := $(patsubst %,$(FUZZ_OUT)/%,$(FUZZ_TARGETS))
# tests/run.sh arguments: the fuzz pass
FUZZ_RUN := --suite fuzz FUZZ_BIN=$(abspath $(FUZZ_OUT)) \
	FUZZ_SECONDS=$(FUZZ_SECONDS) "FUZZ_TARGETS=$(FUZZ_TARGETS)" \
	tests/fuzz/run.sh

$(eval $(call compile,$(FUZZ_OUT)/$(ARCH),$$(CLANG) $$(FUZZ_CFLAGS)))

$(FUZZ_OUT)/%: tests/fuzz/%.c $(FUZZ_LIB_OBJS)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(DEPFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: need-deps fuzz-build
	@./tests/run.sh fuzz $(FUZZ_RUN)

check: deps-vm deps-kernel deps-deb deps-image
	$(MAKE) all $(UNIT_BINS) san fuzz-build
	$(MAKE) static
	@rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS)
	@VM_KERNELS="$(VM_KERNELS)" ./tests/run.sh all $(HARNESS_TESTS) $(TREE_TESTS) $(UNIT_BINS) \
		tests/host/test_*.sh tests/vm/test_matrix.sh \
		kernel/check-patches.sh tests/vm/test_patched.sh \
		tests/vm/test_patched_arm64.sh \
		$(SAN_RUN) $(FUZZ_RUN)

DEPFILES += $(patsubst %.o,%.d,$(SAN_LIB_OBJS) $(SAN_OUT)/$(ARCH)/main.o \
	$(FUZZ_LIB_OBJS)) $(addsuffix .d,$(UNIT_BINS) $(SAN_UNIT_BINS) $(FUZZ_BINS))
