#!/usr/bin/env bash
# The random load generator, judged twice (issue 15): each seed's scenario
# (test/fuzz/gen.py) is run by the uprobe oracle (test/oracle/run.sh) under
# wal_level=minimal and replica with ORACLE_PGSS=1, so that per scenario and
# level it checks
#   - full scans per kind: walload_info, the sum over walload_xacts and the
#     uprobe count agree (the oracle's usual lines),
#   - walload_stats against pg_stat_statements, for every statement both
#     record: successful calls, rows and toplevel agree.
# The estimate-vs-measured time line is the oracle's "# bench:" line, never
# judged (a timed figure);
# the counts decide.  The shrunk regressions in test/fuzz/regressions/ run
# with the seeds.  Prints TAP (the oracle's); run as root.
#
#   test/fuzz/run.sh [SEED...]        default: FUZZ_SEEDS, else "5 68 192 1"
#
# The default seeds are the fewest that place a unit in each of the 16
# nesting shapes (5, 68, 192), and seed 1; about 75 s on 2 cores.
#
# Environment: FUZZ_UNITS (units per scenario, default 6), PG_CONFIG, and
# the oracle's (ORACLE_LEVELS, CI, ...; see test/oracle/README.md).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || read -r -a seeds <<<"${FUZZ_SEEDS:-5 68 192 1}"
dir=$(mktemp -d "${TMPDIR:-/tmp}/walload-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
n=0
for s in "${seeds[@]}"; do
  n=$((n + 1))
  python3 "$here/gen.py" "$s" --units "${FUZZ_UNITS:-6}" >"$dir/$(printf '%03d' "$n")_fuzz_s$s.sql" || exit 1
done
for f in "$here"/regressions/*.sql; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  cp "$f" "$dir/$(printf '%03d' "$n")_$(basename "$f" | sed -E 's/^[0-9]+_//')"
done
chmod 644 "$dir"/*.sql
echo "# seeds: ${seeds[*]}; units per scenario: ${FUZZ_UNITS:-6}; regressions: $(ls "$here"/regressions/*.sql 2>/dev/null | wc -l)"
ORACLE_PGSS=1 ORACLE_SCENARIO_DIR=$dir bash "$here/../oracle/run.sh"
