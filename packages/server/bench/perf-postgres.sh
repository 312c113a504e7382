#!/bin/sh
# Profiles the PostgreSQL backends of a bench's throwaway cluster (instances.mjs,
# storage-pg's benches): waits for the first cluster under $TMPDIR to be ready, then records
# its postmaster and every process forked from it afterwards (the pooled backends) with perf,
# until the cluster stops. cpu-clock, since a VM may expose no hardware counters; DWARF call
# graphs, since Debian's postgres keeps no frame pointers (its exported symbols name most frames).
#
#   packages/server/bench/perf-postgres.sh "$TMPDIR/pg.perf" &
#   BENCH_CONFIGS=pg:1 BENCH_RUNS=1 node packages/server/bench/instances.mjs
#   perf report -i "$TMPDIR/pg.perf" --no-children --sort symbol
set -eu
out=$1
while :; do
	pidfile=$(ls "$TMPDIR"/as2kit-pg-*/data/postmaster.pid 2>/dev/null | head -1 || true)
	# initdb's bootstrap writes a negative pid; "ready" once the server accepts connections.
	if [ -n "$pidfile" ] && grep -q ready "$pidfile" && [ "$(head -1 "$pidfile")" -gt 0 ]; then break; fi
	sleep 0.1
done
exec perf record -e cpu-clock -F "${PERF_FREQUENCY:-1000}" --call-graph dwarf,16384 -p "$(head -1 "$pidfile")" -o "$out"
