#!/usr/bin/env bash
# The README's and the docs' commands, as written, on a fresh minimal
# Debian 12, from a clone in root's home.  Prints TAP; scripts/test.sh runs
# it with prove (suite "fresh", on the host only).  Needs root (debootstrap,
# chroot).
#
# A fresh copy of a debootstrap --variant=minbase bookworm (made once and
# kept as a tarball in $WALLOAD_FRESH_CACHE, default /var/cache/walload,
# with the .debs apt downloads, so that a rerun downloads nothing), with
# bookworm-updates and -security as a Debian 12 install has; no service
# starts (policy-rc.d), and apt answers yes (APT::Get::Assume-Yes: the
# person at the keyboard).  This checkout is cloned (git clone, then its
# uncommitted and untracked files over it) into /root/walload, and /root
# and the clone are mode 0700.  Then, as root in the chroot, in the clone:
#
#  1. scripts/demo.sh (README): succeeds, prints the report and diagnosis;
#     then `make uninstall`: walload is as if never installed
#  2. the package block of README.md (the same as docs/packaging.md's):
#     apt install of the build dependencies, dpkg-buildpackage -us -uc -b
#     (its build-time installcheck ran), apt install of the .debs it names
#  3. docs/packaging.md: shared_preload_libraries = 'walload' in
#     /etc/postgresql/15/main/postgresql.conf and a restart; CREATE
#     EXTENSION gives walload.control's default_version; walload-report
#     and walload-timeline as postgres
#  4. docs/operations.md's upgrade: its apt install, a restart, ALTER
#     EXTENSION walload UPDATE (also in a database created on 1.0)
#  5. scripts/demo.sh with the package installed: it says so, and the
#     command it gives to restore the package's files works (dpkg --verify)
#  6. scripts/demo.sh without ps: fails at once, naming ps in one line
#  7. docs/operations.md's removal: DROP EXTENSION, the preload removed, a
#     restart, its apt remove
#
# Each step is bounded by timeout.  Environment: WALLOAD_FRESH_CACHE,
# WALLOAD_DEBIAN_MIRROR (default http://deb.debian.org/debian),
# WALLOAD_FRESH_KEEP=1 keeps the chroot (its path is printed).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 1
. scripts/lib/tap.sh
[ "$(id -u)" = 0 ] || { tap_skip_all "needs root (debootstrap, chroot)"; exit 0; }
for c in debootstrap git unshare; do
  command -v "$c" >/dev/null || { tap_skip_all "$c is not installed (scripts/deps.sh)"; exit 0; }
