/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PTE-level marker: the old PTE table of the extent move_ptes() is
 * about to move, read and replayed entry by entry to count its non-none
 * entries and (6.17+) the batches it moves them in, as
 * mremap_folio_pte_batch() forms them; through bpf_loop(), or bounded
 * loops in the fallback build (PTS_BPF_FALLBACK).
 */
#ifndef PTSCOPE_MREMAP_BATCH_BPF_H
#define PTSCOPE_MREMAP_BATCH_BPF_H

#include "ptscope.bpf.h"
#include "pgtable.bpf.h"
#include "mremap_levels.bpf.h"

/*
 * A PTE table read by the PTE-level marker: PAGE_SIZE / 8 entries, 512
 * with 4 KiB pages, 2048 with 16 KiB pages (arm64-16k).  64 KiB pages
 * (8192) are not read: the engine keeps the marker off there
 * (PTS_REQ_PTE_TABLE).
 */
struct pte_table {
	__u64 entries[PTS_PTE_TABLE_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pte_table);
} pte_buf SEC(".maps");

/*
 * enum pts_lookup_rule: when move_ptes() looks up a folio, which the
 * frontend writes once its start-up check has seen what this kernel does
 * (src/engine/batch_check.c), and sets to each candidate rule in turn
 * while it checks.
 */
__u32 lookup_rule = PTS_LOOKUP_HINTED;

/* the batches of one extent so far (no pointers: a global function's argument) */
struct pte_batches {
	__u32 skip;		/* entries left of the current hinted block */
	__u32 batch;		/* entries in the open batch, 0: none open */
	__u32 batch_max;	/* entries it may grow to */
	__u64 batch_next;	/* pte_batch_key() the next block must have */
	__u32 batches;
	__u32 lookups;
	__u32 max_batch;
	__u32 singles;		/* batches of one PTE, added to the hist at the end */
	bool sizes;		/* add each batch to PTS_H_PTE_BATCH */
};

struct pte_scan {
	struct pte_table *buf;
	__u32 n;		/* entries of the extent */
	__u32 first_index;	/* of buf->entries[0] in its table */
	__u64 ptes;
	struct pte_batches b;
};

static __always_inline void batch_count(struct pte_batches *sc, __u32 nr)
{
	sc->batches++;
	if (nr > sc->max_batch)
		sc->max_batch = nr;
	/*
	 * Most batches are one PTE (every batch off arm64 contpte blocks):
	 * those are counted here and added once per extent, not with a
	 * histogram lookup per entry.
	 */
	if (nr == 1)
		sc->singles++;
	else if (sc->sizes)
		hist_add(PTS_H_PTE_BATCH, nr);
}

static __always_inline void batch_close(struct pte_batches *sc)
{
	if (!sc->batch)
		return;
	batch_count(sc, sc->batch);
	sc->batch = 0;
}

/*
 * 6.17-rc1's mremap_folio_pte_batch() (and the lab's regression kernel)
 * looks up the folio of every present PTE but an extent's last
 * (max_nr == 1), whatever pte_batch_hint() says: on x86 too.
 */
static __always_inline bool lookup_every(__u64 pte, __u32 left)
{
	return lookup_rule == PTS_LOOKUP_EVERY_PRESENT && left > 1 &&
	       pte_is_present(pte);
}

/*
 * A present PTE at entry i starts a batch: mremap_folio_pte_batch() looks
 * the folio up (vm_normal_folio()) only when more than one entry is left
 * and pte_batch_hint() is above 1 (0b5be138ce00, 6.17-rc2), or for every
 * present PTE under PTS_LOOKUP_EVERY_PRESENT (lookup_every()); then
 * folio_pte_batch_flags() takes the hinted block and goes on, block by
 * block, while the next block maps the next pages of the same folio with
 * the same bits, up to the folio's end.  Without the folio's order the
 * batch ends with the block: exact for folios no larger than one.
 */
static __always_inline void batch_open(struct pte_batches *sc, __u32 left,
				       __u64 pte, __u32 index)
{
	__u32 nr = 1, folio_left;

	if (left > 1)
		nr = batch_hint(pte, index);
	if (nr == 1 && !lookup_every(pte, left)) {
		batch_count(sc, 1);
		return;
	}
	sc->lookups++;
	if (nr > left)
		nr = left;
	folio_left = folio_pages_left(pte);
	if (!folio_left) {
		sc->batch_max = nr;	/* the block: an estimate */
	} else {
		sc->batch_max = folio_left < left ? folio_left : left;
		if (nr > sc->batch_max)
			nr = sc->batch_max;
	}
	sc->batch = nr;
	sc->batch_next = pte_batch_key(pte) + ((__u64)nr << cfg.page_shift);
	sc->skip = nr - 1;
}

