#!/usr/bin/env bash
# Mounts a small tmpfs for test/faults/diskfull.pl's tablespace, runs it
# (as postgres, test/tap-as-postgres.sh) and unmounts it, also on failure or
# interruption.  Needs root.  Prints TAP.
#
#   test/faults/run-diskfull.sh        WALLOAD_SMALLFS_SIZE (default 8M)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ "$(id -u)" != 0 ]; then
  echo "1..0 # SKIP disk full: needs root to mount a tmpfs"; exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/walload-diskfull.XXXXXX") || exit 1
chmod 755 "$dir"
mkdir "$dir/fs"
mounted=0
cleanup() {
  if [ $mounted = 1 ]; then umount "$dir/fs" || umount -l "$dir/fs"; fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mount -t tmpfs -o size="${WALLOAD_SMALLFS_SIZE:-8M}",mode=0700 walload-diskfull "$dir/fs" ||
  { echo "1..0 # SKIP disk full: cannot mount a tmpfs"; exit 0; }
mounted=1
chown postgres "$dir/fs"
echo "# a ${WALLOAD_SMALLFS_SIZE:-8M} tmpfs at $dir/fs: $(df -h "$dir/fs" | tail -1)"
WALLOAD_SMALLFS=$dir/fs bash "$here/../tap-as-postgres.sh" "$here/diskfull.pl"