done
cache=${WALLOAD_FRESH_CACHE:-/var/cache/walload}
mirror=${WALLOAD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
tarball=$cache/fresh-bookworm-minbase.tar.gz
debs=$cache/fresh-apt-archives
t0=$SECONDS

# ------------------------------------------------------------ the chroot
mkdir -p "$cache" "$debs/partial" || tap_bail "cannot create $cache"
if [ ! -s "$tarball" ]; then
  b=$(mktemp -d "$cache/debootstrap.XXXXXX")
  t=$SECONDS
  if timeout 900 debootstrap --variant=minbase bookworm "$b/root" "$mirror" >"$b/log" 2>&1 &&
     tar -C "$b/root" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"; then
    tap_diag "debootstrap --variant=minbase bookworm, cached in $tarball ($((SECONDS - t)) s)"
  else
    tail -20 "$b/log" | tap_diag; rm -rf "$b" "$tarball.tmp"; tap_bail "debootstrap failed"
  fi
  rm -rf "$b"
fi
root=$(mktemp -d /var/tmp/walload-fresh.XXXXXX)
# in memory when there is room (about 2 GB are written): unpacked and
# removed in seconds rather than minutes
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
if [ "${avail_kb:-0}" -gt $((8 * 1024 * 1024)) ]; then
  mount -t tmpfs -o size=4g,mode=0755 walload-fresh "$root" || tap_bail "cannot mount a tmpfs on $root"
fi
cleanup() {
  local p m
  # what runs in the chroot (its PostgreSQL): started by this test
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
  done
  for m in $(awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/self/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
  done
  if [ "${WALLOAD_FRESH_KEEP:-}" = 1 ]; then echo "# kept $root"; else
    mountpoint -q "$root" && { umount "$root" 2>/dev/null || umount -l "$root"; }
    rm -rf "$root"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tar -C "$root" -xzf "$tarball" || tap_bail "cannot unpack $tarball"
mount -t proc proc "$root/proc" &&
  mount --bind /dev "$root/dev" && mount --make-slave "$root/dev" &&
  mount --bind /dev/pts "$root/dev/pts" &&
  mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm" &&
  mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys" &&
  mount --bind "$debs" "$root/var/cache/apt/archives" || tap_bail "cannot mount what the chroot needs"
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"; chmod +x "$root/usr/sbin/policy-rc.d"
printf 'APT::Get::Assume-Yes "true";\n' >"$root/etc/apt/apt.conf.d/90walload-fresh-yes"
{ echo "deb $mirror bookworm main"
  echo "deb $mirror bookworm-updates main"
  echo "deb http://deb.debian.org/debian-security bookworm-security main"
} >"$root/etc/apt/sources.list"

# the clone: committed history, and this work tree's changes over it
git clone -q --no-hardlinks "$here" "$root/root/walload" || tap_bail "git clone"
(git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$root/root/walload"
chmod 0700 "$root/root" "$root/root/walload"
tap_check "the clone is in root's home, mode 0700 (postgres cannot read it)" "700 700" \
  "$(stat -c %a "$root/root") $(stat -c %a "$root/root/walload")"

# run BASH_SCRIPT in the clone, as root in the chroot, bounded
log=$root/.walload-fresh-logs; mkdir -p "$log"
step() {  # step NAME SECONDS SCRIPT
  local name=$1 secs=$2 t=$SECONDS rc
  timeout "$secs" chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb bash -c "umask 022; cd /root/walload && $3" >"$log/$name" 2>&1
  rc=$?
  echo "# $name: exit $rc ($((SECONDS - t)) s)"
  return $rc
}
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
show() { tail -"${2:-25}" "$log/$1" | tap_diag; }

# ------------------------------------------------------------ 1. the demo
if step demo 1200 "scripts/demo.sh" && grep -q '^== walload_diagnose()' "$log/demo"; then
  tap_ok "scripts/demo.sh (README) on a fresh Debian 12, from the clone"
else
  tap_not_ok "scripts/demo.sh (README) on a fresh Debian 12, from the clone"; show demo 40
fi
step uninstall 120 "make -s uninstall && make -s clean" || show uninstall
tap_check "after make uninstall walload is not installed" "" \
  "$(ls "$root"/usr/lib/postgresql/15/lib/walload.so "$root"/usr/share/postgresql/15/extension/walload.control 2>/dev/null)"

# ------------------------------------------------ 2. the package, as README says
block() {  # block FILE: the ```sh block under "Install from packages" / "Debian packages", comments out
  awk '/^## (Install from packages|Debian packages)/ { s = 1 } s && /^```sh/ { b = 1; next } b && /^```/ { exit } b' "$1" |
    sed -E 's/[[:space:]]+#.*$//'
}
readme=$(block README.md)
check_block=$(block docs/packaging.md)
tap_check "README.md and docs/packaging.md give the same package commands" "$readme" "$check_block"
[ -n "$readme" ] || tap_not_ok "README.md has a package block"
i=0
while IFS= read -r cmd; do
  [ -n "$cmd" ] || continue
  i=$((i + 1))
  if step "package-$i" 1800 "$cmd"; then
    tap_ok "README: $cmd"
  else
    tap_not_ok "README: $cmd"; show "package-$i" 40
  fi
done <<<"$readme"
grep -q '^### End 15 installcheck ###$' "$log"/package-* 2>/dev/null &&
  tap_ok "the build ran its installcheck against the staged files" ||
  tap_not_ok "the build ran its installcheck against the staged files"
grep -E '^(test |ok |not ok|# All|.*tests passed)' "$log"/package-* 2>/dev/null | head -20 | tap_diag
ver=$(cd "$root/root/walload" && dpkg-parsechangelog -S Version 2>/dev/null || sed -nE '1s/^[^(]*\(([^)]*)\).*/\1/p' debian/changelog)
extver=$(sed -nE "s/^default_version *= *'([^']*)'.*/\1/p" walload.control)
tap_check "postgresql-15-walload and walload-tools are installed, version $ver" "install ok installed $ver
install ok installed $ver" "$(in_root dpkg-query -W -f '${Status} ${Version}\n' postgresql-15-walload walload-tools 2>&1)"

# ------------------------------------- 3. preload, as docs/packaging.md says
pgsql() { in_root runuser -u postgres -- psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
if step preload 180 "test -d /etc/postgresql/15/main || pg_createcluster 15 main >/dev/null
  pg_conftool 15 main set listen_addresses ''
  pg_conftool 15 main set shared_preload_libraries walload
  pg_ctlcluster 15 main restart || pg_ctlcluster 15 main start"; then
  tap_ok "shared_preload_libraries = 'walload' and a restart (docs/packaging.md)"
else
  tap_not_ok "shared_preload_libraries = 'walload' and a restart (docs/packaging.md)"; show preload
fi
pgsql -c "CREATE EXTENSION walload" >/dev/null 2>&1
tap_check "CREATE EXTENSION walload installs $extver" "$extver" \
  "$(pgsql -c "SELECT extversion FROM pg_extension WHERE extname = 'walload'" 2>&1)"
# a database on the first SQL version, for the upgrade's ALTER EXTENSION
pgsql -c "CREATE DATABASE older" -d postgres >/dev/null 2>&1
pgsql -d older -c "CREATE EXTENSION walload VERSION '1.0'" >/dev/null 2>&1
tap_check "CREATE EXTENSION walload VERSION '1.0' in database older" "1.0" \
  "$(pgsql -d older -c "SELECT extversion FROM pg_extension WHERE extname = 'walload'" 2>&1)"
pgsql -c "CREATE TABLE fresh_load AS SELECT g AS id FROM generate_series(1, 1000) g" -c "DROP TABLE fresh_load" >/dev/null 2>&1
if step tools 120 "runuser -u postgres -- walload-report >/tmp/report.md && grep -q '^## Where the time went' /tmp/report.md &&
     runuser -u postgres -- walload-timeline -o /tmp/timeline.html && grep -q 'class=\"xact\"' /tmp/timeline.html"; then
  tap_ok "walload-report and walload-timeline against the packaged server"
else
  tap_not_ok "walload-report and walload-timeline against the packaged server"; show tools
fi

# ------------------------------------------ 4. upgrade, as docs/operations.md says
upgrade=$(sed -n '/^## Upgrading the package/,/^## /p' docs/operations.md | grep -oE '`apt install [^`]+`' | head -1 | tr -d '`')
extversions() {  # after ALTER EXTENSION walload UPDATE in each database that has it
  local db
  for db in postgres older; do
    pgsql -d "$db" -c "ALTER EXTENSION walload UPDATE" >/dev/null 2>&1 || echo "ALTER EXTENSION failed in $db"
    pgsql -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'walload'" 2>&1
  done
}
if [ -n "$upgrade" ] && step upgrade 300 "$upgrade && pg_ctlcluster 15 main restart" &&
   [ "$(echo $(extversions))" = "$extver $extver" ]; then
  tap_ok "docs/operations.md's upgrade: $upgrade, a restart, ALTER EXTENSION walload UPDATE"
else
  tap_not_ok "docs/operations.md's upgrade: ${upgrade:-no apt install command found}, a restart, ALTER EXTENSION walload UPDATE"
  show upgrade
fi

# --------------------------------------- 5. the demo over the installed package
step demo-pkg 900 "scripts/demo.sh" || show demo-pkg 40
restore=$(sed -nE 's/^note: to restore the package.s files: (apt install .*)$/\1/p' "$log/demo-pkg")
if grep -q '^note: walload.so belongs to the package postgresql-15-walload' "$log/demo-pkg" && [ -n "$restore" ]; then
  tap_ok "scripts/demo.sh says it replaces the package's files, and how to restore them: $restore"
else
  tap_not_ok "scripts/demo.sh says it replaces the package's files, and how to restore them"; show demo-pkg 40
fi
if [ -n "$restore" ] && step restore 300 "$restore" && [ -z "$(in_root dpkg --verify postgresql-15-walload 2>&1)" ]; then
  tap_ok "the demo's command restores the package's files (dpkg --verify is clean)"
else
  tap_not_ok "the demo's command restores the package's files (dpkg --verify is clean)"
  show restore; in_root dpkg --verify postgresql-15-walload 2>&1 | tap_diag
fi

# ----------------------------------------------------- 6. the demo without ps
mv "$root/usr/bin/ps" "$root/usr/bin/ps.walload-hidden" 2>/dev/null
t=$SECONDS
step demo-nops 120 "scripts/demo.sh"; rc=$?
took=$((SECONDS - t))
mv "$root/usr/bin/ps.walload-hidden" "$root/usr/bin/ps" 2>/dev/null
if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$(grep -c '\bps\b.*not installed' "$log/demo-nops")" = 1 ]; then
  tap_ok "without ps, scripts/demo.sh stops at once ($took s) naming it: $(grep '\bps\b.*not installed' "$log/demo-nops")"
else
  tap_not_ok "without ps, scripts/demo.sh stops at once naming it (exit $rc, $took s)"; show demo-nops
fi

# -------------------------------------------- 7. removal, as docs/operations.md says
remove=$(sed -n '/^## Removing it/,/^## /p' docs/operations.md | grep -oE '`apt remove [^`]+`' | head -1 | tr -d '`')
pgsql -c "DROP EXTENSION walload" >/dev/null 2>&1
pgsql -d older -c "DROP EXTENSION walload" >/dev/null 2>&1
if [ -n "$remove" ] && step remove 300 "pg_conftool 15 main remove shared_preload_libraries && pg_ctlcluster 15 main restart && $remove" &&
   ! in_root dpkg-query -W -f '${Status}\n' postgresql-15-walload 2>/dev/null | grep -q '^install ok installed' &&
   [ "$(pgsql -c "SELECT 1" 2>&1)" = 1 ]; then
  tap_ok "docs/operations.md's removal: DROP EXTENSION, the preload removed, a restart, $remove; the server runs"
else
  tap_not_ok "docs/operations.md's removal: ${remove:-no apt remove command found}"; show remove
fi
in_root pg_ctlcluster 15 main stop >/dev/null 2>&1
tap_diag "fresh: $((SECONDS - t0)) s in all; $(du -sh --exclude=proc --exclude=sys --exclude=dev "$root" 2>/dev/null | cut -f1) in the chroot"
tap_done
