#!/usr/bin/env bash
# Run walload's whole test suite (scripts/test.sh) against other PostgreSQL
# major versions, each in a Debian chroot that has that version's packages:
#   17: Debian trixie      18: Debian sid
# 16 has no Debian suite: scripts/pg16.sh runs what it can on the PyPI build.
# The chroots live in $WALLOAD_MATRIX_DIR (default /var/tmp/walload-matrix),
# are made with debootstrap on first use and reused afterwards.  Needs root
# (sudo otherwise).  Usage: scripts/matrix.sh [VERSION ...]   (default: 16 17 18)
# Ends with "N passed, N failed" (versions).
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
dir=${WALLOAD_MATRIX_DIR:-/var/tmp/walload-matrix}
versions=${*:-16 17 18}

if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi

command -v debootstrap >/dev/null || {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}

suite_for() {
  case "$1" in
    17) echo trixie ;;
    18) echo sid ;;
    *) return 1 ;;
  esac
}

mounted() { mountpoint -q "$1"; }

prepare() {  # prepare VERSION -> chroot path on stdout
  local v=$1 suite root
  suite=$(suite_for "$v") || { echo "no Debian suite known for PostgreSQL $v" >&2; return 1; }
  root="$dir/$suite"
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    mkdir -p "$dir"
    echo "== debootstrap $suite into $root" >&2
    debootstrap --variant=minbase "$suite" "$root" http://deb.debian.org/debian >"$dir/$suite.log" 2>&1 \
      || { echo "debootstrap failed, see $dir/$suite.log" >&2; return 1; }
  fi
  mounted "$root/proc" || mount -t proc proc "$root/proc"
  mounted "$root/sys" || mount --rbind /sys "$root/sys"
  mounted "$root/dev" || mount --rbind /dev "$root/dev"
  mounted "$root/dev/shm" || mount -t tmpfs tmpfs "$root/dev/shm"
  printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"; chmod +x "$root/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  echo "$root"
}

passed=0; failed=0; failures=""
for v in $versions; do
  echo
  echo "==== PostgreSQL $v"
  if [ "$v" = 16 ]; then
    if WALLOAD_MATRIX_DIR="$dir" bash "$here/scripts/pg16.sh"; then passed=$((passed + 1))
    else failed=$((failed + 1)); failures="$failures $v"; fi
    continue
  fi
  root=$(prepare "$v") || { failed=$((failed + 1)); failures="$failures $v"; continue; }
  # the work tree as it is (tracked and new files, not ignored ones)
  rm -rf "$root/src/walload"; mkdir -p "$root/src/walload"
  (cd "$here" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$root/src/walload"
  if chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
       LANG=C.UTF-8 HOME=/root CI="${CI:-}" \
       APT_OPTS="-o Acquire::Check-Valid-Until=false" \
       PG_CONFIG="/usr/lib/postgresql/$v/bin/pg_config" \
       bash -c 'cd /src/walload && bash scripts/test.sh'; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); failures="$failures $v"
  fi
done
echo
[ -n "$failures" ] && echo "failed versions:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
