#!/usr/bin/env python3
"""walload benchmarks: its overhead, and the seed report's load measured by
the client beside what walload attributes.  Run as root: bench/run.sh.

Writes a Markdown report (tables, and an SVG chart) to bench/out/ and prints it.

  overhead: pgbench -S, the default pgbench script, and a CREATE/COPY/DROP
            loop, with nothing preloaded / pg_stat_statements / walload /
            both; rounds interleave the four configurations, results are
            ratios to 'nothing' with their spread (min..max over rounds).
  seed000:  the seed report's load (10 tables, 5 COPYs of 1000 rows each,
            one transaction, then DROP TABLE one by one) across shared_buffers
            and wal_level: client-side time per COPY, commit and DROP, beside
            walload's full_scans, est_scan_ms and commit_ms.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "oracle"))
from oracle import Cluster, pgconfig  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "8"))
SIZES = os.environ.get("BENCH_SHARED_BUFFERS", "128MB 1GB 4GB 16GB").split()
CONFIGS = [("nothing", ""), ("pg_stat_statements", "pg_stat_statements"),
           ("walload", "walload"), ("both", "walload,pg_stat_statements")]


def configure(cluster, libs, extra=None):
    conf = {"shared_preload_libraries": "'%s'" % libs, "port": cluster.port,
            "unix_socket_directories": "'%s'" % cluster.sock, "listen_addresses": "''",
            "max_wal_senders": "0", "autovacuum": "off"}
    conf.update(extra or {})
    with open(os.path.join(cluster.data, "postgresql.auto.conf"), "w") as f:
        for k, v in conf.items():
            f.write("%s = %s\n" % (k, v))
    cluster.as_postgres([os.path.join(cluster.bindir, "pg_ctl"), "-D", cluster.data, "-w",
                         "-l", os.path.join(cluster.root, "log"), "start"],
                        check=True, stdout=subprocess.DEVNULL)


def pgbench(cluster, args):
    r = cluster.as_postgres([os.path.join(cluster.bindir, "pgbench")] + args + ["postgres"],
                            capture_output=True, text=True)
    m = re.search(r"tps = ([\d.]+) \(without initial connection time\)", r.stdout)
    if not m:
        raise RuntimeError(r.stdout + r.stderr)
    return float(m.group(1))


def overhead(cluster, tmp):
    ddl = os.path.join(tmp, "ddl.sql")
    with open(ddl, "w") as f:
        f.write("CREATE TABLE b_:client_id (id int);\n"
                "COPY b_:client_id FROM PROGRAM 'seq 1 100';\n"
                "DROP TABLE b_:client_id;\n")
    os.chmod(ddl, 0o644)
    workloads = [("pgbench -S", ["-S", "-c", "2", "-j", "2", "-T", str(SECONDS)]),
                 ("pgbench (tpcb-like)", ["-c", "2", "-j", "2", "-T", str(SECONDS)]),
                 ("CREATE/COPY/DROP loop", ["-n", "-f", ddl, "-c", "2", "-j", "2", "-T", str(SECONDS)])]
    tps = {(w, c): [] for w, _ in workloads for c, _ in CONFIGS}
    for rnd in range(ROUNDS):
        for cname, libs in CONFIGS:
            configure(cluster, libs, {"shared_buffers": "256MB", "wal_level": "replica",
                                      "synchronous_commit": "off"})
            for wname, args in workloads:
                tps[(wname, cname)].append(pgbench(cluster, args))
            cluster.stop()
            print("# round %d %s done" % (rnd + 1, cname), flush=True)
    lines = ["| workload | " + " | ".join(c for c, _ in CONFIGS) + " |",
             "|---|" + "---|" * len(CONFIGS)]
    for wname, _ in workloads:
        base = statistics.median(tps[(wname, "nothing")])
        cells = []
        for cname, _ in CONFIGS:
            vals = tps[(wname, cname)]
            cells.append("%.3f (%.3f..%.3f), %.0f tps" % (
                statistics.median(vals) / base, min(vals) / base, max(vals) / base,
                statistics.median(vals)))
        lines.append("| %s | %s |" % (wname, " | ".join(cells)))
    return "\n".join(lines), tps


def seed000(cluster, tmp):
    rows = []
    csv = os.path.join(tmp, "rows.csv")
    with open(csv, "w") as f:
        for i in range(1, 1001):
            f.write("%d,customer %d,%d.50\n" % (i, i % 977, i % 5000))
    os.chmod(csv, 0o644)
    for size in SIZES:
        for wal_level in ("minimal", "replica"):
            configure(cluster, "walload", {"shared_buffers": size, "wal_level": wal_level})
            cluster.psql("CREATE EXTENSION IF NOT EXISTS walload")
            cluster.psql("SELECT walload_reset()")
            script = ["\\timing on", "BEGIN;"]
            script += ["CREATE TABLE s_%d (id int, name text, amount numeric);" % t for t in range(10)]
            script += ["COPY s_%d FROM '%s' WITH (FORMAT csv);" % (t, csv) for r in range(5) for t in range(10)]
            script += ["COMMIT;"] + ["DROP TABLE s_%d;" % t for t in range(10)]
            path = os.path.join(tmp, "seed.sql")
            with open(path, "w") as f:
                f.write("\n".join(script) + "\n")
            os.chmod(path, 0o644)
            r = cluster.as_postgres([os.path.join(cluster.bindir, "psql"), "-X", "-q", "-f", path],
                                    capture_output=True, text=True)
            times = [float(x) for x in re.findall(r"Time: ([\d.]+) ms", r.stdout)]
            copy_ms = statistics.mean(times[11:61])
            commit_ms = times[61]
            drop_ms = statistics.mean(times[62:72])
            w = cluster.psql("SELECT sum(full_scans), round(sum(est_scan_ms)::numeric, 2), "
                             "round(max(commit_ms) FILTER (WHERE statements > 1)::numeric, 2), "
                             "round(avg(commit_ms) FILTER (WHERE statements = 1)::numeric, 2) "
                             "FROM walload_xacts").split("|")
            rows.append((size, wal_level, copy_ms, commit_ms, drop_ms, w))
            cluster.stop()
            print("# seed000 %s %s done" % (size, wal_level), flush=True)
    lines = ["| shared_buffers | wal_level | COPY ms (mean of 50) | COMMIT ms | DROP ms (mean of 10) | walload full_scans | walload est_scan_ms | walload commit_ms of the load | walload commit_ms per DROP |",
             "|---|---|---|---|---|---|---|---|---|"]
    for size, wal_level, c, cm, d, w in rows:
        lines.append("| %s | %s | %.3f | %.2f | %.2f | %s | %s | %s | %s |" % (size, wal_level, c, cm, d, *w))
    return "\n".join(lines), rows


def svg_drop_chart(rows, path):
    """DROP TABLE time per shared_buffers size, client vs walload, as SVG."""
    data = [(s, d, float(w[3] or 0)) for s, wl, c, cm, d, w in rows if wl == "minimal"]
    top = max(max(d, w) for _, d, w in data) or 1
    width, height, bar = 120 * len(data) + 60, 260, 40
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (width, height),
           '<text x="10" y="16">DROP TABLE: client-side ms (dark) vs walload commit_ms (light), wal_level=minimal</text>']
    for i, (size, d, w) in enumerate(data):
        x = 40 + i * 120
        for j, (v, color) in enumerate(((d, "#335"), (w, "#99c"))):
            h = 180 * v / top
            out.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"/>' % (x + j * bar, 220 - h, bar - 4, h, color))
            out.append('<text x="%d" y="%.1f">%.2f</text>' % (x + j * bar, 215 - h, v))
        out.append('<text x="%d" y="240">%s</text>' % (x + 10, size))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))


def main():
    if os.geteuid() != 0:
        print("bench/run.sh needs root (it runs clusters as postgres)")
        return 1
    bindir = pgconfig("--bindir")
    out_dir = os.path.join(HERE, "out")
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="walload-bench.")
    os.chmod(tmp, 0o755)
    shutil.chown(tmp, "postgres")
    cluster = Cluster(tmp, bindir, True)
    try:
        cluster.initdb()
        configure(cluster, "", {"shared_buffers": "256MB"})
        cluster.as_postgres([os.path.join(bindir, "pgbench"), "-i", "-q", "-s", "10", "postgres"],
                            check=True, capture_output=True)
        cluster.stop()
        started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        ov, _ = overhead(cluster, tmp)
        sd, rows = seed000(cluster, tmp)
        svg_drop_chart(rows, os.path.join(out_dir, "seed000-drop.svg"))
    finally:
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    report = """## Overhead (%s, %s)

Ratio of throughput to 'nothing preloaded' (median over %d interleaved rounds of
%d s each, min..max in brackets), 2 clients, shared_buffers=256MB, pgbench scale 10.

%s

## Seed 000: the 10-table, 5-COPY load, then 10 DROPs

Client-side times from psql's \\timing; walload's figures from walload_xacts of
the same run (est_scan_ms is walload's estimate, commit_ms its measurement).

%s
""" % (started, pgconfig("--version"), ROUNDS, SECONDS, ov, sd)
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write(report)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
