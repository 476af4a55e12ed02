#!/usr/bin/env bash
# The PGXN release: META.json, CHANGELOG.md, make dist.  Prints TAP;
# scripts/test.sh runs it with prove (suite "pgxn").
#
#  1. META.json is valid for PGXN's validator (pgxn_meta, the PGXN project's
#     own, which checks the meta spec's JSON schemas; scripts/deps.sh
#     installs it with cargo); copies with no license, or a version that is
#     not semver, must be rejected by it
#  2. META.json's version is the release, CHANGELOG.md's newest section
#     (1.8.2, or 1.10 -> 1.10.0), and provides.walload.version walload.control's
#     default_version as semver (1.2 -> 1.2.0); provides.walload.file and
#     docfile exist
#  3. CHANGELOG.md has one "## X.Y" section per extension version
#     (walload--X.Y.sql and the targets of walload--A--B.sql), newest first,
#     the first being default_version (sections "(library only)" aside); a
#     copy missing a section must fail the same check
#  4. make dist writes walload-RELEASE.zip of HEAD under walload-RELEASE/,
#     with META.json (valid), the control file and every DATA script, and
#     nothing export-ignored
#  5. what README.md and docs/*.md tell people to run (test/doc-checks.py):
#     each command they run, and each #! file of scripts/, has its run bit
#     in git; debian/changelog, META.json and every .deb and zip they name
#     are walload.control's default_version; each link to a section of a
#     page finds its heading (a renamed heading must fail it)
#  6. every file in git that starts with #! has its run bit (mode 100755):
#     without it the file as its #! line means it to be run fails with
#     "Permission denied" in a fresh clone; a copy of the modes with one
#     such file at 100644 must fail the same check
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 1
n=0; failures=0
ok()    { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; failures=$((failures + 1)); }
check() {  # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then ok "$1"; else notok "$1"; echo "#   expected: $2"; echo "#   got:      $3"; fi
}
diag()  { sed 's/^/#   /'; }

validator=$(command -v pgxn_meta || true)
[ -n "$validator" ] || { echo "1..0 # SKIP the PGXN validator pgxn_meta is not installed (scripts/deps.sh installs it with cargo)"; exit 0; }
command -v unzip >/dev/null || { echo "1..0 # SKIP unzip is not installed"; exit 0; }
tmp=$(mktemp -d /tmp/walload-pgxn.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "# validator: $validator ($("$validator" --version 2>&1))"

# ---------------------------------------------------------------- 1. valid
out=$("$validator" META.json 2>&1); rc=$?
check "pgxn_meta: META.json is OK" "0|META.json is OK" "$rc|$out"
meta() { python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); exec(sys.argv[2])' "$@"; }
meta META.json 'del m["license"]; json.dump(m, open(sys.argv[3], "w"))' "$tmp/nolicense.json"
out=$("$validator" "$tmp/nolicense.json" 2>&1); rc=$?
if [ "$rc" -ne 0 ] && grep -q "missing properties 'license'" <<<"$out"; then
  ok "pgxn_meta rejects a META.json without a license"
else
  notok "pgxn_meta rejects a META.json without a license"; diag <<<"$out"
fi
meta META.json 'm["version"] = "1.2"; json.dump(m, open(sys.argv[3], "w"))' "$tmp/badversion.json"
out=$("$validator" "$tmp/badversion.json" 2>&1); rc=$?
if [ "$rc" -ne 0 ] && grep -q "/version" <<<"$out"; then
  ok "pgxn_meta rejects a version that is not semver (1.2)"
else
  notok "pgxn_meta rejects a version that is not semver (1.2)"; diag <<<"$out"
fi

# --------------------------------------------------------- 2. the versions
extver=$(sed -nE "s/^default_version *= *'([^']*)'.*/\1/p" walload.control)
# the release: CHANGELOG.md's newest section, library-only ones included, as semver
release=$(sed -nE '0,/^## [0-9]/s/^## ([0-9][0-9.]*)( .*)?$/\1/p' CHANGELOG.md)
case $release in *.*.*) ;; *) release=$release.0 ;; esac
check "META.json version is the release, CHANGELOG.md's newest section, $release" "$release" "$(meta META.json 'print(m["version"])')"
check "META.json provides walload $extver.0" "$extver.0" "$(meta META.json 'print(m["provides"]["walload"]["version"])')"
for k in file docfile; do
  f=$(meta META.json "print(m['provides']['walload']['$k'])")
  if [ -f "$f" ]; then ok "provides.walload.$k $f exists"; else notok "provides.walload.$k $f exists"; fi
