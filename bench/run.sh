#!/usr/bin/env bash
# walload benchmarks (see bench/run.py and docs/benchmarks.md). Needs root;
# installs and builds like the tests, plus valgrind for the instruction counts.
#
#   bench/run.sh [--quick] [--only overhead,seedload,callgrind,overhead-cg,seed000,seed001,seed003,seed004,manyfiles,whatif,predict,strategy,walknoise,report] [--docs] [--seed N]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
if ! command -v valgrind >/dev/null 2>&1; then
  echo "== bench/run.sh: installing valgrind (instructions per transaction)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind; } >/tmp/walload-bench-deps.log 2>&1 ||
    echo "bench/run.sh: valgrind could not be installed; the callgrind section will be skipped"
fi
make -s >/dev/null && make -s install >/dev/null
exec python3 bench/run.py "$@"
