#!/bin/bash
# ptscope export under slow clients: 200 connections trickling a request
# line, headers or a body must neither block nor delay a scrape (Prometheus gives
# up after 10 s), and each is closed within the request deadline.
. "$(dirname "$0")/lib.sh"
require_root

EXPORTER=
SLOW=
cleanup() {
	[ -n "$SLOW" ] && kill "$SLOW" 2>/dev/null && wait "$SLOW"
	[ -n "$EXPORTER" ] && kill -INT "$EXPORTER" 2>/dev/null && wait "$EXPORTER"
	rm -rf "$TMP"
}
trap cleanup EXIT

PORT=$(free_port)
"$PTSCOPE" export --listen "127.0.0.1:$PORT" >/dev/null 2>"$TMP/export.err" &
EXPORTER=$!
for _ in $(seq 300); do
	grep -q "serving http" "$TMP/export.err" && break
	sleep 0.2
done

# timed_scrape: "HTTP_CODE SECONDS" of one GET /metrics, given up after 12 s
timed_scrape() {
	curl -s -m 12 -o /dev/null -w '%{http_code} %{time_total}' \
		"http://127.0.0.1:$PORT/metrics"
}

# slow_round NAME MODE IPS: 200 slow connections from IPS source addresses
# for 6 s, three timed scrapes meanwhile
slow_round() {
	local name=$1 worst=0 codes= got code secs
	python3 tests/host/slow_clients.py "$PORT" "$2" 200 "$3" 6 \
		>"$TMP/slow.out" 2>&1 &
	SLOW=$!
	sleep 1.5
	for _ in 1 2 3; do
		got=$(timed_scrape)
		code=${got%% *}
		secs=${got#* }
		codes="$codes$code "
		worst=$(python3 -c "print(max($worst, $secs))")
		sleep 0.3
	done
	wait "$SLOW"
	SLOW=
	echo "# $name: scrapes $codes worst ${worst}s; $(cat "$TMP/slow.out")"
	if [ "$codes" = "200 200 200 " ] &&
		python3 -c "import sys; sys.exit(not $worst < 1.0)"; then
		ok "$name: 3 scrapes answered 200 within 1 s (worst ${worst}s)"
	else
		not_ok "$name: want 3 scrapes of 200 within 1 s, got $codes worst ${worst}s"
	fi
	# every slow connection the server accepted was closed by the deadline
	if grep -q "longest_s=[0-3]\." "$TMP/slow.out" &&
		python3 -c 'import re, sys
d = dict(kv.split("=") for kv in open(sys.argv[1]).read().split())
sys.exit(int(d["closed_by_server"]) + int(d["refused"]) < 200)' "$TMP/slow.out"; then
		ok "$name: every slow connection closed or refused within 4 s"
	else
		not_ok "$name: slow connections held open: $(cat "$TMP/slow.out")"
	fi
}

slow_round "200 slow request lines from one address" line 1
slow_round "200 slow header sections from 100 addresses" headers 100
slow_round "200 slow bodies from 20 addresses" body 20

got=$(timed_scrape)
check_eq "still serving" 200 "${got%% *}"
tap_finish
