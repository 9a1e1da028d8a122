# shellcheck shell=bash
# Sourced by the Debian package's tests (test_deb.sh on this box,
# test_deb_chroot.sh in a clean Debian 12): reading the exporter's systemd
# unit as systemd would, to start its ExecStart by hand.  UNIT is the
# unit file to read.

# unit_value KEY: the [Service] (or [Unit]) values of KEY, one a line
unit_value() {
	awk -v k="$1" '/^[#;]/ { next }
		index($0, k "=") == 1 { print substr($0, length(k) + 2) }' "$UNIT"
}

# unit_bset: CapabilityBoundingSet= as setpriv's --bounding-set
# ("-all,+bpf,...")
unit_bset() {
	local c bset=-all
	for c in $(unit_value CapabilityBoundingSet); do
		c=${c#CAP_}
		bset+=",+${c,,}"
	done
	echo "$bset"
}

# caps_of MASK: the capability names of a /proc/PID/status mask, sorted
caps_of() {
	capsh --decode="$1" | sed 's/^[^=]*=//' | tr ',' '\n' |
		tr 'a-z' 'A-Z' | sort | tr '\n' ' '
}

# unit_argv DEFAULTS LISTEN ARGS: ExecStart's words in ARGV, with the
# environment systemd gives it: Environment=, then the EnvironmentFile
# DEFAULTS over it, then PTSCOPE_LISTEN=LISTEN and PTSCOPE_ARGS=ARGS (the
# test's own port and filter).  ${VAR} is one word, $VAR splits at spaces.
unit_argv() {
	local kv w v
	set -f
	for kv in $(unit_value Environment); do
		declare "$kv"
	done
	# shellcheck source=/dev/null
	. "$1"
	# shellcheck disable=SC2034 # read as ${!v} below
	PTSCOPE_LISTEN=$2 PTSCOPE_ARGS=$3
	ARGV=()
	for w in $(unit_value ExecStart); do
		case "$w" in
		'${'*'}') v=${w:2:-1}; ARGV+=("${!v}") ;;
		'$'*)
			v=${w:1}
			# shellcheck disable=SC2206 # split at spaces, as systemd does
			ARGV+=(${!v})
			;;
		*) ARGV+=("$w") ;;
		esac
	done
	set +f
}

# mremap_total FILE: the sum of ptscope_mremap_calls_total over classes
# on a /metrics page
mremap_total() {
	awk '$1 ~ /^ptscope_mremap_calls_total[{]/ { n += $2; seen = 1 }
		END { if (seen) print n }' "$1"
}
