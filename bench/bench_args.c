// SPDX-License-Identifier: GPL-2.0
/*
 * The options of ptscope-bench's subcommands: sizes with K/M/G suffixes,
 * counts, the names of enum thp_mode, populate_mode and align_mode, and
 * the checks the subcommands share.  Every bad value is a usage error
 * (exit 2) naming the subcommand and the option.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

/* the names of enum thp_mode, enum populate_mode and enum align_mode */
const char *const thp_names[] = { "never", "default", "always" };
const char *const populate_names[] = { "none", "sparse", "full" };
static const char *const align_names[] = { "pud", "pmd", "page" };

/* every long option; a subcommand takes those its mask of OPT_BIT()s names */
static const struct option all_options[] = {
	{ "size",	    required_argument, NULL, OPT_SIZE },
	{ "align",	    required_argument, NULL, OPT_ALIGN },
	{ "count",	    required_argument, NULL, OPT_COUNT },
	{ "src-offset",	    required_argument, NULL, OPT_SRC_OFFSET },
	{ "dst-offset",	    required_argument, NULL, OPT_DST_OFFSET },
	{ "thp",	    required_argument, NULL, OPT_THP },
	{ "no-populate",    no_argument,       NULL, OPT_NO_POPULATE },
	{ "populate",	    required_argument, NULL, OPT_POPULATE },
	{ "dontunmap",	    no_argument,       NULL, OPT_DONTUNMAP },
	{ "start",	    required_argument, NULL, OPT_START },
	{ "step",	    required_argument, NULL, OPT_STEP },
	{ "runs",	    required_argument, NULL, OPT_RUNS },
	{ "stride",	    required_argument, NULL, OPT_STRIDE },
	{ "read",	    no_argument,       NULL, OPT_READ },
	{ "sizes",	    required_argument, NULL, OPT_SIZES },
	{ "class",	    required_argument, NULL, OPT_CLASS },
	{ "folio",	    required_argument, NULL, OPT_FOLIO },
	{ "move-offset",    required_argument, NULL, OPT_MOVE_OFFSET },
	{ "split-mprotect", required_argument, NULL, OPT_SPLIT_MPROTECT },
	{ "punch",	    required_argument, NULL, OPT_PUNCH },
	{ "pause",	    no_argument,       NULL, OPT_PAUSE },
	{ "threads",	    required_argument, NULL, OPT_THREADS },
	{ "help",	    no_argument,       NULL, OPT_HELP },
};

/* Decimal number with an optional K/M/G suffix (powers of 1024). */
static int parse_size(const char *text, uint64_t *out)
{
	unsigned long long value;
	uint64_t multiplier = 1;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -1;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		multiplier = KIB;
		end++;
		break;
	case 'm':
	case 'M':
		multiplier = MIB;
		end++;
		break;
	case 'g':
	case 'G':
		multiplier = GIB;
		end++;
		break;
	}
	if (*end || value > UINT64_MAX / multiplier)
		return -1;
	*out = value * multiplier;
	return 0;
}

static int parse_count(const char *text, uint64_t *out)
{
	unsigned long long value;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -1;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno || *end || value > MAX_COUNT)
		return -1;
	*out = value;
	return 0;
}

/* the index of @text in @names (an enum's names in order), or -1 */
static int name_index(const char *text, const char *const *names,
		      size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (!strcmp(text, names[i]))
			return (int)i;
	return -1;
}

int parse_align_mode(const char *text, enum align_mode *out)
{
	int i = name_index(text, align_names, ARRAY_SIZE(align_names));

	if (i < 0)
		return -1;
	*out = (enum align_mode)i;
	return 0;
}

/* Comma separated sizes, at most max of them; -1 if malformed. */
int parse_size_list(const char *text, uint64_t *sizes, size_t max,
		    size_t *count)
{
	char item[32];
	const char *comma;
	size_t len, n = 0;

	for (;;) {
		comma = strchr(text, ',');
		len = comma ? (size_t)(comma - text) : strlen(text);
		if (!len || len >= sizeof(item) || n == max)
			return -1;
		memcpy(item, text, len);
		item[len] = '\0';
		if (parse_size(item, &sizes[n++]))
			return -1;
		if (!comma)
			break;
		text = comma + 1;
	}
	*count = n;
	return 0;
}

