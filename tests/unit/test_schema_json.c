// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/views/schema.c: "ptscope schema" lists every family
 * of an exporter page with the page's type and help (the schema rows, the
 * per-cgroup copies, the probe table, the program statistics), and a
 * family's needs are the candidates of its metric that give it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "engine/engine.h"
#include "export/prom.h"
#include "views/views.h"
#include "fake_engine.h"

/* "ptscope schema", read back through a file as -o writes it */
static json_object *schema_doc(void)
{
	char path[] = "/tmp/ptscope-schema-XXXXXX";
	struct pts_options opts = { .cmd = PTS_CMD_SCHEMA, .output = path };
	json_object *doc;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(view_schema(&opts), 0);
	doc = json_object_from_file(path);
	unlink(path);
	assert_non_null(doc);
	return doc;
}

static json_object *family(json_object *doc, const char *name)
{
	json_object *fams = json_object_object_get(doc, "families"), *f, *n;
	size_t i;

	for (i = 0; i < json_object_array_length(fams); i++) {
		f = json_object_array_get_idx(fams, i);
		n = json_object_object_get(f, "name");
		if (!strcmp(json_object_get_string(n), name))
			return f;
	}
	return NULL;
}

static const char *str_of(json_object *o, const char *key)
{
	return json_object_get_string(json_object_object_get(o, key));
}

/* the rendered page (open_memstream) */
static char *page;
static size_t page_len;

/* a page with every family: all metrics that can attach, cgroup rows, programs */
static const char *full_page(struct pts_engine *eng, struct pts_snapshot *snap)
{
	static struct pts_cgroup_entry rows[1] = { { .id = 7, .path = "/a" } };
	static const struct prom_prog prog = { "mremap_enter", 10, 1 };
	struct prom_input in = {
		.eng = eng, .snap = snap, .page_size = 4096,
		.progs = &prog, .nr_progs = 1, .cgroup_limit = 5,
	};
	FILE *out;

	engine_init(eng, PTS_MODE_AUTO, false);
	fake_attach(eng, "mremap.calls", 0, false);
	fake_attach(eng, "mremap.move_page_tables", 0, false);
	fake_attach(eng, "mremap.levels", PTS_CFG_PTE_MARKER, true);
	fake_attach(eng, "mremap.folio_lookups", 0, false);
	fake_attach(eng, "thp.fault_alloc", PTS_CFG_FAULT_FUNCS, true);
	fake_attach(eng, "thp.collapse", 0, false);
	memset(snap, 0, sizeof(*snap));
	snap->cgroups = rows;
	snap->nr_cgroups = 1;
	snap->has_cgroups = true;
	out = open_memstream(&page, &page_len);
	assert_non_null(out);
	assert_int_equal(prom_render(&in, out), 0);
	assert_int_equal(fclose(out), 0);
	return page;
}

/* the HELP of @name on @page (not escaped: no help has \ or a newline) */
static const char *page_help(const char *name, char *buf, size_t len)
{
	char head[160];
	const char *at, *end;

	snprintf(head, sizeof(head), "# HELP %s ", name);
	at = strstr(page, head);
	assert_non_null(at);
	at += strlen(head);
	end = strchr(at, '\n');
	snprintf(buf, len, "%.*s", (int)(end - at), at);
	return buf;
}

/* every "# TYPE" of the page is a family of the schema, same type and help */
static void test_page_families_listed(void **state)
{
	static struct pts_engine eng;
	static struct pts_snapshot snap;
	char name[128], type[32], help[PROM_HELP_MAX];
	json_object *doc = schema_doc(), *f;
	const char *line;
	int types = 0;

	for (line = full_page(&eng, &snap); (line = strstr(line, "# TYPE ")); line++) {
		assert_int_equal(sscanf(line, "# TYPE %127s %31s", name, type), 2);
		f = family(doc, name);
		if (!f)
			fail_msg("%s is on the page, not in the schema", name);
		assert_string_equal(str_of(f, "type"), type);
		assert_string_equal(str_of(f, "help"),
				    page_help(name, help, sizeof(help)));
		types++;
	}
	assert_true(types > 40);
	free(page);
	json_object_put(doc);
}

/* the needs of the PTE count: the candidates with the PTE table marker */
static void test_needs(void **state)
{
	json_object *doc = schema_doc(), *needs;
	const struct pts_metric *m = catalog_find("mremap.levels");
	size_t nr = 0;
	int c;

	needs = json_object_object_get(family(doc, "ptscope_ptes_moved_total"),
				       "needs");
	for (c = 0; c < m->nr_cands; c++) {
		if (!(m->cands[c].cfg_flags & PTS_CFG_PTE_MARKER))
			continue;
		assert_true(nr < json_object_array_length(needs));
		assert_string_equal(str_of(json_object_array_get_idx(needs, nr),
					   "candidate"), m->cands[c].label);
		nr++;
	}
	assert_int_equal(json_object_array_length(needs), nr);
	/* given by every candidate: null */
	assert_true(json_object_is_type(json_object_object_get(
		family(doc, "ptscope_mremap_calls_total"), "needs"),
		json_type_null));
	/* not the catalog's: no metric */
	assert_true(json_object_is_type(json_object_object_get(
		family(doc, "ptscope_probe_attached"), "metric"),
		json_type_null));
	assert_string_equal(str_of(family(doc, "ptscope_cgroup_ptes_moved_total"),
				   "cgroup_of"), "ptscope_ptes_moved_total");
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_families_listed),
		cmocka_unit_test(test_needs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