done

# ---------------------------------------------------------- 3. CHANGELOG.md
# the versions the install scripts define, newest first
versions=$(ls walload--*.sql | sed -E 's/^walload--(.*)\.sql$/\1/; s/^.*--//' | sort -t. -k1,1nr -k2,2nr -u | tr '\n' ' ')
echo "# versions of the install and update scripts: $versions"
# (a "## X.Y.Z (library only)" section changes the library, not the SQL)
changelog_versions() { grep -v '^## .*(library only)' "$1" | sed -nE 's/^## ([0-9][0-9.]*)( .*)?$/\1/p' | tr '\n' ' '; }
check "CHANGELOG.md: one section per extension version, newest first" "$versions" "$(changelog_versions CHANGELOG.md)"
check "CHANGELOG.md: the first section is default_version" "$extver" "$(changelog_versions CHANGELOG.md | cut -d' ' -f1)"
sed '/^## 1\.1 /,/^## 1\.0 /{/^## 1\.0 /!d}' CHANGELOG.md >"$tmp/CHANGELOG.md"
if [ "$(changelog_versions "$tmp/CHANGELOG.md")" != "$versions" ]; then
  ok "the same check fails for a CHANGELOG.md without the 1.1 section ($(changelog_versions "$tmp/CHANGELOG.md"))"
else
  notok "the same check fails for a CHANGELOG.md without the 1.1 section"
fi

# ----------------------------------------------------------------- 4. dist
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  notok "make dist needs a git checkout"
else
  PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
  if make -s -C "$tmp" -f "$here/Makefile" srcdir="$here" PG_CONFIG="$PG_CONFIG" dist >"$tmp/dist.log" 2>&1 &&
     [ -f "$tmp/walload-$release.zip" ]; then
    ok "make dist writes walload-$release.zip"
    zip="$tmp/walload-$release.zip"
    unzip -Z1 "$zip" | LC_ALL=C sort >"$tmp/zip.list"
    check "every file is under walload-$release/" "0" "$(grep -vc "^walload-$release/" "$tmp/zip.list")"
    want="META.json walload.control Makefile CHANGELOG.md README.md $(sed -nE 's/^DATA *= *//p' Makefile)"
    missing=""
    for f in $want; do grep -qxF "walload-$release/$f" "$tmp/zip.list" || missing="$missing $f"; done
    check "the zip has META.json, the control file, every DATA script, Makefile, CHANGELOG.md, README.md" "" "$missing"
    check "the zip has the files of HEAD, less the export-ignored ones" \
      "$(git ls-tree -r --name-only HEAD | grep -vxE '\.gitattributes|\.gitignore|\.ci/.*' | LC_ALL=C sort)" \
      "$(grep -v '/$' "$tmp/zip.list" | sed "s|^walload-$release/||" | LC_ALL=C sort)"
    unzip -q -d "$tmp/x" "$zip" "walload-$release/META.json"
    out=$("$validator" "$tmp/x/walload-$release/META.json" 2>&1); rc=$?
    check "the zip's META.json is valid" "0" "$rc"
  else
    notok "make dist writes walload-$release.zip"; diag <"$tmp/dist.log"
  fi
fi

