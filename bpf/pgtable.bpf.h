/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page-table entries and the memmap as the BPF programs read them, per
 * architecture: where a PUD's PMD table is (through the direct map), when
 * a PMD entry is empty, the hint a PTE gives pte_batch_hint(), the bits
 * folio_pte_batch_flags() compares, and the order of the folio a PTE
 * maps.  Only arm64 hints at batches: elsewhere pte_batch_hint() is 1.
 */
#ifndef PTSCOPE_PGTABLE_BPF_H
#define PTSCOPE_PGTABLE_BPF_H

#include "ptscope.bpf.h"

#if defined(__TARGET_ARCH_x86)
/* PTE_PFN_MASK: bits 51..12 hold the next table's physical address */
#define TABLE_PA_MASK(page_size)	0x000ffffffffff000ULL
/* pmd_none() ignores Accessed and Dirty (_PAGE_KNL_ERRATUM_MASK) */
#define PMD_NONE_IGNORED		0x60ULL
#define PUD_IS_TABLE(v)			(((v) & 0x81) == 0x01)	/* present, !PSE */

/* __va(): page_offset_base + pa (randomized with CONFIG_RANDOMIZE_MEMORY) */
static __always_inline __u64 direct_map_va(__u64 pa, __u64 table_va)
{
	__u64 base;

	if (bpf_probe_read_kernel(&base, sizeof(base), (void *)cfg.dmap_var))
		return 0;
	return base + pa;
}
#elif defined(__TARGET_ARCH_arm64)
/* table descriptor: output address in bits 47..PAGE_SHIFT */
#define TABLE_PA_MASK(page_size)	(0x0000ffffffffffffULL & ~((page_size) - 1))
#define PMD_NONE_IGNORED		0ULL
#define PUD_IS_TABLE(v)			(((v) & 0x3) == 0x3)

/*
 * The linear map starts at PAGE_OFFSET = -(1 << VA_BITS) and holds RAM in
 * its lower half ([PAGE_OFFSET, PAGE_END), arch/arm64/include/asm/memory.h,
 * 5.4+).  VA_BITS is a build option, so take the one under which @va, a
 * page-table page and thus a linear map address, lies in that half.
 */
static __always_inline bool in_linear_half(__u64 va, __u32 va_bits)
{
	__u64 start = -(1ULL << va_bits);

	return va >= start && va - start < (1ULL << (va_bits - 1));
}

static __always_inline __u64 linear_map_start(__u64 va)
{
	if (in_linear_half(va, 48))
		return -(1ULL << 48);
	if (in_linear_half(va, 52))
		return -(1ULL << 52);
	if (in_linear_half(va, 47))
		return -(1ULL << 47);
	if (in_linear_half(va, 42))
		return -(1ULL << 42);
	if (in_linear_half(va, 39))
		return -(1ULL << 39);
	return 0;
}

/* __phys_to_virt(): (pa - PHYS_OFFSET) | PAGE_OFFSET, PHYS_OFFSET = memstart_addr */
static __always_inline __u64 direct_map_va(__u64 pa, __u64 table_va)
{
	__u64 page_offset = linear_map_start(table_va);
	__s64 memstart;

	if (!page_offset ||
	    bpf_probe_read_kernel(&memstart, sizeof(memstart), (void *)cfg.dmap_var))
		return 0;
	return (pa - memstart) | page_offset;
}
#endif

/*
 * Is the PMD entry for @addr empty?  @pud is what get_old_pud() returned
 * from inside get_old_pmd() (mm/mremap.c, 5.11+), which goes on with
 * pmd_offset(pud, addr) and returns NULL on pmd_none(): the loop then
 * skips the step without moving anything.  pmd_offset() is inline, so read
 * the same entry through the direct map.  -1: could not tell.
 */
