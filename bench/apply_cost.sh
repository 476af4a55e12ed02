#!/usr/bin/env bash
# bench/apply_cost.sh: what walload costs logical replication's apply worker,
# in user-space instructions per replayed transaction (issue 52, item 4),
# beside what it costs a client backend running the same transactions.
#
#   [EVENT=task-clock] PG_CONFIG=.../pg_config bench/apply_cost.sh [-t N] [-r R] [-s SCALE] [-k]
#
#   -t N      pgbench transactions per client of the backlog (4 clients: 4*N
#             replayed transactions); default 2000 (a run of 30-60 s here)
#   -r R      rounds; default 3 (each round runs every configuration once)
#   -s SCALE  pgbench scale; default 10
#   -k        keep the work directory (printed) instead of removing it
#   APPLY_CONFIGS="a b c aa" (default) the subscriber configurations to run
#
# Needs perf (perf stat -e instructions:u) and walload installed into
# PG_CONFIG's tree (make PG_CONFIG=... install).  As root, the servers run as
# the postgres OS user.  Servers listen on Unix sockets in the work directory
# only (listen_addresses = '').
#
# How (the recipe of issue 52): a publisher (wal_level = logical) with
# pgbench -i -s SCALE and a publication FOR ALL TABLES; a subscriber template
# holding the same tables and rows (pg_dump | psql, so that replayed UPDATEs
# find their rows).  Per configuration and round, a FRESH copy of the
# template: CREATE SUBSCRIPTION ... WITH (copy_data = false, enabled = false);
# pgbench -n -c 4 -t N on the publisher builds the backlog; a session on the
# subscriber holds LOCK pgbench_history so that the apply worker, once
# enabled, stops at its first replayed INSERT; perf stat attaches to the
# apply worker (pg_stat_subscription, relid IS NULL); the lock is released;
# the worker is done when the subscriber holds as many pgbench_history rows
# as the publisher (one per pgbench transaction), bounded by a timeout.
# Instructions / (4*N) = instructions per replayed transaction (the worker's
# start-up, a fixed cost, is included and spread over them).
#
# Configurations (subscriber): (a) walload not loaded; (a') the same again,
# A/A: the noise floor; (b) shared_preload_libraries = walload,
# walload.track = none; (c) walload loaded, walload.track = top (default).
# Client comparison: a standalone server (a fresh copy of the publisher's
# data, wal_level = replica) without and with walload (track = top); one
# pgbench client (-c 1 -t 4*N) held by the same lock until perf stat is
# attached to its backend; instructions of that backend / (4*N).
#
# EVENT=callgrind (a machine without hardware counters): the subscriber's
# and the standalone server's postmasters run under valgrind --tool=callgrind
# (its children follow: one profile per process, written at its exit, the
# apply worker's at DISABLE); the figure is the apply worker's (or the
# pgbench backend's) total Ir, and beside it walload's own instructions
# (bench/overhead_cg.py walload_profile: walload.so's functions with what
# they call in core).  walload.calibration = off there (its walks under
# valgrind take minutes; the recording path is the same).  Deterministic to
# a few instructions: one round is enough (-r 1).
#
# User-space instructions are far less sensitive to a busy machine than time,
# not insensitive: the worker's waits and polls differ with scheduling.  The
# A/A row says how much; a difference inside it is no difference.
set -euo pipefail

N=2000 R=3 SCALE=10 KEEP=0
while getopts "t:r:s:kh" o; do
  case $o in
    t) N=$OPTARG ;;
    r) R=$OPTARG ;;
    s) SCALE=$OPTARG ;;
    k) KEEP=1 ;;
    *) sed -n '2,13p' "$0"; exit 2 ;;
  esac
done
for v in "$N" "$R" "$SCALE"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || { echo "apply_cost.sh: not a positive integer: $v" >&2; exit 2; }
done

PG_CONFIG=${PG_CONFIG:-pg_config}
BIN=$("$PG_CONFIG" --bindir)
PERF=${PERF:-perf}
EVENT=${EVENT:-instructions:u}
if [[ $EVENT == callgrind ]]; then
  command -v valgrind >/dev/null || { echo "apply_cost.sh: valgrind not found" >&2; exit 2; }
else
  command -v "$PERF" >/dev/null || { echo "apply_cost.sh: perf not found" >&2; exit 2; }
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# EVENT=task-clock where the machine has no hardware counters (a virtual
# machine without a PMU: perf says <not supported>): CPU time of the process,
# in microseconds per transaction, far more sensitive to a busy machine.
case $EVENT in
  instructions:u|callgrind) UNIT=instructions SCALE_BY=1 FMT=%.0f ;;
  task-clock) UNIT="CPU us" SCALE_BY=1000 FMT=%.1f ;;   # perf gives msec
  *) echo "apply_cost.sh: EVENT is instructions:u, task-clock or callgrind" >&2; exit 2 ;;
