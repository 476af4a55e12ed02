#!/usr/bin/env bash
# walload: every test, one command.
#
#   scripts/test.sh
#
# 1. scripts/deps.sh installs what is missing (apt-get as root, sudo otherwise)
# 2. builds walload with PGXS and installs it (as root, or with sudo)
#    then checks that src/ calls only down its layers (scripts/check-layers.sh)
# 3. pg_regress (sql/, expected/) and isolation tests (specs/, expected/)
#    with `make installcheck`
# 4. pgTAP (test/pgtap/*.sql, pg_prove), each file in the clusters its
#    "-- clusters:" line names (see CLUSTERS below)
# 5. TAP (test/t/*.pl, PostgreSQL::Test::Cluster, prove)
# 6. PostgreSQL's own regression suite with walload preloaded, compared with
#    the same suite without it (test/core-regress.sh, prove; ~1 minute)
# 7. the uprobe oracle (test/oracle/run.sh, prove), when it is there; then
#    (issue 15, also in the matrix chroots):
#    fuzz      the random load generator judged by the oracle and by
#              pg_stat_statements (test/fuzz/run.sh, fixed seeds, ~30 s)
#    sqlsmith  SQLsmith against walload (test/sqlsmith/sqlsmith.pl, 3000
#              queries, ~30 s)
#    faults    a disk that fills during COPY and CREATE INDEX (a small tmpfs,
#              test/faults/run-diskfull.sh, ~10 s)
#    size      transactions of 1,000,000 statements and 40,000 tables
#              (test/faults/size.pl, ~25 s)
#    tools     scripts/report.py and scripts/timeline.py as a plain role,
#              a pg_read_all_stats member and a superuser; a clear error
#              for a role that may not read the views (test/tools.sh, ~20 s)
# 8. how users get and watch walload, on the host only (not in the matrix
#    chroots), each a TAP script run with prove:
#    package   the Debian packages: dpkg-buildpackage, lintian, dpkg -i, the
#              autopkgtest, a smoke load (test/package.sh)
#    pgxn      META.json against PGXN's validator, CHANGELOG.md, make dist;
#              the docs' commands' run bits and versions (test/pgxn.sh)
#    exporter  prometheus-postgres-exporter with prometheus/walload_queries.yaml
#              and query-exporter with prometheus/walload_query_exporter.yaml,
#              scraped by Prometheus: the values equal the views'; the
#              dashboard's queries answer (test/exporter.py)
#    timeline  scripts/timeline.py on the demo's load, in headless Chromium
#              (test/timeline.py)
#    fresh     the README's and docs' commands as written (demo, package
#              build, install, upgrade, removal) in a fresh minimal Debian
#              12 chroot, from a clone in /root of mode 0700 (test/fresh.sh)
# 9. the same suites on PostgreSQL 16, 17, 18 and 19 (scripts/matrix/run.sh)
# 10. "N passed, N failed" (test files and suites); exit status 1 if any failed
#
# Every cluster is a throwaway one, made by scripts/lib/cluster.sh: initdb in
# a temporary directory, owned by the postgres OS user when run as root,
# reached only through a Unix socket in that directory (no TCP port, so
# nothing else running here can interfere).
# What the postgres user reads (the TAP test files) is copied there first:
# the checkout may be one it cannot read (a clone in root's home).
# A suite that cannot run says so loudly; with CI=true that is a failure.
#
# Environment:
#   PG_CONFIG           default /usr/lib/postgresql/15/bin/pg_config
#   WALLOAD_TESTS       which suites, default "layers regress pgtap tap core
#                       oracle fuzz sqlsmith faults size tools package pgxn
#                       exporter timeline fresh matrix"
#   WALLOAD_KEEP=1      keep the temporary directory (clusters, logs)
#   WALLOAD_NO_MATRIX=1 only the host's version: skip 16, 17, 18 and 19, which
#                       scripts/matrix/run.sh runs in Debian chroots (a few
#                       GB each, made the first time; docs/versions.md has
#                       the last run's times)
#   WALLOAD_MATRIX_VERSIONS  default "16 17 18 19"
#   WALLOAD_TIMEOUT     seconds one test file or suite may take (default 900;
#                       the oracle gets 4 times that): a hang is a failure
#   CI=true             a suite that cannot run counts as failed
#   WALLOAD_TAP_FILE    also write each suite's result there as TAP, for
#                       programs (scripts/matrix/run.sh reads it): "ok N - NAME",
#                       "not ok N - NAME (why)", "ok N - NAME # SKIP cannot
#                       run: why", and the plan last, once every suite ran
#                       (a file without a plan is from a run that died)
set -uo pipefail
# what this creates for the postgres user to read must be readable by it,
# whatever the caller's umask (077 is common with a private home)
umask 022

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 1
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
suites=${WALLOAD_TESTS:-layers regress pgtap tap core oracle fuzz sqlsmith faults size tools package pgxn exporter timeline fresh matrix}
# suites of the host's Debian system: not run in the matrix chroots, which
# set WALLOAD_IN_MATRIX
host_only="package pgxn exporter timeline fresh"
limit=${WALLOAD_TIMEOUT:-900}
ci=false; [ "${CI:-}" = true ] && ci=true
. scripts/lib/tap.sh
. scripts/lib/cluster.sh

