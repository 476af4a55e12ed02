#!/usr/bin/env bash
# PostgreSQL 15 with assertions (--enable-cassert), built once from Debian's
# source package and kept, for scripts/test.sh's cassert suite: walload's
# Assert()s and the USE_ASSERT_CHECKING branch of src/compat.h run only
# against such a server, and Debian's packages are built without them.
#
#   scripts/cassert.sh          prints the pg_config of the build (its last line)
#
# The build goes to $WALLOAD_CASSERT_DIR (default /var/cache/walload/pg15-cassert)
# under a key: the newest source version apt lists for postgresql-15 (so a
# new Debian point release rebuilds) and a hash of the configure line (so a
# change of options does).  A finished build is marked complete and reused;
# another key's build is deleted when a new one is complete.  The source is
# the one test/core-regress.sh unpacks (WALLOAD_CORE_REGRESS_DIR, default
# /var/tmp/walload-core-regress), fetched by scripts/lib/pgsource.sh when it
# is not there yet.  Installed: the server and client programs, headers and
# PGXS with pg_regress and pg_isolation_regress, PostgreSQL's Perl test
# modules (--enable-tap-tests), the contrib modules the suites use, and pgTAP's SQL
# copied from the host's postgresql-15-pgtap (pgTAP is SQL only).
# Configured without readline, zlib and ICU so that build-essential is all it
# needs; -O1 and no --enable-debug: the build is made on every fresh machine,
# where the compiler's time counts, and the tests want the asserts, not a
# debugger nor the last bit of speed.
# Every step is bounded: WALLOAD_CASSERT_BUILD_TIMEOUT seconds for configure
# plus make (default 2400), PGSOURCE_TIMEOUT for each download.
# One build at a time (flock on $cache/.lock).
# Needs root (apt, the cache directory).  Output: the build's log on failure.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$here/scripts/lib/pgsource.sh"

major=15
cache=${WALLOAD_CASSERT_DIR:-/var/cache/walload/pg$major-cassert}
srcdir=${WALLOAD_CORE_REGRESS_DIR:-/var/tmp/walload-core-regress}
limit=${WALLOAD_CASSERT_BUILD_TIMEOUT:-2400}
jobs=${WALLOAD_CASSERT_JOBS:-2}
configure_opts="--enable-cassert --enable-tap-tests --without-readline --without-zlib --without-icu"
cflags="-O1"
# the contrib modules the suites create (pg_stat_statements; dblink:
# pgTAP 10; pg_walinspect: pgTAP 08; amcheck, pg_buffercache: TAP)
contrib="pg_stat_statements dblink pg_walinspect amcheck pg_buffercache"