esac
if [[ $EVENT != callgrind ]] && "$PERF" stat -x, -e "$EVENT" true 2>&1 | grep -q "not supported"; then
  echo "apply_cost.sh: perf cannot count $EVENT here (no hardware counters?); EVENT=task-clock counts CPU time" >&2
  exit 2
fi
[[ -f $("$PG_CONFIG" --pkglibdir)/walload.so ]] ||
  { echo "apply_cost.sh: walload.so not in $("$PG_CONFIG" --pkglibdir): make PG_CONFIG=$PG_CONFIG install" >&2; exit 2; }
TXNS=$((4 * N))
TIMEOUT=${APPLY_TIMEOUT:-900}

W=$(mktemp -d /tmp/walload-applycost.XXXXXX)
chmod 755 "$W"
AS=()
if [[ $(id -u) == 0 ]]; then
  chown postgres: "$W"
  AS=(runuser -u postgres --)
fi
cleanup() {
  for d in "$W"/*/; do
    [[ -f $d/postmaster.pid ]] && "${AS[@]}" "$BIN/pg_ctl" -D "$d" -m immediate stop >/dev/null 2>&1 || true
  done
  if [[ $KEEP == 1 ]]; then echo "work directory kept: $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT

PUB_PORT=56701 SUB_PORT=56702 SOLO_PORT=56703
pg() { "${AS[@]}" "$BIN/$@"; }
sql() { local port=$1; shift; pg psql -X -q -At -h "$W" -p "$port" -d postgres -v ON_ERROR_STOP=1 "$@"; }

start() {   # dir port
  if [[ $EVENT == callgrind && ( $1 == */sub-* || $1 == */solo-* ) ]]; then
    "${AS[@]}" valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$1/cg.%p" \
      "$BIN/postgres" -D "$1" -p "$2" -k "$W" -c listen_addresses='' >"$1.log" 2>&1 &
    for _ in $(seq 600); do pg pg_isready -q -h "$W" -p "$2" && return 0; sleep 0.5; done
    echo "apply_cost.sh: postgres under valgrind did not start ($1)" >&2; exit 1
  fi
  pg pg_ctl -D "$1" -o "-p $2 -k $W -c listen_addresses=''" -l "$1.log" -w start >/dev/null
}
stop() { pg pg_ctl -D "$1" -m fast -w stop >/dev/null; }

echo "== $(date -u +%H:%M:%S) work directory $W; $TXNS transactions per run, $R rounds, scale $SCALE"

# publisher
pg initdb -D "$W/pub" -A trust -U postgres >/dev/null
cat >>"$W/pub/postgresql.conf" <<EOF
wal_level = logical
max_wal_senders = 20
max_replication_slots = 20
fsync = off
EOF
start "$W/pub" $PUB_PORT
pg pgbench -q -i -s "$SCALE" -h "$W" -p $PUB_PORT postgres >/dev/null 2>&1
sql $PUB_PORT -c "CREATE PUBLICATION wl_apply_cost FOR ALL TABLES"

# subscriber template: the same tables and rows
pg initdb -D "$W/subtpl" -A trust -U postgres >/dev/null
echo "fsync = off" >>"$W/subtpl/postgresql.conf"
start "$W/subtpl" $SUB_PORT
pg pg_dump -h "$W" -p $PUB_PORT --no-publications postgres | sql $SUB_PORT >/dev/null
stop "$W/subtpl"

# standalone template: the publisher's data at its start
stop "$W/pub"
"${AS[@]}" cp -a "$W/pub" "$W/solotpl"
sed -i 's/^wal_level = logical/wal_level = replica/' "$W/solotpl/postgresql.conf"
start "$W/pub" $PUB_PORT

# walload's settings per configuration
conf_for() {
  case $1 in
    a|aa) ;;
    b) printf "shared_preload_libraries = 'walload'\nwalload.track = none\n" ;;
    c) printf "shared_preload_libraries = 'walload'\n" ;;
  esac
  [[ $EVENT == callgrind && $1 != a && $1 != aa ]] && printf "walload.calibration = off\n"
  return 0
}

# callgrind: the profile of process pid under dir, once written: "total
# walload" (Ir; walload's own with what it calls in core)
cg_count() {   # dir pid
  for _ in $(seq 600); do [[ -s $1/cg.$2 ]] && break; sleep 0.5; done
  python3 - "$1/cg.$2" "$HERE" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import overhead_cg as cg
funcs, total = cg.parse_callgrind(sys.argv[1])
prof, _ = cg.walload_profile(funcs)
print(total, sum(e["attr"] for e in prof.values()))
top = sorted(prof.items(), key=lambda kv: -kv[1]["attr"])[:8]
print("   walload's functions, Ir with what they call in core: " +
      ", ".join("%s %d" % (k, v["attr"]) for k, v in top), file=sys.stderr)
PY
}

