# scripts/lib/tap.sh: the Test Anything Protocol, written once.
#
#   . scripts/lib/tap.sh
#   tap_plan 3                  # "1..3" (or none: tap_done prints it at the end)
#   tap_ok "description"        # "ok 1 - description"
#   tap_not_ok "description"    # "not ok 2 - description" (counts as failed)
#   tap_skip "description" WHY  # "ok 3 - description # SKIP WHY"
#   tap_todo "description" WHY  # "not ok 4 - description # TODO WHY" (not failed)
#   tap_check "description" EXPECTED ACTUAL   # ok if equal, else not ok + both
#   tap_diag "text" / ... | tap_diag          # "# text" on every line
#   tap_skip_all WHY            # "1..0 # SKIP WHY" (the whole file cannot run)
#   tap_bail WHY                # "Bail out! WHY", exit 1
#   tap_done                    # the plan if none was printed; status 1 if any failed
#   tap_relay PREFIX < FILE     # re-number another TAP stream's results into
#                               # this one, each description prefixed
#
# Results go to standard output, or, when tap_file is set, are appended to
# that file (a caller that writes TAP beside output of its own; no file
# descriptor is held open, so no server or test started meanwhile inherits
# one).  Counters: tap_n (results so far), tap_passed, tap_failed,
# tap_planned.

tap_file=${tap_file:-}
tap_n=0 tap_passed=0 tap_failed=0 tap_planned=""

tap__put() { if [ -n "$tap_file" ]; then printf '%s\n' "$*" >>"$tap_file"; else printf '%s\n' "$*"; fi; }
# a description must not start a directive of its own nor break the line
tap__desc() { local d=${1//$'\n'/ }; printf '%s' "${d//#/\\#}"; }

tap_plan() { tap_planned=$1; tap__put "1..$1"; }
tap_ok() { tap_n=$((tap_n + 1)); tap_passed=$((tap_passed + 1)); tap__put "ok $tap_n - $(tap__desc "$*")"; }
tap_not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); tap__put "not ok $tap_n - $(tap__desc "$*")"; }
tap_skip() {
  tap_n=$((tap_n + 1)); tap_passed=$((tap_passed + 1))
  tap__put "ok $tap_n - $(tap__desc "$1") # SKIP ${2//$'\n'/ }"
}
tap_todo() { tap_n=$((tap_n + 1)); tap__put "not ok $tap_n - $(tap__desc "$1") # TODO ${2//$'\n'/ }"; }
tap_check() {
  if [ "$2" = "$3" ]; then
    tap_ok "$1"
  else
    tap_not_ok "$1"
    tap_diag "  expected: $2"
    tap_diag "  got:      $3"
  fi
}
tap_diag() {
  local line
  if [ $# -gt 0 ]; then printf '%s\n' "$*"; else cat; fi |
    while IFS= read -r line || [ -n "$line" ]; do tap__put "# $line"; done
}
tap_skip_all() { tap__put "1..0 # SKIP ${1//$'\n'/ }"; tap_planned=0; }
tap_bail() { tap__put "Bail out! ${1//$'\n'/ }"; exit 1; }
tap_done() {
  [ -n "$tap_planned" ] || tap__put "1..$tap_n"
  [ "$tap_failed" -eq 0 ]
}

# tap_parse LINE: a result line of TAP into tap_res ("ok" or "not ok"),
# tap_desc (unescaped), tap_dir ("", SKIP or TODO) and tap_why; status 1
# when LINE is no result line
tap__re='^(not ok|ok)([[:space:]]+[0-9]+)?([[:space:]]+-)?[[:space:]]*(.*)$'
tap__dir_re='^(([^#\\]|\\.)*[^#\\[:space:]])?[[:space:]]*#[[:space:]]*([Ss][Kk][Ii][Pp]|[Tt][Oo][Dd][Oo])[^[:space:]]*[[:space:]]*(.*)$'
tap_parse() {
  [[ $1 =~ $tap__re ]] || return 1
  tap_res=${BASH_REMATCH[1]} tap_desc=${BASH_REMATCH[4]} tap_dir="" tap_why=""
  if [[ $tap_desc =~ $tap__dir_re ]]; then
    tap_desc=${BASH_REMATCH[1]} tap_dir=${BASH_REMATCH[3]^^} tap_why=${BASH_REMATCH[4]}
  fi
  tap_desc=${tap_desc//\\#/#}
  return 0
}

# tap_relay PREFIX: reads TAP on stdin (a file or a process substitution,
# not a pipe: the counters must stay in this shell); each result becomes one of this
# stream (numbered here, its description prefixed, its directive kept; a
# TODO does not count as failed), comment lines are passed on, anything else
# is dropped.  Status 1 when the stream held no result and no "1..0" plan.
tap_relay() {
  local prefix=$1 line seen=1
  while IFS= read -r line; do
    if tap_parse "$line"; then
      seen=0
      case $tap_dir in
        SKIP) tap_skip "$prefix$tap_desc" "$tap_why" ;;
        TODO)
          tap_n=$((tap_n + 1))
          [ "$tap_res" = ok ] && tap_passed=$((tap_passed + 1))
          tap__put "$tap_res $tap_n - $(tap__desc "$prefix$tap_desc") # TODO $tap_why" ;;
        *) if [ "$tap_res" = ok ]; then tap_ok "$prefix$tap_desc"; else tap_not_ok "$prefix$tap_desc"; fi ;;
      esac
    elif [[ $line =~ ^1\.\.0 ]]; then
      seen=0
    elif [[ $line == "#"* ]]; then
      tap__put "$line"
    fi
  done
  return $seen
}
