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
#    exporter  the collector files regenerated from prometheus/metrics.yaml;
#              prometheus-postgres-exporter and query-exporter with theirs,
#              scraped by Prometheus: the values equal the views'; promtool
#              test rules; the dashboard's queries answer (test/exporter.py,
#              run by Debian's /usr/bin/python3: python3-yaml,
#              python3-prometheus-client, python3-pil)
#    timeline  scripts/timeline.py on the demo's load, in headless Chromium
#              (test/timeline.py)
#    fresh     the README's and docs' commands as written (demo, package
#              build, install, upgrade, removal) in a fresh minimal Debian
#              12 chroot, from a clone in /root of mode 0700 (test/fresh.sh)
# 9. cassert: layers, pg_regress and isolation, pgTAP and TAP again (less
#    the files marked "# cassert: no"), against PostgreSQL 15 built with
#    assertions (--enable-cassert) from Debian's source package by
#    scripts/cassert.sh, once, kept in /var/cache/walload (its build starts
#    in the background, niced, once the dependencies are in: the first run
#    builds PostgreSQL, later ones keep it); on the host only, in the
#    background beside the matrix, its results after the matrix's;
#    WALLOAD_CASSERT_TESTS names its suites
# 10. the same suites on PostgreSQL 16, 17, 18 and 19 (scripts/matrix/run.sh,
#    two versions at a time), whose chroots are prepared in the background
#    (downloads, mostly) while the host's suites run
# 11. each suite's time, then "N passed, N failed" (test files and suites);
#    exit status 1 if any failed
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
#                       exporter timeline fresh cassert matrix"
#   WALLOAD_KEEP=1      keep the temporary directory (clusters, logs)
#   WALLOAD_NO_MATRIX=1 only the host's version: skip 16, 17, 18 and 19, which
#                       scripts/matrix/run.sh runs in Debian chroots (a few
#                       GB each, made the first time; docs/versions.md has
#                       the last run's times)
#   WALLOAD_MATRIX_VERSIONS  default "16 17 18 19"
#   WALLOAD_MATRIX_JOBS versions of the matrix run at a time (default 2)
#   WALLOAD_FULL=1      the release run: every TAP file on every version and
#                       with assertions, fuzz, sqlsmith, faults and size on
#                       every version, core's suite on every version that
#                       has a source (docs/versions.md, "Which suites run
#                       where": what CI leaves out, and why)
#   WALLOAD_FRESH_FOREGROUND=1  the fresh suite in its place, not in the
#                       background from the build on
#   WALLOAD_MATRIX_CORE_VERSIONS  the matrix versions PostgreSQL's own
#                       regression suite runs on (default "18"; the host
#                       always runs it)
#   WALLOAD_TIMEOUT     seconds one test file or suite may take (default 900;
#                       the oracle gets 4 times that): a hang is a failure
#   WALLOAD_TAP_JOBS    TAP files, and pgTAP's clusters, run at a time
#                       (default 2; 1: one after the other)
#   WALLOAD_CASSERT_TESTS  the suites of the cassert suite (default "layers
#                       regress pgtap tap")
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
suites=${WALLOAD_TESTS:-layers regress pgtap tap core oracle fuzz sqlsmith faults size tools package pgxn exporter timeline fresh cassert matrix}
# suites of the host's Debian system: not run in the matrix chroots, which
# set WALLOAD_IN_MATRIX
host_only="package pgxn exporter timeline fresh cassert"
# suites whose verdict rests on walload's own code or on a compat.h branch
# that 15 and the last version cover between them (docs/versions.md, "Which
# suites run where"): in the matrix they run on its last version alone
matrix_once="fuzz sqlsmith faults size"
# PostgreSQL's own regression suite runs walload under all of core's
# statements: what it can find that the other suites do not is a hook
# signature or executor path of a version.  In the matrix it runs on these
# versions only (docs/versions.md, "Which suites run where"): 18, the newest
# whose source Debian's mirror serves and the first with 18's ExecutorRun
# hook (16 has no source package, 19's is not served; 17's differences are
# names that every other suite runs through)
matrix_core=${WALLOAD_MATRIX_CORE_VERSIONS-18}
# WALLOAD_FULL=1, the release run: every suite and TAP file everywhere it
# can run (no "# matrix: once", no "# cassert: no", the matrix's once-only
# suites on every version, core's suite on every version with a source)
full=false
if [ "${WALLOAD_FULL:-}" = 1 ]; then
  full=true; matrix_once=""; matrix_core=${WALLOAD_MATRIX_CORE_VERSIONS-16 17 18 19}
