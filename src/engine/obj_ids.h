/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF objects, one per bpf/NAME.bpf.c: the catalog names the one a
 * candidate's programs live in, objects.c opens and loads them.
 */
#ifndef PTSCOPE_OBJ_IDS_H
#define PTSCOPE_OBJ_IDS_H

enum pts_obj_id {
	PTS_OBJ_MREMAP = 0,
	PTS_OBJ_THP,
	PTS_OBJ_TASK,
	PTS_NR_OBJS,
};

#endif
