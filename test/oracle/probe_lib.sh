# test/oracle/probe_lib.sh: what a uprobe counting script needs, sourced
# from the repository's root (pending_reads.sh, apply_calls.sh):
#
#   . test/oracle/probe_lib.sh "NAME"
#
# sources scripts/lib/tap.sh and scripts/lib/cluster.sh, and sets bindir,
# binary (the server) and lib (walload.so); a script that cannot run here
# (not root, no bpftrace, no postgres user, walload not installed) prints
# TAP's skip line for NAME and exits 0.
. scripts/lib/tap.sh
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
