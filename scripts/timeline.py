#!/usr/bin/env python3
"""Render what walload recorded as a self-contained HTML page with an SVG
timeline: one lane per backend, each transaction a bar split into its
statements (coloured by kind) and its commit phase (sync, then cleanup), each
full scan of shared_buffers marked with its estimated time, the WAL written
over time, the statement in each bar's hover text, and walload_diagnose()'s
findings beside it.

  scripts/timeline.py -o timeline.html                  # the server libpq's environment names (PGHOST, PGPORT, PGDATABASE, ...), as psql
  scripts/timeline.py -d 'host=... dbname=...' -o timeline.html --save load.json
  scripts/timeline.py --snapshot load.json -o timeline.html

Reads a live server through psql (the database must have the walload
extension), or a snapshot saved earlier with --save.  Python 3 standard
library and psql only.
"""
import argparse
import datetime
import html
import json
import math
import subprocess
import sys

# Its own query is kept out of what it draws where the role may (as
# scripts/report.py): walload.track is superuser-only (PGC_SUSET), set only
# with the privilege to; any role that may read walload's views gets its
# drawing either way.
QUIET = r"""
SELECT pg_catalog.has_parameter_privilege('walload.track', 'SET') AS walload_may_quiet \gset
\if :walload_may_quiet
SET walload.track = 'none';
\endif
SELECT CASE WHEN pg_catalog.to_regproc('walload_findings') IS NULL THEN 'walload_diagnose'
            ELSE 'walload_findings' END AS walload_findings_fn \gset
"""
SNAPSHOT_SQL = r"""
SELECT pg_catalog.json_build_object(
  'taken_at', pg_catalog.now(),
  'server', pg_catalog.json_build_object(
      'version', pg_catalog.current_setting('server_version'),
      'shared_buffers', pg_catalog.current_setting('shared_buffers'),
      'wal_level', pg_catalog.current_setting('wal_level')),
  'info', (SELECT pg_catalog.row_to_json(i) FROM walload_info i),
  'xacts', (SELECT coalesce(pg_catalog.json_agg(x ORDER BY x.xact_id), '[]')
            FROM (SELECT x.*, d.datname, r.rolname
                  FROM walload_xacts x
                  LEFT JOIN pg_catalog.pg_database d ON d.oid = x.dbid
                  LEFT JOIN pg_catalog.pg_roles r ON r.oid = x.userid) x),
  'statements', (SELECT coalesce(pg_catalog.json_agg(s ORDER BY s.xact_id, s.stmt_no), '[]')
                 FROM walload_statements s),
  'diagnosis', (SELECT coalesce(pg_catalog.json_agg(d), '[]') FROM :walload_findings_fn() d))
"""

KINDS = [  # (kind, colour, label): the kinds of walload_xacts' *_ms columns
    ("copy", "#4e79a7", "COPY"),
    ("create", "#59a14f", "CREATE TABLE / AS / MATVIEW / SEQUENCE / DATABASE"),
    ("index", "#9c755f", "CREATE INDEX, REINDEX"),
    ("dml", "#f28e2b", "INSERT / UPDATE / DELETE / MERGE / SELECT"),
    ("vacuum", "#76b7b2", "VACUUM, ANALYZE"),
    ("truncate", "#edc948", "TRUNCATE"),
    ("drop", "#b07aa1", "DROP"),
    ("rewrite", "#ff9da7", "CLUSTER, REPACK, REFRESH, ALTER"),
    ("other", "#bab0ac", "other"),
]
COLOUR = {k: c for k, c, _ in KINDS}
SYNC_COLOUR, CLEANUP_COLOUR, SCAN_COLOUR, WAL_COLOUR = "#2f2f2f", "#8c8c8c", "#d62728", "#1f77b4"
SCAN_KINDS = ["flush_rel", "flush_pending", "drop_rel", "drop_pending", "db"]
SCAN_WHAT = {
    "flush_rel": "flush of one relation",
    "flush_pending": "commit-time sync of WAL-skipped files",
    "drop_rel": "in-place truncation",
    "drop_pending": "deletion of dropped files",
    "db": "drop of a database",
}


