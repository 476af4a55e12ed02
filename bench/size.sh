#!/usr/bin/env bash
# Time per statement in one very large transaction (issue 15, part 4): is it
# flat?  A measurement, so a bench, not a test (test/faults/size.pl checks
# the memory and the bounds, which do not depend on time).
#
#   bench/size.sh [STATEMENTS [TABLES [RUNS]]]     default 1000000 40000 3
#
# One throwaway cluster (walload preloaded, a Unix socket in a temporary
# directory, run as postgres when root).  For walload.track = all and
# = none (walload loaded but recording nothing: core's own curve), RUNS
# times each (40,000 tables and their types hold more locks than the
# default lock table has: max_locks_per_transaction = 2000): a DO loop of STATEMENTS single-row INSERTs, and one of TABLES
# CREATE TABLEs, each in one transaction, sampling clock_timestamp() at
# every tenth.  Prints the time of each tenth, the last tenth against the
# first, and whether they are within 20% of each other (issue 15's
# criterion), per run and the median over runs.
set -uo pipefail
nstmt=${1:-1000000}; ntab=${2:-40000}; runs=${3:-3}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
dir=$(mktemp -d "${TMPDIR:-/tmp}/walload-size-bench.XXXXXX") || exit 1
chmod 755 "$dir"
run=()
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; run=(runuser -u postgres --); fi
pg() { (cd "$dir" && "${run[@]}" "$@"); }
cleanup() { pg "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
pg "$bindir/initdb" -D "$dir/data" -A trust --no-sync >/dev/null || exit 1
cat >>"$dir/data/postgresql.conf" <<EOC
listen_addresses = ''
unix_socket_directories = '$dir'
port = 5622
shared_preload_libraries = 'walload'
autovacuum = off
max_locks_per_transaction = 2000
EOC
pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log" -w start >/dev/null || { tail "$dir/log"; exit 1; }
psqlc() { pg "$bindir/psql" -X -q -At -h "$dir" -p 5622 -d postgres "$@"; }
psqlc -c "CREATE EXTENSION walload" || exit 1
echo "# $("$bindir/postgres" --version), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC'); $nstmt statements, $ntab tables, $runs runs"

# one loop; prints "tenth1 ... tenth10" in ms
loop() {   # track n body
  local step=$(($2 / 10))
  psqlc -c "SET walload.track = '$1'" -c "SET client_min_messages = warning" -c "
DO \$\$
DECLARE t0 timestamptz := clock_timestamp(); prev float8 := 0; now float8; marks text := '';
BEGIN
  FOR i IN 1..$2 LOOP
    $3
    IF i % $step = 0 THEN
      now := extract(epoch from clock_timestamp() - t0) * 1000;
      marks := marks || round((now - prev)::numeric, 1) || ' ';
      prev := now;
    END IF;
  END LOOP;
  RAISE WARNING 'marks:%', marks;
END
\$\$;" 2>&1 | sed -nE 's/.*marks:(.*)/\1/p'
}

report() {   # label ratios...
  local label=$1; shift
  local med; med=$(printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$label: last tenth / first tenth, median of $#: $med ($(awk -v r="$med" 'BEGIN { print (r >= 0.8 && r <= 1.2) ? "within 20%" : "NOT within 20%" }'))"
}

for what in statements tables; do
  for track in all none; do
    ratios=()
    for r in $(seq "$runs"); do
      if [ $what = statements ]; then
        psqlc -c "DROP TABLE IF EXISTS sink; CREATE TABLE sink (a int); CHECKPOINT"
        t=$(loop "$track" "$nstmt" 'INSERT INTO sink VALUES (i);')
      else
        psqlc -c "SET client_min_messages = warning" -c "DROP SCHEMA IF EXISTS many CASCADE" || exit 1
        psqlc -c "CREATE SCHEMA many; CHECKPOINT"
        t=$(loop "$track" "$ntab" "EXECUTE format('CREATE TABLE many.t%s (a int)', i);")
      fi
      read -r -a a <<<"$t"
      [ ${#a[@]} = 10 ] || { echo "run failed: $t"; continue; }
      ratio=$(awk -v f="${a[0]}" -v l="${a[9]}" 'BEGIN { printf "%.2f", l / f }')
      ratios+=("$ratio")
      echo "$what track=$track run $r: ms per tenth: ${a[*]}; last/first $ratio"
    done
    report "$what track=$track" "${ratios[@]}"
  done
done