/* fault-loop --folio: "page", "pmd" or a size */
static int parse_folio(const char *text, uint64_t *out)
{
	if (!strcmp(text, "page"))
		*out = page_size;
	else if (!strcmp(text, "pmd"))
		*out = pmd_span();
	else
		return parse_size(text, out);
	return 0;
}

const char *opt_name(int code)
{
	switch (code) {
	case OPT_SIZE:		return "--size";
	case OPT_ALIGN:		return "--align";
	case OPT_COUNT:		return "--count";
	case OPT_SRC_OFFSET:	return "--src-offset";
	case OPT_DST_OFFSET:	return "--dst-offset";
	case OPT_THP:		return "--thp";
	case OPT_POPULATE:	return "--populate";
	case OPT_START:		return "--start";
	case OPT_STEP:		return "--step";
	case OPT_RUNS:		return "--runs";
	case OPT_STRIDE:	return "--stride";
	case OPT_SIZES:		return "--sizes";
	case OPT_CLASS:		return "--class";
	case OPT_FOLIO:		return "--folio";
	case OPT_MOVE_OFFSET:	return "--move-offset";
	case OPT_SPLIT_MPROTECT: return "--split-mprotect";
	case OPT_PUNCH:		return "--punch";
	case OPT_THREADS:	return "--threads";
	}
	return "option";
}

/* An option naming an enum value (--thp, --populate, --class); -1 if none. */
static int store_name(struct bench_args *args, int code, const char *value)
{
	int i;

	switch (code) {
	case OPT_THP:
		i = name_index(value, thp_names, ARRAY_SIZE(thp_names));
		args->thp = (enum thp_mode)i;
		break;
	case OPT_POPULATE:
		i = name_index(value, populate_names,
			       ARRAY_SIZE(populate_names));
		args->populate = (enum populate_mode)i;
		break;
	default:
		return parse_align_mode(value, &args->class);
	}
	return i < 0 ? -1 : 0;
}

/* Store one option's value; returns 0 or -1 for a malformed value. */
static int store_option(struct bench_args *args, int code, const char *value)
{
	switch (code) {
	case OPT_SIZE:
		return parse_size(value, &args->size);
	case OPT_COUNT:
		return parse_count(value, &args->count);
	case OPT_SRC_OFFSET:
		return parse_size(value, &args->src_extra);
	case OPT_DST_OFFSET:
		return parse_size(value, &args->dst_extra);
	case OPT_START:
		return parse_size(value, &args->start);
	case OPT_STEP:
		return parse_size(value, &args->step);
	case OPT_RUNS:
		return parse_count(value, &args->runs);
	case OPT_THP:
	case OPT_POPULATE:
	case OPT_CLASS:
		return store_name(args, code, value);
	case OPT_ALIGN:
		/* pud|pmd|page for mremap, a size for fault: checked later */
		args->align_text = value;
		return 0;
	case OPT_FOLIO:
		return parse_folio(value, &args->folio);
	case OPT_DONTUNMAP:
		args->dontunmap = true;
		return 0;
	case OPT_NO_POPULATE:
		args->populate = POPULATE_NONE;
		return 0;
	case OPT_STRIDE:
		return parse_size(value, &args->stride);
	case OPT_READ:
		args->read = true;
		return 0;
	case OPT_SIZES:
		return parse_size_list(value, args->sizes, MAX_SIZES,
				       &args->nsizes);
	case OPT_MOVE_OFFSET:
		return parse_size(value, &args->move_offset);
	case OPT_SPLIT_MPROTECT:
		return parse_size(value, &args->mprotect_at);
	case OPT_PUNCH:
		return parse_size(value, &args->punch_at);
	case OPT_PAUSE:
		args->pause = true;
		return 0;
	case OPT_THREADS:
		return parse_count(value, &args->threads);
	}
	return -1;
}

