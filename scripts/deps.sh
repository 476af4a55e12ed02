#!/usr/bin/env bash
# Install what walload's build and tests need, if it is missing.
#
#   scripts/deps.sh            (PG_CONFIG=/usr/lib/postgresql/NN/bin/pg_config for another major)
#
# apt-get as root, sudo otherwise; "apt-get update" once, and only when
# something is missing.  Idempotent, and silent when everything is there.
# The major version comes from PG_CONFIG (default: PostgreSQL 15, Debian's
# packages): `$PG_CONFIG --version` when it exists, else its path
# /usr/lib/postgresql/NN/bin/pg_config (before the server-dev package is in).
# linux-perf is optional: installed when it can be, never a failure.
# WALLOAD_DEPS_SUITES (set by scripts/test.sh) names the host-only suites
# that will run; what they need is installed too:
#   package   debhelper, lintian, postgresql-all (build and autopkgtest)
#   pgxn      unzip, git, and pgxn_meta, the PGXN validator, which is no
#             Debian package: built once with cargo (crates.io) into
#             /usr/local/bin, when cargo is there
#   exporter  prometheus (promtool), prometheus-postgres-exporter, python3-venv,
#             python3-yaml (prometheus/gen.py, test/exporter.py),
#             python3-prometheus-client (its parser of /metrics), and two
#             that are no Debian packages, installed once with pip (PyPI),
#             pinned, each into a virtualenv of Debian's /usr/bin/python3:
#             query-exporter into /var/cache/walload/query-exporter
#             (WALLOAD_QUERY_EXPORTER_VENV), grafana-foundation-sdk (the
#             dashboard's schema) into /var/cache/walload/grafana-sdk
#             (WALLOAD_GRAFANA_SDK_VENV)
#   timeline  chromium, python3-pil (Pillow decodes the screenshots)
# WALLOAD_DEPS_DEMO=1 (set by scripts/demo.sh): only what the demo needs.
#   fresh     debootstrap, git (test/fresh.sh: a fresh Debian 12 chroot)
set -euo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

major=""
if [ -x "$PG_CONFIG" ] || command -v "$PG_CONFIG" >/dev/null 2>&1; then
  major=$("$PG_CONFIG" --version 2>/dev/null | sed -nE 's/^PostgreSQL ([0-9]+).*/\1/p')
