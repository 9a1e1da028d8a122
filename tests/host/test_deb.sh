#!/bin/bash
# The Debian package (make deb, debian/): lintian finds no error; dpkg -i
# puts exactly the expected files in place, with the tree's contents; the
# installed ptscope runs; its bash completion offers what --help lists;
# the exporter's unit passes systemd-analyze verify and security, and its
# ExecStart, run by hand under the unit's capability bounding set,
# no_new_privs and (emulated) sandbox, counts a workload's mremap calls
# exactly on /metrics while using no system call or socket family the unit
# forbids; dpkg --purge leaves nothing behind.
#
# systemd is not PID 1 here, so the unit cannot be started: its sandbox
# is rebuilt with unshare (PrivateMounts, ProtectSystem=strict, ProtectProc,
# ReadOnlyPaths, PrivateTmp, ProtectHome, PrivateDevices), prctl(PR_SET_MDWE)
# (MemoryDenyWriteExecute) and setpriv (CapabilityBoundingSet,
# NoNewPrivileges); SystemCallFilter and RestrictAddressFamilies are checked
# against strace.  DEB=FILE tests that package (and lintian the .changes
# beside it, if any) instead of building one.
. "$(dirname "$0")/lib.sh"
# shellcheck source=unit.sh
. "$(dirname "$0")/unit.sh"
require_root
cd "$(dirname "$0")/../.." || exit 1

UNIT=/lib/systemd/system/ptscope-exporter.service
DEFAULTS=/etc/default/ptscope
COMPLETION=/usr/share/bash-completion/completions/ptscope
BIN=/usr/sbin/ptscope
INSTALLED=
RUNNER=

