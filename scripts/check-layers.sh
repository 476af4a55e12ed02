#!/usr/bin/env bash
# walload: data flows one way through src/ -- check it (TAP).
#
#   scripts/check-layers.sh [PG_CONFIG]
#
# The layers are the order of OBJS in the Makefile (and of the list in
# src/types.h): each part may call, and #include the header of, only the
# parts below it.  Two checks, each a test per file:
#   1. calls: every symbol a part's object file needs from another part
#      (nm: undefined in one, defined in the other) is defined lower down;
#   2. headers: every "part.h" a file of src/ includes belongs to a part
#      lower down (types.h, the shared types, and compat.h are below all).
# And that the check sees what it must: the layer list and the files in
# src/ are the same; hooks.c is found calling accumulator.c, and the same
# calls against the layers turned upside down are found going up (an
# empty nm output would pass everything otherwise).  The model of core's
# decisions calls only sizing.c, which calls no other part.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 1
PG_CONFIG=${1:-${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}}

mapfile -t layers < <(sed -n '/^OBJS = /,/^$/p' Makefile | grep -o 'src/[a-z_]*\.o' | sed 's|src/||; s|\.o$||')
declare -A rank=()
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

. scripts/lib/tap.sh
make -s PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1 || tap_bail "walload does not build"
ok()     { tap_ok "$1"; }
not_ok() { tap_not_ok "$1"; }

# the layer list and src/*.c are the same set
mapfile -t files < <(ls src/*.c | sed 's|src/||; s|\.c$||' | sort)
if [ "$(printf '%s\n' "${layers[@]}" | sort)" = "$(printf '%s\n' "${files[@]}")" ]; then
  ok "the layers in the Makefile are exactly the files of src/ (${#layers[@]})"
else
  not_ok "the layers in the Makefile are exactly the files of src/"
  diff <(printf '%s\n' "${layers[@]}" | sort) <(printf '%s\n' "${files[@]}") | tap_diag
fi

# who needs which symbol from whom: "caller callee symbol"
calls=$(join -1 1 -2 1 \
  <(for f in "${layers[@]}"; do nm -u "src/$f.o" | awk -v f="$f" '{print $NF, f}'; done | sort) \
  <(for f in "${layers[@]}"; do nm -g --defined-only "src/$f.o" | awk -v f="$f" '{print $3, f}'; done | sort) |
  awk '$2 != $3 {print $2, $3, $1}')

# upward_calls RANK_OF_PART...: "caller callee symbol" lines that call up
upward_calls() {
  local -n r=$1
  while read -r a b sym; do
    [ -n "$a" ] && [ "${r[$b]}" -le "${r[$a]}" ] && echo "$a $b $sym"
  done <<<"$calls"
}

up_all=$(upward_calls rank)
for f in "${layers[@]}"; do
  up=$(awk -v f="$f" '$1 == f {print $3 " (" $2 ".c)"}' <<<"$up_all")
  if [ -z "$up" ]; then
    ok "calls: $f.c calls only parts below it"
  else
    not_ok "calls: $f.c calls parts at or above its layer"
    tap_diag <<<"$up"
  fi
done

# the model of core's decisions stands alone
if ! awk '($1 == "model" && $2 != "sizing") || $1 == "sizing" {found=1} END {exit !found}' <<<"$calls"; then
  ok "calls: model.c calls only sizing.c, sizing.c no other part"
else
  not_ok "calls: model.c or sizing.c calls other parts"
fi

# the check can fail: with the layers upside down it must find upward calls
declare -A reversed=()
for i in "${!layers[@]}"; do reversed[${layers[$i]}]=$(( ${#layers[@]} - i )); done
nrev=$(upward_calls reversed | wc -l)
if [ "$nrev" -gt 0 ] && awk '$1 == "hooks" && $2 == "accumulator" {found=1} END {exit !found}' <<<"$calls"; then
  ok "the check sees calls: hooks.c calls accumulator.c, and the reversed order has $nrev upward calls"
else
  not_ok "the check sees no calls (is nm reading the objects?)"
fi

for f in src/*.c src/*.h; do
  base=$(basename "$f"); base=${base%.*}
  case $base in store_shm) base=store ;; esac	# store.c's layout, for persist.c
  up=""
  for h in $(sed -nE 's/^#include "([a-z_]+)\.h".*/\1/p' "$f"); do
    case $h in types|compat) continue ;; store_shm) h=store ;; esac
    [ -e "src/$h.h" ] || continue		# core's
    [ "$h" = "$base" ] && continue
    if [ -z "${rank[$h]+x}" ]; then up+=" $h.h(unknown part)";
    elif [ "${rank[$h]}" -le "${rank[$base]:-99}" ]; then up+=" $h.h"; fi
  done
  if [ -z "$up" ]; then ok "headers: $f includes only headers of parts below it"
  else not_ok "headers: $f includes$up"; fi
done

tap_done