static __always_inline int pmd_entry_none(__u64 pud, __u64 addr)
{
	__u64 page_size = 1ULL << cfg.page_shift;
	__u64 pmd_shift = cfg.page_shift * 2 - 3;
	__u64 index, table, pud_val, pmd_val;

	if (bpf_probe_read_kernel(&pud_val, sizeof(pud_val), (void *)pud) ||
	    !PUD_IS_TABLE(pud_val))
		return -1;
	table = direct_map_va(pud_val & TABLE_PA_MASK(page_size), pud);
	if (!table)
		return -1;
	index = (addr >> pmd_shift) & (page_size / 8 - 1);
	if (bpf_probe_read_kernel(&pmd_val, sizeof(pmd_val),
				  (void *)(table + index * 8)))
		return -1;
	return (pmd_val & ~PMD_NONE_IGNORED) == 0;
}


/*
 * arm64 marks each PTE of a naturally aligned contiguous block (contpte:
 * 16 x 4K, 128 x 16K) with PTE_CONT; pte_batch_hint() returns what is
 * left of the block (arch/arm64/include/asm/pgtable.h).
 */
#define ARM64_PTE_VALID	(1ULL << 0)
#define ARM64_PTE_RDONLY	(1ULL << 7)
#define ARM64_PTE_AF	(1ULL << 10)
#define ARM64_PTE_CONT	(1ULL << 52)
#define ARM64_PTE_DIRTY	(1ULL << 55)
/* output address bits [47:12] (4K) or [47:14] (16K), without LPA2 */
#define ARM64_PTE_ADDR_MASK	0x0000fffffffff000ULL

/* x86: _PAGE_PRESENT, _PAGE_PROTNONE (a user PTE's _PAGE_GLOBAL bit) */
#define X86_PTE_PRESENT		(1ULL << 0)
#define X86_PTE_PROTNONE	(1ULL << 8)
#define X86_PTE_ACCESSED	(1ULL << 5)
#define X86_PTE_DIRTY		(1ULL << 6)
#define X86_PTE_SOFT_DIRTY	(1ULL << 58)
/* PTE_PFN_MASK with 52 physical address bits */
#define X86_PTE_ADDR_MASK	0x000ffffffffff000ULL

/* can pte_batch_hint() be above 1: arm64 only (contpte) */
static __always_inline bool has_batch_hints(void)
{
#if defined(__TARGET_ARCH_arm64)
	return true;
#else
	return false;
#endif
}

static __always_inline __u32 batch_hint(__u64 pte, __u32 table_index)
{
#if defined(__TARGET_ARCH_arm64)
	__u32 cont_ptes = cfg.page_shift == 14 ? 128 : 16;

	if ((pte & (ARM64_PTE_VALID | ARM64_PTE_CONT)) ==
	    (ARM64_PTE_VALID | ARM64_PTE_CONT))
		return cont_ptes - (table_index & (cont_ptes - 1));
#endif
	return 1;
}

/*
 * pte_present(): move_ptes() batches only present PTEs.  arm64's
 * PROT_NONE PTEs (valid bit clear, 6.10+ PTE_PRESENT_INVALID) are taken
 * as not present: the start-up check's moves have none.
 */
static __always_inline bool pte_is_present(__u64 pte)
{
#if defined(__TARGET_ARCH_x86)
	return pte & (X86_PTE_PRESENT | X86_PTE_PROTNONE);
#else
	return pte & ARM64_PTE_VALID;
#endif
}

static __always_inline __u64 pte_pfn_of(__u64 pte)
{
#if defined(__TARGET_ARCH_x86)
	return (pte & X86_PTE_ADDR_MASK) >> cfg.page_shift;
#else
	return (pte & ARM64_PTE_ADDR_MASK) >> cfg.page_shift;
#endif
}

/*
 * A PTE as folio_pte_batch_flags() compares it when mremap_folio_pte_batch()
 * passes FPB_RESPECT_WRITE (7.3 mm/internal.h, __pte_batch_clear_ignored()):
 * clean and old, without soft-dirty (arm64's pte_mkclean() clears
 * PTE_DIRTY and sets PTE_RDONLY; arm64 has no soft-dirty bit).
 */
