#!/usr/bin/env bash
# The long run of the generator, for release checks: seeds FIRST..LAST in
# batches of 10 (one oracle cluster per batch), each failing seed shrunk
# (shrink.sh) into $FUZZ_OUT/shrunk-SEED-LEVEL.sql.  Run as root.
#
#   test/fuzz/soak.sh FIRST LAST
#
# Prints one line per batch and the totals: scenarios judged, checks,
# failures, seeds that failed, time.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
first=${1:?first seed}; last=${2:?last seed}
out=${FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/walload-soak.XXXXXX")}
mkdir -p "$out"
t0=$SECONDS; judged=0; checks=0; bad=0; failed_seeds=()
for ((b = first; b <= last; b += 10)); do
  e=$((b + 9)); [ $e -le "$last" ] || e=$last
  log=$out/batch-$b.log
  bash "$here/run.sh" $(seq "$b" "$e") >"$log" 2>&1
  j=$(grep -c '^ok .* ran as written\|^not ok .* ran as written' "$log")
  c=$(grep -c '^ok\|^not ok' "$log")
  f=$(grep '^not ok' "$log" | grep -vc '# TODO')
  judged=$((judged + j)); checks=$((checks + c)); bad=$((bad + f))
  echo "seeds $b-$e: $j scenario runs judged, $c checks, $f failed ($((SECONDS - t0))s)"
  for s in $(grep '^not ok' "$log" | grep -v '# TODO' | sed -nE 's/^not ok [0-9]+ - (minimal|replica)\/fuzz_s([0-9]+) .*/\2 \1/p' | sort -u | tr ' ' :); do
    seed=${s%%:*}; level=${s#*:}
    failed_seeds+=("$seed/$level")
    grep "fuzz_s$seed " "$log" | grep '^not ok' | head -5
    bash "$here/shrink.sh" "$seed" "$level" >"$out/shrunk-$seed-$level.sql" 2>"$out/shrunk-$seed-$level.log"
  done
done
echo "total: seeds $first-$last, $judged scenario runs judged, $checks checks, $bad failed, failing seeds: ${failed_seeds[*]:-none}, $((SECONDS - t0))s; logs in $out"
[ $bad = 0 ]
