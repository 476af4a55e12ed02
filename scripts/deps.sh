#!/usr/bin/env bash
# Install what walload's build, demo and tests need, if missing.
# apt-get as root, sudo otherwise.  Idempotent and quiet when all is there.
# Honours PG_CONFIG (default: PostgreSQL 15 from Debian's packages).
set -euo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
major=$(basename "$(dirname "$(dirname "$PG_CONFIG")")")
case "$major" in (*[!0-9]*|"") major=15 ;; esac

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

pkgs="build-essential postgresql-$major postgresql-server-dev-$major postgresql-contrib
      postgresql-$major-pgtap libtap-parser-sourcehandler-pgtap-perl libipc-run-perl
      bpftrace postgresql-common"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get ${APT_OPTS:-} update -qq
  # keep Debian's own clusters from being created and started
  as_root mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false" | as_root tee /etc/postgresql-common/createcluster.d/walload.conf >/dev/null
  as_root apt-get install -y -qq $missing >/dev/null
fi
