/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal of a live view: single keys from stdin (cbreak mode, put
 * back on every way out) and the size of the output's window.
 */
#ifndef PTSCOPE_TERM_H
#define PTSCOPE_TERM_H

#include <stdbool.h>
#include <signal.h>

/* stdin a terminal: keys without Enter or echo; false: no keys */
bool term_keys_begin(void);
/* the terminal's mode as it was; harmless without term_keys_begin() */
void term_keys_end(void);
/*
 * Wait until mono_seconds() reaches @deadline (a past one: not at all), a
 * key arrives, or a signal of @wait_mask's complement: the key, or 0.
 */
int term_wait_key(double deadline, const sigset_t *wait_mask);
/* the window of @fd: its columns, else $COLUMNS, else 80 */
int term_columns(int fd);
/* the window of @fd: its rows, else 24 */
int term_rows(int fd);

#endif
