#!/usr/bin/env bash
# Shrinks a failing seed to a minimal scenario (delta debugging over the
# scenario's independent units, see gen.py), then prints it: save it as
# test/fuzz/regressions/NN_<what>.sql.  Run as root.
#
#   test/fuzz/shrink.sh SEED LEVEL [UNITS]     LEVEL: minimal or replica
#
# A candidate "fails" when the oracle ran it as written and some other check
# failed (a count, or the pg_stat_statements line): a subset that breaks the
# scenario itself is not a reproduction.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seed=${1:?seed}; level=${2:?level}; units=${3:-${FUZZ_UNITS:-6}}
dir=$(mktemp -d "${TMPDIR:-/tmp}/walload-shrink.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 755 "$dir"
runs=0
fails() {   # fails "0,2,5"
  rm -f "$dir"/*.sql
  python3 "$here/gen.py" "$seed" --units "$units" --keep "$1" >"$dir/001_fuzz_s$seed.sql"
  chmod 644 "$dir"/*.sql
  runs=$((runs + 1))
  ORACLE_LEVELS=$level ORACLE_PGSS=1 ORACLE_SCENARIO_DIR=$dir bash "$here/../oracle/run.sh" >"$dir/out" 2>&1
  grep -q '^not ok .* ran as written' "$dir/out" && return 1
  grep -v 'ran as written' "$dir/out" | grep -v '# TODO' | grep -q '^not ok'
}
cur=($(seq 0 $((units - 1))))
join() { local IFS=,; echo "$*"; }
fails "$(join "${cur[@]}")" || { echo "seed $seed does not fail under $level"; exit 1; }
# ddmin, one unit at a time (units are few): drop each unit whose removal
# keeps the failure, until no single removal does
changed=1
while [ $changed = 1 ]; do
  changed=0
  for u in "${cur[@]}"; do
    [ ${#cur[@]} -gt 1 ] || break
    try=(); for x in "${cur[@]}"; do [ "$x" = "$u" ] || try+=("$x"); done
    if fails "$(join "${try[@]}")"; then cur=("${try[@]}"); changed=1; fi
  done
done
fails "$(join "${cur[@]}")"
echo "# seed $seed under $level shrunk to units $(join "${cur[@]}") after $runs oracle runs; failing checks:" >&2
grep '^not ok' "$dir/out" | grep -v '# TODO' >&2
python3 "$here/gen.py" "$seed" --units "$units" --keep "$(join "${cur[@]}")"