def kind_of(command):
    c = (command or "").upper()
    if c == "COPY":
        return "copy"
    if c in ("CREATE TABLE", "CREATE TABLE AS", "SELECT INTO", "CREATE MATERIALIZED VIEW",
             "CREATE SEQUENCE", "CREATE DATABASE"):
        return "create"
    if c in ("CREATE INDEX", "REINDEX"):
        return "index"
    if c in ("INSERT", "UPDATE", "DELETE", "MERGE", "SELECT"):
        return "dml"
    if c in ("VACUUM", "ANALYZE"):
        return "vacuum"
    if c.startswith("TRUNCATE"):
        return "truncate"
    if c.startswith("DROP "):
        return "drop"
    if c in ("CLUSTER", "REPACK", "REFRESH MATERIALIZED VIEW", "ALTER TABLE", "ALTER INDEX",
             "ALTER MATERIALIZED VIEW"):
        return "rewrite"
    return "other"


def read_live(dbname):
    cmd = ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"]
    if dbname:
        cmd[1:1] = ["-d", dbname]
    r = subprocess.run(cmd, input=QUIET + SNAPSHOT_SQL + ";\n", capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("timeline.py: psql failed: " + r.stderr.strip())
    if not r.stdout.strip():
        sys.exit("timeline.py: no answer from the server")
    return json.loads(r.stdout)


def ts(s):
    return datetime.datetime.fromisoformat(s).timestamp() * 1000.0  # ms


def num(v):
    return float(v) if v is not None else 0.0


def size(b):
    b = float(b)
    for unit in ("bytes", "kB", "MB", "GB", "TB"):
        if abs(b) < 1024 or unit == "TB":
            return ("%d %s" % (b, unit)) if unit == "bytes" else ("%.1f %s" % (b, unit))
        b /= 1024


def ms(v):
    return "%.1f ms" % v if v >= 1 else "%.2f ms" % v


def esc(s):
    return html.escape(str(s), quote=True)


# Past these, one bar per statement is a barcode no one can read: each lane
# becomes a summary (see summary_lane)
DETAIL_MAX_STATEMENTS = 2000
DETAIL_MAX_XACTS_PER_LANE = 300
SUMMARY_BINS = 240

TIME_COLUMNS = [("copy", "copy_ms"), ("create", "create_ms"), ("index", "index_ms"), ("dml", "dml_ms"),
                ("vacuum", "vacuum_ms"), ("truncate", "truncate_ms"), ("drop", "drop_ms"), ("rewrite", "rewrite_ms"),
                ("other", "other_ms")]


def render(snap):
    xacts = snap["xacts"]
    stmts = snap["statements"]
    by_xact = {}
    for s in stmts:
        by_xact.setdefault(s["xact_id"], []).append(s)
    shown = [x for x in xacts if x.get("xact_start") and x.get("xact_end")]

    # time range, lanes (one per backend, in order of first appearance)
    if shown:
        t0 = min(ts(x["xact_start"]) for x in shown)
        t1 = max(ts(x["xact_end"]) for x in shown)
    else:
        t0, t1 = 0.0, 1.0
    span = max(t1 - t0, 1e-3)
    lanes = []
    per_lane = {}
    for x in sorted(shown, key=lambda x: ts(x["xact_start"])):
        if x["pid"] not in lanes:
            lanes.append(x["pid"])
        per_lane[x["pid"]] = per_lane.get(x["pid"], 0) + 1
    summary = len(stmts) > DETAIL_MAX_STATEMENTS or any(v > DETAIL_MAX_XACTS_PER_LANE for v in per_lane.values())
    left, plot_w, top = 170, 1180, 70
    lane_h, bar_y, bar_h = 78, 22, 26
    wal_h = 130
    lanes_bottom = top + lane_h * len(lanes)
    wal_top = lanes_bottom + 40
    width = left + plot_w + 30
    legend = []
    lx, ly = left, wal_top + wal_h + 28
    items = [(c, lab) for _, c, lab in KINDS] + [(SYNC_COLOUR, "commit: sync"), (CLEANUP_COLOUR, "commit: cleanup"),
                                                  (SCAN_COLOUR, "full scans of shared_buffers (tick height: how many)" if summary else
                                                   "full scan of shared_buffers (width: estimated time)")]
    for c, lab in items:
        w = 13 + int(6.3 * len(lab)) + 16
        if lx + w > left + plot_w:
            lx, ly = left, ly + 18
        legend.append((c, lab, lx, ly))
        lx += w
    height = ly + 14

    def x_of(t):
        return left + (t - t0) / span * plot_w

    def w_of(d):
        return d / span * plot_w

    out = []
    add = out.append
    add('<svg xmlns="http://www.w3.org/2000/svg" id="timeline" data-mode="%s" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="sans-serif" font-size="12">' % ("summary" if summary else "detail", width, height, width, height))
    add('<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>' % (width, height))

    # time axis
    step = nice_step(span / 8)
    add('<g class="axis">')
    t = 0.0
    while t <= span + 1e-9:
        x = x_of(t0 + t)
        add('<line x1="%.2f" y1="%d" x2="%.2f" y2="%d" stroke="#e4e4e4"/>' % (x, top - 8, x, wal_top + wal_h))
        add('<text x="%.2f" y="%d" text-anchor="middle" fill="#555">%s</text>' % (x, top - 14, esc(axis_label(t))))
        t += step
    add('<text x="%d" y="%d" fill="#555">time since the first transaction began</text>' % (left, top - 34))
    add('</g>')

    scans_drawn = 0
    for li, pid in enumerate(lanes):
        y0 = top + li * lane_h
        lx = [x for x in shown if x["pid"] == pid]
        first = lx[0]
        add('<g class="lane" data-pid="%s">' % esc(pid))
        add('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (
            left, y0 + 4, plot_w, lane_h - 8, "#f7f7f7" if li % 2 == 0 else "#fbfbfb"))
        add('<text x="10" y="%d" font-weight="bold">backend %s</text>' % (y0 + bar_y + 10, esc(pid)))
        add('<text x="10" y="%d" fill="#555">%s@%s</text>' % (
            y0 + bar_y + 26, esc(first.get("rolname") or first.get("userid")), esc(first.get("datname") or first.get("dbid"))))
        if summary:
            scans_drawn += summary_lane(add, lx, t0, span, left, plot_w, y0 + bar_y, bar_h)
            add('</g>')
            continue
        for x in lx:
            xs, xe = ts(x["xact_start"]), ts(x["xact_end"])
            commit_ms = num(x.get("commit_ms"))
            sync_ms = num(x.get("commit_sync_ms"))
            cleanup_ms = num(x.get("commit_cleanup_ms"))
            commit_start = xe - commit_ms
            add('<g class="xact" data-xact="%s">' % esc(x["xact_id"]))
            add('<rect class="xact-bar" x="%.2f" y="%d" width="%.2f" height="%d" fill="none" stroke="#999" stroke-width="0.6">'
                '<title>%s</title></rect>' % (x_of(xs), y0 + bar_y - 3, max(w_of(xe - xs), 1.0), bar_h + 6, esc(
                    "transaction %s (%s): %s, %s statement(s), commit %s (sync %s, cleanup %s), %s full scan(s), "
                    "est. %s, WAL %s" % (x["xact_id"], x.get("outcome"), ms(num(x.get("total_ms"))),
                                         x.get("statements"), ms(commit_ms), ms(sync_ms), ms(cleanup_ms),
                                         x.get("full_scans"), ms(num(x.get("est_scan_ms"))), size(num(x.get("wal_bytes")))))))
            # statements
            attributed = {k: 0 for k in SCAN_KINDS}
            attributed_est = 0.0
            pending_marks = []  # (kind, est_ms, what caused it)
            for s in by_xact.get(x["xact_id"], []):
                ss = ts(s["stmt_start"])
                el = num(s.get("elapsed_ms"))
                nest = int(s.get("nest_level") or 0)
                k = kind_of(s.get("command"))
                sy = y0 + bar_y + (0 if nest == 0 else 6 + 4 * nest)
                sh = bar_h if nest == 0 else max(bar_h - 6 - 4 * nest, 4)
                tip = "#%s %s%s, %s, %s row(s), WAL %s, %s full scan(s)%s\n%s" % (
                    s.get("stmt_no"), s.get("command"), "" if s.get("status") == "ok" else " (" + str(s.get("status")) + ")",
                    ms(el), s.get("rows"), size(num(s.get("wal_bytes"))), s.get("full_scans"),
                    (", est. " + ms(num(s.get("est_scan_ms")))) if num(s.get("full_scans")) else "",
                    s.get("query") or "")
                add('<rect class="stmt" data-kind="%s" data-cmd="%s" data-xact="%s" data-nest="%d" x="%.2f" y="%d" '
                    'width="%.2f" height="%d" fill="%s"%s><title>%s</title></rect>' % (
                        k, esc(s.get("command")), esc(x["xact_id"]), nest, x_of(ss), sy, max(w_of(el), 1.0), sh,
                        COLOUR[k], ' stroke="#d62728" stroke-width="1.5"' if s.get("status") != "ok" else "", esc(tip)))
                n_scans = int(num(s.get("full_scans")))
                per = num(s.get("est_scan_ms")) / n_scans if n_scans else 0.0
                during = []
                for sk in SCAN_KINDS:
                    c = int(num(s.get("scans_" + sk)))
                    attributed[sk] += c
                    for _ in range(c):
                        if sk.endswith("_pending"):
                            pending_marks.append((sk, per, "%s #%s" % (s.get("command"), s.get("stmt_no"))))
                        else:
                            during.append(sk)
                attributed_est += num(s.get("est_scan_ms"))
                for i, sk in enumerate(during):  # during the statement, spread over its bar
                    mx = x_of(ss) + max(w_of(el), 1.0) * (i + 0.5) / len(during)
                    add(scan_mark(mx, w_of(per), y0 + bar_y, bar_h, x["xact_id"], sk, per,
                                  "%s #%s" % (s.get("command"), s.get("stmt_no")), False))
                    scans_drawn += 1
            # scans of the transaction no recorded statement was charged with
            rest = {sk: max(int(num(x.get("scans_" + sk))) - attributed[sk], 0) for sk in SCAN_KINDS}
            n_rest = sum(rest.values())
            rest_est = max(num(x.get("est_scan_ms")) - attributed_est, 0.0)
            for sk in SCAN_KINDS:
                for _ in range(rest[sk]):
                    pending_marks.append((sk, rest_est / n_rest, "no recorded statement"))
            # commit phase: sync, then cleanup
            if commit_ms > 0:
                add('<rect class="commit-sync" x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"><title>%s</title></rect>' % (
                    x_of(commit_start), y0 + bar_y, max(w_of(sync_ms), 1.0), bar_h, SYNC_COLOUR,
                    esc("commit of transaction %s, sync part: %s (pending syncs, commit record, WAL flush, replication wait; "
                        "%s WAL at commit, %s file(s) synced, %s WAL-logged)" % (
                            x["xact_id"], ms(sync_ms), size(num(x.get("commit_wal_bytes"))), x.get("synced_rels"),
                            x.get("wal_logged_rels")))))
                add('<rect class="commit-cleanup" x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"><title>%s</title></rect>' % (
                    x_of(commit_start + sync_ms), y0 + bar_y, max(w_of(cleanup_ms), 1.0), bar_h, CLEANUP_COLOUR,
                    esc("commit of transaction %s, cleanup part: %s (lock release, deletion of %s dropped file(s) and "
                        "its scan)" % (x["xact_id"], ms(cleanup_ms), x.get("dropped_rels")))))
            for i, (sk, per, why) in enumerate(pending_marks):
                # the sync's scans in the sync part, the others in the cleanup part
                if sk == "flush_pending":
                    base, dur = commit_start, sync_ms
                else:
                    base, dur = commit_start + sync_ms, cleanup_ms
                mx = x_of(base) + max(w_of(dur), 1.0) * (i + 0.5) / len(pending_marks)
                add(scan_mark(mx, w_of(per), y0 + bar_y, bar_h, x["xact_id"], sk, per, why, True))
                scans_drawn += 1
            add('</g>')
        add('</g>')

    # WAL written over time: each top-level statement's WAL at its end; the
    # rest of its transaction's (commit record, commit-time WAL-logging, what
    # no recorded statement wrote) at the transaction's end
    events = []
    for x in shown:
        top_wal = 0.0
        for s in by_xact.get(x["xact_id"], []):
            if int(s.get("nest_level") or 0) == 0:
                w = num(s.get("wal_bytes"))
                top_wal += w
                events.append((ts(s["stmt_start"]) + num(s.get("elapsed_ms")), w))
        events.append((ts(x["xact_end"]), max(num(x.get("wal_bytes")) - top_wal, 0.0)))
    events.sort()
    total = sum(w for _, w in events) or 1.0
    add('<g class="wal">')
    add('<text x="10" y="%d" font-weight="bold">WAL written</text>' % (wal_top + 14))
    add('<text x="10" y="%d" fill="#555">cumulative, %s in all</text>' % (wal_top + 30, esc(size(sum(w for _, w in events)))))
    add('<rect x="%d" y="%d" width="%d" height="%d" fill="#fafafa" stroke="#ddd"/>' % (left, wal_top, plot_w, wal_h))
    for frac in (0.5, 1.0):
        yy = wal_top + wal_h - frac * wal_h
        add('<text x="%d" y="%.1f" text-anchor="end" fill="#555" font-size="10">%s</text>' % (left - 4, yy + 4, esc(size(total * frac))))
    pts = ["%.2f,%.2f" % (left, wal_top + wal_h)]
    cum = 0.0
    for t, w in events:
        x = x_of(t)
        pts.append("%.2f,%.2f" % (x, wal_top + wal_h - cum / total * wal_h))
        cum += w
        pts.append("%.2f,%.2f" % (x, wal_top + wal_h - cum / total * wal_h))
    pts.append("%.2f,%.2f" % (left + plot_w, wal_top + wal_h - cum / total * wal_h))
    add('<polyline class="wal-line" points="%s" fill="none" stroke="%s" stroke-width="2"><title>%s</title></polyline>' % (
        " ".join(pts), WAL_COLOUR, esc("WAL written since the first transaction began: %s" % size(cum))))
    add('</g>')

    # legend, in rows
    add('<g class="legend">')
    for c, lab, lx, ly in legend:
        add('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">%s</text>' % (
            lx, ly - 9, c, lx + 13, ly, esc(lab)))
    add('</g>')
    add('</svg>')
    return "\n".join(out), scans_drawn, len(lanes), "summary" if summary else "detail"


