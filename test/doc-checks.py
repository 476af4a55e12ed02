#!/usr/bin/env python3
"""What README.md and docs/*.md tell people to run, checked against the tree
(test/pgxn.sh runs it; the exit status says whether all is right, each
finding on a line of its own, "#" before the ones that are right).

  doc-checks.py runbits MODES DOC...
      MODES is `git ls-files -s`.  A file the docs run as a command (first
      on a line of a fenced code block, or first in an inline code span
      with arguments: `scripts/timeline.py -o load.html`), and every file of
      scripts/ that starts with #!, must be in git with mode 100755: git
      records the run bit, and without it the command as written fails
      with "Permission denied" in a fresh clone.
  doc-checks.py versions CONTROL DEBIAN_CHANGELOG META_JSON CHANGELOG DOC...
      One source for each version: walload.control's default_version
      (X.Y) for the SQL, CHANGELOG.md's newest section (X.Y.Z, library-only
      releases included; X.Y is X.Y.0) for the release.  debian/changelog's
      newest entry must be X.Y-N and every package a doc names
      (walload_V_ARCH.deb) that; META.json's version and every archive a
      doc names (walload-V.zip) the release: a doc that names an older
      build's file sends people to one the build no longer makes.
"""
import json, re, sys

PATH = r"(?:\./)?((?:scripts|bench|test)/[A-Za-z0-9_./-]+\.(?:sh|py|pl))"
PREFIX = r"(?:\$ |sudo |[A-Z_][A-Z0-9_]*=\S* )*"


def runbits(modes_file, docs):
    modes = {}
    for line in open(modes_file):
        meta, path = line.rstrip("\n").split("\t", 1)
        modes[path] = meta.split()[0]
    cmds = {}
    for doc in docs:
        fenced = False
        for i, line in enumerate(open(doc), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                m = re.match(r"\s*" + PREFIX + PATH + r"(\s|$)", line)
                hits = [m.group(1)] if m else []
            else:
                hits = re.findall(r"`" + PREFIX + PATH + r" [^`]+`", line)
            for h in hits:
                cmds.setdefault(h, "run in %s:%d" % (doc, i))
    for p in modes:
        if p.startswith("scripts/") and modes[p] in ("100644", "100755"):
            with open(p, "rb") as f:
                if f.read(2) == b"#!":
                    cmds.setdefault(p, "starts with #!")
    bad = 0
    for p, why in sorted(cmds.items()):
        m = modes.get(p, "not in git")
        if m == "100755":
            print("# %s (%s): 100755" % (p, why))
        else:
            bad += 1
            print("%s (%s): mode %s, not 100755" % (p, why, m))
    return bad


def versions(control, changelog, meta_json, changes, docs):
    ext = re.search(r"^default_version\s*=\s*'([^']+)'", open(control).read(), re.M).group(1)
    release = re.search(r"^## ([0-9][0-9.]*)", open(changes).read(), re.M).group(1)
    if release.count(".") == 1:
        release += ".0"
    deb = re.match(r"\S+ \(([^)]+)\)", open(changelog).readline()).group(1)
    bad = 0

    def check(what, want, got):
        nonlocal bad
        if want == got:
            print("# %s: %s" % (what, got))
        else:
            bad += 1
            print("%s: %s, not %s" % (what, got, want))

    check("%s: newest entry's upstream version" % changelog, ext, deb.rsplit("-", 1)[0])
    check("%s: version" % meta_json, release, json.load(open(meta_json))["version"])
    for doc in docs:
        for i, line in enumerate(open(doc), 1):
            for v in re.findall(r"walload_([0-9][0-9A-Za-z.~+-]*)_[a-z0-9]+\.deb", line):
                check("%s:%d: a .deb" % (doc, i), deb, v)
            for v in re.findall(r"walload-([0-9][0-9.]*[0-9])\.(?:zip|tar)", line):
                check("%s:%d: a PGXN archive" % (doc, i), release, v)
    return bad


def slug(heading):
    s = re.sub(r"[`*]", "", heading.strip().lower())
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def headings(path):
    seen, out, fenced = {}, set(), False
    for line in open(path):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"#{1,6} +(.*?) *#*$", line.rstrip("\n"))
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else "%s-%d" % (base, n))
    return out


def anchors(docs):
    import os
    bad = 0
    cache = {}
    for doc in docs:
        for i, line in enumerate(open(doc), 1):
            for target, anchor in re.findall(r"\]\(([^)#\s]*\.md|)#([^)\s]+)\)", line):
                path = os.path.normpath(os.path.join(os.path.dirname(doc), target)) if target else doc
                if path not in cache:
                    cache[path] = headings(path) if os.path.exists(path) else None
                if cache[path] is None:
                    bad += 1
                    print("%s:%d: %s#%s: no such file" % (doc, i, target, anchor))
                elif anchor in cache[path]:
                    print("# %s:%d: %s#%s" % (doc, i, target or "", anchor))
                else:
                    bad += 1
                    print("%s:%d: %s#%s: no such section in %s" % (doc, i, target, anchor, path))
    return bad


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "anchors":
        sys.exit(1 if anchors(sys.argv[2:]) else 0)
    if len(sys.argv) >= 3 and sys.argv[1] == "runbits":
        sys.exit(1 if runbits(sys.argv[2], sys.argv[3:]) else 0)
    if len(sys.argv) >= 6 and sys.argv[1] == "versions":
        sys.exit(1 if versions(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]) else 0)
    sys.exit(__doc__)