/* the next hinted block, if the open batch takes it in */
static __always_inline bool batch_extend(struct pte_batches *sc, __u64 pte,
					 __u32 index)
{
	__u32 nr;

	if (sc->batch >= sc->batch_max || pte_batch_key(pte) != sc->batch_next)
		return false;
	nr = batch_hint(pte, index);
	if (nr > sc->batch_max - sc->batch)
		nr = sc->batch_max - sc->batch;
	sc->batch += nr;
	sc->batch_next += (__u64)nr << cfg.page_shift;
	sc->skip = nr - 1;
	return true;
}

/*
 * 1 when @pte is not none, 0 when it is, without a branch: BPF has no
 * set-on-condition instruction, so "pte != 0" becomes a jump, and in a
 * loop the verifier then follows each path with its own range of the
 * running count (a 64-entry loop of those ran past its million
 * instructions on 6.18).  The asm keeps clang from turning it back into
 * a compare.
 */
static __always_inline __u64 pte_present_bit(__u64 pte)
{
	pte |= -pte;	/* the top bit is set for every pte but 0 */
	opaque_index(pte);
	return pte >> 63;
}

/* 1 when @i < @n (both below 2^32), without a branch */
static __always_inline __u64 below_bit(__u64 i, __u64 n)
{
	return (i - n) >> 63;
}

/*
 * One entry of the loop in move_ptes() (6.17+), with @left entries from
 * it to the extent's end: a none entry is skipped; a present one starts
 * or extends a batch (batch_open()), or is inside the hinted block the
 * open batch took; anything else non-none moves alone.  A global
 * function: the verifier checks it once for any batch state, where
 * inlined in the scan loop it followed every state the entries before
 * could leave, per entry (the marker came near its million instructions).
 */
__noinline int pte_batch_entry(struct pte_batches *sc, __u64 pte, __u32 left,
			       __u32 index)
{
	/*
	 * x86 has no use for @index (batch_hint() is 1): without this clang
	 * drops the argument, the caller leaves R4 unset and the verifier
	 * refuses the call ("R4 is not a scalar")
	 */
	opaque_index(index);
	if (!sc)
		return 0;
	if (!pte) {
		if (!sc->skip)
			batch_close(sc);
		return 0;
	}
	if (sc->skip) {
		sc->skip--;
		return 0;
	}
	if (sc->batch && batch_extend(sc, pte, index))
		return 0;
	batch_close(sc);
	batch_open(sc, left, pte, index);
	return 0;
}

/*
 * bpf_loop() calls back once per PTE_SCAN_CHUNK entries: a callback per
 * entry cost more than the entry's own work (make bench-overhead-vm).
 */
#define PTE_SCAN_CHUNK	8

static long pte_scan_chunk(__u64 chunk, struct pte_scan *sc)
{
	__u64 first = chunk * PTE_SCAN_CHUNK, i, pte;
	__u32 j, idx;

	for (j = 0; j < PTE_SCAN_CHUNK; j++) {
		i = first + j;
		if (i >= sc->n)
			return 1;
		idx = i & (PTS_PTE_TABLE_MAX - 1);
		pte = sc->buf->entries[idx];
		sc->ptes += pte_present_bit(pte);
		pte_batch_entry(&sc->b, pte, sc->n - i, sc->first_index + idx);
	}
	return 0;
}

/*
 * Where no PTE moves in a batch of more than one, only the non-none
 * entries count: before 6.17, and on x86 (see single_batches()).
 * PTE_COUNT_CHUNK of them per bpf_loop() callback, branch-free, so the
 * verifier follows one path through it (a table of 512 entries takes 8
 * callbacks here, 64 through pte_scan_chunk()).
 */
#define PTE_COUNT_CHUNK	64

static long pte_count_chunk(__u64 chunk, struct pte_scan *sc)
{
	__u64 first = chunk * PTE_COUNT_CHUNK, n = sc->n, ptes = 0, i, pte;
	__u32 j;

	for (j = 0; j < PTE_COUNT_CHUNK; j++) {
		i = first + j;
		pte = sc->buf->entries[i & (PTS_PTE_TABLE_MAX - 1)];
		ptes += pte_present_bit(pte) & below_bit(i, n);
	}
	sc->ptes += ptes;
	return first + PTE_COUNT_CHUNK >= n;
}

/*
 * The extent's entries, chunk by chunk: through bpf_loop() (5.17+), or
 * in the fallback build in bounded loops, which the verifier walks
 * chunk by chunk (one path each: the chunks are branch-free or call a
 * global function).  That costs it about 18 times the instructions
 * (222,000 for the PTE-table marker on 7.3-amd64); no kernel without
 * bpf_loop() has the marker's __pte_offset_map_lock() (6.5+), so only
 * PTSCOPE_BPF_FALLBACK loads it.
 */