def summary_lane(add, lx, t0, span, left, plot_w, y, h):
    """A lane of many transactions in SUMMARY_BINS columns of equal time:
    each column's height is the share of its time the backend spent in
    transactions, split by kind (the statements' kinds, then the commit's
    sync and cleanup), each transaction's parts spread evenly over its own
    span; a red tick above a column counts its full scans.  Returns the
    scans drawn (all of the lane's)."""
    nb = SUMMARY_BINS
    bin_ms = span / nb
    parts = [k for k, _ in TIME_COLUMNS] + ["sync", "cleanup"]
    busy = [{k: 0.0 for k in parts} for _ in range(nb)]
    scans = [0] * nb
    xcount = [0] * nb
    for x in lx:
        xs, xe = ts(x["xact_start"]), ts(x["xact_end"])
        d = max(xe - xs, 1e-6)
        amounts = {k: num(x.get(col)) for k, col in TIME_COLUMNS}
        amounts["sync"] = num(x.get("commit_sync_ms"))
        amounts["cleanup"] = num(x.get("commit_cleanup_ms"))
        b0 = min(int((xs - t0) / bin_ms), nb - 1)
        b1 = min(int((xe - t0) / bin_ms), nb - 1)
        for b in range(b0, b1 + 1):
            lo, hi = max(xs, t0 + b * bin_ms), min(xe, t0 + (b + 1) * bin_ms)
            frac = max(hi - lo, 0.0) / d if b1 > b0 else 1.0
            for k, v in amounts.items():
                busy[b][k] += v * frac
        mid = min(int(((xs + xe) / 2 - t0) / bin_ms), nb - 1)
        scans[mid] += int(num(x.get("full_scans")))
        xcount[mid] += 1
    colour = dict(COLOUR, sync=SYNC_COLOUR, cleanup=CLEANUP_COLOUR)
    cw = plot_w / nb
    for b in range(nb):
        total = sum(busy[b].values())
        if total <= 0 and scans[b] == 0:
            continue
        scale = h / max(bin_ms, total)  # a column is full when the backend was busy all its time
        yy = y + h
        tip = "%s to %s: %d transaction(s), %s in them (%s), %d full scan(s)" % (
            axis_label(b * bin_ms), axis_label((b + 1) * bin_ms), xcount[b], ms(total),
            ", ".join("%s %s" % (k, ms(v)) for k, v in sorted(busy[b].items(), key=lambda kv: -kv[1]) if v > 0),
            scans[b])
        add('<g class="bin" data-scans="%d" data-xacts="%d"><title>%s</title>' % (scans[b], xcount[b], esc(tip)))
        for k in parts:
            v = busy[b][k]
            if v <= 0:
                continue
            hh = v * scale
            yy -= hh
            add('<rect class="part" data-kind="%s" x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"/>' % (
                k, left + b * cw, yy, max(cw - 0.3, 0.5), hh, colour[k]))
        if scans[b]:
            th = min(3 + 2 * math.log2(1 + scans[b]), 16)
            add('<rect class="scan-count" data-scans="%d" x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"/>' % (
                scans[b], left + b * cw, y - 4 - th, max(cw - 0.3, 0.5), th, SCAN_COLOUR))
        add('</g>')
    return sum(scans)


