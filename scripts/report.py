#!/usr/bin/env python3
"""walload's answer for a load, to attach to a ticket: where its time went
(walload_report()) and what to change, largest saving first
(walload_diagnose()), as Markdown or plain text.

  scripts/report.py                                   # all walload_xacts holds, as Markdown, to stdout
  scripts/report.py --application-name pg_restore --since '2026-11-28 01:00' -o load.md
  scripts/report.py -d 'host=... dbname=...' --format text

The filters are walload_report()'s and walload_diagnose()'s (every one
optional).  Reads the server through psql (libpq's environment, or -d), as
any role that may read walload's views; a session that walload does not
record when the role may set walload.track (a superuser, or GRANT SET ON
PARAMETER).  Python 3 standard library and psql only.  A warning of walload_report() (the ring no longer holds the whole
window) is printed in the report.
"""
import argparse
import json
import subprocess
import sys

# every filter is passed as a psql variable, quoted by psql (:'name'); both
# functions take the same ones
FILTERS = """since => NULLIF(:'since', '')::timestamptz, until => NULLIF(:'until', '')::timestamptz,
               pid => NULLIF(:'pid', '')::integer, application_name => NULLIF(:'app', ''),
               userid => (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = NULLIF(:'role', '')),
               dbid => (SELECT oid FROM pg_catalog.pg_database WHERE datname = NULLIF(:'db', ''))"""
# Its own query is kept out of what it reports: a SELECT that writes WAL
# (pruning a page on the way) is recorded like any other.  walload.track is
# superuser-only (PGC_SUSET), so it is set only where the role may set it
# (a superuser, or GRANT SET ON PARAMETER walload.track); any role that may
# read walload's views gets its report either way.
QUIET = r"""
SELECT pg_catalog.has_parameter_privilege('walload.track', 'SET') AS walload_may_quiet \gset
\if :walload_may_quiet
SET walload.track = 'none';
\endif
SELECT CASE WHEN pg_catalog.to_regproc('walload_findings') IS NULL THEN 'walload_diagnose'
            ELSE 'walload_findings' END AS walload_findings_fn \gset
"""
QUERY = QUIET + r"""
SELECT pg_catalog.json_build_object(
  'taken_at', pg_catalog.now(),
  'version', pg_catalog.current_setting('server_version'),
  'wal_level', pg_catalog.current_setting('wal_level'),
  'shared_buffers', pg_catalog.current_setting('shared_buffers'),
  'report', (SELECT coalesce(pg_catalog.json_agg(r), '[]') FROM walload_report(%(f)s) r),
  'findings', (SELECT coalesce(pg_catalog.json_agg(d), '[]') FROM :walload_findings_fn(%(f)s) d)
)::jsonb::text;  -- on one line
""" % {"f": FILTERS}


def read(args):
    cmd = ["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1"]
    if args.dbname:
        cmd += ["-d", args.dbname]
    for name, value in (("since", args.since), ("until", args.until), ("pid", args.pid),
                        ("app", args.application_name), ("role", args.user), ("db", args.database)):
        cmd += ["-v", "%s=%s" % (name, "" if value is None else value)]
    r = subprocess.run(cmd, input=QUERY, capture_output=True, text=True, timeout=args.timeout)
    if r.returncode != 0:
        sys.exit("report.py: psql failed: " + r.stderr.strip())
    out = [line for line in r.stdout.splitlines() if line.startswith("{")]
    if not out:
        sys.exit("report.py: no answer from the server: " + r.stdout.strip())
    snap = json.loads(out[-1])
    # psql prints the server's WARNING and its DETAIL and HINT lines on stderr
    snap["warnings"] = [line.split(":", 1)[1].strip() for line in r.stderr.splitlines()
                        if line.startswith(("WARNING:", "DETAIL:", "HINT:"))]
    return snap


def fmt_ms(v):
    return "" if v is None else "%.1f" % float(v)


def fmt_share(p):
    """a part's share: pct, a percentage (1.10), or share, a fraction (1.6-1.9)"""
    if p.get("pct") is not None:
        return "%.1f%%" % float(p["pct"])
    return "" if p.get("share") is None else "%.1f%%" % (100 * p["share"])


