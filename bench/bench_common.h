/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the workload families of ptscope-bench share: the page-table
 * geometry, errors and exit codes, timing, the options of every
 * subcommand, mapping helpers and the smaps reader.  Only libc is used.
 */
#ifndef PTSCOPE_BENCH_COMMON_H
#define PTSCOPE_BENCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROG_NAME	"ptscope-bench"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

#define KIB		(1ULL << 10)
#define MIB		(1ULL << 20)
#define GIB		(1ULL << 30)

/* Sanity cap for sizes and offsets; keeps all address math in range. */
#define MAX_REGION	(1ULL << 40)
#define MAX_COUNT	100000000ULL
#define MAX_RUNS	1000
#define MAX_SIZES	32

/* bw's buffer sizes unless --sizes says: its code and the usage text */
#define BW_DEFAULT_SIZES	"16K,64K,256K,1M,4M,16M,64M"

#define ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum align_mode {
	ALIGN_PUD,
	ALIGN_PMD,
	ALIGN_PAGE,
};

enum thp_mode {
	THP_NEVER,
	THP_DEFAULT,
	THP_ALWAYS,
};

/* mremap: which pages of the source are written before each move */
enum populate_mode {
	POPULATE_NONE,
	POPULATE_SPARSE,	/* the first page of every PMD-sized stretch */
	POPULATE_FULL,
};

/* Long option codes; also bit numbers (minus OPT_BASE) in args.seen. */
enum opt_code {
	OPT_BASE = 256,
	OPT_SIZE = OPT_BASE,
	OPT_ALIGN,
	OPT_COUNT,
	OPT_SRC_OFFSET,
	OPT_DST_OFFSET,
	OPT_THP,
	OPT_NO_POPULATE,
	OPT_POPULATE,
	OPT_DONTUNMAP,
	OPT_START,
	OPT_STEP,
	OPT_RUNS,
	OPT_STRIDE,
	OPT_READ,
	OPT_SIZES,
	OPT_CLASS,
	OPT_FOLIO,
	OPT_MOVE_OFFSET,
	OPT_SPLIT_MPROTECT,
	OPT_PUNCH,
	OPT_PAUSE,
	OPT_THREADS,
	OPT_HELP,
};

#define OPT_BIT(code)	(1U << ((code) - OPT_BASE))

struct bench_args {
	uint64_t size;
	uint64_t count;
	uint64_t src_extra;
	uint64_t dst_extra;
	uint64_t start;
	uint64_t step;
	uint64_t runs;
	uint64_t fault_align;
	uint64_t stride;		/* fault: touch one byte every stride */
	bool read;			/* fault: read instead of write */
	uint64_t threads;		/* fault: threads touching each region at once */
	uint64_t sizes[MAX_SIZES];	/* bw, multi: buffer sizes */
	size_t nsizes;
	const char *align_text;		/* --align as typed */
	enum align_mode class;		/* move-loop: pmd or page */
	uint64_t folio;			/* fault-loop: bytes per fault */
	uint64_t move_offset;		/* hold: past an --align boundary */
	uint64_t mprotect_at;		/* hold: offset of the page to mprotect */
	uint64_t punch_at;		/* hold: offset of the page to unmap */
	bool pause;			/* hold: wait for a signal only */
	enum thp_mode thp;
	enum populate_mode populate;
	bool dontunmap;
	unsigned int seen;
};

/* bench_usage.c: the --help text */
void print_usage(FILE *stream);

/* bench_common.c: geometry, errors, timing, samples */
extern uint64_t page_size;
uint64_t pmd_span(void);
uint64_t pud_span(void);
int fail_errno(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
int fail_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
uint64_t now_ns(void);
uint64_t sort_median(uint64_t *samples, uint64_t n);

/* bench_args.c: the options of every subcommand */
extern const char *const thp_names[];
extern const char *const populate_names[];
int parse_size_list(const char *text, uint64_t *sizes, size_t max,
		    size_t *count);
int parse_align_mode(const char *text, enum align_mode *out);
const char *opt_name(int code);
int parse_args(int argc, char **argv, unsigned int options,
	       struct bench_args *args);
int require(const struct bench_args *args, const char *cmd, int code);
int check_bytes(const char *cmd, int code, uint64_t value, uint64_t min);
int check_sizes(const char *cmd, const struct bench_args *args);
int check_runs(const char *cmd, uint64_t runs);
int parse_align_size(const char *cmd, struct bench_args *args);
int run_count_only(int argc, char **argv, int (*run)(uint64_t count));

/* bench_map.c: mappings, their THP advice and their contents */
int apply_thp(char *addr, uint64_t len, enum thp_mode thp);
int reserve_va(uint64_t len, char **out);
int map_aligned(uint64_t len, uint64_t align, char **out);
int map_advised(uint64_t len, uint64_t align, enum thp_mode thp, char **out);
int unmap_region(char *region, uint64_t len, int ret);
void write_markers(char *base, uint64_t first, uint64_t count,
		   uint64_t iteration);
int check_markers(const char *base, uint64_t first, uint64_t count,
		  uint64_t iteration);

/* bench_smaps.c: /proc/self/smaps, read without allocating */
int smaps_sum_kb(const char *start, const char *end, const char *key,
		 uint64_t *kb_out);
int anon_huge_kb(const char *start, uint64_t len, uint64_t *kb_out);

/* the subcommands, one workload family a file */
int cmd_mremap(int argc, char **argv);		/* bench_move.c */
int cmd_multi(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_grow(int argc, char **argv);		/* bench_resize.c */
int cmd_realloc(int argc, char **argv);		/* bench_resize.c */
int cmd_fail(int argc, char **argv);
int cmd_fault(int argc, char **argv);		/* bench_thp.c */
int cmd_collapse(int argc, char **argv);
int cmd_hold(int argc, char **argv);		/* bench_hold.c */
int cmd_bw(int argc, char **argv);		/* bench_bw.c */
int cmd_inplace_loop(int argc, char **argv);	/* bench_loops.c */
int cmd_syscall_loop(int argc, char **argv);
int cmd_move_loop(int argc, char **argv);
int cmd_fault_loop(int argc, char **argv);

#endif