def scan_mark(x, w, y, h, xact_id, kind, est, why, at_commit):
    """a full scan: a red box above the bar, as wide as its estimated time,
    and a thin line down through the bar where it happened"""
    w = max(w, 2.0)
    tip = esc("full scan of shared_buffers: %s%s, est. %s (caused by %s)" % (
        SCAN_WHAT[kind], " at commit" if at_commit else "", ms(est), why))
    return ('<rect class="scan" data-xact="%s" data-scan-kind="%s" x="%.2f" y="%d" width="%.2f" height="8" fill="%s">'
            '<title>%s</title></rect><line x1="%.2f" y1="%d" x2="%.2f" y2="%d" stroke="%s" stroke-width="1" '
            'stroke-opacity="0.7"/>' % (esc(xact_id), kind, x - w / 2, y - 13, w, SCAN_COLOUR, tip,
                                        x, y - 5, x, y + h + 3, SCAN_COLOUR))


def nice_step(raw):
    if raw <= 0:
        return 1.0
    p = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * p:
            return m * p
    return 10 * p


def axis_label(t):
    return "%.0f ms" % t if t < 10000 else "%.1f s" % (t / 1000)


def page(snap):
    svg, scans_drawn, n_lanes, mode = render(snap)
    info = snap.get("info") or {}
    server = snap.get("server") or {}
    xacts, stmts = snap["xacts"], snap["statements"]
    findings = snap.get("diagnosis") or []
    full = sum(int(num(x.get("full_scans"))) for x in xacts)
    est = sum(num(x.get("est_scan_ms")) for x in xacts)
    commit = sum(num(x.get("commit_ms")) for x in xacts)
    summary = ("%d transaction(s) on %d backend(s), %d statement(s), %d full scan(s) of shared_buffers (est. %s), "
               "%s in commit phases" % (len(xacts), n_lanes, len(stmts), full, ms(est), ms(commit)))
    diag = []
    for f in findings:
        # 1.7 gives the evidence and hint short, the full texts in detail
        more = ('<details><summary>detail</summary><p class="detail">%s</p></details>' % esc(f["detail"])
                if f.get("detail") else "")
        diag.append('<div class="finding %s"><div class="sev">%s</div><h3>%s</h3><p class="evidence">%s</p>'
                    '<p class="hint">%s</p>%s</div>' % (esc(f.get("severity")), esc(f.get("severity")), esc(f.get("finding")),
                                                         esc(f.get("evidence")), esc(f.get("hint")), more))
    if not diag:
        diag.append('<p class="none">walload_diagnose() has no finding.</p>')
    how = ("Hover over a bar for its statement." if mode == "detail" else
           "Too many transactions to draw one by one: each lane is a summary, %d columns of equal time, each as high as "
           "the share of its time the backend spent in transactions, by kind; red ticks count full scans. Hover over a "
           "column for its figures." % SUMMARY_BINS)
    return """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>walload timeline</title>
<style>
body { font-family: sans-serif; margin: 16px; color: #222; }
h1 { font-size: 20px; margin: 0 0 4px 0; }
.meta { color: #555; font-size: 13px; margin-bottom: 12px; }
.row { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 18px; }
.chart { flex: 1 1 900px; min-width: 0; border: 1px solid #ddd; }
.chart svg { display: block; width: 100%%; height: auto; }
aside { flex: 1 1 320px; min-width: 0; max-width: 640px; font-size: 13px; overflow-wrap: anywhere; }
aside h2 { font-size: 16px; margin: 0 0 8px 0; }
.finding { border-left: 4px solid #999; padding: 4px 10px; margin-bottom: 10px; background: #fafafa; }
.finding.warning { border-color: #d62728; } .finding.notice { border-color: #ff7f0e; } .finding.info { border-color: #1f77b4; }
.finding h3 { font-size: 14px; margin: 2px 0; }
.finding .sev { font-size: 11px; text-transform: uppercase; color: #666; }
.finding p { margin: 4px 0; } .finding .hint { color: #333; }
.finding summary { cursor: pointer; color: #555; font-size: 12px; } .finding .detail { color: #444; }
</style></head>
<body>
<h1>walload: where the time of the load went</h1>
<div class="meta" id="summary" data-mode="%s" data-xacts="%d" data-statements="%d" data-full-scans="%d" data-scan-marks="%d" data-lanes="%d">
%s<br>PostgreSQL %s, wal_level=%s, shared_buffers=%s; read %s; walload_info: %s transaction(s) and %s statement(s) recorded, %s overwritten, %s full scan(s) since %s.
%s</div>
<div class="row"><div class="chart">%s</div>
<aside><h2>walload_diagnose()</h2>%s</aside></div>
</body></html>
""" % (mode, len(xacts), len(stmts), full, scans_drawn, n_lanes, esc(summary), esc(server.get("version")), esc(server.get("wal_level")),
       esc(server.get("shared_buffers")), esc(snap.get("taken_at")), esc(info.get("xacts_recorded")),
       esc(info.get("statements_recorded")), esc(int(num(info.get("xacts_overwritten")) + num(info.get("statements_overwritten")))),
       esc(info.get("full_scans")), esc(info.get("stats_reset")), esc(how), svg, "\n".join(diag))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", default="walload-timeline.html", help="the HTML page to write (default %(default)s)")
    ap.add_argument("-d", "--dbname", help="connection string or database name, as psql -d (default: libpq's environment)")
    ap.add_argument("--snapshot", help="read this JSON snapshot (from --save) instead of a server")
    ap.add_argument("--save", help="also save what was read from the server as a JSON snapshot")
    a = ap.parse_args()
    if a.snapshot:
        with open(a.snapshot) as f:
            snap = json.load(f)
    else:
        snap = read_live(a.dbname)
        if a.save:
            with open(a.save, "w") as f:
                json.dump(snap, f, indent=1)
    with open(a.output, "w") as f:
        f.write(page(snap))
    full = sum(int(num(x.get("full_scans"))) for x in snap["xacts"])
    print("%s: %d transaction(s), %d statement(s), %d full scan(s), %d finding(s)" % (
        a.output, len(snap["xacts"]), len(snap["statements"]), full, len(snap.get("diagnosis") or [])))


if __name__ == "__main__":
    main()
