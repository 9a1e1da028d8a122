// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the overhead bench: one empty program per hook type.
 * bench/ptscope-floor.c opens this object once per hook ptscope attached,
 * keeps only the program of that hook's type, aims it and attaches it,
 * so the cost measured is the hook's alone (trampoline, tracepoint or
 * kprobe entry, and the BPF run), with no work inside.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("tracepoint")
int floor_tracepoint(void *ctx)
{
	return 0;
}

SEC("raw_tp")
int floor_raw_tp(void *ctx)
{
	return 0;
}

SEC("tp_btf")
int floor_tp_btf(void *ctx)
{
	return 0;
}

SEC("fentry")
int floor_fentry(void *ctx)
{
	return 0;
}

SEC("fexit")
int floor_fexit(void *ctx)
{
	return 0;
}

/* kprobe and kretprobe: the same program, attached either way */
SEC("kprobe")
int floor_kprobe(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
