#!/usr/bin/env bash
# walload benchmarks (see bench/run.py). Needs root; installs and builds like the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
make -s >/dev/null && make -s install >/dev/null
exec python3 bench/run.py "$@"