# ------------------------------------------- 5. what the docs tell to run
# (test/doc-checks.py says what and why; each check also on a copy that
# must fail it, so that a check that finds nothing cannot pass)
docs=(README.md docs/*.md)
git ls-files -s >"$tmp/modes"
out=$(python3 test/doc-checks.py runbits "$tmp/modes" "${docs[@]}" 2>&1); rc=$?
echo "$out" | grep '^#'
if [ "$rc" -eq 0 ] && grep -q '^# scripts/timeline.py (run in README.md' <<<"$out"; then
  ok "every command the docs run, and every #! file of scripts/, is 100755 in git"
else
  notok "every command the docs run, and every #! file of scripts/, is 100755 in git"; grep -v '^#' <<<"$out" | diag
fi
sed -E 's/^100755( [0-9a-f]+ 0\tscripts\/timeline\.py)$/100644\1/' "$tmp/modes" >"$tmp/modes-644"
out=$(python3 test/doc-checks.py runbits "$tmp/modes-644" "${docs[@]}" 2>&1); rc=$?
if [ "$rc" -ne 0 ] && grep -q '^scripts/timeline.py (run in README.md:[0-9]*): mode 100644' <<<"$out"; then
  ok "the same check fails when scripts/timeline.py is 100644"
else
  notok "the same check fails when scripts/timeline.py is 100644"; diag <<<"$out"
fi
out=$(python3 test/doc-checks.py versions walload.control debian/changelog META.json CHANGELOG.md "${docs[@]}" 2>&1); rc=$?
echo "$out" | grep '^#'
n_found=$(grep -c '^# .*: a ' <<<"$out")
if [ "$rc" -eq 0 ] && [ "$n_found" -ge 2 ]; then
  ok "debian/changelog and the .debs the docs name are version $extver, META.json and the zips release $release ($n_found files named)"
else
  notok "debian/changelog and the .debs the docs name are version $extver, META.json and the zips release $release"
  grep -v '^#' <<<"$out" | diag
fi
sed -E 's/walload_[0-9.]+-[0-9]+_amd64\.deb/walload_1.2-1_amd64.deb/; s/walload-[0-9.]+\.zip/walload-1.2.0.zip/' README.md >"$tmp/README.md"
out=$(python3 test/doc-checks.py versions walload.control debian/changelog META.json CHANGELOG.md "$tmp/README.md" 2>&1); rc=$?
if [ "$rc" -ne 0 ] && grep -q 'a .deb: 1.2-1, not' <<<"$out" && grep -q 'a PGXN archive: 1.2.0, not' <<<"$out"; then
  ok "the same check fails for a README.md naming the 1.2 .deb and zip"
else
  notok "the same check fails for a README.md naming the 1.2 .deb and zip"; diag <<<"$out"
fi

out=$(python3 test/doc-checks.py anchors "${docs[@]}" 2>&1); rc=$?
n_links=$(grep -c '^# ' <<<"$out")
if [ "$rc" -eq 0 ] && [ "$n_links" -ge 10 ]; then
  ok "each of the $n_links links to a section of a page finds its heading"
else
  notok "each link to a section of a page finds its heading ($n_links found)"; grep -v '^#' <<<"$out" | diag
fi
mkdir -p "$tmp/anchors"
cp docs/*.md "$tmp/anchors/"
sed -i -E 's/^(#+ .*)\(issue 38, item 3\)/\1(issue 38, item three)/' "$tmp/anchors/benchmarks.md"
out=$(python3 test/doc-checks.py anchors "$tmp/anchors/limits.md" 2>&1); rc=$?
if [ "$rc" -ne 0 ] && grep -q 'benchmarks.md#ablation-of-est_scan_mss-pricing-issue-38-item-3: no such section' <<<"$out"; then
  ok "the same check fails when benchmarks.md's ablation heading is renamed"
else
  notok "the same check fails when benchmarks.md's ablation heading is renamed"; diag <<<"$out"
fi

# ------------------------------------------------ 6. every #! file runs
# shebang_without_runbit MODES: the #! files of `git ls-files -s` output
# MODES that are not 100755; the number of #! files to stderr
shebang_without_runbit() {
  local meta path mode count=0
  while IFS=$'\t' read -r meta path; do
    mode=${meta%% *}
    case $mode in 100644|100755) ;; *) continue ;; esac
    [ -f "$path" ] && [ "$(head -c2 "$path")" = '#!' ] || continue
    count=$((count + 1))
    [ "$mode" = 100755 ] || echo "$path"
  done <"$1"
  echo "$count" >&2
}
bad=$(shebang_without_runbit "$tmp/modes" 2>"$tmp/nshebang")
nshebang=$(cat "$tmp/nshebang")
if [ -z "$bad" ] && [ "$nshebang" -ge 10 ]; then
  ok "each of the $nshebang files in git that start with #! is 100755"
else
  notok "each of the files in git that start with #! is 100755 ($nshebang found)"; echo "${bad:-none found}" | diag
fi
sed -E 's/^100755( [0-9a-f]+ 0\ttest\/pgxn\.sh)$/100644\1/' "$tmp/modes" >"$tmp/modes-pgxn-644"
bad=$(shebang_without_runbit "$tmp/modes-pgxn-644" 2>/dev/null)
check "the same check fails when test/pgxn.sh is 100644" "test/pgxn.sh" "$bad"

echo "1..$n"
[ "$failures" -eq 0 ]
