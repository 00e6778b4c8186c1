#!/usr/bin/env bash
# The zonesync bind example from start to end: starts named on 127.0.0.1
# with this directory's named.conf, zonesync.key and example.test.db (in a
# temporary working directory), runs two zonesync cycles — records.txt, then
# records-changed.txt — and shows the zone with dig (AXFR signed with the
# key). named is stopped and the directory removed on exit.
#
# Needs named (Debian: bind9), dig (bind9-dnsutils) and go. Environment:
#   PORT   port for named on 127.0.0.1 (default 10053, as in named.conf)
#   GO     the go command (default go)
#   NAMED  the named binary (default: named on PATH, else /usr/sbin/named)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
port="${PORT:-10053}"
go="${GO:-go}"
named="${NAMED:-$(command -v named || echo /usr/sbin/named)}"
zone=example.test

work="$(mktemp -d)"
named_pid=""
cleanup() {
	if [ -n "$named_pid" ]; then
		kill "$named_pid" 2>/dev/null || true
		wait "$named_pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

echo "== starting named on 127.0.0.1:$port (working directory $work)"
cp "$here/zonesync.key" "$here/$zone.db" "$work/"
sed "s/listen-on port 10053/listen-on port $port/" "$here/named.conf" >"$work/named.conf"
(cd "$work" && exec "$named" -g -4 -n 1 -c "$work/named.conf") >"$work/named.log" 2>&1 &
named_pid=$!
for _ in $(seq 1 200); do
	if dig +short +time=1 +tries=1 -p "$port" @127.0.0.1 "$zone" SOA | grep -q .; then
		break
	fi
	if ! kill -0 "$named_pid" 2>/dev/null; then
		echo "named exited; its log:" >&2
		cat "$work/named.log" >&2
		exit 1
	fi
	sleep 0.1
done

echo "== building the example"
(cd "$here" && "$go" build -o "$work/bind-example" .)

sync_once() {
	"$work/bind-example" -once \
		-server "127.0.0.1:$port" -zone "$zone" \
		-tsig-key "$work/zonesync.key" -owner-id bind-example \
		-records "$work/records.txt"
}

echo "== first run (one cycle): records.txt"
cp "$here/records.txt" "$work/records.txt"
sync_once

echo "== second run (one cycle): records-changed.txt"
cp "$here/records-changed.txt" "$work/records.txt"
sync_once

echo "== the zone: dig AXFR $zone, signed with the key"
dig -p "$port" @127.0.0.1 -k "$work/zonesync.key" "$zone" AXFR +noall +answer