# perf stat on a pid until told to stop: start_perf pid out; stop_perf
start_perf() {
  "$PERF" stat -x, -e "$EVENT" -p "$1" -o "$2" 9>&- &
  PERF_PID=$!
  sleep 0.5   # let perf attach before the lock goes
}
stop_perf() {   # SIGINT makes perf print; one sent too early can be lost
  for _ in $(seq 50); do
    kill -INT "$PERF_PID" 2>/dev/null || break
    sleep 0.2
  done
  wait "$PERF_PID" 2>/dev/null || true
}
perf_count() { awk -F, -v e="$EVENT" -v k="$SCALE_BY" '$3 == e { printf "%.0f\n", $1 * k; exit }' "$1"; }

# a session holding LOCK pgbench_history until its fifo is closed
hold_lock() {   # port
  mkfifo "$W/lockfifo"
  chmod 666 "$W/lockfifo"
  { echo "BEGIN; LOCK pgbench_history IN SHARE MODE; SELECT 'locked';"; cat "$W/lockfifo"; } |
    sql "$1" >"$W/lock.out" 2>&1 &
  LOCK_PID=$!
  exec 9>"$W/lockfifo"
  for _ in $(seq 100); do grep -q locked "$W/lock.out" 2>/dev/null && return 0; sleep 0.1; done
  echo "apply_cost.sh: could not take the lock" >&2; return 1
}
release_lock() {
  echo "COMMIT;" >&9
  exec 9>&-
  wait "$LOCK_PID" || true
  rm -f "$W/lockfifo"
}

run_apply() {   # config round -> prints instructions
  local cfg=$1 rnd=$2 d="$W/sub-$1-$2" pid="" target got t0 before
  "${AS[@]}" cp -a "$W/subtpl" "$d"
  conf_for "$cfg" >>"$d/postgresql.conf"
  start "$d" $SUB_PORT
  sql $SUB_PORT -c "CREATE SUBSCRIPTION wl_sub CONNECTION 'host=$W port=$PUB_PORT dbname=postgres' PUBLICATION wl_apply_cost WITH (copy_data = false, enabled = false)" 2>/dev/null
  before=$(sql $PUB_PORT -c "SELECT count(*) FROM pgbench_history")
  pg pgbench -n -c 4 -t "$N" -h "$W" -p $PUB_PORT postgres >"$d.pgbench" 2>&1
  got=$(sql $SUB_PORT -c "SELECT count(*) FROM pgbench_history")
  # the template holds the publisher's rows of its start, not earlier runs'
  target=$((got + $(sql $PUB_PORT -c "SELECT count(*) FROM pgbench_history") - before))
  hold_lock $SUB_PORT
  sql $SUB_PORT -c "ALTER SUBSCRIPTION wl_sub ENABLE"
  for _ in $(seq 300); do
    pid=$(sql $SUB_PORT -c "SELECT pid FROM pg_stat_subscription WHERE relid IS NULL AND pid IS NOT NULL")
    [[ -n $pid ]] && break
    sleep 0.1
  done
  [[ -n $pid ]] || { echo "apply_cost.sh: no apply worker" >&2; exit 1; }
  [[ $EVENT == callgrind ]] || start_perf "$pid" "$d.perf"
  release_lock
  t0=$SECONDS
  while ((got < target)); do
    ((SECONDS - t0 < TIMEOUT)) || { [[ $EVENT == callgrind ]] || stop_perf; echo "apply_cost.sh: apply timed out ($got of $target)" >&2; exit 1; }
    sleep 0.5
    got=$(sql $SUB_PORT -c "SELECT count(*) FROM pgbench_history")
  done
  [[ $EVENT == callgrind ]] || stop_perf
  if [[ $cfg == c ]]; then   # walload saw the worker's transactions (a sanity check, not a figure)
    sql $SUB_PORT -c "CREATE EXTENSION walload" 2>/dev/null &&
      sql $SUB_PORT -c "SELECT 'walload recorded ' || count(*) || ' transaction(s) of the apply worker' FROM walload_xacts WHERE pid = $pid" >&2 || true
  fi
  sql $SUB_PORT -c "ALTER SUBSCRIPTION wl_sub DISABLE; ALTER SUBSCRIPTION wl_sub SET (slot_name = NONE)" >/dev/null
  for _ in $(seq 100); do   # the walsender goes a moment after the worker
    sql $PUB_PORT -c "SELECT pg_drop_replication_slot('wl_sub')" >/dev/null 2>&1 && break
    sleep 0.2
  done
  if [[ $EVENT == callgrind ]]; then
    read -r v own <<<"$(cg_count "$d" "$pid")"
    echo "== apply ($cfg): walload's own instructions $own ($(awk -v v="$own" -v n="$TXNS" 'BEGIN { printf "%.0f", v / n }') per transaction)" >&2
  fi
  stop "$d"
  [[ $EVENT == callgrind ]] && { rm -rf "$d"; echo "$v"; return; }
  rm -rf "$d"
  perf_count "$d.perf"
}