die() { echo "cassert.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (apt-get source, $cache)"
start=$SECONDS

listed=$(pgsource_listed "$major")
[ -n "$listed" ] || listed=$(dpkg-query -W -f '${Version}' "postgresql-$major" 2>/dev/null)
[ -n "$listed" ] || die "apt lists no source of postgresql-$major and it is not installed"
key="$listed-$(echo "upstream $configure_opts CFLAGS=$cflags $contrib" | md5sum | cut -c1-8)"
prefix="$cache/$key"
# one build at a time (two runs at once: the second waits, then keeps it)
mkdir -p "$cache" || die "cannot create $cache"
exec 9>"$cache/.lock"
flock -w "$limit" 9 || die "another build held $cache/.lock for $limit s"
# pgTAP: the host package's SQL and control files, into the build's
# extension directory (its sharedir is PREFIX/share/postgresql: configure
# appends "postgresql" to a prefix that does not name it); on every run, so
# that a pgTAP installed or updated on the host after the build is there too
copy_pgtap() {
  local ext
  ext="$("$prefix/bin/pg_config" --sharedir)/extension"
  if cp /usr/share/postgresql/$major/extension/pgtap* "$ext/" 2>/dev/null; then
    chmod a+r "$ext"/pgtap*
  else
    echo "# postgresql-$major-pgtap is not installed: no pgTAP in $ext" >&2
  fi
}
if [ -f "$prefix/.complete" ] && [ -x "$prefix/bin/pg_config" ]; then
  copy_pgtap
  echo "# PostgreSQL $major with assertions: kept build $prefix ($(cat "$prefix/.complete"))" >&2
  echo "$prefix/bin/pg_config"
  exit 0
fi

echo "# PostgreSQL $major with assertions: building for $key into $prefix (once)" >&2
src=$(pgsource_get "$major" "$srcdir") || die "could not get the source package of postgresql-$major"
srcver=$(basename "$src")
build=$(mktemp -d "${TMPDIR:-/var/tmp}/walload-cassert-build.XXXXXX") || die "no temporary directory"
trap 'rm -rf "$build"' EXIT
log="$build/build.log"
: >"$log"
rm -rf "$prefix"; mkdir -p "$prefix" || die "cannot create $prefix"
# PostgreSQL as upstream has it: Debian's patches fix paths to Debian's
# layout (50-per-version-dirs.patch sets pkglibdir to
# /usr/lib/postgresql/15/lib whatever the prefix), which would install this
# build over the host's packages.  So the .dsc is unpacked again without
# them, and a VPATH build made of that.
dsc=$(ls "$srcdir/postgresql-${major}_${srcver#postgresql-"$major"-}"-*.dsc 2>/dev/null | sort -V | tail -1)
[ -n "$dsc" ] || die "no .dsc for $srcver in $srcdir"
dpkg-source --skip-patches -x "$dsc" "$build/src" >/dev/null 2>&1 || die "dpkg-source --skip-patches -x $dsc failed"
src="$build/src"
mkdir -p "$build/b"
if ! (
  cd "$build/b" &&
  timeout --foreground "$limit" "$src/configure" --prefix="$prefix" $configure_opts CFLAGS="$cflags" &&
  # what remains of the time for the rest
  remaining=$((limit - (SECONDS - start))) && [ "$remaining" -gt 0 ] &&
  timeout --foreground "$remaining" make -s -j"$jobs" &&
  for m in $contrib; do timeout --foreground "$remaining" make -s -j"$jobs" -C "contrib/$m" || exit 1; done &&
  timeout --foreground "$remaining" make -s -C src/test/isolation &&
  # every directory it installs to is under the prefix, or nothing is
  # installed (the paths compiled in; PGXS is under PKGLIBDIR)
  grep -q "^#define PKGLIBDIR \"$prefix/" src/port/pg_config_paths.h &&
  for d in $(sed -nE 's/^#define [A-Z]*DIR "(.*)"$/\1/p' src/port/pg_config_paths.h); do
    case $d in "$prefix"/*) ;; *) echo "the build would install to $d, outside $prefix: not installed"; exit 1 ;; esac
  done &&
  make -s install &&
  for m in $contrib; do make -s -C "contrib/$m" install || exit 1; done &&
  make -s -C src/test/isolation install
) >"$log" 2>&1; then
  tail -40 "$log" >&2
  rm -rf "$prefix"
  die "the build failed or took more than $limit s (its log's last lines above)"
fi
grep -E 'warning:' "$log" | head -5 >&2
copy_pgtap
chmod -R a+rX "$prefix"
echo "$srcver, $configure_opts CFLAGS=$cflags, built in $((SECONDS - start)) s on $(date -u '+%Y-%m-%d %H:%M UTC')" >"$prefix/.complete"
# the builds of other keys are of no further use
for d in "$cache"/*/; do
  [ -d "$d" ] || continue
  [ "${d%/}" = "$prefix" ] || rm -rf "${d%/}"
done
echo "# PostgreSQL $major with assertions: $(cat "$prefix/.complete")" >&2
echo "$prefix/bin/pg_config"