fi
limit=${WALLOAD_TIMEOUT:-900}
ci=false; [ "${CI:-}" = true ] && ci=true
. scripts/lib/tap.sh
. scripts/lib/cluster.sh

# the results: banners for people; TAP in $WALLOAD_TAP_FILE for programs
tap_file=${WALLOAD_TAP_FILE:-/dev/null}
: >"$tap_file" || { echo "cannot write WALLOAD_TAP_FILE=$tap_file"; exit 1; }
passed=0; failed=0; failures=(); cannot=()
t0=$SECONDS; tmark=$SECONDS
# each result's time, "GROUP<TAB>SECONDS<TAB>NAME", for the summary; also in
# the TAP file as "# time N s: NAME" (scripts/matrix/run.sh relays them)
timings=()
banner() { printf '\n==== %s\n' "$*"; tmark=$SECONDS; }
took()   { echo "$((SECONDS - tmark))s"; }
timed()  {
  timings+=("${timing_group:-host}"$'\t'"$((SECONDS - tmark))"$'\t'"$1")
  tap_diag "time $((SECONDS - tmark)) s: $1"
}
pass()   { passed=$((passed + 1)); echo "==== $1: ok ($(took))"; timed "$1"; tap_ok "$1"; }
fail()   {
  failed=$((failed + 1)); failures+=("$1"); echo "==== $1: FAILED${2:+ ($2)} ($(took))"
  timed "$1"; tap_not_ok "$1${2:+ ($2)}"
}
# a suite that cannot run: never silent; a failure under CI=true
cannot_run() {
  echo "!!!!"
  echo "!!!! $1: CANNOT RUN: $2"
  echo "!!!!"
  if $ci; then fail "$1" "cannot run under CI=true: $2"; else cannot+=("$1 ($2)"); timed "$1"; tap_skip "$1" "cannot run: $2"; fi
}
# the times, a line per suite (pgTAP's and TAP's files summed, with their
# number), grouped by where they ran, each group in the order it ran
print_timings() {
  [ ${#timings[@]} -gt 0 ] || return 0
  printf '%s\n' "${timings[@]}" | awk -F'\t' '
    { name = $3
      sub(/^cassert: /, "", name)
      fam = name
      if (fam ~ /^pgTAP /) fam = "pgTAP"; else if (fam ~ /^TAP /) fam = "TAP"
      else if (fam ~ /regression suite/) fam = "core regression suite"
      if (!($1 in seen)) { seen[$1] = 1; groups[++ng] = $1 }
      k = $1 SUBSEP fam
      if (!(k in secs)) order[$1, ++nf[$1]] = fam
      secs[k] += $2; files[k]++; total[$1] += $2 }
    END {
      for (g = 1; g <= ng; g++) {
        G = groups[g]; printf "%s: %d s\n", G, total[G]
        for (i = 1; i <= nf[G]; i++) {
          f = order[G, i]; k = G SUBSEP f
          printf "  %6d s  %s%s\n", secs[k], f, (files[k] > 1 ? " (" files[k] " files)" : "")
        }
      } }'
}
summary() {
  echo
  echo "==== time per suite${tap_jobs:+ (TAP files ran $tap_jobs at a time: their sum is more than the time they took)}"
  print_timings
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
    if [ "$1" = core ]; then
      case " $matrix_core " in
        *" $WALLOAD_IN_MATRIX "*) ;;
        *) echo "note: core's regression suite runs on the host and on ${matrix_core:-no version} of the matrix, not on $WALLOAD_IN_MATRIX (WALLOAD_MATRIX_CORE_VERSIONS)"; return 1 ;;
      esac
    fi
    if [ "${WALLOAD_MATRIX_LAST:-}" != "$WALLOAD_IN_MATRIX" ]; then
      case " $matrix_once " in
        *" $1 "*) echo "note: $1 runs on ${WALLOAD_MATRIX_LAST:-the last version} and the host only, not on $WALLOAD_IN_MATRIX"; return 1 ;;
      esac
    fi
  fi
  # the cassert suite's own run of this script: never again, nor the matrix
  if [ -n "${WALLOAD_IN_CASSERT:-}" ]; then
    case $1 in cassert|matrix) return 1 ;; esac
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
timing_group="PostgreSQL $major${WALLOAD_IN_CASSERT:+ with assertions}${WALLOAD_IN_MATRIX:+ (chroot)}"
[ "${WALLOAD_IN_MATRIX:-}${WALLOAD_IN_CASSERT:-}" ] || timing_group="$timing_group (host)"

