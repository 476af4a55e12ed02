# scripts/lib/cluster.sh: the one way to make, start, stop and address a
# throwaway PostgreSQL cluster (every test suite, the demo, the oracle, and
# the benchmarks through scripts/lib/cluster.py).
#
#   . scripts/lib/cluster.sh
#   cluster_init DIR [SETTING ...]    initdb DIR/data; settings as below
#   cluster_config DIR [SETTING ...]  replace the caller's settings (stopped)
#   cluster_clone FROM DIR [SETTING ...]  DIR/data a copy of FROM/data (stopped)
#   cluster_start DIR [LOG]           start, wait for it and for walload's
#                                     calibration worker (bounded), export
#                                     PGHOST, PGPORT, PGUSER, PGDATABASE
#   cluster_env DIR                   only export them
#   cluster_stop DIR                  fast shutdown, immediate if that fails
#   cluster_stop_all                  every cluster this shell started (EXIT traps)
#   cluster_log_tail DIR [N]          the last N (30) lines of its server log
#   cluster_as_pg COMMAND ...         run a command as the cluster's owner
#
# A cluster lives in DIR: DIR/data, DIR/server.log, and its Unix socket in
# DIR itself.  It listens on no TCP port (listen_addresses = ''), so nothing
# else on the machine can reach or disturb it; port 5432 only names the
# socket file.  Every cluster has: trust authentication, user postgres,
# UTF8 and the C locale, autovacuum off (its workers would add scans and
# transactions of their own), fsync on (commit figures are real); then the
# caller's settings, one "name = value" per argument, in DIR/data/cluster.conf
# (which postgresql.conf includes last, so they win).
#
# Run as root, the cluster runs as the postgres OS user: every command on it
# goes through cluster_as_pg, which runs "${cluster_pg_as[@]}" COMMAND; the
# default is runuser -u postgres -- as root, nothing otherwise.  A caller
# with its own way (scripts/test.sh: a mount namespace that hides the
# checkout) sets cluster_pg_as before it calls anything here.  DIR must be
# one that user can create or write.
#
# Settings of this file (shell variables, set them after sourcing):
#   cluster_bindir         PostgreSQL's programs (default: $PG_CONFIG --bindir,
#                          PG_CONFIG defaulting to pg_config)
#   cluster_start_timeout  seconds pg_ctl waits for a start (120)
#   cluster_stop_timeout   seconds pg_ctl waits for a fast stop (60)
#   cluster_calibration_timeout  seconds a start waits for walload's
#                          calibration worker to be idle (300)

if [ -z "${cluster_pg_as+set}" ]; then
  if [ "$(id -u)" = 0 ]; then cluster_pg_as=(runuser -u postgres --); else cluster_pg_as=(); fi
fi
cluster_start_timeout=${cluster_start_timeout:-120}
cluster_stop_timeout=${cluster_stop_timeout:-60}
cluster_started=()

cluster_as_pg() { "${cluster_pg_as[@]}" "$@"; }

cluster__bindir() {
  if [ -z "${cluster_bindir:-}" ]; then
    cluster_bindir=$("${PG_CONFIG:-pg_config}" --bindir) || { echo "cluster: no pg_config (PG_CONFIG=${PG_CONFIG:-})" >&2; return 1; }
  fi
}