cleanup() {
	[ -n "$RUNNER" ] && kill "$RUNNER" 2>/dev/null && wait "$RUNNER"
	# never leave the package on the box, whatever failed
	[ -n "$INSTALLED" ] && dpkg --purge ptscope >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

# an administrator's ptscope package is not ours to purge
status=$(dpkg-query -W -f='${db:Status-Status}' ptscope 2>/dev/null)
if [ -n "$status" ] && [ "$status" != not-installed ]; then
	bail "the ptscope package is on this box already ($status): purge it first"
fi

VERSION=$(make -s --no-print-directory version)	# debian/changelog's
ARCH=$(dpkg --print-architecture)

# --- build ---
if [ -z "${DEB:-}" ]; then
	make_or_bail deb
	DEB=build/deb/ptscope_${VERSION}_$ARCH.deb
fi
[ -f "$DEB" ] || bail "no package $DEB"
make_or_bail man	# build/ptscope.8: the man page with the version in
check_eq "package version is debian/changelog's" "$VERSION" \
	"$(dpkg-deb -f "$DEB" Version)"

# --- lintian: no error; the rest is listed ---
# the .changes next to the package names it, its source and its dbgsym
CHANGES=${DEB%.deb}.changes
[ -f "$CHANGES" ] || CHANGES=$DEB
lintian -I --pedantic "$CHANGES" >"$TMP/lintian.out" 2>&1
rc=$?
sed 's/^/# lintian: /' "$TMP/lintian.out"
if [ $rc -eq 0 ] && ! grep -q '^E: ' "$TMP/lintian.out"; then
	ok "lintian $(basename "$CHANGES"): no errors ($(grep -c '^W: ' "$TMP/lintian.out") warnings)"
else
	not_ok "lintian: exit $rc, $(grep -c '^E: ' "$TMP/lintian.out") errors"
fi

# --- install: exactly these files, with the tree's contents ---
INSTALLED=yes
if ! dpkg -i "$DEB" >"$TMP/dpkg-i.log" 2>&1; then
	sed 's/^/#   /' "$TMP/dpkg-i.log"
	bail "dpkg -i $DEB failed"
fi
ok "dpkg -i"

# want: installed path and the tree's file it must equal ('-' for none)
{
	echo "$BIN -"
	echo "/usr/share/man/man8/ptscope.8.gz build/ptscope.8"
	echo "$COMPLETION completions/ptscope"
	echo "$UNIT debian/ptscope.ptscope-exporter.service"
	echo "$DEFAULTS debian/ptscope.default"
	echo "/usr/share/doc/ptscope/copyright debian/copyright"
	echo "/usr/share/doc/ptscope/changelog.gz debian/changelog"
	for f in dashboards/*.json dashboards/*.yml; do
		echo "/usr/share/ptscope/${f#dashboards/} $f"
	done
} | sort >"$TMP/want"
dpkg -L ptscope >"$TMP/listed"
while read -r f; do
	[ -d "$f" ] || echo "$f"
done <"$TMP/listed" | sort >"$TMP/files"
check_eq "dpkg -L: the files are exactly bin, man page, completion, unit, defaults, doc, dashboards/*" \
	"$(cut -d' ' -f1 "$TMP/want" | tr '\n' ' ')" "$(tr '\n' ' ' <"$TMP/files")"
check_same_files "installed files equal the tree's" "$TMP/want"
check_eq "conffiles" "$DEFAULTS" \
	"$(dpkg-query -W -f='${Conffiles}' ptscope | awk 'NF { print $1 }')"

# --- the installed binary ---
check_eq "installed ptscope --version" "ptscope $VERSION" \
	"$("$BIN" --version | cut -d' ' -f1-2)"
if "$BIN" probe --json >"$TMP/probe.json" 2>"$TMP/probe.err"; then
	check_eq "installed ptscope probe: mremap.calls" exact \
		"$(json "$TMP/probe.json" "d['metrics']['mremap.calls']['status']")"
else
	not_ok "installed ptscope probe failed: $(head -n1 "$TMP/probe.err")"
fi

# --- bash completion against --help ---
# complete LINE: the installed completion's words for LINE (cursor at its
# end), as bash-completion loads it on demand, sorted, on one line
complete_line() {
	bash -c '. /usr/share/bash-completion/bash_completion
		_completion_loader ptscope
		[ "$(complete -p ptscope)" = "complete -F _ptscope ptscope" ] ||
			exit 1
		COMP_LINE=$1 COMP_POINT=${#1}
		read -ra COMP_WORDS <<<"$1"
		[[ $1 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_ptscope ptscope "${COMP_WORDS[COMP_CWORD]}" \
			"${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' - "$1" 2>/dev/null |
		sort -u | tr '\n' ' '
}

# --help: "commands top stat ...", then per command "opts CMD -p --pid ...",
# and per option "choices --NAME W1 W2" (the last word of its entry)
"$BIN" --help >"$TMP/help"
python3 - "$TMP/help" >"$TMP/help.parsed" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
section, entries = None, []
for line in lines:
    if line in ("Commands:", "Options:", "Examples:"):
        section = line
    elif section in ("Commands:", "Options:") and line.startswith("  "):
        if line.startswith(" " * 21):
            # more text; a long option's starts on its second line
            entries[-1][2] = (entries[-1][2] + " " + line.strip()).strip()
        else:
            parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            entries.append([section, parts[0], parts[1] if len(parts) > 1 else ""])
commands = [name.split()[0] for sec, name, _ in entries if sec == "Commands:"]
print("commands", " ".join(sorted(commands)))
opts = {c: [] for c in commands}
for sec, name, text in entries:
    if sec != "Options:":
        continue
    m = re.match(r"(?:-(\w), )?--([\w-]+)", name)
    names = ["--" + m.group(2)] + (["-" + m.group(1)] if m.group(1) else [])
    cmds = re.match(r"([a-z]+(?:, [a-z]+)*): ", text)
    for c in cmds.group(1).split(", ") if cmds else commands:
        opts[c] += names
    text = re.sub(r"\s*\(default [^)]*\)$", "", text)
    print("choices", names[0], " ".join(sorted(text.split()[-1].split("|"))))
for c in commands:
    print("opts", c, " ".join(sorted(opts[c])))
EOF
# helpline KEY: its words, sorted as complete_line sorts them
helpline() {
	sed -n "s/^$1 //p" "$TMP/help.parsed" | tr ' ' '\n' | sed '/^$/d' |
		sort -u | tr '\n' ' '
}
check_eq "completion: commands" "$(helpline commands)" "$(complete_line 'ptscope ')"
for cmd in $(helpline commands); do
	check_eq "completion: options of $cmd" "$(helpline "opts $cmd")" \
		"$(complete_line "ptscope $cmd -")"
done
check_eq "completion: options without a command (top's)" \
	"$(helpline "opts top")" "$(complete_line 'ptscope -')"
check_eq "completion: --sort values" "$(helpline "choices --sort")" \
	"$(complete_line 'ptscope top --sort ')"
check_eq "completion: --mode values" "$(helpline "choices --mode")" \
	"$(complete_line 'ptscope probe --mode ')"
check_eq "completion: --metric values" "$(helpline "choices --metric")" \
	"$(complete_line 'ptscope stat --metric ')"
check_eq "completion: --parts values" "$(helpline "choices --parts")" \
	"$(complete_line 'ptscope export --parts ')"
check_eq "completion: --parts after a comma" "counts,hists " \
	"$(complete_line 'ptscope export --parts counts,h')"
for line in 'ptscope stat -- tru' 'ptscope stat -p 1 -j tru'; do
	check_eq "completion: '$line' completes a command" yes \
		"$(complete_line "$line" | grep -qw true && echo yes)"
done
mkdir -p "$TMP/rec" && touch "$TMP/rec/a.json" "$TMP/rec/b.txt"
check_eq "completion: diff offers JSON recordings" "$TMP/rec/a.json " \
	"$(complete_line "ptscope diff $TMP/rec/")"
check_eq "completion: -p offers this shell's pid" yes \
	"$(complete_line 'ptscope top -p ' | grep -qw "$$" && echo yes)"

# --- the unit ---
systemd-analyze verify "$UNIT" >"$TMP/verify.out" 2>&1
rc=$?
sed 's/^/# verify: /' "$TMP/verify.out"
check_eq "systemd-analyze verify: exit code and output" "0 0" \
	"$rc $(wc -c <"$TMP/verify.out")"

# exposure 2.7 at the time of writing; --threshold=27 fails above it
systemd-analyze security --offline=yes --threshold=27 "$UNIT" \
	>"$TMP/security.out" 2>&1
rc=$?
check_eq "systemd-analyze security --offline: exposure at most 2.7" "0" "$rc"
sed -n 's/^→ /# security: /p' "$TMP/security.out"
n=0 missing=
for setting in NoNewPrivileges= ProtectSystem= ProtectHome= PrivateTmp= \
	PrivateDevices= ProtectControlGroups= ProtectClock= ProtectHostname= \
	PrivateMounts= ProtectProc= \
	RestrictSUIDSGID= RestrictRealtime= LockPersonality= \
	MemoryDenyWriteExecute= SystemCallArchitectures= UMask= \
	'RestrictNamespaces=~user' 'CapabilityBoundingSet=~CAP_SYS_ADMIN' \
	'CapabilityBoundingSet=~CAP_SYS_MODULE' 'SystemCallFilter=~@mount' \
	'RestrictAddressFamilies=~AF_PACKET'; do
	n=$((n + 1))
	grep -q "^✓ $setting " "$TMP/security.out" || missing+=" $setting"
done
check_eq "security: $n settings in force (missing:${missing:- none})" "$n" \
	"$((n - $(wc -w <<<"$missing")))"
check_eq "security: ProtectSystem is strict" yes \
	"$(grep -q '^✓ ProtectSystem= .*strict' "$TMP/security.out" && echo yes)"
user=$(unit_value User)
check_eq "unit: Restart, EnvironmentFile, User" \
	"on-failure -/etc/default/ptscope root" \
	"$(unit_value Restart) $(unit_value EnvironmentFile) ${user:-root}"
# each would break ptscope (see the unit's comments)
keys=
for k in ProtectKernelTunables ProtectKernelLogs ProcSubset; do
	[ -z "$(unit_value $k)" ] || keys+=" $k"
done
check_eq "unit: no ProtectKernelTunables (hides /proc/kallsyms), ProtectKernelLogs (drops CAP_SYSLOG), ProcSubset (hides /proc/kallsyms, vmstat)" \
	"none" "${keys:-none}"
# shellcheck source=/dev/null
check_eq "$DEFAULTS: PTSCOPE_LISTEN" 127.0.0.1:9477 \
	"$(. "$DEFAULTS" && echo "$PTSCOPE_LISTEN")"

# --- the ExecStart, by hand, as systemd would start it ---
CAPS=$(unit_value CapabilityBoundingSet)
BSET=$(unit_bset)

# the environment: Environment=, then EnvironmentFile= over it; the test's
# own port, and -c for its workload through PTSCOPE_ARGS
COMM=ptsdeb-$$
COMM=${COMM:0:15}
PORT=$(free_port)
unit_argv "$DEFAULTS" "127.0.0.1:$PORT" "-c $COMM"
echo "# ExecStart: ${ARGV[*]}"
check_eq "ExecStart runs the installed binary's export" "$BIN export" "${ARGV[*]:0:2}"

# the capabilities, measured: without CAP_BPF or CAP_PERFMON nothing
# attaches; CAP_SYSLOG shows /proc/kallsyms addresses as root sees them
for c in $CAPS; do
	case $c in CAP_BPF | CAP_PERFMON) ;; *) continue ;; esac
	less=${BSET/,+$(tr 'A-Z' 'a-z' <<<"${c#CAP_}")/}
	timeout 60 setpriv --bounding-set="$less" --no-new-privs -- \
		"${ARGV[@]}" -d 1 >/dev/null 2>"$TMP/less.err"
	rc=$?
	check_eq "ExecStart without $c: exit 1 ($(tail -n1 "$TMP/less.err"))" 1 "$rc"
done
check_eq "/proc/kallsyms addresses under the unit's bounding set" \
	"$(awk '{ print $1; exit }' /proc/kallsyms)" \
	"$(setpriv --bounding-set="$BSET" -- awk '{ print $1; exit }' /proc/kallsyms)"
echo "# without CAP_SYSLOG: $(setpriv --bounding-set="${BSET/,+syslog/}" -- \
	awk '{ print $1; exit }' /proc/kallsyms) (kptr_restrict $(cat /proc/sys/kernel/kptr_restrict), perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid))"

# The sandbox, in a private mount namespace (PrivateMounts=):
# ProtectSystem=strict (every mount read-only but /dev, /proc, /sys),
# ProtectProc=invisible (a /proc of hidepid=invisible), ReadOnlyPaths=,
# PrivateTmp=, ProtectHome= (empty, inaccessible), PrivateDevices= (a
# read-only /dev of null, zero, full, random, urandom); then
# MemoryDenyWriteExecute= (PR_SET_MDWE, kept across execve) and setpriv for
# CapabilityBoundingSet= and NoNewPrivileges=.  LimitMEMLOCK= is not
# rebuilt: root here lacks CAP_SYS_RESOURCE to raise it, and kernels from
# 5.11 on charge BPF memory to the memory cgroup instead.
check_eq "unit: the settings the sandbox below rebuilds" \
	"strict invisible yes yes yes yes yes yes" \
	"$(unit_value ProtectSystem) $(unit_value ProtectProc) $(unit_value PrivateMounts) $(unit_value PrivateTmp) $(unit_value ProtectHome) $(unit_value PrivateDevices) $(unit_value MemoryDenyWriteExecute) $(unit_value NoNewPrivileges)"
SANDBOX='set -e
mount --make-rprivate /
findmnt -rn -o TARGET | while read -r m; do
	case "$m" in /dev | /dev/* | /proc | /proc/* | /sys | /sys/*) ;;
	*) mount -o remount,bind,ro "$m" ;;
	esac
done
mount -t proc -o hidepid=invisible proc /proc
for p in $1; do
	mountpoint -q "$p" || mount --bind "$p" "$p"
	findmnt -rn -R -o TARGET "$p" | while read -r m; do
		mount -o remount,bind,ro "$m"
	done
done
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=1777 tmpfs /var/tmp
for d in /home /root /run/user; do
	[ ! -d "$d" ] || mount -t tmpfs -o ro,mode=000 tmpfs "$d"
done
mount -t tmpfs -o mode=755,nosuid tmpfs /dev
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/zero c 1 5
mknod -m 666 /dev/full c 1 7
mknod -m 666 /dev/random c 1 8
mknod -m 666 /dev/urandom c 1 9
mount -o remount,ro,nosuid,noexec /dev
shift
exec /usr/bin/python3 -c "import ctypes, os, sys
if ctypes.CDLL(None, use_errno=True).prctl(65, 1, 0, 0, 0):
	sys.exit(\"PR_SET_MDWE: \" + os.strerror(ctypes.get_errno()))
os.execvp(sys.argv[1], sys.argv[1:])" "$@"'
: >"$TMP/export.err"
strace -ff -qq -o "$TMP/st" unshare -m sh -c "$SANDBOX" - \
	"$(unit_value ReadOnlyPaths)" \
	setpriv --bounding-set="$BSET" --no-new-privs -- "${ARGV[@]}" \
	>/dev/null 2>"$TMP/export.err" &
RUNNER=$!
ready() {
	grep -qxF "ptscope: tracing, Ctrl-C to stop" "$TMP/export.err"
}
if ! wait_for 90 ready; then
	sed 's/^/#   /' "$TMP/export.err"
	bail "the unit's ExecStart in its sandbox did not start"
fi
ok "the unit's ExecStart in its sandbox attaches and serves"
PID=$(pgrep -P "$RUNNER")

check_eq "ExecStart: CapBnd is CapabilityBoundingSet" \
	"$(tr ' ' '\n' <<<"$CAPS" | sort | tr '\n' ' ')" \
	"$(caps_of "$(awk '$1 == "CapBnd:" { print $2 }' "/proc/$PID/status")")"
# after attaching: no capability (CAP_BPF where the kernel's bpf() needs
# it to read maps), no_new_privs, ptscope's seccomp filter
got=$(awk '$1 ~ /^(CapEff|CapPrm|NoNewPrivs|Seccomp):$/ { v[$1] = $2 }
	END { print v["CapEff:"], v["CapPrm:"], v["NoNewPrivs:"], v["Seccomp:"] }' \
	"/proc/$PID/status")
case "$got" in
"0000008000000000 0000008000000000 1 2") want="$got" ;;
*) want="0000000000000000 0000000000000000 1 2" ;;
esac
check_eq "ExecStart, serving: CapEff CapPrm NoNewPrivs Seccomp" "$want" "$got"

scrape() {
	curl -sS --max-time 10 -o "$1" -w '%{http_code} %{content_type}' \
		"http://127.0.0.1:$PORT/metrics"
}
check_eq "GET /metrics" "200 text/plain; version=0.0.4; charset=utf-8" \
	"$(scrape "$TMP/before.txt")"
# the workload: 10 mremap() resizes under the comm of PTSCOPE_ARGS; strace
# counts the calls the kernel saw after the rename (the ground truth)
strace -f -qq -e trace=prctl,mremap -o "$TMP/workload.st" /usr/bin/python3 -c '
import ctypes, mmap, sys
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
m = mmap.mmap(-1, 4096)
for i in range(10):
	m.resize(4096 * (i + 2))' "$COMM"
calls=$(awk '/prctl\(PR_SET_NAME/ { on = 1; next }
	on && /mremap\(/ { n++ } END { print n + 0 }' "$TMP/workload.st")
counted() {
	scrape "$TMP/after.txt" >/dev/null &&
		[ "$(minus "$(mremap_total "$TMP/after.txt")" \
			"$(mremap_total "$TMP/before.txt")")" = "$calls" ]
}
wait_for 10 counted
check_eq "/metrics counts the workload's mremap calls (strace: $calls)" "$calls" \
	"$(minus "$(mremap_total "$TMP/after.txt")" "$(mremap_total "$TMP/before.txt")")"

kill -TERM "$PID"
wait "$RUNNER"
check_eq "ExecStart: SIGTERM (systemctl stop) exits 0" 0 "$?"
RUNNER=

# system calls and socket families of ptscope itself (after its execve):
# none in a group of SystemCallFilter=~, none outside RestrictAddressFamilies=
st=$(grep -l 'execve("/usr/sbin/ptscope"' "$TMP"/st.* | head -n1)
awk '/execve\("\/usr\/sbin\/ptscope"/ { on = 1 } on' "$st" >"$TMP/ptscope.st"
sed -n 's/^\([a-z_0-9]*\)(.*/\1/p' "$TMP/ptscope.st" | sort -u >"$TMP/used"
deny=$(unit_value SystemCallFilter)
# shellcheck disable=SC2086 # one argument per group
systemd-analyze syscall-filter ${deny#\~} |
	awk '/^ +[a-z_0-9]+$/ { print $1 }' | sort -u >"$TMP/denied"
check_eq "strace: system calls ptscope used, and how many SystemCallFilter=$deny denies" \
	"$(wc -l <"$TMP/used") 0" \
	"$(wc -l <"$TMP/used") $(comm -12 "$TMP/used" "$TMP/denied" | tee "$TMP/both" | wc -l)"
sed 's/^/# denied but used: /' "$TMP/both"
[ -s "$TMP/used" ] && [ -s "$TMP/denied" ] ||
	not_ok "strace or systemd-analyze syscall-filter listed nothing"
fams=$(sed -n 's/^socket(\(AF_[A-Z0-9]*\),.*/\1/p' "$TMP/ptscope.st" | sort -u)
allowed=" $(unit_value RestrictAddressFamilies) "
stray=
for f in $fams; do
	[[ $allowed == *" $f "* ]] || stray+=" $f"
done
check_eq "strace: socket families ptscope used ($(echo $fams)) outside RestrictAddressFamilies" \
	none "$([ -n "$fams" ] && echo "${stray:-none}")"

# --- purge: nothing left ---
if dpkg --purge ptscope >"$TMP/purge.log" 2>&1; then
	INSTALLED=
	ok "dpkg --purge"
else
	sed 's/^/#   /' "$TMP/purge.log"
	not_ok "dpkg --purge failed"
fi
dpkg -L ptscope >/dev/null 2>&1
check_eq "dpkg -L after purge fails" 1 "$?"
n=0 gone=0 left=
while read -r f; do
	n=$((n + 1))
	[ -e "$f" ] && left+=" $f" || gone=$((gone + 1))
done < <(cat "$TMP/files"; echo /usr/share/ptscope; echo /usr/share/doc/ptscope)
check_eq "purge: every installed file gone (left:${left:- none})" "$n" "$gone"

tap_finish