static __always_inline __u64 pte_batch_key(__u64 pte)
{
#if defined(__TARGET_ARCH_x86)
	return pte & ~(X86_PTE_ACCESSED | X86_PTE_DIRTY | X86_PTE_SOFT_DIRTY);
#else
	return ((pte & ~(ARM64_PTE_DIRTY | ARM64_PTE_AF)) | ARM64_PTE_RDONLY);
#endif
}

/*
 * The memmap base (vmemmap, SPARSEMEM_VMEMMAP): every present section's
 * section_mem_map encodes mem_map minus the section's first pfn, which
 * is vmemmap itself (mm/sparse.c, sparse_encode_mem_map()), with flags
 * in its low bits (below SECTION_MAP_LAST_BIT, 6 in 7.3).  mem_section
 * is a pointer to the roots with SPARSEMEM_EXTREME, as every arm64 and
 * x86-64 kernel we prove on is built; it is read once.
 */
extern const void mem_section __ksym __weak;

#define MEMMAP_FLAG_BITS	0xffULL
#define MEMMAP_ROOTS_SCANNED	64	/* 2 TiB of physical address space with 4K pages */
#define MEMMAP_UNKNOWN	0
#define MEMMAP_MISSING	1

__u64 memmap_base = MEMMAP_UNKNOWN;

struct memmap_scan {
	__u64 roots;
	__u32 per_root;
	/* of the section at hand (a number: a global function's argument) */
	__u64 root;
	__u64 found;
};

/*
 * Section @i of all roots' sections in turn (root i / per_root): one flat
 * bpf_loop(), not a loop over each root's sections, which the verifier
 * walked one section at a time (per_root is a constant to it: 256 with
 * 4 KiB pages, 1024 with 16 KiB), 72,635 and 137,995 instructions for the
 * PTE-table marker on 7.3-arm64 and 7.3-arm64-16k.
 */
static long memmap_scan_section(__u64 i, struct memmap_scan *ms)
{
	struct mem_section *sec;
	__u64 map;
	__u32 s = i % ms->per_root;

	if (!s && bpf_probe_read_kernel(&ms->root, sizeof(ms->root),
					(void *)(ms->roots + i / ms->per_root * 8)))
		ms->root = 0;
	if (!ms->root)
		return 0;	/* no sections under this root */
	sec = (void *)(ms->root + s * bpf_core_type_size(struct mem_section));
	map = BPF_CORE_READ(sec, section_mem_map);
	/* SECTION_MARKED_PRESENT | SECTION_HAS_MEM_MAP */
	if ((map & 3) == 3 && (map & ~MEMMAP_FLAG_BITS)) {
		ms->found = map & ~MEMMAP_FLAG_BITS;
		return 1;
	}
	return 0;
}

#ifndef PTS_BPF_FALLBACK
static void memmap_scan(struct memmap_scan *ms)
{
	bpf_loop(MEMMAP_ROOTS_SCANNED * ms->per_root, memmap_scan_section, ms, 0);
}
#else
/* sections of one root: 4 KiB / 16 bytes, up to 16 KiB / 16 bytes */
#define MEMMAP_SECTIONS_MAX	1024

/*
 * Sections 1.. of the root at @first (its section 0 was read with the
 * root).  A global function: the verifier checks it once, where inlined
 * after the loop over the roots it walked every section once per root
 * that loop could stop at (past its million instructions on 7.3).
 */
__noinline int memmap_scan_root(struct memmap_scan *ms, __u64 first)
{
	__u64 s;

	if (!ms)
		return 0;
	for (s = 1; s < MEMMAP_SECTIONS_MAX && !ms->found; s++) {
		if (s >= ms->per_root)
			break;
		memmap_scan_section(first + s, ms);
	}
	return 0;
}

/*
 * Without bpf_loop() (5.17), bounded loops: the first root that exists,
 * then its sections.  A root is allocated only for a present section
 * (sparse_index_init(), from memory_present(), mm/sparse.c 5.10..7.3),
 * so the first one holds the first present section, which the flat
 * scan above would find too.
 */
