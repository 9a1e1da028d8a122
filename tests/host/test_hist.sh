#!/bin/bash
# The latency histograms as the BPF side wrote them: a known number of
# mremap calls must land in buckets whose counts add up to it, whose
# low/high are log2 slot bounds (slot i holds [2^i, 2^(i+1)), slot 0 also
# 0), whose recorded sum lies between sum(count * low) and
# sum(count * high), and which never hold more slow calls than the
# workload's own clock saw (the kernel's interval lies inside the one the
# workload measures around each call).
. "$(dirname "$0")/lib.sh"
require_root

CALLS=50

# check_hist NAME FILE WORKLOAD_OUT CLASS: one TAP line per property
check_hist() {
	local name=$1 line
	while IFS='|' read -r what want got; do
		case $what in
		'#'*) echo "$what" ;;	# a comment, on stdout with the results
		*) check_eq "$name: $what" "$want" "$got" ;;
		esac
	done < <(python3 - "$2" "$3" "$4" "$CALLS" <<'EOF'
import json, re, sys

doc = json.load(open(sys.argv[1]))
user_ns = sorted(int(m) for m in
                 re.findall(r'^mremap size=.* ns=(\d+)$', open(sys.argv[2]).read(), re.M))
cls, calls = sys.argv[3], int(sys.argv[4])
mremap = doc['counters']['mremap']
h = mremap['classes'][cls]['latency_ns']
b = h['buckets']

def out(what, want, got):
    print(f'{what}|{want}|{got}')

def slot_of(low):
    return 0 if low == 0 else low.bit_length() - 1

def bounds_ok(bucket):
    low, high = bucket['low'], bucket['high']
    if low != 0 and low & (low - 1):
        return False            # not a power of two
    slot = slot_of(low)
    if low == 1:
        return False            # slot 0 starts at 0
    want_high = 2 ** 64 - 1 if slot == 63 else 2 ** (slot + 1) - 1
    return high == want_high

out('calls the workload made', calls, len(user_ns))
out(f'{cls} calls', calls, mremap['classes'][cls]['calls'])
out('latency samples', calls, h['count'])
out('bucket counts add up', calls, sum(x['count'] for x in b))
out('every bucket has samples', True, all(x['count'] > 0 for x in b))
out('bucket bounds are log2 slot bounds', True, all(bounds_ok(x) for x in b))
out('buckets ascend without overlap', True,
    all(b[i]['high'] < b[i + 1]['low'] for i in range(len(b) - 1)))
lo = sum(x['count'] * x['low'] for x in b)
hi = sum(x['count'] * x['high'] for x in b)
out(f'sum {h["sum"]} within [{lo}, {hi}]', True, lo <= h['sum'] <= hi)
out(f'sum at most the workload clock\'s {sum(user_ns)}', True,
    h['sum'] <= sum(user_ns))
# the k-th fastest call in the kernel took at most the k-th fastest
# time around it, so no bucket may hold more calls at or above its low
# bound than the workload saw take that long
def ok_against_clock(bucket):
    at_least = sum(x['count'] for x in b if x['low'] >= bucket['low'])
    return at_least <= sum(1 for ns in user_ns if ns >= bucket['low'])
out('no more slow calls than the workload clock saw', True,
    all(ok_against_clock(x) for x in b))
print(f'# {cls}: {len(b)} slots used')
# the all-classes histogram is the slot-wise sum of the classes
total = {}
for c in mremap['classes'].values():
    for x in c['latency_ns']['buckets']:
        total[x['low']] = total.get(x['low'], 0) + x['count']
out('all-classes buckets are the sum of the classes', True,
    {x['low']: x['count'] for x in mremap['latency_ns']['buckets']} == total)
EOF
	)
}

# 1 MiB + 3 pages, source and destination differ mod 2 MiB: PTE moves only
if stat_json "$TMP/pte.json" "$BENCH" mremap --size 1036K --align page --count $CALLS; then
	cp "$TMP/workload.out" "$TMP/pte.out"
	check_hist "pte x$CALLS" "$TMP/pte.json" "$TMP/pte.out" pte
else
	not_ok "ptscope stat on $CALLS unaligned mremaps"
fi

# 16 MiB, 2 MiB aligned: PMD moves, slower than the PTE ones above
if stat_json "$TMP/pmd.json" "$BENCH" mremap --size 16M --align pmd --thp never --count $CALLS; then
	cp "$TMP/workload.out" "$TMP/pmd.out"
	check_hist "pmd x$CALLS" "$TMP/pmd.json" "$TMP/pmd.out" pmd
else
	not_ok "ptscope stat on $CALLS pmd-aligned mremaps"
fi

tap_finish