cluster_config() {
  local dir=$1 s; shift
  {
    echo "# written by scripts/lib/cluster.sh: do not edit, it is rewritten"
    echo "listen_addresses = ''"
    echo "unix_socket_directories = '$dir'"
    echo "port = 5432"
    echo "autovacuum = off"
    echo "fsync = on"
    [ $# -eq 0 ] || echo "# the caller's"
    for s in "$@"; do echo "$s"; done
  } | cluster_as_pg tee "$dir/data/cluster.conf" >/dev/null
}

cluster_init() {
  local dir=$1; shift
  cluster__bindir || return 1
  cluster_as_pg mkdir -p "$dir" || { echo "cluster: cannot create $dir" >&2; return 1; }
  if ! cluster_as_pg "$cluster_bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-sync \
       >"$dir/initdb.log" 2>&1; then
    echo "cluster: initdb of $dir/data failed:" >&2; tail -20 "$dir/initdb.log" >&2; return 1
  fi
  echo "include 'cluster.conf'" | cluster_as_pg tee -a "$dir/data/postgresql.conf" >/dev/null &&
    cluster_config "$dir" "$@"
}

cluster_clone() {
  local from=$1 dir=$2; shift 2
  cluster_as_pg mkdir -p "$dir" && cluster_as_pg cp -a "$from/data" "$dir/data" &&
    cluster_config "$dir" "$@"
}

cluster_env() {
  export PGHOST=$1 PGPORT=5432 PGUSER=postgres PGDATABASE=postgres
}

cluster_start() {
  local dir=$1 log=${2:-$1/server.log}
  cluster__bindir || return 1
  if ! cluster_as_pg "$cluster_bindir/pg_ctl" -D "$dir/data" -l "$log" -w -t "$cluster_start_timeout" start \
       >/dev/null 2>&1; then
    echo "cluster $dir did not start within $cluster_start_timeout s; its log:" >&2
    cluster_log_tail "$dir" 20 "$log" >&2
    return 1
  fi
  cluster_started+=("$dir")
  cluster_env "$dir"
  cluster_wait_calibration "$dir"
}

# walload's calibration worker, started with the server, times the walks
# and the storage for several seconds and then publishes its figures at
# once (calibrate.c walload_calibration_main); then it stays, idle: its ps
# title ends in "idle".  A start returns when it is idle, so that nothing a
# suite compares changes under it.  Bounded by cluster_calibration_timeout
# (300 s).  No worker is waited for without walload loaded or with
# walload.calibration = off (asked of the server: the extension may not be
# created yet).
cluster_wait_calibration() {
  local dir=$1 pm on deadline=$((SECONDS + ${cluster_calibration_timeout:-300}))
  pm=$(head -1 "$dir/data/postmaster.pid" 2>/dev/null) || return 0
  [ -n "$pm" ] || return 0
  on=$(cluster_as_pg "$cluster_bindir/psql" -h "$dir" -p 5432 -U postgres -d postgres -X -At \
       -c "SELECT current_setting('walload.calibration', true)" 2>/dev/null) || on=
  [ "$on" = on ] || return 0
  command -v ps >/dev/null 2>&1 ||
    { echo "cluster $dir: ps is not installed (procps): cannot wait for walload's calibration worker" >&2; return 1; }
  until ps -o args= --ppid "$pm" 2>/dev/null | grep -q 'walload calibration idle'; do
    if [ $SECONDS -ge $deadline ]; then
      echo "cluster $dir: walload's calibration worker was not idle within ${cluster_calibration_timeout:-300} s" >&2
      return 1
    fi
    sleep 0.1
  done
}

cluster_stop() {
  local dir=$1 x r=()
  cluster__bindir || return 1
  if [ -f "$dir/data/postmaster.pid" ]; then
    cluster_as_pg "$cluster_bindir/pg_ctl" -D "$dir/data" -m fast -w -t "$cluster_stop_timeout" stop >/dev/null 2>&1 ||
      cluster_as_pg "$cluster_bindir/pg_ctl" -D "$dir/data" -m immediate -w -t "$cluster_stop_timeout" stop >/dev/null 2>&1
  fi
  for x in "${cluster_started[@]}"; do [ "$x" = "$dir" ] || r+=("$x"); done
  cluster_started=("${r[@]}")
  [ ! -f "$dir/data/postmaster.pid" ]
}

cluster_stop_all() {
  local d
  cluster__bindir || return 1
  for d in "${cluster_started[@]}"; do
    cluster_as_pg "$cluster_bindir/pg_ctl" -D "$d/data" -m immediate -w -t "$cluster_stop_timeout" stop >/dev/null 2>&1
  done
  cluster_started=()
}

cluster_log_tail() {
  local dir=$1 n=${2:-30} log=${3:-$1/server.log}
  echo "--- server log of $dir (last $n lines)"
  tail -n "$n" "$log" 2>/dev/null
}

# As a program (scripts/lib/cluster.py calls it so): cluster.sh FUNCTION ARG...
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case ${1:-} in
    cluster_init|cluster_config|cluster_clone|cluster_start|cluster_stop|cluster_log_tail) "$@"; exit $? ;;
    *) echo "usage: $0 {cluster_init|cluster_config|cluster_clone|cluster_start|cluster_stop|cluster_log_tail} DIR ..." >&2; exit 2 ;;
  esac
fi