# ------------------------------------------ work that can start meanwhile
# Two long preparations wait mostly on something other than this machine's
# CPU, so they start now, in the background, and the suites that need them
# wait for them (each bounded by timeout, so no wait is without bound):
# - the matrix chroots (debootstrap, apt: downloads), scripts/matrix/run.sh
#   --prepare, for the matrix suite
# - PostgreSQL 15 with assertions (scripts/cassert.sh, niced: a compiler on
#   the cores the suites leave idle while they wait on servers), for the
#   cassert suite; its source is fetched first, in the foreground, before
#   test/core-regress.sh wants the same source and apt
bg_dir=$(mktemp -d /tmp/walload-bg.XXXXXX) || { fail "temporary directory"; summary; }
bg_pids=(); tap_running=()
matrix_prep_pid=""; cassert_pid=""; cassert_run_pid=""
bg_stop() {  # at exit: those still running (each a timeout, which takes its group with it)
  local p
  for p in "${bg_pids[@]}" "${tap_running[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${bg_pids[@]}" "${tap_running[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$bg_dir"
}
bg_wait() {  # bg_wait PID: its exit status, once it ended (it is bounded)
  local rc p keep=()
  wait "$1"; rc=$?
  for p in "${bg_pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  bg_pids=("${keep[@]}")
  return $rc
}
trap bg_stop EXIT
if wants matrix && [ "${WALLOAD_NO_MATRIX:-}" != 1 ] && [ "$(id -u)" = 0 ]; then
  timeout "${WALLOAD_MATRIX_PREP_TIMEOUT:-2400}" bash scripts/matrix/run.sh --prepare ${WALLOAD_MATRIX_VERSIONS:-16 17 18 19} \
    >"$bg_dir/matrix-prepare.log" 2>&1 </dev/null &
  matrix_prep_pid=$!; bg_pids+=("$!")
  echo "preparing the matrix chroots in the background (scripts/matrix/run.sh --prepare)"
fi
if wants cassert && [ "$(id -u)" = 0 ] && [ "$major" = 15 ]; then
  if (. scripts/lib/pgsource.sh && pgsource_get 15 "${WALLOAD_CORE_REGRESS_DIR:-/var/tmp/walload-core-regress}") \
       >"$bg_dir/cassert-source.log" 2>&1; then
    nice -n 10 timeout "${WALLOAD_CASSERT_BUILD_TIMEOUT:-2400}" bash scripts/cassert.sh \
      >"$bg_dir/cassert.out" 2>"$bg_dir/cassert.log" </dev/null &
    cassert_pid=$!; bg_pids+=("$!")
    echo "building PostgreSQL 15 with assertions in the background, unless kept (scripts/cassert.sh)"
  else
    echo "could not get PostgreSQL 15's source package: the cassert suite will say so"
  fi
fi

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

