#!/usr/bin/env bash
# PostgreSQL's own regression suite against a server with walload preloaded
# (walload.track=all), compared with the same suite against the same server
# without walload: the failing tests must be the same (ideally none), and
# walload's views must still be consistent afterwards.
#
# The suite comes from Debian's source package at test time (a deb-src line
# for the installed suite is added if missing); it is never committed.  When
# the exact version's source is not downloadable, the nearest older one is
# used -- hence the comparison with a baseline run rather than with the
# expected files alone (the baseline's result is kept for the same server
# binary and suite, see below).  Both runs are against a throwaway cluster of
# scripts/lib/cluster.sh (as postgres, on a Unix socket only).  Prints TAP.
# Needs root (apt, runuser).
set -uo pipefail
lib=$(cd "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib" && pwd)
. "$lib/tap.sh"
. "$lib/cluster.sh"

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
bindir=$("$PG_CONFIG" --bindir)
pkglibdir=$("$PG_CONFIG" --pkglibdir)
includedir=$("$PG_CONFIG" --includedir-server)
pg_regress="$(dirname "$(dirname "$("$PG_CONFIG" --pgxs)")")/test/regress/pg_regress"
work=${WALLOAD_CORE_REGRESS_DIR:-/var/tmp/walload-core-regress}

cluster_bindir=$bindir
bail() { tap_plan 1; tap_not_ok "core regression suite: $*"; exit 1; }

# A mirror can carry a point release's binaries before (or without) its
# source, which apt-cache showsrc then lists but nobody serves.  Take the
# newest earlier point release of the same major from the mirror's pool
# (the .dsc and the files it lists), with apt's own downloader.
fetch_older_point_release() {
  local binver minor rest mirror m v base f
  binver=$(dpkg-query -W -f '${Version}' "postgresql-$major" 2>/dev/null) || return 1
  minor=$(echo "$binver" | sed -nE "s/^$major\.([0-9]+)-.*/\1/p")
  rest=${binver#"$major.$minor"}
  [ -n "$minor" ] || return 1
  mirror=$( (sed -n 's/^deb-src \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2>/dev/null
             sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null) | head -1)
  [ -n "$mirror" ] || return 1
  base="${mirror%/}/pool/main/p/postgresql-$major"
  for m in $(seq $((minor - 1)) -1 $((minor > 6 ? minor - 6 : 0))); do
    v="$major.$m$rest"
    /usr/lib/apt/apt-helper download-file "$base/postgresql-${major}_${v/+/%2b}.dsc" \
      "postgresql-${major}_$v.dsc" >/dev/null 2>&1 || continue
    for f in $(awk '/^Files:/ {on = 1; next} /^[^ ]/ {on = 0} on {print $3}' "postgresql-${major}_$v.dsc"); do
      /usr/lib/apt/apt-helper download-file "$base/${f/+/%2b}" "$f" >/dev/null 2>&1 || continue 2
    done
    dpkg-source -x --no-check "postgresql-${major}_$v.dsc" >/dev/null 2>&1 && {
      echo "# the source of $binver is not served; using $v, the newest earlier point release the mirror has"
      return 0
    }
  done
  return 1
}

# --- the source of the regression suite ---
mkdir -p "$work" && cd "$work" || bail "cannot use $work"
src=$(ls -d postgresql-"$major"-*/src/test/regress 2>/dev/null | tail -1)
if [ -z "$src" ]; then
  if ! apt-cache showsrc "postgresql-$major" 2>/dev/null | grep -q '^Version:'; then
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] && grep -q '^Types: deb$' "$f" && sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
    done
    if [ -f /etc/apt/sources.list ] && ! grep -q '^deb-src ' /etc/apt/sources.list; then
      sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >> /etc/apt/sources.list
    fi
    apt-get ${APT_OPTS:-} update -qq >/dev/null 2>&1
  fi
  for v in $(apt-cache showsrc "postgresql-$major" | sed -n 's/^Version: //p' | sort -Vru); do
    apt-get source -qq --download-only "postgresql-$major=$v" >/dev/null 2>&1 || continue
    dpkg-source -x --no-check postgresql-"$major"_"$v".dsc >/dev/null 2>&1 && break
  done
  src=$(ls -d postgresql-"$major"-*/src/test/regress 2>/dev/null | tail -1)
  if [ -z "$src" ] && fetch_older_point_release; then
    src=$(ls -d postgresql-"$major"-*/src/test/regress 2>/dev/null | tail -1)
  fi
  [ -n "$src" ] || bail "could not get the source package of postgresql-$major"
fi
echo "# regression suite from $(dirname "$(dirname "$(dirname "$src")")"), server $("$bindir/postgres" --version)"

# --- regress.so built from it; contrib's spi modules from the installation ---
dl="$work/lib"; mkdir -p "$dl"
gcc -O2 -fPIC -shared -I"$includedir" -D_GNU_SOURCE -o "$dl/regress.so" "$src/regress.c" \
  || bail "could not build regress.so"