run_client() {   # config round -> prints instructions
  local cfg=$1 rnd=$2 d="$W/solo-$1-$2" pid="" pb
  "${AS[@]}" cp -a "$W/solotpl" "$d"
  case $cfg in c) conf_for c >>"$d/postgresql.conf" ;; esac
  start "$d" $SOLO_PORT
  hold_lock $SOLO_PORT
  "${AS[@]}" env PGAPPNAME=wl_apply_cost_client "$BIN/pgbench" -n -c 1 -t "$TXNS" -h "$W" -p $SOLO_PORT postgres >"$d.pgbench" 2>&1 9>&- &
  pb=$!
  for _ in $(seq 300); do
    pid=$(sql $SOLO_PORT -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'wl_apply_cost_client' AND wait_event_type = 'Lock' LIMIT 1")
    [[ -n $pid ]] && break
    sleep 0.1
  done
  [[ -n $pid ]] || { echo "apply_cost.sh: no pgbench backend" >&2; exit 1; }
  [[ $EVENT == callgrind ]] || start_perf "$pid" "$d.perf"
  release_lock
  wait "$pb"
  if [[ $EVENT == callgrind ]]; then
    read -r v own <<<"$(cg_count "$d" "$pid")"
    echo "== client ($cfg): walload's own instructions $own ($(awk -v v="$own" -v n="$TXNS" 'BEGIN { printf "%.0f", v / n }') per transaction)" >&2
    stop "$d"; rm -rf "$d"; echo "$v"; return
  fi
  stop_perf
  stop "$d"
  rm -rf "$d"
  perf_count "$d.perf"
}

declare -A RES
for ((r = 1; r <= R; r++)); do
  for cfg in ${APPLY_CONFIGS:-a b c aa}; do
    v=$(run_apply $cfg $r)
    RES[apply-$cfg]+="$v "
    echo "== $(date -u +%H:%M:%S) round $r apply ($cfg): $v $UNIT, $(awk -v v="$v" -v n="$TXNS" -v f="$FMT" 'BEGIN { printf f, v / n }') per transaction" >&2
  done
  for cfg in a c; do
    v=$(run_client $cfg $r)
    RES[client-$cfg]+="$v "
    echo "== $(date -u +%H:%M:%S) round $r client ($cfg): $v $UNIT, $(awk -v v="$v" -v n="$TXNS" -v f="$FMT" 'BEGIN { printf f, v / n }') per transaction" >&2
  done
done

# the table: median, min..max per transaction; differences of the medians from (a)
stats() {   # "v1 v2 ..." -> "median min max" per transaction
  tr ' ' '\n' <<<"$1" | awk -v n="$TXNS" 'NF { printf "%.3f\n", $1 / n }' | sort -g |
    awk -v f="$FMT" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f " " f " " f "\n", m, v[1], v[NR] }'
}
row() {   # label key basekey
  local med lo hi bmed
  [[ -n ${RES[$2]:-} && -n ${RES[$3]:-} ]] || return 0   # not run (APPLY_CONFIGS)
  read -r med lo hi <<<"$(stats "${RES[$2]}")"
  read -r bmed _ _ <<<"$(stats "${RES[$3]}")"
  if [[ $2 == "$3" ]]; then
    printf "%-40s %10s %21s %18s\n" "$1" "$med" "$lo..$hi" "-"
  else
    printf "%-40s %10s %21s %18s\n" "$1" "$med" "$lo..$hi" \
      "$(awk -v a="$med" -v b="$bmed" -v f="$FMT" 'BEGIN { printf "%+" substr(f, 2) " (%+.1f%%)", a - b, 100 * (a - b) / b }')"
  fi
}
echo
echo "$EVENT: $UNIT per transaction, $TXNS transactions per run, median of $R rounds (min..max)"
printf "%-40s %10s %21s %18s\n" "configuration" "median" "min..max" "vs (a)"
echo "apply worker (subscriber), per replayed transaction:"
row "  (a) walload not loaded" apply-a apply-a
row "  (a') walload not loaded, again (A/A)" apply-aa apply-a
row "  (b) walload loaded, track = none" apply-b apply-a
row "  (c) walload loaded, track = top" apply-c apply-a
echo "client backend (standalone), per pgbench transaction:"
row "  walload not loaded" client-a client-a
row "  walload loaded, track = top" client-c client-a
