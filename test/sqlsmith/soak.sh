#!/usr/bin/env bash
# The long SQLsmith run, for release checks: test/sqlsmith/sqlsmith.pl once
# per seed, each on a fresh cluster, with more queries.
#
#   test/sqlsmith/soak.sh [QUERIES [SEED...]]     default 20000, seeds 11 12 13 14 15
#
# Prints each seed's result and the run's totals (queries, statements
# walload recorded, full scans, failures, time).  Run as root or postgres.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
q=${1:-20000}; shift || true
seeds=("$@"); [ ${#seeds[@]} -gt 0 ] || seeds=(11 12 13 14 15)
t0=$SECONDS; bad=0; stmts=0; scans=0; n=0
for s in "${seeds[@]}"; do
  out=$(SQLSMITH_QUERIES=$q SQLSMITH_SEED=$s SQLSMITH_TIMEOUT=$((q / 10 + 300)) \
        bash "$here/../tap-as-postgres.sh" "$here/sqlsmith.pl" 2>&1)
  rc=$?
  info=$(sed -nE 's/^# walload_info after the run: .* = //p' <<<"$out")
  IFS='|' read -r _ sr _ _ fs <<<"$info"
  stmts=$((stmts + ${sr:-0})); scans=$((scans + ${fs:-0})); n=$((n + q))
  echo "seed $s: $q queries, exit $rc; $(grep -E '^# sqlsmith ' <<<"$out" | sed 's/^# //'); walload: ${sr:-?} statements, ${fs:-?} full scans; $(grep -c '^not ok' <<<"$out") failed checks"
  grep -E '^not ok' <<<"$out"
  # the internal errors (XX000) core raised, and where (none may be walload's)
  sed -n '/^# internal errors/,/^ok .*internal error/p' <<<"$out" | grep '^#'
  [ $rc = 0 ] || bad=$((bad + 1))
done
echo "total: ${#seeds[@]} seeds, $n queries, $stmts statements and $scans full scans recorded by walload, $bad failed, $((SECONDS - t0))s"
[ $bad = 0 ]