cp "$pkglibdir/autoinc.so" "$pkglibdir/refint.so" "$dl/"

run_suite() {  # run_suite NAME SETTING... -> prints failing tests to $work/NAME.failed
  local name=$1 out="$work/run-$1" cl="$work/cluster-$1"; shift
  rm -rf "$out" "$cl"; cp -r "$src" "$out"; mkdir "$cl"; chown -R postgres "$out" "$dl" "$cl"
  if ! { cluster_init "$cl" "$@" && cluster_start "$cl"; } 2>"$work/$name.cluster.err"; then
    tap_diag <"$work/$name.cluster.err"; return 1
  fi
  cluster_as_pg env -C "$out" "$pg_regress" --inputdir="$out" --outputdir="$out" \
    --host="$cl" --port="$PGPORT" --user=postgres \
    --dlpath="$dl" --bindir="$bindir" --schedule="$out/parallel_schedule" --max-concurrent-tests=20 \
    >"$out/run.log" 2>&1
  if [ "$name" = walload ]; then
    "$bindir/psql" -X -At -d regression -c 'CREATE EXTENSION IF NOT EXISTS walload' \
      -c "SELECT (SELECT count(*) FROM walload_xacts) || ' ' || (SELECT count(*) FROM walload_statements) || ' ' || xacts_recorded || ' ' || statements_recorded || ' ' || stats_entries || ' ' || (SELECT count(*) FROM walload_stats) || ' ' || (SELECT count(*) FROM walload_diagnose()) FROM walload_info" \
      >"$work/walload.state" 2>&1
  fi
  cluster_stop "$cl"
  grep -E '^(not ok|.* \.\.\. FAILED)' "$out/run.log" | sed -E 's/^not ok [0-9]+ +[-+] +//; s/ +\.\.\. FAILED.*//; s/^ +//; s/ +[0-9]+ ms$//' \
    | sort > "$work/$name.failed"
  grep -qE 'tests passed|tests failed|of [0-9]+ tests' "$out/run.log"
}

trap cluster_stop_all EXIT
# The baseline depends only on the server's build and the suite, not on
# walload: kept per (server package, suite) and reused, which saves a whole
# run of the suite in every later test run.  WALLOAD_CORE_REGRESS_FRESH=1
# runs it again.
key="$(dpkg-query -W -f '${Version}' "postgresql-$major" 2>/dev/null || echo unpackaged)-$(md5sum "$bindir/postgres" | cut -c1-12)-$(basename "$(dirname "$(dirname "$(dirname "$src")")")")"
cached="$work/baseline.failed.$key"
if [ -f "$cached" ] && [ -z "${WALLOAD_CORE_REGRESS_FRESH:-}" ]; then
  cp "$cached" "$work/baseline.failed"
  echo "# baseline: the run of $(date -r "$cached" -u '+%Y-%m-%d %H:%M UTC') with the same server binary and suite ($key)"
else
  run_suite baseline "compute_query_id = regress" || bail "the baseline run did not complete"
  cp "$work/baseline.failed" "$cached"
fi
run_suite walload "shared_preload_libraries = 'walload,pg_stat_statements'" "walload.track = all" "compute_query_id = regress" \
  || bail "the run with walload did not complete"

tap_plan 3
# a test that fails only with walload is a failure; one that failed only in
# the baseline (a kept one included) is not walload's doing
only_walload=$(comm -13 "$work/baseline.failed" "$work/walload.failed")
nf=$(wc -l < "$work/walload.failed")
if [ -n "$only_walload" ]; then
  tap_not_ok "walload changes the outcome of core's regression tests"
  echo "$only_walload" | sed 's/^/fails only with walload: /' | tap_diag
elif [ "$nf" -eq 0 ]; then
  tap_ok "every test of the suite passes with walload$([ -s "$work/baseline.failed" ] && echo " (the baseline failed: $(tr '\n' ' ' < "$work/baseline.failed"))")"
else
  tap_ok "$nf tests fail with walload, each also without it (the suite's version differs from the server's): $(tr '\n' ' ' < "$work/walload.failed")"
fi
read -r nx ns xr sr se nstats nd < <(tail -n 1 "$work/walload.state") 2>/dev/null
if [ "${xr:-0}" -gt 0 ] && [ "${sr:-0}" -gt 0 ]; then
  tap_ok "walload recorded the suite: $xr transactions, $sr statements"
else
  tap_not_ok "walload recorded nothing: $(cat "$work/walload.state")"
fi
if [ "${nx:-x}" -le 1000 ] && [ "${ns:-x}" -le 10000 ] && [ "${se:-x}" = "${nstats:-y}" ] && [ "${se:-x}" -le 5000 ] && [ "${nd:-0}" -ge 1 ]; then
  tap_ok "afterwards the views are readable and within their bounds (rings $nx/1000, $ns/10000; stats $se/5000; diagnose returns $nd findings)"
else
  tap_not_ok "views inconsistent after the suite: $(cat "$work/walload.state")"
fi
tap_done