# the results: banners for people; TAP in $WALLOAD_TAP_FILE for programs
tap_file=${WALLOAD_TAP_FILE:-/dev/null}
: >"$tap_file" || { echo "cannot write WALLOAD_TAP_FILE=$tap_file"; exit 1; }
passed=0; failed=0; failures=(); cannot=()
t0=$SECONDS; tmark=$SECONDS
banner() { printf '\n==== %s\n' "$*"; tmark=$SECONDS; }
took()   { echo "$((SECONDS - tmark))s"; }
pass()   { passed=$((passed + 1)); echo "==== $1: ok ($(took))"; tap_ok "$1"; }
fail()   {
  failed=$((failed + 1)); failures+=("$1"); echo "==== $1: FAILED${2:+ ($2)} ($(took))"
  tap_not_ok "$1${2:+ ($2)}"
}
# a suite that cannot run: never silent; a failure under CI=true
cannot_run() {
  echo "!!!!"
  echo "!!!! $1: CANNOT RUN: $2"
  echo "!!!!"
  if $ci; then fail "$1" "cannot run under CI=true: $2"; else cannot+=("$1 ($2)"); tap_skip "$1" "cannot run: $2"; fi
}
summary() {
  echo
  echo "==== summary"
  local f
  for f in "${failures[@]}"; do echo "FAILED: $f"; done
  for f in "${cannot[@]}"; do echo "COULD NOT RUN (not counted; a failure with CI=true): $f"; done
  echo "total time $((SECONDS - t0))s"
  echo "$passed passed, $failed failed"
  tap_done
  exit $?
}
wants() {
  case " $suites " in *" $1 "*) ;; *) return 1 ;; esac
  if [ -n "${WALLOAD_IN_MATRIX:-}" ]; then
    case " $host_only " in *" $1 "*) return 1 ;; esac
  fi
  return 0
}
[ -n "${WALLOAD_IN_MATRIX:-}" ] && echo "note: $host_only run on the host only, not here (PostgreSQL ${WALLOAD_IN_MATRIX} in a chroot)"

if [ "$(id -u)" = 0 ]; then
  as_root() { "$@"; }
elif command -v sudo >/dev/null 2>&1; then
  as_root() { sudo "$@"; }
else
  as_root() { "$@"; }
fi