fi
if [ -z "$major" ]; then
  case "$PG_CONFIG" in
    */postgresql/*/bin/pg_config)
      major=$(basename "$(dirname "$(dirname "$PG_CONFIG")")") ;;
  esac
fi
case "$major" in
  ''|*[!0-9]*)
    echo "deps.sh: cannot tell the PostgreSQL major version from PG_CONFIG=$PG_CONFIG" >&2
    echo "deps.sh: use PG_CONFIG=/usr/lib/postgresql/NN/bin/pg_config" >&2
    exit 1 ;;
esac

if [ "$(id -u)" = 0 ]; then
  as_root() { "$@"; }
elif command -v sudo >/dev/null 2>&1; then
  as_root() { sudo "$@"; }
else
  as_root() { echo "deps.sh: need root or sudo to run: $*" >&2; return 1; }
fi

# procps: ps, by which scripts/lib/cluster.sh waits for walload's
# calibration worker (not in a minimal Debian)
need="build-essential postgresql-$major postgresql-server-dev-$major postgresql-$major-pgtap
      libtap-parser-sourcehandler-pgtap-perl libipc-run-perl bpftrace python3 gdb sqlsmith strace procps"
# postgresql-NN-pglogical: the oracle's pglogical.sh and TAP 132 (pglogical
# as subscriber); they skip where the distribution has no such package
optional="linux-perf postgresql-$major-pglogical"
# the demo (WALLOAD_DEPS_DEMO=1, set by scripts/demo.sh) needs only the
# build, the server and ps: not the test tools, which on a fresh machine
# are most of the download
if [ "${WALLOAD_DEPS_DEMO:-}" = 1 ]; then
  need="build-essential postgresql-$major postgresql-server-dev-$major python3 procps"
  optional=""
fi
for suite in ${WALLOAD_DEPS_SUITES:-}; do
  case $suite in
    package)  need="$need debhelper lintian postgresql-all postgresql-server-dev-all dpkg-dev fakeroot" ;;
    pgxn)     need="$need unzip git" ;;
    exporter) need="$need prometheus prometheus-postgres-exporter python3-venv python3-yaml python3-prometheus-client" ;;
    timeline) need="$need chromium python3-pil" ;;
    fresh)    need="$need debootstrap git" ;;
  esac
done
want_pgxn_meta=false
# query-exporter 5.0.2 is the newest that runs on Debian 12's Python 3.11
# (5.1 wants 3.12); psycopg is the driver its postgresql:// DSNs load
qe_venv=${WALLOAD_QUERY_EXPORTER_VENV:-/var/cache/walload/query-exporter}
qe_pkgs="query-exporter==5.0.2 psycopg[binary]==3.3.9"
want_qe=false
case " ${WALLOAD_DEPS_SUITES:-} " in
  *" exporter "*) [ -x "$qe_venv/bin/query-exporter" ] && [ -e "$qe_venv/.walload-installed" ] || want_qe=true ;;
esac
install_query_exporter() {
  echo "== deps.sh: installing $qe_pkgs with pip into $qe_venv (once; about a minute)"
  as_root rm -rf "$qe_venv"
  if as_root mkdir -p "$(dirname "$qe_venv")" &&
     as_root python3 -m venv "$qe_venv" &&
     as_root timeout 300 "$qe_venv/bin/pip" install --quiet --disable-pip-version-check $qe_pkgs \
       >/tmp/walload-deps-pip.log 2>&1; then
    as_root touch "$qe_venv/.walload-installed"
  else
    tail -20 /tmp/walload-deps-pip.log >&2
    echo "deps.sh: pip install of query-exporter failed (the exporter suite fails under CI=true, skips its checks otherwise)"
  fi
}
# grafana-foundation-sdk: Grafana's dashboard models (its schema, in Python)
gf_venv=${WALLOAD_GRAFANA_SDK_VENV:-/var/cache/walload/grafana-sdk}
gf_pkgs="grafana-foundation-sdk==1769699998!10.1.0"
want_gf=false
case " ${WALLOAD_DEPS_SUITES:-} " in
  *" exporter "*) [ -x "$gf_venv/bin/python3" ] && [ -e "$gf_venv/.walload-installed" ] || want_gf=true ;;
esac
install_grafana_sdk() {
  echo "== deps.sh: installing $gf_pkgs with pip into $gf_venv (once)"
  as_root rm -rf "$gf_venv"
  if as_root mkdir -p "$(dirname "$gf_venv")" &&
     as_root /usr/bin/python3 -m venv "$gf_venv" &&
     as_root timeout 300 "$gf_venv/bin/pip" install --quiet --disable-pip-version-check "$gf_pkgs" \
       >/tmp/walload-deps-pip-gf.log 2>&1; then
    as_root touch "$gf_venv/.walload-installed"
  else
    tail -20 /tmp/walload-deps-pip-gf.log >&2
    echo "deps.sh: pip install of grafana-foundation-sdk failed (the exporter suite fails under CI=true, skips that check otherwise)"
  fi
}
case " ${WALLOAD_DEPS_SUITES:-} " in *" pgxn "*) command -v pgxn_meta >/dev/null 2>&1 || want_pgxn_meta=true ;; esac
# the PGXN validator: cargo install, from crates.io, once
install_pgxn_meta() {
  local cargo
  cargo=$(command -v cargo || ls "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" 2>/dev/null || true)
  if [ -z "$cargo" ]; then
    echo "deps.sh: no cargo here: cannot install pgxn_meta (the pgxn suite will say it cannot run)"
    return 0
  fi
  echo "== deps.sh: building pgxn_meta 0.7.0 with cargo (once; 2 to 4 minutes)"
  if ! as_root "$cargo" install --quiet --locked --root /usr/local pgxn_meta@0.7.0 >/tmp/walload-deps-cargo.log 2>&1; then
    tail -20 /tmp/walload-deps-cargo.log >&2
    echo "deps.sh: cargo install pgxn_meta failed (the pgxn suite will say it cannot run)"
  fi
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=""
for p in $need; do installed "$p" || missing="$missing $p"; done
missing_opt=""
for p in $optional; do installed "$p" || missing_opt="$missing_opt $p"; done

# optional packages missing alone: try them once per machine, not on every run
stamp=/var/tmp/walload-deps-optional-tried
if [ -z "$missing" ] && { [ -z "$missing_opt" ] || [ -e "$stamp" ]; }; then
  $want_pgxn_meta && install_pgxn_meta
  $want_qe && install_query_exporter
  $want_gf && install_grafana_sdk
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
echo "== deps.sh: installing:$missing${missing_opt:+ (optional:$missing_opt)}"
as_root env DEBIAN_FRONTEND=noninteractive apt-get ${APT_OPTS:-} update -qq >/dev/null

if [ -n "$missing" ]; then
  # Debian's packaging would create and start a "main" cluster on port 5432:
  # the tests make their own clusters, so ask it not to.
  if [ ! -e /etc/postgresql-common/createcluster.d/walload.conf ]; then
    as_root mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" |
      as_root tee /etc/postgresql-common/createcluster.d/walload.conf >/dev/null
  fi
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get ${APT_OPTS:-} install -y -qq \
         --no-install-recommends $missing >/tmp/walload-deps.log 2>&1; then
    tail -30 /tmp/walload-deps.log >&2
    echo "deps.sh: apt-get install failed for:$missing" >&2
    exit 1
  fi
  for p in $missing; do
    installed "$p" || { echo "deps.sh: $p is still not installed" >&2; exit 1; }
  done
fi

if [ -n "$missing_opt" ]; then
  if as_root env DEBIAN_FRONTEND=noninteractive apt-get ${APT_OPTS:-} install -y -qq \
       --no-install-recommends $missing_opt >/tmp/walload-deps-optional.log 2>&1; then
    :
  else
    echo "deps.sh: optional package(s) not installed:$missing_opt (not needed by the tests)"
  fi
  as_root touch "$stamp" 2>/dev/null || true
fi
$want_pgxn_meta && install_pgxn_meta
$want_qe && install_query_exporter
$want_gf && install_grafana_sdk
exit 0
