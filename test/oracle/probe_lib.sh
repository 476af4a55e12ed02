# test/oracle/probe_lib.sh: what a uprobe counting script needs, sourced
# from the repository's root (pending_reads.sh, apply_calls.sh):
#
#   . test/oracle/probe_lib.sh "NAME"
#
# sources scripts/lib/tap.sh and scripts/lib/cluster.sh, and sets bindir,
# binary (the server) and lib (walload.so); a script that cannot run here
# (not root, no bpftrace, no postgres user, walload not installed) prints
# TAP's skip line for NAME and exits 0.  probe_tmp TAG makes tmp (a
# directory the postgres user can use) and the EXIT trap that stops
# bpftrace (bt_pid) and the clusters and removes tmp unless KEEP is set;
# psql_on DIR ARGS... runs psql on the cluster whose socket is in DIR;
# wait_for DIR SQL WHAT waits, up to probe_wait_seconds (default 300), for
# SQL on DIR to return "t", and bails out naming WHAT.
. scripts/lib/tap.sh
probe_name=$1
export PG_CONFIG=${PG_CONFIG:-pg_config}
probe_skip() { tap_skip_all "$1: $2"; exit 0; }
[ "$(id -u)" = 0 ] || probe_skip "$1" "needs root (uprobes)"
command -v bpftrace >/dev/null 2>&1 || probe_skip "$1" "bpftrace is not installed"
id postgres >/dev/null 2>&1 || probe_skip "$1" "no postgres OS user"
bindir=$("$PG_CONFIG" --bindir 2>/dev/null) || probe_skip "$1" "no pg_config"
binary=$bindir/postgres
lib=$("$PG_CONFIG" --pkglibdir)/walload.so
[ -e "$lib" ] || probe_skip "$1" "walload is not installed"
. scripts/lib/cluster.sh
cluster_bindir=$bindir
probe_tmp() {
  tmp=$(mktemp -d "/tmp/walload-$1.XXXXXX") || exit 1
  chmod 755 "$tmp"; chown postgres "$tmp"
  bt_pid=""
  trap 'probe_cleanup' EXIT
}
probe_cleanup() { [ -n "$bt_pid" ] && kill -INT "$bt_pid" 2>/dev/null; cluster_stop_all; [ -n "${KEEP:-}" ] || rm -rf "$tmp"; }
psql_on() { local dir=$1; shift; cluster_as_pg "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$dir" -p 5432 -U postgres -d postgres "$@"; }
wait_for() {
  local dir=$1 q=$2 what=$3 deadline=$((SECONDS + ${probe_wait_seconds:-300}))
  until [ "$(psql_on "$dir" -c "$q" 2>/dev/null)" = t ]; do
    [ $SECONDS -lt $deadline ] || tap_bail "$probe_name: timed out waiting for $what"
    sleep 0.2
  done
}