/*
 * The long options of @options (and --help) into @longopts, which has
 * room for all of them and the terminating entry.  Another subcommand's
 * options are unknown, and do not make an abbreviation ambiguous.
 */
static void select_options(unsigned int options, struct option *longopts)
{
	size_t i, n = 0;

	options |= OPT_BIT(OPT_HELP);
	for (i = 0; i < ARRAY_SIZE(all_options); i++)
		if (options & OPT_BIT(all_options[i].val))
			longopts[n++] = all_options[i];
	memset(&longopts[n], 0, sizeof(longopts[n]));
}

/*
 * Parse the options of one subcommand, those @options names (a mask of
 * OPT_BIT()s).  argv[0] is the subcommand name.  Returns 0, EXIT_USAGE
 * after reporting, or -1 when help was requested.
 */
int parse_args(int argc, char **argv, unsigned int options,
	       struct bench_args *args)
{
	struct option longopts[ARRAY_SIZE(all_options) + 1];
	int code;

	select_options(options, longopts);
	opterr = 0;
	optind = 1;
	while ((code = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (code == 'h' || code == OPT_HELP)
			return -1;
		if (code == '?')
			return usage_error("%s: unknown option '%s'", argv[0],
					   argv[optind - 1]);
		if (code == ':')
			return usage_error("%s: option '%s' needs a value",
					   argv[0], argv[optind - 1]);
		if (store_option(args, code, optarg))
			return usage_error("%s: bad value '%s' for %s", argv[0],
					   optarg, opt_name(code));
		args->seen |= OPT_BIT(code);
	}
	if (optind < argc)
		return usage_error("%s: unexpected argument '%s'", argv[0],
				   argv[optind]);
	return 0;
}

/* Returns EXIT_USAGE (after reporting) if a required option is missing. */
int require(const struct bench_args *args, const char *cmd, int code)
{
	if (args->seen & OPT_BIT(code))
		return 0;
	return usage_error("%s: %s is required", cmd, opt_name(code));
}

/* A byte count that must be a page multiple in [min, MAX_REGION]. */
int check_bytes(const char *cmd, int code, uint64_t value, uint64_t min)
{
	if (value < min || value > MAX_REGION || value % page_size)
		return usage_error("%s: %s must be a multiple of %" PRIu64
				   " between %" PRIu64 " and %llu bytes", cmd,
				   opt_name(code), page_size, min, MAX_REGION);
	return 0;
}

/* every size of --sizes, as check_bytes() wants it */
int check_sizes(const char *cmd, const struct bench_args *args)
{
	size_t i;
	int ret;

	for (i = 0; i < args->nsizes; i++) {
		ret = check_bytes(cmd, OPT_SIZES, args->sizes[i], page_size);
		if (ret)
			return ret;
	}
	return 0;
}

int check_runs(const char *cmd, uint64_t runs)
{
	if (runs < 1 || runs > MAX_RUNS)
		return usage_error("%s: --runs must be between 1 and %d", cmd,
				   MAX_RUNS);
	return 0;
}

/* --align SIZE of fault and hold into args->fault_align, if given */
int parse_align_size(const char *cmd, struct bench_args *args)
{
	uint64_t align;

	if (!args->align_text)
		return 0;
	if (parse_size(args->align_text, &align) || align < page_size ||
	    align > MAX_REGION || (align & (align - 1)))
		return usage_error("%s: --align must be a power of two between "
				   "%" PRIu64 " and %llu bytes", cmd, page_size,
				   MAX_REGION);
	args->fault_align = align;
	return 0;
}

/* a subcommand whose one option is --count N: run(N) */
int run_count_only(int argc, char **argv, int (*run)(uint64_t count))
{
	struct bench_args args = { 0 };
	int ret;

	ret = parse_args(argc, argv, OPT_BIT(OPT_COUNT), &args) ?:
	      require(&args, argv[0], OPT_COUNT);
	if (ret)
		return ret;
	return run(args.count);
}