#ifndef PTS_BPF_FALLBACK
static __always_inline void pte_count(struct pte_scan *sc)
{
	bpf_loop(PTS_PTE_TABLE_MAX / PTE_COUNT_CHUNK, pte_count_chunk, sc, 0);
}

static __always_inline void pte_scan(struct pte_scan *sc)
{
	bpf_loop(PTS_PTE_TABLE_MAX / PTE_SCAN_CHUNK, pte_scan_chunk, sc, 0);
}
#else
static __always_inline void pte_count(struct pte_scan *sc)
{
	__u64 chunk;

	for (chunk = 0; chunk < PTS_PTE_TABLE_MAX / PTE_COUNT_CHUNK; chunk++)
		if (pte_count_chunk(chunk, sc))
			break;
}

static __always_inline void pte_scan(struct pte_scan *sc)
{
	__u64 chunk;

	for (chunk = 0; chunk < PTS_PTE_TABLE_MAX / PTE_SCAN_CHUNK; chunk++)
		if (pte_scan_chunk(chunk, sc))
			break;
}
#endif

/*
 * 6.17+ on x86 under PTS_LOOKUP_HINTED: pte_batch_hint() is 1 for every
 * entry, so mremap_folio_pte_batch() returns 1 before its folio lookup and each of
 * the @ptes non-none entries moves alone (mm/mremap.c, 7.3): as many
 * batches of one, and no lookup.
 */
static __always_inline void single_batches(struct mpt_walk *w, __u64 ptes,
					   bool sizes)
{
	if (!ptes)
		return;
	w->iter_batches += ptes;
	if (!w->iter_max_batch)
		w->iter_max_batch = 1;
	if (sizes)
		hist_add_n(PTS_H_PTE_BATCH, 1, ptes);
}

/*
 * Can a batch be longer than one PTE: on arm64 (contpte hints), and
 * anywhere the kernel looks every present PTE's folio up
 */
static __always_inline bool batches_possible(void)
{
	return has_batch_hints() || lookup_rule == PTS_LOOKUP_EVERY_PRESENT;
}

/*
 * __pte_offset_map_lock() (6.5-6.18) or pte_offset_map_lock() (7.3)
 * returned the mapped old PTE table entry for the extent move_ptes() is
 * about to move: count the non-none entries, which are exactly what the
 * extent moves, and (6.17+) the batches it moves them in.
 */
static __always_inline void marker_pte_table(__u64 *ptep)
{
	struct pte_scan sc = {};
	__u32 zero = 0, per_table;
	struct mpt_walk *w;
	__u64 size;

	if (!(cfg.parts & PTS_PART_PTE_MARKER))
		return;	/* export --parts without it: its fields are absent */
	w = current_walk();
	if (!w || !w->iter_open || !ptep)
		return;
	w->iter_pte_seen = 1;
	sc.buf = bpf_map_lookup_elem(&pte_buf, &zero);
	if (!sc.buf)
		return;
	per_table = 1U << (cfg.page_shift - 3);
	sc.n = extent_at(w, w->iter_addr, cfg.pmd_size) >> cfg.page_shift;
	if (sc.n > per_table || per_table > PTS_PTE_TABLE_MAX)
		return;
	sc.first_index = (w->iter_addr >> cfg.page_shift) & (per_table - 1);
	/* as iter_finish(): the exec stack and undo moves are not counted */
	sc.b.sizes = !w->for_stack && !w->reverse && !w->checking;
	size = sc.n * sizeof(__u64);
	opaque_index(size);	/* check and pass one register */
	if (size > sizeof(sc.buf->entries))
		return;
	if (bpf_probe_read_kernel(sc.buf->entries, size, ptep))
		return;
	if (!(cfg.flags & PTS_CFG_BATCH_INFER) || !batches_possible()) {
		pte_count(&sc);
		w->iter_ptes += sc.ptes;
		if (cfg.flags & PTS_CFG_BATCH_INFER)
			single_batches(w, sc.ptes, sc.b.sizes);
		return;
	}
	memmap_read_base();
	pte_scan(&sc);
	batch_close(&sc.b);
	if (sc.b.sizes && sc.b.singles)
		hist_add_n(PTS_H_PTE_BATCH, 1, sc.b.singles);
	w->iter_ptes += sc.ptes;
	w->iter_batches += sc.b.batches;
	w->iter_lookups += sc.b.lookups;
	if (sc.b.max_batch > w->iter_max_batch)
		w->iter_max_batch = sc.b.max_batch;
}

#endif /* PTSCOPE_MREMAP_BATCH_BPF_H */