static void memmap_scan(struct memmap_scan *ms)
{
	__u64 r;

	for (r = 0; r < MEMMAP_ROOTS_SCANNED; r++) {
		memmap_scan_section(r * ms->per_root, ms);
		if (ms->root)
			break;
	}
	if (ms->root && !ms->found)
		memmap_scan_root(ms, r * ms->per_root);
}
#endif

static __noinline __u64 memmap_find(void)
{
	struct memmap_scan ms = {};

	if (!&mem_section ||
	    bpf_probe_read_kernel(&ms.roots, sizeof(ms.roots), &mem_section) ||
	    !ms.roots)
		return MEMMAP_MISSING;
	ms.per_root = (1U << cfg.page_shift) /
		      bpf_core_type_size(struct mem_section);
	if (!ms.per_root)
		return MEMMAP_MISSING;
	memmap_scan(&ms);
	return ms.found ? ms.found : MEMMAP_MISSING;
}

/* once, before the first scan that may need it (not from a bpf_loop callback) */
static __always_inline void memmap_read_base(void)
{
	if (memmap_base == MEMMAP_UNKNOWN)
		memmap_base = memmap_find();
}

/*
 * PG_head in page->flags, the first word of struct page on every kernel
 * (an unsigned long, memdesc_flags_t from 6.18: read it by offset)
 */
static __always_inline int page_is_head(__u64 page)
{
	__u64 flags = 0;

	if (bpf_probe_read_kernel(&flags, sizeof(flags), (void *)page))
		return -1;
	return !!(flags & (1ULL << bpf_core_enum_value(enum pageflags, PG_head)));
}

/*
 * The second word of struct page is compound_head (compound_info in 7.x)
 * on a tail page, with bit 0 set (PageTail(), include/linux/page-flags.h),
 * and a list or mapping pointer, bit 0 clear, on any other.  Were that to
 * change, tails would be taken for order-0 pages, and the start-up check
 * (src/engine/batch_check.c) would see the model go wrong on its large
 * folios and withdraw the metric.
 */
static __always_inline int page_is_tail(__u64 page)
{
	__u64 word = 0;

	if (bpf_probe_read_kernel(&word, sizeof(word), (void *)(page + 8)))
		return -1;
	return word & 1;
}

/* 1: an order-0 page (neither head nor tail), 0: not, -1: unreadable */
static __always_inline int page_is_small(__u64 page)
{
	int head = page_is_head(page), tail;

	if (head)
		return head < 0 ? -1 : 0;
	tail = page_is_tail(page);
	return tail < 0 ? -1 : !tail;
}

/* orders tried: from 1 to past a PMD on either page size */
#define FOLIO_ORDERS_TRIED	12

/*
 * Pages a PTE's folio has from the PTE's pfn to its end, 1 for an
 * order-0 page, or 0 when it cannot be told.  A large folio is naturally
 * aligned in pfn, and its head's _flags_1 holds the order
 * (folio_large_order(), 6.10+): the order k whose aligned head says k is
 * the folio's.  Tails are not followed (compound_head became
 * compound_info, a mask under HVO, in 7.x).
 */
static __noinline __u32 folio_pages_left(__u64 pte)
{
	__u64 pfn = pte_pfn_of(pte);
	__u64 base = memmap_base, head, head_pfn;
	__u32 order, i;
	int is_head, small;

	if (base == MEMMAP_UNKNOWN || base == MEMMAP_MISSING)
		return 0;
	/* an order-0 page: two reads, not the search */
	small = page_is_small(base + pfn * bpf_core_type_size(struct page));
	if (small)
		return small < 0 ? 0 : 1;
	for (i = 0; i < FOLIO_ORDERS_TRIED; i++) {
		order = 1 + i;
		head_pfn = pfn & ~((1ULL << order) - 1);
		head = base + head_pfn * bpf_core_type_size(struct page);
		is_head = page_is_head(head);
		if (is_head < 0)
			return 0;
		if (!is_head)
			continue;
		if ((BPF_CORE_READ((struct folio *)head, _flags_1) & 0xff) != order)
			continue;
		return (1U << order) - (pfn - head_pfn);
	}
	return 1;
}

#endif /* PTSCOPE_PGTABLE_BPF_H */