# The fresh suite (test/fresh.sh) needs nothing of this run: it clones the
# checkout into a Debian 12 chroot of its own and builds there, waiting
# mostly on debootstrap and apt's downloads.  So it runs in the background
# from here, beside the host's suites, and its verdict is given in its
# place below (WALLOAD_FRESH_FOREGROUND=1: in its place, as before).
fresh_pid=""
if wants fresh && [ "$(id -u)" = 0 ] && [ "${WALLOAD_FRESH_FOREGROUND:-}" != 1 ]; then
  timeout "$((limit < 1800 ? 1800 : limit))" prove -v --exec bash test/fresh.sh \
    >"$bg_dir/fresh.out" 2>&1 </dev/null &
  fresh_pid=$!; bg_pids+=("$!")
  echo "running the fresh suite in the background (test/fresh.sh: its own chroot)"
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
  bg_stop
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
  [bigbuf]="shared_preload_libraries='walload'
shared_buffers=320MB"
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
# "skipped: why") -- could not run, which is a failure under CI=true.  Its
# time is its own, from here: several suites may follow one banner (the
# oracle's three)
tap_suite() {
  local name=$1 out rc; shift
  tmark=$SECONDS
  out=$(mktemp "$work/tap-output.XXXXXX")
  tap_suite_out=$out
  "$@" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  tap_verdict "$name" "$rc" "$out"
}
# background runs of test files (TAP files, pgTAP clusters), each bounded
# by timeout: tap_reap waits for one of them to end and keeps its exit
# status and time (tap_rc, tap_took, by process id)
declare -A tap_started=() tap_took=() tap_rc=()
tap_reap() {
  local done_pid rc keep=() p
  wait -n -p done_pid "${tap_running[@]}"; rc=$?
  [ -n "${done_pid:-}" ] || return 1
  tap_rc[$done_pid]=$rc; tap_took[$done_pid]=$((SECONDS - tap_started[$done_pid]))
  for p in "${tap_running[@]}"; do [ "$p" = "$done_pid" ] || keep+=("$p"); done
  tap_running=("${keep[@]}")
}
# tap_verdict NAME EXIT_STATUS OUTPUT_FILE: tap_suite's verdict on a harness
# that ran
tap_verdict() {
  local name=$1 rc=$2 out=$3 why
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
    # WALLOAD_TAP_JOBS clusters at a time (default 2), as the TAP files
    # below: each cluster is of its own directory and socket, and a
    # cluster's files run one after the other in it as before.  A cluster's
    # run writes each file's output and "EXIT_STATUS SECONDS" beside it;
    # the verdicts are given here, in order, once all ended.
    pgtap_cluster_run() {  # in a subshell of its own
      local c=$1 f base out s rc
      trap cluster_stop_all EXIT
      test_cluster_start "$c" >"$work/pgtap-$c.start" 2>&1 || exit 1
      for f in ${by_cluster[$c]}; do
        base=$(basename "$f" .sql); out="$work/pgtap-$c-$base.out"; s=$SECONDS
        if timeout "$limit" createdb "t_$base" >"$out" 2>&1; then
          timeout "$limit" pg_prove -v -d "t_$base" "$f" >>"$out" 2>&1 </dev/null; rc=$?
        else
          rc=255
        fi
        echo "$rc $((SECONDS - s))" >"$out.rc"
      done
      test_cluster_stop "$c"
    }
    pgtap_jobs=${WALLOAD_TAP_JOBS:-2}
    for c in minimal replica rings smallbuf bigbuf regress; do
      [ -n "${by_cluster[$c]:-}" ] || continue
      while [ "${#tap_running[@]}" -ge "$pgtap_jobs" ]; do tap_reap || break; done
      pgtap_cluster_run "$c" </dev/null &
      tap_started[$!]=$SECONDS; tap_running+=("$!")
    done
    while [ "${#tap_running[@]}" -gt 0 ]; do tap_reap || break; done
    for c in minimal replica rings smallbuf bigbuf regress; do
      [ -n "${by_cluster[$c]:-}" ] || continue
      banner "pgTAP on cluster $c"
      cat "$work/pgtap-$c.start"
      for f in ${by_cluster[$c]}; do
        out="$work/pgtap-$c-$(basename "$f" .sql).out"
        if [ ! -f "$out.rc" ]; then
          tmark=$SECONDS; fail "pgTAP $c $(basename "$f")" "cluster did not start, or its run ended early"; continue
        fi
        read -r rc secs <"$out.rc"
        cat "$out"
        tmark=$((SECONDS - secs))
        if [ "$rc" = 255 ]; then fail "pgTAP $c $(basename "$f")" "createdb"; continue; fi
        tap_verdict "pgTAP $c $(basename "$f")" "$rc" "$out"
      done
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
    # WALLOAD_TAP_JOBS files at a time (default 2): each has clusters of
    # its own in a directory of its own, on Unix sockets in directories of
    # their own, and the ports they pick are reserved in one directory
    # (PG_TEST_PORT_DIR); most of a file's time is spent waiting on its
    # servers (initdb, start, stop, crash recovery), which a second file
    # fills.  Each output is shown whole when its file has ended, in order.
    tap_jobs=${WALLOAD_TAP_JOBS:-2}
    as_pg mkdir -p "$work/portlock"
    tap_files=()
    for t in "$work"/t/*.pl; do
      # a file marked "# matrix: once" tests only walload's own code (its
      # file format, its rings), the same on every version: in the matrix it
      # runs on the last version alone, which with the host's makes two
      if ! $full && [ -n "${WALLOAD_IN_MATRIX:-}" ] && [ "${WALLOAD_MATRIX_LAST:-}" != "$WALLOAD_IN_MATRIX" ] &&
         grep -q '^# matrix: once' "$t"; then
        echo "note: $(basename "$t") runs on ${WALLOAD_MATRIX_LAST:-the last version} and the host only (# matrix: once)"
        continue
      fi
      # a file marked "# matrix: no" needs what only the host's Debian
      # installs (pglogical's package, scripts/deps.sh): not in the chroots
      if ! $full && [ -n "${WALLOAD_IN_MATRIX:-}" ] && grep -q '^# matrix: no' "$t"; then
        echo "note: $(basename "$t") runs on the host only $(sed -n 's/^# matrix: no *//p' "$t" | head -1)"
        continue
      fi
      # a file marked "# cassert: no" reaches no Assert() and no core
      # function that the other files do not run under assertions (its
      # reason on that line; docs/versions.md): not in the cassert suite
      if ! $full && [ -n "${WALLOAD_IN_CASSERT:-}" ] && grep -q '^# cassert: no' "$t"; then
        echo "note: $(basename "$t") does not run with assertions $(sed -n 's/^# cassert: no *//p' "$t" | head -1)"
        continue
      fi
      tap_files+=("$t")
    done
    declare -A tap_pid_of=()
    for t in "${tap_files[@]}"; do
      tdir="$work/tap-$(basename "$t" .pl)"
      as_pg mkdir -p "$tdir"
      while [ "${#tap_running[@]}" -ge "$tap_jobs" ]; do tap_reap || break; done
      timeout "$limit" "${pg_as[@]}" env -C "$tdir" PATH="$bindir:$PATH" TESTDIR="$tdir" \
        PG_REGRESS="$pgxs_top/test/regress/pg_regress" PERL5LIB="$pgxs_top/test/perl" \
        PG_TEST_PORT_DIR="$work/portlock" prove -v "$t" >"$tdir.out" 2>&1 </dev/null &
      tap_pid_of[$t]=$!; tap_started[$!]=$SECONDS; tap_running+=("$!")
    done
    while [ "${#tap_running[@]}" -gt 0 ]; do tap_reap || break; done
    for t in "${tap_files[@]}"; do
      tdir="$work/tap-$(basename "$t" .pl)"
      pid=${tap_pid_of[$t]}
      cat "$tdir.out"
      tmark=$((SECONDS - ${tap_took[$pid]:-0}))
      if ! tap_verdict "TAP $(basename "$t")" "${tap_rc[$pid]:-1}" "$tdir.out"; then
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
    tap_suite "pending-list reads" timeout "$limit" prove -v --exec bash test/oracle/pending_reads.sh
    tap_suite "apply worker's calls" timeout "$limit" prove -v --exec bash test/oracle/apply_calls.sh
    # pglogical's package is the host's (scripts/deps.sh), as TAP 132's
    if [ -n "${WALLOAD_IN_MATRIX:-}" ] && ! $full; then
      echo "note: pglogical's workers are compared on the host only (its package is the host's)"
    else
      tap_suite "pglogical's workers" timeout "$limit" prove -v --exec bash test/oracle/pglogical.sh
    fi
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
    tap_suite "exporter" timeout "$short" prove -v --exec /usr/bin/python3 test/exporter.py
  fi
fi
if wants timeline; then
  banner "the timeline of the demo's load in headless Chromium (test/timeline.py)"
  if [ "$(id -u)" != 0 ]; then
    cannot_run "timeline" "needs root (scripts/demo.sh, pg_virtualenv)"
  else
    tap_suite "timeline" timeout "$short" prove -v --exec /usr/bin/python3 test/timeline.py
  fi
fi

if wants fresh; then
  banner "the README's and docs' commands in a fresh Debian 12 chroot (test/fresh.sh)"
  if [ "$(id -u)" != 0 ]; then
    cannot_run "fresh" "needs root (debootstrap, chroot)"
  elif [ -n "$fresh_pid" ]; then
    # bounded: it runs under timeout; its time is its own (prove's
    # wallclock), not the wait here
    echo "waiting for the fresh suite begun after the build"
    bg_wait "$fresh_pid"; rc=$?
    cat "$bg_dir/fresh.out"
    secs=$(sed -nE 's/.*Tests=[0-9]+, +([0-9]+) wallclock secs.*/\1/p' "$bg_dir/fresh.out" | tail -1)
    tmark=$((SECONDS - ${secs:-0}))
    tap_verdict "fresh" "$rc" "$bg_dir/fresh.out"
  else
    tap_suite "fresh" timeout "$((limit < 1800 ? 1800 : limit))" prove -v --exec bash test/fresh.sh
  fi
fi

# ---------------------------------------------- 9. a server with assertions
# The same build, installation and suites as above (layers, pg_regress and
# isolation, pgTAP, TAP), by this script run again, on a copy of the work
# tree (the checkout keeps its own build), against PostgreSQL 15 built with
# --enable-cassert: walload's Assert()s and compat.h's USE_ASSERT_CHECKING
# branch run nowhere else.  Its results come back through its TAP file,
# each named "cassert: ...".
if wants cassert; then
  banner "layers, pg_regress, pgTAP and TAP against PostgreSQL 15 with assertions (scripts/cassert.sh)"
  if [ "$(id -u)" != 0 ]; then
    cannot_run "cassert" "needs root (apt-get source, /var/cache/walload)"
  elif [ "$major" != 15 ]; then
    cannot_run "cassert" "the assert-enabled build is of PostgreSQL 15, and PG_CONFIG is $major's"
  elif [ -z "$cassert_pid" ]; then
    cannot_run "cassert" "PostgreSQL 15's source package could not be had: $(tail -3 "$bg_dir/cassert-source.log" | tr '\n' ' ')"
  else
    # bounded: scripts/cassert.sh runs under timeout.  Nothing else of this
    # run wants the CPU while it waits: the build, if still going, is no
    # longer niced (it is the process group of that timeout)
    renice -n 0 -g "$cassert_pid" >/dev/null 2>&1
    bg_wait "$cassert_pid"; rc=$?
    cat "$bg_dir/cassert.log"
    cassert_pg_config=$(tail -1 "$bg_dir/cassert.out")
    if [ "$rc" -ne 0 ] || [ ! -x "$cassert_pg_config" ]; then
      fail "cassert: build of PostgreSQL 15 with assertions" "exit $rc$([ "$rc" = 124 ] && echo ", timed out")"
    elif ! grep -q '^#define USE_ASSERT_CHECKING 1' "$("$cassert_pg_config" --includedir-server)/pg_config.h"; then
      fail "cassert: the build of PostgreSQL 15 defines USE_ASSERT_CHECKING" "not in $("$cassert_pg_config" --includedir-server)/pg_config.h"
    else
      pass "cassert: PostgreSQL 15 with assertions (USE_ASSERT_CHECKING; $(cut -d, -f1 "$(dirname "$(dirname "$cassert_pg_config")")/.complete"))"
      # in the background, beside the matrix (each spends most of its time
      # waiting on its servers); its output and results follow the matrix's
      copy="$work/cassert-tree"; mkdir -p "$copy"
      git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$copy"
      timeout "$((4 * limit))" env WALLOAD_IN_CASSERT=1 WALLOAD_NO_MATRIX=1 WALLOAD_TESTS="${WALLOAD_CASSERT_TESTS:-layers regress pgtap tap}" \
        WALLOAD_TAP_FILE="$work/cassert.tap" PG_CONFIG="$cassert_pg_config" bash "$copy/scripts/test.sh" \
        >"$bg_dir/cassert-run.out" 2>&1 </dev/null &
      cassert_run_pid=$!; bg_pids+=("$!")
      echo "running the suites with assertions in the background, beside the matrix"
    fi
  fi
fi

# ------------------------------------------------- 10. other major versions
if wants matrix && [ "${WALLOAD_NO_MATRIX:-}" != 1 ]; then
  banner "PostgreSQL ${WALLOAD_MATRIX_VERSIONS:-16 17 18 19} (scripts/matrix/run.sh)"
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
    cannot_run "matrix" "needs root or sudo (debootstrap, chroot)"
  else
    if [ -n "$matrix_prep_pid" ]; then
      # bounded: it runs under timeout (WALLOAD_MATRIX_PREP_TIMEOUT)
      echo "waiting for the preparation of the chroots begun at the start"
      bg_wait "$matrix_prep_pid"; echo "(exit $?; what it did:)"
      sed 's/^/  /' "$bg_dir/matrix-prepare.log"
      tmark=$SECONDS
    fi
    timing_group="matrix"
    tap_suite "matrix" timeout "$((6 * limit))" bash scripts/matrix/run.sh ${WALLOAD_MATRIX_VERSIONS:-16 17 18 19}
    # each version's times, as scripts/matrix/run.sh relays them
    while IFS= read -r line; do
      [[ $line =~ ^#\ time\ ([0-9]+)\ ([0-9]+)\ s:\ (.*)$ ]] || continue
      timings+=("PostgreSQL ${BASH_REMATCH[1]} (chroot)"$'\t'"${BASH_REMATCH[2]}"$'\t'"${BASH_REMATCH[3]}")
    done <"$tap_suite_out"
    timing_group="PostgreSQL $major (host)"
  fi
fi

# ---------------------------------- 9, continued: the results with assertions
if [ -n "$cassert_run_pid" ]; then
  banner "the suites with assertions (begun before the matrix)"
  # bounded: it runs under timeout
  bg_wait "$cassert_run_pid"; rc=$?
  sed 's/^/cassert | /' "$bg_dir/cassert-run.out"
  n=0
  while IFS= read -r line; do
    if [[ $line =~ ^#\ time\ ([0-9]+)\ s:\ (.*)$ ]]; then
      tmark=$((SECONDS - BASH_REMATCH[1])); timing_group="PostgreSQL 15 with assertions (host)"
      continue
    fi
    tap_parse "$line" || continue
    n=$((n + 1))
    if [ -n "$tap_dir" ]; then cannot_run "cassert: $tap_desc" "$tap_why"
    elif [ "$tap_res" = ok ]; then pass "cassert: $tap_desc"
    else fail "cassert: $tap_desc"; fi
  done <"$work/cassert.tap"
  timing_group="PostgreSQL $major (host)"
  if [ "$n" -eq 0 ] || ! grep -qE '^1\.\.[0-9]+$' "$work/cassert.tap"; then
    tmark=$SECONDS; fail "cassert: scripts/test.sh finished" "exit $rc, $n results, $(grep -c '^1\.\.' "$work/cassert.tap") plans"
  fi
fi

summary
