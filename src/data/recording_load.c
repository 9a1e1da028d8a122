// SPDX-License-Identifier: GPL-2.0
/*
 * A recording from its file: read whole (up to MAX_RECORDING), parsed as
 * one JSON value and nothing after it, told apart from stat's text
 * report, then slimmed (recording_slim) before the next one is read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/recording.h"

#define MAX_RECORDING	(64 << 20)	/* far above any stat recording */

/* the whole file, NUL-terminated, in *@text; 0 or -errno */
static int read_text(const char *path, char **text, size_t *len)
{
	size_t used = 0, cap = 0, got;
	char *buf = NULL, *bigger;
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f)
		return -errno;
	do {
		if (cap - used < 2) {
			cap = cap ? cap * 2 : 65536;
			bigger = cap > MAX_RECORDING ? NULL : realloc(buf, cap);
			if (!bigger) {
				err = cap > MAX_RECORDING ? -EFBIG : -ENOMEM;
				goto out;
			}
			buf = bigger;
		}
		got = fread(buf + used, 1, cap - used - 1, f);
		used += got;
	} while (got);
	if (ferror(f))
		err = errno ? -errno : -EIO;
out:
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[used] = '\0';
	*text = buf;
	*len = used;
	return 0;
}

/* stat's text report, saved with -o but without --json? */
static bool is_text_report(const char *text)
{
	text += strspn(text, " \t\r\n");
	return !strncmp(text, "ptscope stat: ", strlen("ptscope stat: "));
}

/* 0, or -ENOMEM / -EINVAL with a message on stderr */
static int parse_recording(const char *path, const char *text, size_t len,
			   json_object **rec)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	size_t end;

	if (!tok) {
		fprintf(stderr, "ptscope: out of memory\n");
		return -ENOMEM;
	}
	*rec = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (is_text_report(text)) {
		fprintf(stderr, "ptscope: %s is a text report of 'ptscope stat': "
			"record with --json (ptscope stat -o FILE.json -- CMD)\n",
			path);
	} else if (*rec && jerr == json_tokener_success) {
		end += strspn(text + end, " \t\r\n");
		if (end == len)
			return 0;
		fprintf(stderr, "ptscope: %s is not JSON: more text after the "
			"value, at byte %zu\n", path, end);
	} else if (jerr == json_tokener_continue || jerr == json_tokener_success) {
		fprintf(stderr, "ptscope: %s is not JSON: %s\n", path,
			len ? "it ends in the middle of a value" : "the file is empty");
	} else {
		fprintf(stderr, "ptscope: %s is not JSON: %s at byte %zu\n", path,
			json_tokener_error_desc(jerr), end);
	}
	json_object_put(*rec);
	*rec = NULL;
	return -EINVAL;
}

int recording_load(const char *path, json_object **rec)
{
	char *text = NULL;
	size_t len = 0;
	int err, ret;

	err = read_text(path, &text, &len);
	if (err == -ENOMEM) {
		fprintf(stderr, "ptscope: reading %s: out of memory\n", path);
		return -ENOMEM;
	}
	if (err == -EFBIG) {
		fprintf(stderr, "ptscope: %s is over %d MiB: not a ptscope "
			"recording\n", path, MAX_RECORDING >> 20);
		return -EINVAL;
	}
	if (err) {
		fprintf(stderr, "ptscope: cannot read %s: %s\n", path, strerror(-err));
		return -EINVAL;
	}
	ret = parse_recording(path, text, len, rec);
	free(text);
	if (!ret)
		recording_slim(*rec);
	return ret;
}