def filters(args):
    f = [("since", args.since), ("until", args.until), ("pid", args.pid),
         ("application_name", args.application_name), ("role", args.user), ("database", args.database)]
    return ", ".join("%s %s" % (k, v) for k, v in f if v is not None) or "none (all walload_xacts holds)"


def tables(snap):
    """the two tables as (header, rows) and the details, shared by both formats"""
    # 1.10 names transactions xacts and begins with the verdict (no ms)
    parts = [[p.get("part"), fmt_ms(p.get("ms")), fmt_share(p),
              "" if p.get("xacts", p.get("transactions")) is None else str(p.get("xacts", p.get("transactions"))),
              p.get("detail") or ""]
             for p in snap["report"]]
    finds = [[f.get("severity"), fmt_ms(f.get("saving_ms")), f.get("finding"), f.get("evidence"), f.get("hint")]
             for f in snap["findings"]]
    # a 1.6 database has no detail column: its evidence and hint are the long texts
    details = [(f.get("finding"), f["detail"]) for f in snap["findings"] if f.get("detail")]
    total = sum(float(p.get("ms") or 0) for p in snap["report"])
    return (["part", "ms", "share", "transactions", "detail"], parts), \
        (["severity", "saving (ms)", "finding", "evidence", "hint"], finds), details, total


def markdown(snap, args):
    def cell(s):
        return (s or "").replace("|", "\\|").replace("\n", " ")

    def table(head, rows):
        out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
        return out

    (ph, parts), (fh, finds), details, total = tables(snap)
    out = ["# walload report", "",
           "PostgreSQL %s, wal_level=%s, shared_buffers=%s; taken at %s; filters: %s." % (
               snap["version"], snap["wal_level"], snap["shared_buffers"], snap["taken_at"], filters(args)), ""]
    for w in snap["warnings"]:
        out += ["> " + w]
    if snap["warnings"]:
        out.append("")
    out += ["## Where the time went: %.1f ms" % total, ""]
    out += table(ph, parts) if parts else ["No recorded transaction is within the filters."]
    out += ["", "## What to change, largest saving first", ""]
    out += table(fh, finds)
    if details:
        out += ["", "### In full", ""]
        out += ["%d. **%s**: %s" % (i + 1, cell(f), cell(d)) for i, (f, d) in enumerate(details)]
    return "\n".join(out) + "\n"


def text(snap, args):
    def table(head, rows):
        w = [max([len(h)] + [len(r[i] or "") for r in rows]) for i, h in enumerate(head)]
        line = lambda r: "  ".join((c or "").ljust(w[i]) for i, c in enumerate(r)).rstrip()
        return [line(head), line(["-" * x for x in w])] + [line(r) for r in rows]

    (ph, parts), (fh, finds), details, total = tables(snap)
    out = ["walload report",
           "PostgreSQL %s, wal_level=%s, shared_buffers=%s; taken at %s" % (
               snap["version"], snap["wal_level"], snap["shared_buffers"], snap["taken_at"]),
           "filters: " + filters(args)]
    out += ["warning: " + w for w in snap["warnings"]]
    out += ["", "Where the time went: %.1f ms" % total]
    out += table(ph, parts) if parts else ["No recorded transaction is within the filters."]
    out += ["", "What to change, largest saving first"] + table(fh, finds)
    if details:
        out += ["", "In full"] + ["%d. %s: %s" % (i + 1, f, d) for i, (f, d) in enumerate(details)]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-d", "--dbname", help="connection string or database name, as psql -d (default: libpq's environment)")
    ap.add_argument("--since", help="transactions that began at or after this time")
    ap.add_argument("--until", help="transactions that ended by this time")
    ap.add_argument("--pid", type=int, help="of this backend")
    ap.add_argument("--application-name", help="of sessions with this application_name")
    ap.add_argument("--user", help="of this role")
    ap.add_argument("--database", help="in this database")
    ap.add_argument("--format", choices=["markdown", "text"], default="markdown")
    ap.add_argument("-o", "--output", help="write the report here (default: stdout)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds psql may take (default %(default)s)")
    args = ap.parse_args()
    snap = read(args)
    doc = markdown(snap, args) if args.format == "markdown" else text(snap, args)
    if args.output:
        with open(args.output, "w") as f:
            f.write(doc)
    else:
        sys.stdout.write(doc)


if __name__ == "__main__":
    main()