# ------------------------------------------------------------ 1. dependencies
banner "dependencies (scripts/deps.sh)"
# what the host-only suites need too, for those that will run
deps_suites=""
for s in $host_only; do wants "$s" && deps_suites="$deps_suites $s"; done
if WALLOAD_DEPS_SUITES="$deps_suites" bash scripts/deps.sh; then echo "all present"; else fail "dependencies"; summary; fi
if ! major=$("$PG_CONFIG" --version 2>/dev/null | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p') || [ -z "$major" ]; then
  fail "dependencies" "no usable pg_config at $PG_CONFIG"; summary
fi
bindir=$("$PG_CONFIG" --bindir)
pgxs_top=$(dirname "$(dirname "$("$PG_CONFIG" --pgxs)")")   # .../lib/pgxs/src
export PATH="$bindir:$PATH"
echo "PostgreSQL $major ($("$bindir/postgres" --version)), pg_config $PG_CONFIG"

# ------------------------------------------------------- 2. build and install
banner "build and install walload"
if make -s PG_CONFIG="$PG_CONFIG" >/tmp/walload-build.$$.log 2>&1 &&
   as_root make -s PG_CONFIG="$PG_CONFIG" install >>/tmp/walload-build.$$.log 2>&1; then
  grep -i 'warning' /tmp/walload-build.$$.log || true
  rm -f /tmp/walload-build.$$.log
  pass "build and install"
else
  cat /tmp/walload-build.$$.log; rm -f /tmp/walload-build.$$.log
  fail "build and install"; summary
fi

# --------------------------------------------------------------- clusters
# As root, the clusters and the TAP tests run as the postgres OS user, who
# may not be able to read this checkout (a clone in root's home, mode 0700):
# whatever they read is copied into $work, and they run in $work.  To keep it
# so, they run with the checkout hidden (an empty directory of mode 0700
# mounted over it, in a mount namespace of their own), as in such a clone,
# wherever this one is: a test that reads the checkout as postgres fails here.
work=$(mktemp -d /tmp/walload-test.XXXXXX) || { fail "temporary directory"; summary; }
chmod 755 "$work"
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || { fail "clusters" "running as root but there is no postgres OS user"; summary; }
  chown postgres "$work"
  hide='mount -t tmpfs -o mode=0700,size=16k walload-checkout-hidden "$0" && cd "$1" && shift && exec "$@"'
  if unshare -m --propagation private sh -c "$hide" "$here" "$work" true 2>/dev/null; then
    pg_as=(unshare -m --propagation private sh -c "$hide" "$here" "$work" runuser -u postgres --)
  else
    echo "note: cannot hide the checkout from the postgres user (no mount namespace here): not checked that the tests do not read it"
    pg_as=(env -C "$work" runuser -u postgres --)
  fi
else
  pg_as=()
fi
as_pg() { "${pg_as[@]}" "$@"; }
cluster_pg_as=("${pg_as[@]}")
cluster_bindir=$bindir
cleanup() {
  cluster_stop_all
  if [ "${WALLOAD_KEEP:-}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The configurations the tests need, one setting a line, on top of what
# every cluster has (scripts/lib/cluster.sh: autovacuum off, fsync on, C
# locale, no TCP) and of TEST_SETTINGS.
TEST_SETTINGS=("max_prepared_transactions = 5" "log_min_messages = warning")
declare -A CLUSTERS=(
  [regress]="shared_preload_libraries='walload,pg_stat_statements'"
  [minimal]="shared_preload_libraries='walload,pg_stat_statements'
wal_level=minimal
max_wal_senders=0"
  [replica]="shared_preload_libraries='pg_stat_statements,walload'
wal_level=replica"
  [rings]="shared_preload_libraries='walload,pg_stat_statements'
walload.max_xacts=10
walload.max_statements=100
walload.max_stats=100"
  [smallbuf]="shared_preload_libraries='walload'
shared_buffers=16MB"
)

# test_cluster_start NAME: a new cluster $work/NAME of that configuration,
# started; PGHOST/PGPORT/PGUSER/PGDATABASE address it
test_cluster_start() {
  local name=$1 settings=()
  [ -n "${CLUSTERS[$name]+x}" ] || { echo "no cluster configuration named $name"; return 1; }
  mapfile -t settings <<<"${CLUSTERS[$name]}"
  cluster_init "$work/$name" "${TEST_SETTINGS[@]}" "${settings[@]}" 2>&1 &&
    cluster_start "$work/$name" 2>&1 || return 1
  echo "cluster $name: $(psql -X -At -c "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings
        WHERE name IN ('shared_preload_libraries', 'wal_level', 'shared_buffers') OR name LIKE 'walload.max%'")"
}
test_cluster_stop() {
  cluster_stop "$work/$1"
  unset PGHOST PGPORT PGUSER PGDATABASE
}

# tap_suite NAME COMMAND...: run a TAP harness (prove, pg_prove); passed,
# failed, or -- when it ran no test ("1..0 # SKIP why", shown by prove as
# "skipped: why") -- could not run, which is a failure under CI=true
tap_suite() {
  local name=$1 out rc why; shift
  out=$(mktemp "$work/tap-output.XXXXXX")
  "$@" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 124 ]; then
    fail "$name" "timed out (WALLOAD_TIMEOUT)"; return 1
  elif [ "$rc" -ne 0 ]; then
    fail "$name"; return 1
  elif grep -qE '^Result: NOTESTS|^1\.\.0|\.\. skipped:' "$out"; then
    why=$(sed -nE 's/.*\.\. skipped: *//p; s/^1\.\.0 *# *[Ss][Kk][Ii][Pp] *//p' "$out" | head -1)
    cannot_run "$name" "it ran no test: ${why:-no reason given}"; return 1
  fi
  pass "$name"
}

# ------------------------------------------- data flows one way through src/
if wants layers; then
  banner "layers of src/ (scripts/check-layers.sh, docs/architecture.md)"
  if ! command -v nm >/dev/null 2>&1; then
    cannot_run "layers" "nm is not installed (binutils)"
  else
    tap_suite "layers" timeout "$limit" prove -v --exec bash scripts/check-layers.sh
  fi
fi

# ---------------------------------------------------------------- 3. pg_regress
if wants regress; then
  banner "pg_regress and isolation (sql/, specs/, expected/)"
  if test_cluster_start regress; then
    rm -rf results regression.diffs regression.out output_iso
    if timeout "$limit" make -s PG_CONFIG="$PG_CONFIG" installcheck; then
      pass "pg_regress"
    else
      [ -f regression.diffs ] && cat regression.diffs
      [ -f output_iso/regression.diffs ] && cat output_iso/regression.diffs
      cluster_log_tail "$work/regress"
      fail "pg_regress"
    fi
    test_cluster_stop regress
  else
    fail "pg_regress" "its cluster did not start"
  fi
fi

# ---------------------------------------------------------------- 4. pgTAP
# Each file names its clusters on a line "-- clusters: NAME ...".
if wants pgtap; then
  banner "pgTAP (test/pgtap/*.sql)"
  files=(test/pgtap/*.sql)
  if ! command -v pg_prove >/dev/null 2>&1; then
    cannot_run "pgTAP" "pg_prove is not installed (libtap-parser-sourcehandler-pgtap-perl)"
  elif [ ! -e "$("$PG_CONFIG" --sharedir)/extension/pgtap.control" ]; then
    cannot_run "pgTAP" "the pgtap extension is not installed (postgresql-$major-pgtap)"
  elif [ ! -e "${files[0]}" ]; then
    fail "pgTAP" "no test files in test/pgtap/"
  else
    declare -A by_cluster=()
    for f in "${files[@]}"; do
      cl=$(sed -nE 's/^-- clusters: *//p' "$f" | head -1)
      if [ -z "$cl" ]; then fail "pgTAP $(basename "$f")" "no '-- clusters:' line: it would never run"; continue; fi
      for c in $cl; do
        if [ -z "${CLUSTERS[$c]+x}" ]; then fail "pgTAP $(basename "$f")" "unknown cluster $c"; continue; fi
        by_cluster[$c]+="$f "
      done
    done
    for c in minimal replica rings smallbuf regress; do
      [ -n "${by_cluster[$c]:-}" ] || continue
      banner "pgTAP on cluster $c"
      if ! test_cluster_start "$c"; then
        for f in ${by_cluster[$c]}; do fail "pgTAP $c $(basename "$f")" "cluster did not start"; done
        continue
      fi
      for f in ${by_cluster[$c]}; do
        db="t_$(basename "$f" .sql)"
        createdb "$db" || { fail "pgTAP $c $(basename "$f")" "createdb"; continue; }
        tmark=$SECONDS
        tap_suite "pgTAP $c $(basename "$f")" timeout "$limit" pg_prove -v -d "$db" "$f"
      done
      test_cluster_stop "$c"
    done
  fi
fi

# ---------------------------------------------------------------- 5. TAP
# PostgreSQL::Test::Cluster refuses to run as root: as root, run as postgres.
if wants tap; then
  banner "TAP (test/t/*.pl, PostgreSQL::Test::Cluster)"
  if [ ! -e "$pgxs_top/test/perl/PostgreSQL/Test/Cluster.pm" ]; then
    cannot_run "TAP" "PostgreSQL::Test::Cluster is not installed ($pgxs_top/test/perl)"
  elif ! perl -MIPC::Run -e 1 2>/dev/null; then
    cannot_run "TAP" "IPC::Run is not installed (libipc-run-perl)"
  elif ! ls test/t/*.pl >/dev/null 2>&1; then
    fail "TAP" "no test files in test/t/"
  else
    # the test files, where the postgres user can read them (see "clusters")
    mkdir -p "$work/t" && cp test/t/*.pl test/t/*.pm "$work/t/" && chmod -R a+rX "$work/t" ||
      { fail "TAP" "cannot copy test/t to $work/t"; summary; }
    for t in "$work"/t/*.pl; do
      # a file marked "# matrix: once" tests only walload's own code (its
      # file format, its rings), the same on every version: in the matrix it
      # runs on the last version alone, which with the host's makes two
      if [ -n "${WALLOAD_IN_MATRIX:-}" ] && [ "${WALLOAD_MATRIX_LAST:-}" != "$WALLOAD_IN_MATRIX" ] &&
         grep -q '^# matrix: once' "$t"; then
        echo "note: $(basename "$t") runs on ${WALLOAD_MATRIX_LAST:-the last version} and the host only (# matrix: once)"
        continue
      fi
      tdir="$work/tap-$(basename "$t" .pl)"
      as_pg mkdir -p "$tdir"
      tmark=$SECONDS
      if ! tap_suite "TAP $(basename "$t")" \
           timeout "$limit" "${pg_as[@]}" env -C "$tdir" PATH="$bindir:$PATH" TESTDIR="$tdir" \
             PG_REGRESS="$pgxs_top/test/regress/pg_regress" PERL5LIB="$pgxs_top/test/perl" \
             prove -v "$t"; then
        for l in "$tdir"/tmp_check/log/*.log; do
          [ -f "$l" ] && { echo "--- $l (last 40 lines)"; tail -40 "$l"; }
        done
      fi
    done
  fi
fi

# ----------------------------------------------- 6. PostgreSQL's own suite
if wants core; then
  banner "PostgreSQL's own regression suite, with and without walload (test/core-regress.sh)"
  if [ ! -e test/core-regress.sh ]; then
    cannot_run "core regression suite" "test/core-regress.sh does not exist"
  elif [ "$(id -u)" != 0 ]; then
    cannot_run "core regression suite" "needs root (apt-get source, runuser)"
  else
    tap_suite "core regression suite" timeout "$limit" prove -v --exec bash test/core-regress.sh
  fi
fi

# ---------------------------------------------------------------- 7. oracle
if wants oracle; then
  banner "uprobe oracle (test/oracle/run.sh)"
  if [ ! -e test/oracle/run.sh ]; then
    cannot_run "uprobe oracle" "test/oracle/run.sh does not exist"
  else
    tap_suite "uprobe oracle" timeout "$((4 * limit))" prove -v --exec bash test/oracle/run.sh
  fi
fi

# ------------------------------------------- 7b. random loads, SQLsmith, faults
# Each bounded by timeout; each prints TAP.  The fuzz suite is the oracle's
# (root, bpftrace); the others are PostgreSQL::Test::Cluster files run as
# the postgres user from a copy (test/tap-as-postgres.sh).
if wants fuzz; then
  banner "random load generator, judged by the uprobe oracle and pg_stat_statements (test/fuzz/run.sh)"
  tap_suite "fuzz" timeout "$limit" prove -v --exec bash test/fuzz/run.sh
fi
if wants sqlsmith; then
  banner "SQLsmith against walload (test/sqlsmith/sqlsmith.pl)"
  tap_suite "sqlsmith" timeout "$limit" bash test/tap-as-postgres.sh test/sqlsmith/sqlsmith.pl
fi
if wants faults; then
  banner "a full disk during COPY and CREATE INDEX (test/faults/run-diskfull.sh)"
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
    cannot_run "faults" "needs root or sudo (mounts a small tmpfs)"
  else
    tap_suite "faults" as_root timeout "$limit" bash test/faults/run-diskfull.sh
  fi
fi
if wants size; then
  banner "a transaction of 1,000,000 statements and one of 40,000 tables (test/faults/size.pl)"
  tap_suite "size" timeout "$limit" bash test/tap-as-postgres.sh test/faults/size.pl
fi

# ------------------------------------------- 7c. the tools, as the roles that use them
if wants tools; then
  banner "scripts/report.py and scripts/timeline.py as a plain role, pg_read_all_stats, a superuser (test/tools.sh)"
  tap_suite "tools" timeout "$limit" prove -v --exec bash test/tools.sh
fi

# ------------------------------------------- 8. packages, PGXN, metrics, picture
# Each bounded by WALLOAD_TIMEOUT or less; together about 2 minutes.
short=$((limit < 300 ? limit : 300))
if wants package; then
  banner "Debian packages: dpkg-buildpackage, lintian, dpkg -i, autopkgtest, smoke load (test/package.sh)"
  if [ "$(id -u)" != 0 ]; then
    cannot_run "package" "needs root (dpkg -i)"
  else
    tap_suite "package" timeout "$((limit < 600 ? limit : 600))" prove -v --exec bash test/package.sh
  fi
fi
if wants pgxn; then
  banner "PGXN: META.json, CHANGELOG.md, make dist (test/pgxn.sh)"
  tap_suite "pgxn" timeout "$short" prove -v --exec bash test/pgxn.sh
fi
if wants exporter; then
  banner "Prometheus: prometheus-postgres-exporter, query-exporter, prometheus, the dashboard (test/exporter.py)"
  if [ "$(id -u)" != 0 ]; then
    cannot_run "exporter" "needs root (its cluster runs as the postgres OS user)"
  else
    tap_suite "exporter" timeout "$short" prove -v --exec python3 test/exporter.py
  fi
fi
if wants timeline; then
  banner "the timeline of the demo's load in headless Chromium (test/timeline.py)"
  if [ "$(id -u)" != 0 ]; then
    cannot_run "timeline" "needs root (scripts/demo.sh, pg_virtualenv)"
  else
    tap_suite "timeline" timeout "$short" prove -v --exec python3 test/timeline.py
  fi
fi

if wants fresh; then
  banner "the README's and docs' commands in a fresh Debian 12 chroot (test/fresh.sh)"
  if [ "$(id -u)" != 0 ]; then
    cannot_run "fresh" "needs root (debootstrap, chroot)"
  else
    tap_suite "fresh" timeout "$((limit < 1800 ? 1800 : limit))" prove -v --exec bash test/fresh.sh
  fi
fi

# ------------------------------------------------- 9. other major versions
if wants matrix && [ "${WALLOAD_NO_MATRIX:-}" != 1 ]; then
  banner "PostgreSQL ${WALLOAD_MATRIX_VERSIONS:-16 17 18 19} (scripts/matrix/run.sh)"
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
    cannot_run "matrix" "needs root or sudo (debootstrap, chroot)"
  else
    tap_suite "matrix" timeout "$((6 * limit))" bash scripts/matrix/run.sh ${WALLOAD_MATRIX_VERSIONS:-16 17 18 19}
  fi
fi

summary
