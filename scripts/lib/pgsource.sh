# scripts/lib/pgsource.sh: Debian's source package of PostgreSQL, unpacked.
#
#   . scripts/lib/pgsource.sh
#   pgsource_listed MAJOR        the newest version of postgresql-MAJOR's source
#                                that apt lists ("" if none; adds a deb-src
#                                source first, see below)
#   pgsource_get MAJOR DIR       unpacks it into DIR (postgresql-MAJOR-X.Y/)
#                                unless one is there; prints that directory
#
# Needs root (apt-get update, a file in /etc/apt/sources.list.d).  When apt
# lists no source of postgresql-MAJOR, a deb-src twin of each "deb" source
# is written to /etc/apt/sources.list.d/walload-deb-src.{sources,list} (the
# system's own files are left alone) and the lists are updated.  A mirror can
# carry a point release's binaries before (or without) its source, which
# apt-cache showsrc then lists but nobody serves: then the newest earlier
# point release of the same major is taken from the mirror's pool (the .dsc
# and the files it lists), with apt's own downloader.  Every download is
# bounded (PGSOURCE_TIMEOUT seconds each, default 300).  The source is
# fetched at test time and never committed.

pgsource_timeout=${PGSOURCE_TIMEOUT:-300}

pgsource__add_deb_src() {
  local f out
  out=/etc/apt/sources.list.d/walload-deb-src.sources
  : >"$out.new"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && [ "$f" != "$out" ] || continue
    # each stanza with Types: deb, as deb-src
    awk 'BEGIN { RS = ""; ORS = "\n\n" } /(^|\n)Types:[^\n]*(^| )deb( |\n|$)/ && !/(^|\n)Enabled: *no/ {
           sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >>"$out.new"
  done
  if [ -s "$out.new" ]; then mv "$out.new" "$out"; else rm -f "$out.new"; fi
  if [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list; then
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >/etc/apt/sources.list.d/walload-deb-src.list
  fi
  timeout --foreground "$pgsource_timeout" apt-get ${APT_OPTS:-} update -qq >/dev/null 2>&1
}

pgsource_listed() {
  local major=$1
  if ! apt-cache showsrc "postgresql-$major" 2>/dev/null | grep -q '^Version:'; then
    pgsource__add_deb_src
  fi
  apt-cache showsrc "postgresql-$major" 2>/dev/null | sed -n 's/^Version: //p' | sort -Vr | head -1
}

pgsource__older_point_release() {  # in the current directory
  local major=$1 binver minor rest mirror m v base f
  binver=$(dpkg-query -W -f '${Version}' "postgresql-$major" 2>/dev/null) || return 1
  minor=$(echo "$binver" | sed -nE "s/^$major\.([0-9]+)-.*/\1/p")
  rest=${binver#"$major.$minor"}
  [ -n "$minor" ] || return 1
  mirror=$( (sed -n 's/^deb-src \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
             sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null) | grep -v security | head -1)
  [ -n "$mirror" ] || return 1
  base="${mirror%/}/pool/main/p/postgresql-$major"
  for m in $(seq $((minor - 1)) -1 $((minor > 6 ? minor - 6 : 0))); do
    v="$major.$m$rest"
    timeout --foreground "$pgsource_timeout" /usr/lib/apt/apt-helper download-file "$base/postgresql-${major}_${v/+/%2b}.dsc" \
      "postgresql-${major}_$v.dsc" >/dev/null 2>&1 || continue
    for f in $(awk '/^Files:/ {on = 1; next} /^[^ ]/ {on = 0} on {print $3}' "postgresql-${major}_$v.dsc"); do
      timeout --foreground "$pgsource_timeout" /usr/lib/apt/apt-helper download-file "$base/${f/+/%2b}" "$f" >/dev/null 2>&1 || continue 2
    done
    dpkg-source -x --no-check "postgresql-${major}_$v.dsc" >/dev/null 2>&1 && {
      echo "# the source of $binver is not served; using $v, the newest earlier point release the mirror has" >&2
      return 0
    }
  done
  return 1
}

pgsource_get() {
  local major=$1 dir=$2 src v
  mkdir -p "$dir" || return 1
  src=$(cd "$dir" && ls -d postgresql-"$major"-*/ 2>/dev/null | sort -V | tail -1)
  if [ -z "$src" ] || [ ! -f "$dir/$src/configure" ]; then
    pgsource_listed "$major" >/dev/null
    (
      cd "$dir" || exit 1
      chown _apt . 2>/dev/null || true
      for v in $(apt-cache showsrc "postgresql-$major" | sed -n 's/^Version: //p' | sort -Vru); do
        timeout --foreground "$pgsource_timeout" apt-get source -qq --download-only "postgresql-$major=$v" >/dev/null 2>&1 || continue
        dpkg-source -x --no-check postgresql-"$major"_"$v".dsc >/dev/null 2>&1 && exit 0
      done
      pgsource__older_point_release "$major"
    ) || return 1
    src=$(cd "$dir" && ls -d postgresql-"$major"-*/ 2>/dev/null | sort -V | tail -1)
    [ -n "$src" ] || return 1
  fi
  echo "$dir/${src%/}"
}
