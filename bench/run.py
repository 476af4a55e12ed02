#!/usr/bin/env python3
"""walload benchmarks: its overhead, and the seed reports' loads measured by
the client beside what walload attributes.  Run as root: bench/run.sh.

  bench/run.sh [--quick] [--only SECTION[,SECTION...]] [--docs] [--seed N]

Where several configurations take turns round after round (overhead,
seedload, manyfiles, strategy), each round runs them in an order of its own,
drawn at random: in a fixed rotation a configuration always follows the same
other one, and whatever that one leaves behind (a warm page cache, a
checkpoint, a hot CPU) falls on it every time.  The draw is from --seed
(default: a new one), which the run prints and writes into its report:
the same --seed repeats the same orders.

Sections (all by default, in this order):

  overhead   pgbench -S, the default pgbench script, a CREATE/COPY/DROP
             loop (2 clients each) and pgbench -S with 32 clients against
             four clusters over the same data, started once: nothing
             preloaded / pg_stat_statements / walload / both.  Many short
             rounds interleave the four (in a random order each round);
             each round gives a ratio to 'nothing' of that round; reported:
             median ratio, interquartile range, min..max.  Also the shared
             memory each configuration allocates, and walload's per setting
             that sizes it (each raised in turn: bytes per unit).
  seedload   the seed 000 load's 60 loading statements (one transaction)
             with walload and without (twice: the floor), three clusters
             started once, 15 rounds in random orders (--quick 7; BENCH_SEEDLOAD_ROUNDS) at 1GB
             (BENCH_SEEDLOAD_SHARED_BUFFERS): median ratio, IQR, min..max;
             goal: at most 1.02.
  callgrind  the same three workloads, one client, a fixed number of
             transactions, the server under valgrind --tool=callgrind:
             instructions per transaction of the backend (difference of two
             runs of N1 and N2 transactions, so connection start and exit
             cancel out), for the four configurations and 'nothing' with
             compute_query_id=on.  Deterministic: it separates walload's cost
             from the noise of 2 shared cores (the shared cluster is vacuumed
             before each configuration, so that none prunes what another
             left).  Also walload's profile: its functions' own instructions
             plus what they call (excluding the next hook / standard_* they
             pass the statement on to), and issue 18's goals, met or not.
  overhead-cg  bench/overhead_cg.py (issue 40): every configuration from a
             copy of one template cluster, so that none sees what another
             left; the backend under callgrind; pgbench -S and tpcb-like
             (-M simple and prepared), the CREATE/COPY/DROP loop, a DO loop
             of INSERTs (walload.track=all), N CREATE TABLE in one
             transaction; walload's own functions judged (the goals of
             issues 40 and 54, and their repeating in an A/A pair), core's
             residue reported beside the A/A floor.  Replaces the callgrind section, whose
             shared cluster drifts between configurations.
  seed000    the 10-table, 5-COPY load in one transaction, then DROP TABLE
             one by one, across shared_buffers and wal_level: client time per
             COPY, COMMIT, DROP beside walload's full_scans, est_scan_ms,
             commit_ms; and a larger load whose tables pass wal_skip_threshold.
  seed001    VACUUM of a table not in shared_buffers (10% updated, 30%
             deleted, one index): time, WAL flushes, WAL bytes, client-side
             and as walload reports them; the same with the table prewarmed,
             and (16+) with a larger ring (BUFFER_USAGE_LIMIT).
  seed003    WAL bytes of a COPY of the same data, wal_level minimal vs
             replica, into a table created in the same transaction and into
             an existing one.
  seed004    many small transactions, synchronous_commit on vs off: client
             latency beside walload's commit_ms.
  whatif     every figure walload_diagnose() predicts, against the
             alternative run in the same cluster: N DROP TABLE in N
             transactions vs one (time saved, bound 25%); a load whose new
             table is synced at commit vs the same with wal_skip_threshold
             raised as the hint says (WAL at commit, bound 10%); at
             shared_buffers 1GB, 4GB, 16GB (--quick: 1GB).
  predict    walload_xacts.pred_commit_ms (the commit predicted at PRE_COMMIT
             from the pending files and the calibrated costs, the figure
             walload_activity shows while the load runs) against the
             commit_ms measured, for loads whose commit fsyncs, WAL-logs or
             deletes files, at shared_buffers 1GB, 4GB, 16GB (--quick: 1GB;
             BENCH_PREDICT_SHARED_BUFFERS), wal_level=minimal; bound 25%.
             Then the same commits priced without the learned fsync ratio,
             without file_commit_us and without FIEMAP (each commit's DEBUG1
             line carries the parts; BENCH_COMMIT_RAW=FILE keeps them as
             JSON, to pool runs).
  strategy   walload.commit_strategy: the seed 000 load, six tables of
             2-64 MB, 50 tables of 2.2 MB and a 1 GB COPY (--quick: 256 MB;
             BENCH_STRATEGY_COPY_MB), each in one transaction, under minimal
             with off, auto, wal and sync on one running server per size,
             rounds interleaved (5, --quick 3; BENCH_STRATEGY_ROUNDS), and
             replica, at shared_buffers 128MB, 1GB, 4GB, 16GB (--quick: 1GB;
             BENCH_STRATEGY_SHARED_BUFFERS): commit time, spread, auto's
             prediction; goal: auto within 5% of the best of off/wal/sync.
  walknoise  the same walk (DROP TABLE of a one-row table) in fresh sessions,
             at shared_buffers 1GB, 4GB, 16GB (--quick: 1GB;
             BENCH_NOISE_SHARED_BUFFERS), wal_level=replica: how far apart
             the walks are against walload's one estimate, and the walk
             right after each session's first against its (cold) estimate.
  report     walload_report() against the client's stopwatch: the seed 000
             shape, a nightly load of 1,000 staging tables (--quick 200; 3,002
             transactions) and two 1.5M-row tables (--quick 300k) with an
             index, VACUUM and DROP, each run by psql under its own
             application_name, 3 rounds, at 1GB under minimal: the report's
             load time over psql's own time (goal: within 5%).
  manyfiles  one transaction that creates N tables (40,000; --quick 10,000),
             then 2,000 ALTER TABLE ... SET STATISTICS, and one that
             rewrites 200 of the tables: the same cluster restarted with
             walload and pg_stat_statements preloaded or pg_stat_statements
             only, 3 interleaved rounds; the ratio shows whether walload's
             cost grows with the transaction (issue 11, item 12: 31.5 s vs
             15.0 s before).

--quick: fewer rounds, smaller tables, shared_buffers 128MB and 1GB only.
--docs:  also copy the SVG charts to docs/ (docs/benchmarks.md shows them).
Environment: BENCH_ROUNDS, BENCH_SECONDS, BENCH_SHARED_BUFFERS override.

Writes bench/out/report.md (Markdown tables), bench/out/*.svg, the raw
callgrind files under bench/out/callgrind/, and prints the report.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import random
import tempfile
import time
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "lib"))
from cluster import Cluster, pgconfig  # noqa: E402  (scripts/lib/cluster.sh's Python face)

# the order of configurations within a round: random_order(), from --seed
ORDER = random.Random()


def random_order(items):
    """items in an order of this round's own (ORDER, seeded by --seed)."""
    out = list(items)
    ORDER.shuffle(out)
    return out


SECTIONS = ["overhead", "seedload", "callgrind", "overhead-cg", "seed000", "seed001", "seed003", "seed004", "manyfiles", "whatif",
            "predict", "strategy", "walknoise", "report"]
CONFIGS = [("nothing", ""), ("pg_stat_statements", "pg_stat_statements"),
           ("walload", "walload"), ("both", "walload,pg_stat_statements")]
# configurations measured only under callgrind: (name, libraries, settings)
CALLGRIND_CONFIGS = [("nothing, compute_query_id=on", "", {"compute_query_id": "on"}),
                     ("walload, walload.compute_query_id=off", "walload",
                      {"walload.compute_query_id": "off"})]
# each configuration's colour in the charts (legends follow the bars' order)
COLOURS = {"pg_stat_statements": "#c96", "walload": "#36a", "both": "#999",
           "nothing, compute_query_id=on": "#6a6", "walload, walload.compute_query_id=off": "#9bd"}

P = {}   # parameters, set in main() from --quick and the environment


def log(msg):
    print("# %s %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


# ---------------------------------------------------------------- clusters

def write_conf(cluster, libs, extra=None):
    """These settings, on top of what every throwaway cluster has (the
    address, autovacuum off: scripts/lib/cluster.sh); the cluster must be
    stopped."""
    conf = {"shared_preload_libraries": "'%s'" % libs,
            "max_wal_senders": "0", "huge_pages": "off",
            "max_wal_size": "'8GB'", "checkpoint_timeout": "'30min'"}
    conf.update(extra or {})
    cluster.config(conf)


def configure(cluster, libs, extra=None):
    """Start with these settings (the cluster must be stopped)."""
    write_conf(cluster, libs, extra)
    cluster.start()


def start_walload(cluster, size, level):
    """Start with walload at this shared_buffers and wal_level, once its
    calibration worker has timed the walks and the storage (it is idle); the
    extension created (the cluster must be stopped)."""
    configure(cluster, "walload", {"shared_buffers": size, "wal_level": level})
    cluster.wait_for_calibration()
    cluster.psql("CREATE EXTENSION IF NOT EXISTS walload")


def new_cluster(base, name, bindir, template=None):
    root = os.path.join(base, name)
    os.makedirs(root)
    shutil.chown(root, "postgres")
    c = Cluster(root, bindir)
    if template is None:
        c.init()
    else:
        c.clone(template)
    return c


def run_psql_file(cluster, lines, path, stderr=False, app=None):
    """psql -f of these lines (under application_name app, if given): its
    output (and its messages, with stderr)."""
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.chmod(path, 0o644)
    r = cluster.as_postgres((["env", "PGAPPNAME=%s" % app] if app else []) +
                            [os.path.join(cluster.bindir, "psql"), "-X", "-q", "-At",
                             "-v", "ON_ERROR_STOP=1", "-f", path],
                            capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("psql -f %s failed:\n%s\n%s" % (path, r.stdout[-2000:], r.stderr[-2000:]))
    return (r.stdout, r.stderr) if stderr else r.stdout


def marked_times(out):
    """psql output with '\\echo @name' before a statement and \\timing on:
    {name: ms} for the statement that follows each mark."""
    times, pending = {}, None
    for line in out.splitlines():
        if line.startswith("@"):
            pending = line[1:].strip()
            continue
        m = re.match(r"Time: ([\d.]+) ms", line)
        if m and pending:
            times.setdefault(pending, []).append(float(m.group(1)))
            pending = None
    return times


def pgbench(cluster, args, env=None):
    r = cluster.as_postgres([os.path.join(cluster.bindir, "pgbench")] + args + ["postgres"],
                            capture_output=True, text=True)
    m = re.search(r"tps = ([\d.]+) \(without initial connection time\)", r.stdout)
    if not m:
        raise RuntimeError(r.stdout + r.stderr)
    lat = re.search(r"latency average = ([\d.]+) ms", r.stdout)
    return float(m.group(1)), (float(lat.group(1)) if lat else None)


def q(cluster, sql):
    return cluster.psql(sql).split("|")


def fmt_bytes(n):
    n = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if abs(n) < 1024 or unit == "GB":
            return ("%.0f %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024


def quartiles(vals):
    if len(vals) < 2:
        return vals[0], vals[0]
    qs = statistics.quantiles(vals, n=4, method="inclusive")
    return qs[0], qs[2]


# ---------------------------------------------------------------- charts

def svg_bars(path, title, groups, series, unit, note=""):
    """Grouped bar chart, hand-written SVG.  groups: [(label, [value per
    series])]; series: [(name, colour)]; None values are left out."""
    nser = len(series)
    bar = 26 if nser <= 3 else 20
    gw = bar * nser + 24
    left, top_pad, plot_h = 70, 58, 220
    width = max(left + gw * len(groups) + 20, 520)
    # the legend wraps to as many rows as it needs above the plot
    legend, lx, ly = [], 10, 26
    for name, colour in series:
        w = 14 + 7 * len(name) + 16
        if lx > 10 and lx + w > width - 10:
            lx, ly = 10, ly + 16
        legend.append((lx, ly, name, colour))
        lx += w
    top_pad += ly - 26
    height = top_pad + plot_h + 70
    vals = [v for _, vs in groups for v in vs if v is not None]
    top = max(vals) if vals else 1
    top = top * 1.1 or 1
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="16" font-size="13">%s</text>' % esc(title)]
    for lx, ly, name, colour in legend:
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (lx, ly, colour))
        out.append('<text x="%d" y="%d">%s</text>' % (lx + 14, ly + 9, esc(name)))
    y0 = top_pad + plot_h
    for i in range(5):
        v = top * i / 4
        y = y0 - plot_h * i / 4
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left - 4, width - 10, y, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (left - 6, y + 4, short(v)))
    out.append('<text x="12" y="%d" transform="rotate(-90 12 %d)">%s</text>' % (y0 - 60, y0 - 60, esc(unit)))
    for gi, (label, vs) in enumerate(groups):
        x = left + gi * gw + 10
        for si, v in enumerate(vs):
            if v is None:
                continue
            h = plot_h * v / top
            out.append('<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="%s"/>' % (
                x + si * bar, y0 - h, bar - 3, h, series[si][1]))
            out.append('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="middle">%s</text>' % (
                x + si * bar + (bar - 3) / 2, y0 - h - 3, 9 if nser <= 4 else 7, short(v)))
        for li, part in enumerate(label.split("\n")):
            out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (
                x + bar * nser / 2, y0 + 16 + 13 * li, esc(part)))
    if note:
        out.append('<text x="10" y="%d" font-size="10" fill="#555">%s</text>' % (height - 8, esc(note)))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def short(v):
    if v >= 1e9:
        return "%.1fG" % (v / 1e9)
    if v >= 1e6:
        return "%.1fM" % (v / 1e6)
    if v >= 1e4:
        return "%.0fk" % (v / 1e3)
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


# ---------------------------------------------------------------- overhead

def ddl_script(tmp):
    ddl = os.path.join(tmp, "ddl.sql")
    with open(ddl, "w") as f:
        f.write("CREATE TABLE b_:client_id (id int);\n"
                "COPY b_:client_id FROM PROGRAM 'seq 1 100';\n"
                "DROP TABLE b_:client_id;\n")
    os.chmod(ddl, 0o644)
    return ddl


def ddl_block_script(tmp):
    """20 tables created, then dropped in one transaction: walload predicts
    the commit at each DROP's end (walload_activity)."""
    path = os.path.join(tmp, "ddl_block.sql")
    with open(path, "w") as f:
        for t in range(1, 21):
            f.write("CREATE TABLE t%d_:client_id (id int);\n" % t)
        f.write("BEGIN;\n")
        for t in range(1, 21):
            f.write("DROP TABLE t%d_:client_id;\n" % t)
        f.write("COMMIT;\n")
    os.chmod(path, 0o644)
    return path


OVERHEAD_SETTINGS = {"shared_buffers": "256MB", "wal_level": "replica", "synchronous_commit": "off"}


def overhead(template, base, bindir, tmp):
    ddl = ddl_script(tmp)
    ddl_block = ddl_block_script(tmp)
    secs = ["-T", str(P["seconds"])]
    workloads = [("pgbench -S", ["-n", "-S", "-c", "2", "-j", "2"]),
                 ("pgbench (tpcb-like)", ["-n", "-c", "2", "-j", "2"]),
                 ("CREATE/COPY/DROP loop", ["-n", "-f", ddl, "-c", "2", "-j", "2"]),
                 ("20 CREATE, 20 DROP in one transaction", ["-n", "-f", ddl_block, "-c", "2", "-j", "2"]),
                 ("pgbench -S, 32 clients", ["-n", "-S", "-c", "32", "-j", "2"])]
    clusters = {}
    for i, (cname, libs) in enumerate(CONFIGS):
        c = new_cluster(base, "ov_%d" % i, bindir, template)
        configure(c, libs, OVERHEAD_SETTINGS)
        if "walload" in libs:
            c.psql("CREATE EXTENSION IF NOT EXISTS walload")
        if "pg_stat_statements" in libs:
            c.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        clusters[cname] = c
        if cname == "walload":
            shmem_settings = shmem_per_setting(c, libs)
    shmem = []
    for cname, libs in CONFIGS:
        c = clusters[cname]
        total = int(c.psql("SELECT sum(allocated_size) FROM pg_shmem_allocations"))
        parts = c.psql("SELECT coalesce(string_agg(name || '=' || allocated_size, ';' ORDER BY name), '') "
                       "FROM pg_shmem_allocations WHERE name ~* 'walload|pg_stat_statements|pgss'")
        own = sum(int(p.split("=")[1]) for p in parts.split(";") if p)
        info = c.psql("SELECT shmem_bytes FROM walload_info") if "walload" in libs else ""
        shmem.append((cname, total, own, parts, info))
    # warm up every cluster once
    for cname, _ in CONFIGS:
        for _, args in workloads:
            pgbench(clusters[cname], args + ["-T", "1"])
    tps = {}
    order = [c for c, _ in CONFIGS]
    for wname, args in workloads:
        for rnd in range(P["rounds"]):
            for cname in random_order(order):
                tps.setdefault((wname, cname), []).append(pgbench(clusters[cname], args + secs)[0])
        log("overhead %s: %d rounds done" % (wname, P["rounds"]))
    for c in clusters.values():
        c.stop()
    lines = ["| workload | configuration | median ratio | IQR | min..max | median tps |",
             "|---|---|---|---|---|---|"]
    summary = {}
    for wname, _ in workloads:
        base_v = tps[(wname, "nothing")]
        for cname, _ in CONFIGS:
            vals = tps[(wname, cname)]
            ratios = [v / b for v, b in zip(vals, base_v)]
            med = statistics.median(ratios)
            q1, q3 = quartiles(ratios)
            summary[(wname, cname)] = (med, q1, q3)
            lines.append("| %s | %s | %.3f | %.3f..%.3f | %.3f..%.3f | %.0f |" % (
                wname, cname, med, q1, q3, min(ratios), max(ratios), statistics.median(vals)))
    sh = ["| configuration | shared memory allocated (pg_shmem_allocations) | of which the extensions' own | walload_info.shmem_bytes |",
          "|---|---|---|---|"]
    base_total = shmem[0][1]
    for cname, total, own, parts, info in shmem:
        sh.append("| %s | %s (%+.1f MB vs nothing) | %s | %s |" % (
            cname, fmt_bytes(total), (total - base_total) / 1048576.0, fmt_bytes(own),
            fmt_bytes(int(info)) if info else "-"))
    svg_bars(os.path.join(P["out"], "overhead.svg"),
             "Throughput relative to nothing preloaded (median of %d interleaved rounds)" % P["rounds"],
             [(w.replace(" (tpcb-like)", "\n(tpcb-like)").replace(" loop", "\nloop").replace(" in one", "\nin one"),
               [summary[(w, c)][0] for c, _ in CONFIGS[1:]]) for w, _ in workloads],
             [(c, COLOURS[c]) for c, _ in CONFIGS[1:]],
             "ratio to nothing", "1.0 = no overhead; goal for walload: >= 0.99")
    return "\n".join(lines), "\n".join(sh) + "\n\n" + shmem_settings, summary


# settings that size walload's shared memory, and the value each is doubled to
SHMEM_SETTINGS = [("walload.max_statements", None), ("walload.max_stats", None),
                  ("walload.max_xacts", None), ("max_connections", None),
                  ("max_prepared_transactions", "100")]


def shmem_per_setting(c, libs):
    """walload_info.shmem_bytes at the defaults, and with each setting that
    sizes it raised: the bytes each unit of each setting costs."""
    def measure(extra):
        c.stop()
        configure(c, libs, dict(OVERHEAD_SETTINGS, **extra))
        return int(c.psql("SELECT shmem_bytes FROM walload_info"))
    base = measure({})
    rows = ["| setting | default | raised to | walload_info.shmem_bytes | bytes per unit | at the default |",
            "|---|---|---|---|---|---|"]
    for name, raised in SHMEM_SETTINGS:
        default = int(c.psql("SELECT boot_val FROM pg_settings WHERE name = '%s'" % name))
        value = int(raised) if raised else 2 * default
        b = measure({name: str(value)})
        per = (b - base) / float(value - default)
        rows.append("| %s | %d | %d | %s | %.0f | %s |" % (
            name, default, value, fmt_bytes(b), per, fmt_bytes(int(per * default))))
    rows.append("| (all at their defaults) | | | %s | | |" % fmt_bytes(base))
    c.stop()
    configure(c, libs, OVERHEAD_SETTINGS)
    return "\n".join(rows)


# ---------------------------------------------------------------- callgrind

PASS_THROUGH = re.compile(r"^(standard_(ProcessUtility|Executor\w+|planner)|pgss_\w+|"
                          r"prev_\w+|0x0)")


# the profile parser and the backend test are the harness's (overhead_cg.py)
from overhead_cg import parse_callgrind, is_backend  # noqa: E402


def walload_profile(funcs):
    """Per walload function: own instructions + instructions of what it calls
    outside walload.so, except the statement passed on (standard_*, the
    next extension's hooks).  And per external callee."""
    per_fn, per_callee = {}, {}
    for (ob, fn), (self_ir, calls) in funcs.items():
        if not ob or not ob.endswith("walload.so"):
            continue
        cost = self_ir
        for (cob, cfn), inc in calls.items():
            if cob and cob.endswith("walload.so"):
                continue
            if cfn and PASS_THROUGH.match(cfn):
                continue
            cost += inc
            per_callee[cfn] = per_callee.get(cfn, 0) + inc
        per_fn[fn] = per_fn.get(fn, 0) + cost
    return per_fn, per_callee


def inclusive(funcs, fname):
    return sum(s + sum(c.values()) for (ob, fn), (s, c) in funcs.items() if fn == fname)


def callgrind(template, base, bindir, tmp):
    if not shutil.which("valgrind"):
        return "valgrind is not installed: skipped.", "", {}
    ddl = ddl_script(tmp)
    n = P["cg_n"]
    # the same keys in every run (--random-seed), one client
    workloads = [("pgbench -S", ["-n", "-S", "-c", "1", "--random-seed=1"], n["S"]),
                 ("pgbench (tpcb-like)", ["-n", "-c", "1", "--random-seed=1"], n["tpcb"]),
                 ("CREATE/COPY/DROP loop", ["-n", "-f", ddl, "-c", "1", "--random-seed=1"], n["ddl"])]
    configs = [(c, libs, {}) for c, libs in CONFIGS] + CALLGRIND_CONFIGS
    cgdir = os.path.join(P["out"], "callgrind")
    shutil.rmtree(cgdir, ignore_errors=True)
    os.makedirs(cgdir)
    shutil.chown(cgdir, "postgres")
    results = {}
    profiles = {}
    c = new_cluster(base, "cg", bindir, template)
    for ci, (cname, libs, settings) in enumerate(configs):
        # everything fits in shared_buffers and is prewarmed: no buffer misses
        # whose number would vary between the N1 and N2 runs
        extra = {"shared_buffers": "512MB", "wal_level": "replica", "synchronous_commit": "off"}
        extra.update(settings)
        write_conf(c, libs, extra)
        # extensions created without valgrind first
        configure(c, libs, extra)
        if "walload" in libs:
            c.psql("CREATE EXTENSION IF NOT EXISTS walload")
        c.psql("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        # the configurations share this cluster: remove what the previous
        # one's updates and DDL left, or reads of it prune pages (and write
        # WAL) in this one's run only
        c.psql("VACUUM")
        c.stop()
        out_pat = os.path.join(cgdir, "c%d.%%p" % ci)
        logf = open(os.path.join(c.root, "valgrind.log"), "w")
        pm = subprocess.Popen(["runuser", "-u", "postgres", "--", "valgrind", "--tool=callgrind",
                               "--dump-instr=no", "--callgrind-out-file=" + out_pat,
                               os.path.join(bindir, "postgres"), "-D", c.data],
                              stdout=logf, stderr=subprocess.STDOUT, env=c.env, cwd=c.root)
        for _ in range(600):
            if c.as_postgres([os.path.join(bindir, "pg_isready"), "-q"]).returncode == 0:
                break
            time.sleep(0.5)
        else:
            pm.kill()
            raise RuntimeError("postgres under valgrind did not start")
        before = set(glob.glob(os.path.join(cgdir, "c%d.*" % ci)))
        c.psql("SELECT count(pg_prewarm(oid::regclass)) FROM pg_class "
               "WHERE relname LIKE 'pgbench%' AND relkind IN ('r', 'i')")
        for _ in range(240):      # wait for that backend's file, so it is not taken for pgbench's
            time.sleep(0.5)
            if any(complete(p) for p in set(glob.glob(os.path.join(cgdir, "c%d.*" % ci))) - before):
                break
        for wname, args, (n1, n2) in workloads:
            irs = []
            for ntx in (n1, n2):
                before = set(glob.glob(os.path.join(cgdir, "c%d.*" % ci)))
                try:
                    pgbench(c, args + ["-t", str(ntx)])
                except RuntimeError:
                    logf.flush()
                    with open(os.path.join(c.root, "valgrind.log")) as vl:
                        if "SIGTRAP" in vl.read():
                            # a uprobe (bpftrace, perf probe: the oracle's) is a
                            # breakpoint in postgres' code, fatal under valgrind
                            raise RuntimeError("a backend under valgrind died of SIGTRAP: uprobes are "
                                               "attached to %s (the oracle's bpftrace?); run the "
                                               "callgrind section when they are gone"
                                               % os.path.join(bindir, "postgres"))
                    raise
                best = None
                for _ in range(240):      # the backend writes its file as it exits
                    time.sleep(0.5)
                    new = [p for p in set(glob.glob(os.path.join(cgdir, "c%d.*" % ci))) - before
                           if complete(p)]
                    if new:
                        time.sleep(1.0)
                        new = [p for p in set(glob.glob(os.path.join(cgdir, "c%d.*" % ci))) - before
                               if complete(p)]
                        parsed = [(parse_callgrind(p), p) for p in new]
                        parsed = [x for x in parsed if is_backend(x[0][0])]
                        if parsed:
                            best = max(parsed, key=lambda x: x[0][1])
                            break
                if best is None:
                    raise RuntimeError("no callgrind file for the backend of %s" % wname)
                irs.append(best[0])
            (f1, t1), (f2, t2) = irs
            d = n2 - n1
            per_tx = (t2 - t1) / d
            pf1, pc1 = walload_profile(f1)
            pf2, pc2 = walload_profile(f2)
            wl_fn = {k: (pf2.get(k, 0) - pf1.get(k, 0)) / d for k in set(pf1) | set(pf2)}
            wl_callee = {k: (pc2.get(k, 0) - pc1.get(k, 0)) / d for k in set(pc1) | set(pc2)}
            jumble = (inclusive(f2, "JumbleQuery") - inclusive(f1, "JumbleQuery")) / d
            results[(wname, cname)] = (per_tx, sum(wl_fn.values()), jumble)
            profiles[(wname, cname)] = (wl_fn, wl_callee)
            log("callgrind %s / %s: %.0f Ir per transaction" % (cname, wname, per_tx))
        c.stop()
        try:
            pm.wait(timeout=120)
        except subprocess.TimeoutExpired:
            pm.kill()
        logf.close()
        # keep only the two largest backend files per configuration (the raw profile)
    lines = ["| workload | configuration | instructions per transaction | ratio to nothing | in walload.so's hooks and callees | in JumbleQuery (query id) |",
             "|---|---|---|---|---|---|"]
    for wname, _, _ in workloads:
        b = results[(wname, "nothing")][0]
        for cname, _, _ in configs:
            per_tx, wl, jq = results[(wname, cname)]
            lines.append("| %s | %s | %.0f | %.4f (%+.0f) | %s | %s |" % (
                wname, cname, per_tx, per_tx / b, per_tx - b,
                "%.0f" % wl if wl else "-", "%.0f" % jq if jq else "-"))
    # issue 18's goals, by default settings
    goals = ["| workload | walload alone (goal) | below pg_stat_statements alone | both minus pg_stat_statements, at most walload alone |",
             "|---|---|---|---|"]
    bounds = {"pgbench -S": 0.010, "pgbench (tpcb-like)": 0.010, "CREATE/COPY/DROP loop": 0.005}
    for wname, _, _ in workloads:
        b = results[(wname, "nothing")][0]
        w = results[(wname, "walload")][0] - b
        p = results[(wname, "pg_stat_statements")][0] - b
        both = results[(wname, "both")][0] - results[(wname, "pg_stat_statements")][0]
        goals.append("| %s | %+.2f%% (at most %+.1f%%): %s | %+.0f vs %+.0f: %s | %+.0f vs %+.0f: %s |" % (
            wname, 100.0 * w / b, 100.0 * bounds[wname], "met" if w / b <= bounds[wname] else "NOT met",
            w, p, "met" if w < p else "NOT met",
            both, w, "met" if both <= w else "NOT met"))
    prof = ["Goals (instructions per transaction against nothing preloaded):\n"] + goals + [""]
    for wname, _, _ in workloads:
        wl_fn, wl_callee = profiles[(wname, "walload")]
        tot = results[(wname, "walload")][0]
        own = sum(wl_fn.values())
        prof.append("**%s**, walload only: %.0f of %.0f instructions per transaction (%.1f%%) in walload's functions and what they call; top functions:\n" % (
            wname, own, tot, 100.0 * own / tot))
        prof.append("| walload function | Ir per transaction | share of the transaction |")
        prof.append("|---|---|---|")
        for fn, v in sorted(wl_fn.items(), key=lambda x: -x[1])[:8]:
            prof.append("| %s | %.0f | %.2f%% |" % (fn, v, 100.0 * v / tot))
        prof.append("")
        prof.append("| called by walload (outside walload.so) | Ir per transaction | share |")
        prof.append("|---|---|---|")
        for fn, v in sorted(wl_callee.items(), key=lambda x: -x[1])[:8]:
            prof.append("| %s | %.0f | %.2f%% |" % (fn, v, 100.0 * v / tot))
        prof.append("")
    svg_bars(os.path.join(P["out"], "instructions.svg"),
             "Backend instructions per transaction relative to nothing preloaded (callgrind)",
             [(w.replace(" (tpcb-like)", "\n(tpcb-like)").replace(" loop", "\nloop").replace(" in one", "\nin one"),
               [results[(w, c)][0] / results[(w, "nothing")][0] for c, _, _ in configs[1:]])
              for w, _, _ in workloads],
             [(c, COLOURS[c]) for c, _, _ in configs[1:]],
             "ratio to nothing", "deterministic: one client, fixed transaction count")
    return "\n".join(lines), "\n".join(prof), results


def complete(path):
    try:
        with open(path, "rb") as f:
            f.seek(max(os.path.getsize(path) - 4096, 0))
            tail = f.read().decode(errors="replace")
        return "totals:" in tail or "summary:" in tail
    except OSError:
        return False


def seedload(template, base, bindir, tmp):
    """The seed 000 load's own statements with walload and without (issue
    38, item 6): three clusters over the same data, started once, wal_level
    minimal, one with walload; each round runs the load once in each, the
    order drawn at random each round (--seed); a round's ratio is walload's time for the 60 loading
    statements (10 CREATE TABLE, 50 COPY of 1,000 rows, as the client timed
    them) over the first other cluster's of that round, and the floor the
    second other's over the first's.  pg_stat_statements' ratio beside it:
    any library with shared memory preloaded changes the heap the backends
    inherit, and with it how often glibc trims and re-grows the heap in a
    COPY (docs/benchmarks.md)."""
    rows_csv = os.path.join(tmp, "seedload.csv")
    with open(rows_csv, "w") as f:
        for i in range(1, 1001):
            f.write("%d,customer %d,%d.50\n" % (i, i % 977, i % 5000))
    os.chmod(rows_csv, 0o644)
    # the backend's minor page faults over the loading statements (field 10
    # of /proc/self/stat, read by the backend itself: superuser)
    faults = "SELECT 'minflt ' || split_part(pg_read_file('/proc/self/stat'), ' ', 10);"
    script = ["\\timing on", "BEGIN;", faults]
    for t in range(10):
        script += ["\\echo @load", "CREATE TABLE sl_%d (id int, name text, amount numeric);" % t]
    for r in range(5):
        for t in range(10):
            script += ["\\echo @load", "COPY sl_%d FROM '%s' WITH (FORMAT csv);" % (t, rows_csv)]
    script += [faults, "COMMIT;", "DROP TABLE %s;" % ", ".join("sl_%d" % t for t in range(10))]
    # a second cluster without walload: the same ratio between two clusters
    # that differ in nothing is the floor any difference must clear
    confs = [("nothing", ""), ("walload", "walload"), ("nothing again", ""),
             ("pg_stat_statements", "pg_stat_statements")]
    cl = {}
    for i, (name, libs) in enumerate(confs):
        c = new_cluster(base, "sl_%d" % i, bindir, template)
        configure(c, libs, {"shared_buffers": P["seedload_size"], "wal_level": "minimal",
                            "max_wal_senders": "0", "autovacuum": "off"})
        if libs:
            c.wait_for_calibration()
            c.psql("CREATE EXTENSION IF NOT EXISTS walload")
        cl[name] = c
    ratios, floor, pgss, times = [], [], [], {n: [] for n, _ in confs}
    minflt = {n: [] for n, _ in confs}
    try:
        for rnd in range(P["seedload_rounds"]):
            got = {}
            for name, _ in random_order(confs):
                out = run_psql_file(cl[name], script, os.path.join(tmp, "sl_%d.sql" % len(got)))
                tm = marked_times(out)
                f = [int(x) for x in re.findall(r"^minflt (\d+)$", out, re.M)]
                minflt[name].append(f[1] - f[0])
                got[name] = sum(tm["load"])
                times[name].append(got[name])
            ratios.append(got["walload"] / got["nothing"])
            floor.append(got["nothing again"] / got["nothing"])
            pgss.append(got["pg_stat_statements"] / got["nothing"])
    finally:
        for c in cl.values():
            c.stop()

    def cell(v):
        lo, hi = quartiles(v)
        return "%.3f (%.3f-%.3f; %.3f..%.3f)" % (statistics.median(v), lo, hi, min(v), max(v))

    out = ["| shared_buffers | rounds | nothing: ms (median) | walload: ms (median) | walload / nothing: "
           "median (IQR; min..max) | nothing again / nothing (the floor) | pg_stat_statements / nothing |",
           "|---|---|---|---|---|---|---|",
           "| %s | %d | %.1f | %.1f | %s | %s | %s |" % (
               P["seedload_size"], len(ratios), statistics.median(times["nothing"]),
               statistics.median(times["walload"]), cell(ratios), cell(floor), cell(pgss)),
           "", "Minor page faults of the backend over the 60 statements, median (min..max): " +
           ", ".join("%s %d (%d..%d)" % (n, statistics.median(minflt[n]), min(minflt[n]), max(minflt[n]))
                     for n, _ in confs) + "."]
    return "\n".join(out), 0 if statistics.median(ratios) <= 1.02 else 1


# ---------------------------------------------------------------- seed 000

def seed000(c, tmp):
    rows = []
    loads = [("seed", 1000), ("large", P["large_rows"])]
    csvs = {}
    for lname, nrows in loads:
        csvs[lname] = os.path.join(tmp, "rows_%s.csv" % lname)
        with open(csvs[lname], "w") as f:
            for i in range(1, nrows + 1):
                f.write("%d,customer %d,%d.50\n" % (i, i % 977, i % 5000))
        os.chmod(csvs[lname], 0o644)
    for size in P["sizes"]:
        for wal_level in ("minimal", "replica"):
            try:
                configure(c, "walload", {"shared_buffers": size, "wal_level": wal_level})
            except subprocess.CalledProcessError:
                rows.append((size, wal_level, None, None))
                log("seed000 %s: the server did not start" % size)
                continue
            c.psql("CREATE EXTENSION IF NOT EXISTS walload")
            for lname, nrows in loads:
                c.psql("SELECT walload_reset()")
                script = ["\\timing on", "BEGIN;"]
                script += ["CREATE TABLE s_%d (id int, name text, amount numeric);" % t for t in range(10)]
                for r in range(5):
                    for t in range(10):
                        script += ["\\echo @copy", "COPY s_%d FROM '%s' WITH (FORMAT csv);" % (t, csvs[lname])]
                script += ["\\echo @commit", "COMMIT;"]
                for t in range(10):
                    script += ["\\echo @drop", "DROP TABLE s_%d;" % t]
                tm = marked_times(run_psql_file(c, script, os.path.join(tmp, "seed.sql")))
                w = q(c, "SELECT sum(full_scans), round(sum(est_scan_ms)::numeric, 2), "
                         "round(max(commit_ms) FILTER (WHERE statements > 1)::numeric, 2), "
                         "round(avg(commit_ms) FILTER (WHERE statements = 1)::numeric, 2), "
                         "max(full_scans) FILTER (WHERE statements > 1), "
                         "max(synced_rels) FILTER (WHERE statements > 1), "
                         "max(wal_logged_rels) FILTER (WHERE statements > 1), "
                         "max(commit_wal_bytes) FILTER (WHERE statements > 1), "
                         "max(wal_skip_threshold_kb) FROM walload_xacts")
                rows.append((size, wal_level, lname, (statistics.mean(tm["copy"]), tm["commit"][0],
                                                     statistics.mean(tm["drop"]), w)))
            c.stop()
            log("seed000 %s %s done" % (size, wal_level))
    out = []
    for lname, nrows in loads:
        out.append("**%s load**: 10 tables x 5 COPYs of %d rows (%s per table)\n" % (
            "The seed's" if lname == "seed" else "A larger",
            nrows, "about 0.25 MB" if lname == "seed" else "above wal_skip_threshold"))
        out.append("| shared_buffers | wal_level | COPY ms (mean of 50) | COMMIT ms | DROP ms (mean of 10) | walload full_scans (xacts: load + 10 DROPs) | of which at the load's commit | walload est_scan_ms | walload commit_ms of the load | walload commit_ms per DROP | synced_rels / wal_logged_rels | commit_wal_bytes |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            if r[2] is None:
                out.append("| %s | %s | server did not start | | | | | | | | | |" % (r[0], r[1]))
                continue
            size, wal_level, ln, (cp, cm, dr, w) = r
            if ln != lname:
                continue
            out.append("| %s | %s | %.3f | %.2f | %.2f | %s | %s | %s | %s | %s | %s / %s | %s |" % (
                size, wal_level, cp, cm, dr, w[0], w[4], w[1], w[2], w[3], w[5], w[6], fmt_bytes(w[7] or 0)))
        out.append("")
    ok = [r for r in rows if r[2] is not None]
    svg_bars(os.path.join(P["out"], "seed000-drop.svg"),
             "Seed 000: DROP TABLE, client ms vs walload commit_ms (seed load)",
             [("%s\n%s" % (r[0], r[1]), [r[3][2], float(r[3][3][3] or 0)]) for r in ok if r[2] == "seed"],
             [("client DROP ms", "#335"), ("walload commit_ms per DROP", "#99c")], "ms")
    svg_bars(os.path.join(P["out"], "seed000-commit.svg"),
             "Seed 000, larger load: COMMIT, client ms vs walload commit_ms",
             [("%s\n%s" % (r[0], r[1]), [r[3][1], float(r[3][3][2] or 0)]) for r in ok if r[2] == "large"],
             [("client COMMIT ms", "#335"), ("walload commit_ms", "#99c")], "ms")
    return "\n".join(out), rows


# ---------------------------------------------------------------- seed 001

def seed001(c, tmp):
    nrows = P["vac_rows"]
    cases = [("128MB", "cold", ""), ("1GB", "cold", ""), ("1GB", "prewarmed", "")]
    ver = None
    rows = []
    for sb, state, opt in cases + [("1GB", "cold", "BUFFER_USAGE_LIMIT '256MB'")]:
        settings = {"shared_buffers": sb, "wal_level": "replica", "maintenance_work_mem": "'1GB'",
                    "track_wal_io_timing": "on", "synchronous_commit": "on"}
        configure(c, "walload", settings)
        if ver is None:
            ver = int(c.psql("SHOW server_version_num"))
        if opt and ver < 160000:
            c.stop()
            rows.append((sb, state, opt, None))
            continue
        c.psql("CREATE EXTENSION IF NOT EXISTS walload")
        c.psql("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        c.psql("DROP TABLE IF EXISTS v")
        c.psql("CREATE TABLE v (id int, pad text) WITH (autovacuum_enabled = off)")
        c.psql("INSERT INTO v SELECT g, repeat(md5(g::text), 3) FROM generate_series(1, %d) g" % nrows)
        c.psql("CREATE INDEX ON v (id)")
        c.psql("UPDATE v SET pad = pad || 'u' WHERE id % 10 = 0")
        c.psql("DELETE FROM v WHERE id % 10 IN (1, 2, 3)")
        c.psql("CHECKPOINT")
        size = int(c.psql("SELECT pg_table_size('v')"))
        c.stop()
        configure(c, "walload", settings)      # the table is not in shared_buffers now
        if state == "prewarmed":
            c.psql("SELECT pg_prewarm('v'), pg_prewarm('v_id_idx')")
        c.psql("SELECT walload_reset(), pg_stat_reset_shared('wal')")
        lsn0 = c.psql("SELECT pg_current_wal_insert_lsn()")
        vac = "VACUUM (%s) v;" % opt if opt else "VACUUM v;"
        out = run_psql_file(c, ["\\timing on", "\\echo @vacuum", vac], os.path.join(tmp, "vac.sql"))
        ms = marked_times(out)["vacuum"][0]
        time.sleep(1.0)
        wal_bytes = int(float(c.psql("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '%s')" % lsn0)))
        stw = q(c, "SELECT wal_sync, wal_write, round(wal_sync_time::numeric, 1) FROM pg_stat_wal")
        w = q(c, "SELECT round(elapsed_ms::numeric, 1), wal_bytes, wal_syncs, wal_writes, "
                 "round(wal_sync_ms::numeric, 1), vacuum_ring_kb, shared_blks_read, shared_blks_written "
                 "FROM walload_statements WHERE command = 'VACUUM' ORDER BY xact_id DESC LIMIT 1")
        c.stop()
        rows.append((sb, state, opt, (size, ms, wal_bytes, stw, w)))
        log("seed001 %s %s %s done" % (sb, state, opt))
    lines = ["| shared_buffers | table | VACUUM option | client ms | WAL bytes (insert LSN diff) | pg_stat_wal wal_sync / wal_write / sync ms (all processes) | walload elapsed_ms | walload wal_bytes | walload wal_syncs / wal_writes / wal_sync_ms (the backend) | walload vacuum_ring_kb | walload blks read / written |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for sb, state, opt, r in rows:
        if r is None:
            lines.append("| %s | %s | %s | not available before PostgreSQL 16 | | | | | | | |" % (sb, state, opt))
            continue
        size, ms, wb, stw, w = r
        lines.append("| %s | %s (%s) | %s | %.0f | %s | %s / %s / %s | %s | %s | %s / %s / %s | %s | %s / %s |" % (
            sb, state, fmt_bytes(size), opt or "-", ms, fmt_bytes(wb), stw[0], stw[1], stw[2],
            w[0], fmt_bytes(w[1]), w[2], w[3], w[4], w[5], w[6], w[7]))
    ok = [r for r in rows if r[3] is not None]
    svg_bars(os.path.join(P["out"], "seed001-vacuum.svg"),
             "Seed 001: VACUUM, client ms and walload elapsed_ms; WAL flushes (walload wal_syncs)",
             [("%s %s%s" % (sb, st, "\n" + opt if opt else ""), [r[1], float(r[4][0]), float(r[4][2])])
              for sb, st, opt, r in ok],
             [("client ms", "#335"), ("walload elapsed_ms", "#99c"), ("walload wal_syncs (count)", "#c63")],
             "ms / count")
    return "\n".join(lines), rows


# ---------------------------------------------------------------- seed 003

def seed003(c, tmp):
    nrows = P["copy_rows"]
    data = os.path.join(tmp, "demo.txt")
    rows = []
    for wal_level in ("minimal", "replica"):
        configure(c, "walload", {"shared_buffers": "1GB", "wal_level": wal_level})
        c.psql("CREATE EXTENSION IF NOT EXISTS walload")
        if not os.path.exists(data):
            c.psql("COPY (SELECT x, md5(x::text), date '2020-11-23' + (x %% 365) "
                   "FROM generate_series(1, %d) x) TO '%s'" % (nrows, data))
        for case in ("created in the same transaction", "existing table"):
            c.psql("DROP TABLE IF EXISTS t2")
            c.psql("SELECT walload_reset()")
            script = ["\\timing on"]
            if case == "existing table":
                script += ["CREATE TABLE t2 (a int, b text, c date);"]
            script += ["BEGIN;"]
            if case != "existing table":
                script += ["CREATE TABLE t2 (a int, b text, c date);"]
            script += ["SELECT pg_current_wal_insert_lsn() AS l1 \\gset",
                       "\\echo @copy", "COPY t2 FROM '%s';" % data,
                       "SELECT pg_current_wal_insert_lsn() AS l2 \\gset",
                       "\\echo @commit", "COMMIT;",
                       "SELECT pg_current_wal_insert_lsn() AS l3 \\gset",
                       "\\timing off",
                       "SELECT 'WAL', pg_wal_lsn_diff(:'l2', :'l1'), pg_wal_lsn_diff(:'l3', :'l2');"]
            out = run_psql_file(c, script, os.path.join(tmp, "s3.sql"))
            tm = marked_times(out)
            wal = [l for l in out.splitlines() if l.startswith("WAL|")][0].split("|")
            w = q(c, "SELECT s.wal_bytes, s.wal_skipped, x.commit_wal_bytes, round(x.commit_ms::numeric, 1), "
                     "x.wal_skipped_rels, x.synced_rels, x.wal_logged_rels, x.wal_bytes, round(s.elapsed_ms::numeric, 1) "
                     "FROM walload_statements s JOIN walload_xacts x USING (xact_id) "
                     "WHERE s.command = 'COPY' ORDER BY xact_id DESC LIMIT 1")
            size = int(c.psql("SELECT pg_table_size('t2')"))
            rows.append((wal_level, case, tm["copy"][0], tm["commit"][0], int(float(wal[1])), int(float(wal[2])), size, w))
            log("seed003 %s %s done" % (wal_level, case))
        c.psql("DROP TABLE IF EXISTS t2")
        c.stop()
    lines = ["COPY of %d rows (%s table) into `t2 (a int, b text, c date)`, shared_buffers=1GB.\n" % (
        nrows, fmt_bytes(rows[0][6])),
        "| wal_level | table | COPY ms | COMMIT ms | WAL bytes of the COPY (insert LSN diff) | WAL bytes of the COMMIT (insert LSN diff) | walload COPY wal_bytes | walload wal_skipped | walload commit_wal_bytes | walload commit_ms | walload synced_rels / wal_logged_rels | walload xact wal_bytes |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for wl, case, cp, cm, wc, wm, size, w in rows:
        lines.append("| %s | %s | %.0f | %.1f | %s | %s | %s | %s | %s | %s | %s / %s | %s |" % (
            wl, case, cp, cm, fmt_bytes(wc), fmt_bytes(wm), fmt_bytes(w[0]), w[1], fmt_bytes(w[2]), w[3],
            w[5], w[6], fmt_bytes(w[7])))
    svg_bars(os.path.join(P["out"], "seed003-wal.svg"),
             "Seed 003: WAL bytes per COPY of %d rows, client (LSN diff) vs walload" % nrows,
             [("%s\n%s" % (wl, "same xact" if case.startswith("created") else "existing"),
               [wc / 1048576.0, float(w[0]) / 1048576.0]) for wl, case, cp, cm, wc, wm, size, w in rows],
             [("client: LSN diff of the COPY", "#335"), ("walload: COPY wal_bytes", "#99c")], "MB")
    return "\n".join(lines), rows


# ---------------------------------------------------------------- seed 004

def seed004(c, tmp):
    ntx = P["small_tx"]
    script = os.path.join(tmp, "small.sql")
    with open(script, "w") as f:
        f.write("INSERT INTO t4 VALUES (:client_id, 'small transaction');\n")
    os.chmod(script, 0o644)
    rows = []
    for sc in ("on", "off"):
        configure(c, "walload", {"shared_buffers": "1GB", "wal_level": "replica", "synchronous_commit": sc})
        c.psql("CREATE EXTENSION IF NOT EXISTS walload")
        c.psql("DROP TABLE IF EXISTS t4")
        c.psql("CREATE TABLE t4 (id int, v text)")
        c.psql("SELECT walload_reset()")
        tps, lat = pgbench(c, ["-n", "-f", script, "-c", "1", "-t", str(ntx)])
        w = q(c, "SELECT count(*), round(avg(commit_ms)::numeric, 3), "
                 "round(percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_ms)::numeric, 3), "
                 "round(percentile_cont(0.99) WITHIN GROUP (ORDER BY commit_ms)::numeric, 3), "
                 "round(avg(commit_sync_ms)::numeric, 3), round(avg(total_ms)::numeric, 3), "
                 "round(avg(dml_ms)::numeric, 3), sum(wal_syncs), max(synchronous_commit) "
                 "FROM walload_xacts WHERE statements = 1")
        c.stop()
        rows.append((sc, tps, lat, w))
        log("seed004 synchronous_commit=%s done" % sc)
    lines = ["%d single-INSERT transactions, one client (pgbench -t %d), wal_level=replica. walload's figures are over the transactions in its ring (walload.max_xacts, default 1000: the last ones).\n" % (ntx, ntx),
             "| synchronous_commit | client tps | client latency ms | walload xacts | walload commit_ms mean | median | p99 | walload commit_sync_ms mean | walload total_ms mean | walload INSERT ms mean | walload wal_syncs (sum) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for sc, tps, lat, w in rows:
        lines.append("| %s | %.0f | %.3f | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            sc, tps, lat, w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]))
    svg_bars(os.path.join(P["out"], "seed004-commit.svg"),
             "Seed 004: small transactions, client latency vs walload commit_ms (mean)",
             [("synchronous_commit\n= %s" % sc, [lat, float(w[5]), float(w[1])]) for sc, tps, lat, w in rows],
             [("client latency", "#335"), ("walload total_ms", "#99c"), ("walload commit_ms", "#c63")], "ms")
    return "\n".join(lines), rows


def manyfiles(c, tmp):
    n = P["many_tables"]
    settings = {"shared_buffers": "1GB", "wal_level": "replica", "max_locks_per_transaction": "1024"}
    libs = {"walload": "walload,pg_stat_statements", "nothing": "pg_stat_statements"}
    steps = [
        ("CREATE TABLE x %d, one transaction" % n,
         "BEGIN;\nSELECT format('CREATE TABLE mf.t_%%s (a int)', g) FROM generate_series(1, %d) g \\gexec\n" % n,
         "COMMIT;\n"),
        ("then ALTER TABLE ... SET STATISTICS x 2000 (same transaction)",
         "SELECT format('ALTER TABLE mf.t_%s ALTER a SET STATISTICS 100', 1 + g % 50) FROM generate_series(1, 2000) g \\gexec\n",
         "COMMIT;\n"),
        ("ALTER TABLE ... SET DATA TYPE (rewrite) x 200, one transaction",
         "BEGIN;\nSELECT format('ALTER TABLE mf.t_%s ALTER a TYPE bigint', g) FROM generate_series(1, 200) g \\gexec\n",
         "COMMIT;\n"),
    ]
    times = {}
    rounds = 3
    for rnd in range(rounds):
        for track in random_order(["walload", "nothing"]):
            c.stop()
            configure(c, libs[track], settings)
            # a fresh database each time: the catalogs do not carry the
            # previous round's dead rows (autovacuum is off)
            c.psql("DROP DATABASE IF EXISTS mf")
            c.psql("CREATE DATABASE mf")
            c.psql("CREATE SCHEMA mf", db="mf")
            path = os.path.join(tmp, "mf.sql")
            with open(path, "w") as f:
                f.write("\\echo MARK 0\n" + steps[0][1])
                f.write("\\echo MARK 1\n" + steps[1][1] + steps[1][2])
                f.write("\\echo MARK 2\n" + steps[2][1] + steps[2][2] + "\\echo MARK 3\n")
            os.chmod(path, 0o644)
            t = []
            proc = subprocess.Popen(["runuser", "-u", "postgres", "--", os.path.join(c.bindir, "psql"),
                                     "-X", "-q", "-v", "ON_ERROR_STOP=1", "-o", "/dev/null", "-d", "mf",
                                     "-f", path],
                                    env=c.env, cwd=c.root, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
            marks = {}
            for line in proc.stdout:
                if line.startswith("MARK "):
                    marks[int(line.split()[1])] = time.time()
            if proc.wait() != 0 or len(marks) != 4:
                raise RuntimeError("manyfiles: psql failed (track=%s)" % track)
            for k in range(3):
                times.setdefault((k, track), []).append(marks[k + 1] - marks[k])
            log("manyfiles round %d %s: %s" % (rnd, track, ", ".join("%.1f s" % (marks[k + 1] - marks[k]) for k in range(3))))
    c.psql("DROP DATABASE IF EXISTS mf")
    c.stop()
    lines = ["| step | walload and pg_stat_statements preloaded | pg_stat_statements only | ratio |",
             "|---|---|---|---|"]
    for k, (name, _, _) in enumerate(steps):
        top = statistics.median(times[(k, "walload")])
        none = statistics.median(times[(k, "nothing")])
        lines.append("| %s | %.2f s | %.2f s | %.2f |" % (name, top, none, top / none if none > 0 else 0))
    return "\n".join(lines), times


# ---------------------------------------------------------------- what-ifs

def hint_of(c, finding_like):
    r = c.psql("SELECT hint FROM walload_findings() WHERE finding LIKE '%s'" % finding_like)
    return r


def whatif(c, tmp):
    """Each figure walload_diagnose() predicts, against the alternative run
    in the same cluster, right after the load it was predicted from."""
    ntab = 20
    rounds = 3
    # the saving of one transaction instead of 20 is the difference of two
    # runs whose WAL flushes vary by milliseconds: at 1GB (walks of 0.2 ms)
    # the median of three came out 0.64 and 1.45 in two runs of an hour
    drop_rounds = 7
    rows = []
    data = os.path.join(tmp, "whatif.csv")
    with open(data, "w") as f:
        for i in range(1, P["whatif_rows"] + 1):
            f.write("%d,%s\n" % (i, "x" * 40))
    os.chmod(data, 0o644)
    for size in P["whatif_sizes"]:
        # 1. N DROPs, one per transaction, against the same N in one
        start_walload(c, size, "replica")
        pred, meas = [], []
        for rnd in range(drop_rounds):
            create = ["CREATE TABLE w_%d (a int);" % t for t in range(ntab)]
            c.psql("SELECT walload_reset()")
            out = run_psql_file(c, create + ["\\timing on", "\\echo @start", "SELECT 1;"] +
                                ["DROP TABLE w_%d;" % t for t in range(ntab)] + ["\\echo @end", "SELECT 1;"],
                                os.path.join(tmp, "w1.sql"))
            hint = hint_of(c, "file deletion%")
            m = re.search(r"would save (\d+) scans and \d+ WAL flushes, about ([\d.]+) ms", hint)
            apart = sum(float(x) for x in re.findall(r"Time: ([\d.]+) ms", out)[1:-1])
            out = run_psql_file(c, create + ["\\timing on", "BEGIN;"] +
                                ["DROP TABLE w_%d;" % t for t in range(ntab)] + ["COMMIT;"],
                                os.path.join(tmp, "w2.sql"))
            together = sum(float(x) for x in re.findall(r"Time: ([\d.]+) ms", out))
            if m:
                pred.append(float(m.group(2)))
                meas.append(apart - together)
        c.stop()
        p_, m_ = statistics.median(pred), statistics.median(meas)
        rows.append(("%d DROP TABLE in %d transactions instead of one: time saved" % (ntab, ntab), size,
                     "%.1f ms" % p_, "%.1f ms" % m_, p_ / m_ if m_ > 0 else 0, 0.25))
        log("whatif drops %s: predicted %.1f ms, measured %.1f ms" % (size, p_, m_))

        # 2. wal_skip_threshold above the synced file: WAL-logged at commit
        start_walload(c, size, "minimal")
        pred, meas = [], []
        for rnd in range(rounds):
            c.psql("SELECT walload_reset()")
            load = ["BEGIN;", "CREATE TABLE w_load (a int, b text);",
                    "COPY w_load FROM '%s' WITH (FORMAT csv);" % data]
            run_psql_file(c, load + ["COMMIT;", "DROP TABLE w_load;"], os.path.join(tmp, "w3.sql"))
            hint = hint_of(c, "commit-time sync%")
            m = re.search(r"wal_skip_threshold to (\d+) kB .* about ([\d.]+) MB", hint)
            if not m:
                raise RuntimeError("whatif: no threshold prediction in %r" % hint)
            c.psql("SELECT walload_reset()")
            run_psql_file(c, ["SET wal_skip_threshold = '%s kB';" % m.group(1)] + load +
                          ["COMMIT;", "DROP TABLE w_load;"], os.path.join(tmp, "w4.sql"))
            got = q(c, "SELECT commit_wal_bytes, synced_rels, wal_logged_rels FROM walload_xacts "
                       "WHERE xact_id = (SELECT max(xact_id) FROM walload_statements WHERE command = 'COPY')")
            if int(got[1]) != 0:
                raise RuntimeError("whatif: with the threshold raised a file was still synced: %r" % got)
            pred.append(float(m.group(2)))
            meas.append(int(got[0]) / 1048576.0)
        c.stop()
        p_, m_ = statistics.median(pred), statistics.median(meas)
        rows.append(("COPY of %d rows into a new table under minimal, wal_skip_threshold raised as the hint says: "
                     "WAL at commit" % P["whatif_rows"], size, "%.2f MB" % p_, "%.2f MB" % m_,
                     p_ / m_ if m_ > 0 else 0, 0.10))
        log("whatif threshold %s: predicted %.2f MB, measured %.2f MB" % (size, p_, m_))

        # 3. small synchronous commits batched into one transaction (once:
        # shared_buffers does not enter)
        if size != P["whatif_sizes"][0]:
            continue
        start_walload(c, size, "replica")
        c.psql("DROP TABLE IF EXISTS w_small; CREATE TABLE w_small (a int)")
        ins = ["INSERT INTO w_small VALUES (%d);" % i for i in range(200)]
        pred, meas = [], []
        for rnd in range(drop_rounds):
            c.psql("SELECT walload_reset()")
            out = run_psql_file(c, ["\\timing on"] + ins, os.path.join(tmp, "w5.sql"))
            apart = sum(float(x) for x in re.findall(r"Time: ([\d.]+) ms", out))
            got = c.psql("SELECT saving_ms FROM walload_diagnose() WHERE finding = 'many small synchronous commits'")
            out = run_psql_file(c, ["\\timing on", "BEGIN;"] + ins + ["COMMIT;"], os.path.join(tmp, "w6.sql"))
            together = sum(float(x) for x in re.findall(r"Time: ([\d.]+) ms", out))
            if got:
                pred.append(float(got))
                meas.append(apart - together)
        c.psql("DROP TABLE w_small")
        c.stop()
        if pred:
            p_, m_ = statistics.median(pred), statistics.median(meas)
            rows.append(("200 INSERTs in 200 synchronous commits instead of one transaction: time saved "
                         "(saving_ms of 'many small synchronous commits')", size, "%.1f ms" % p_, "%.1f ms" % m_,
                         p_ / m_ if m_ > 0 else 0, 0.25))
            log("whatif small commits %s: predicted %.1f ms, measured %.1f ms" % (size, p_, m_))
        else:
            rows.append(("200 INSERTs in 200 synchronous commits: no finding 'many small synchronous commits'",
                         size, "-", "-", 0, 0.25))
    lines = ["| what-if | shared_buffers | predicted (walload_diagnose) | measured (the alternative, run) | ratio | bound |",
             "|---|---|---|---|---|---|"]
    bad = 0
    for name, size, p_, m_, r, b in rows:
        ok = abs(r - 1) <= b
        bad += 0 if ok else 1
        lines.append("| %s | %s | %s | %s | %.2f%s | +-%d%% |" % (name, size, p_, m_, r, "" if ok else " (beyond)",
                                                              int(b * 100)))
    return "\n".join(lines), bad


def report_section(c, tmp):
    """walload_report() against the client's own stopwatch: each load run by
    psql under an application_name of its own, timed around the psql
    process; the report's load time (the sum of its parts) over the
    client's time, and the load's largest parts.  walload.max_xacts stays
    at its default (1000): the nightly load overruns that ring, and its
    report comes from walload_minutes."""
    rounds = P["report_rounds"]
    data = os.path.join(tmp, "report.csv")
    with open(data, "w") as f:
        for i in range(1, 1001):
            f.write("%d,customer %d,%d.50\n" % (i, i % 977, i % 5000))
    os.chmod(data, 0o644)
    seed = ["BEGIN;"] + ["CREATE TABLE r_s%d (id int, name text, amount numeric);" % t for t in range(10)]
    for r in range(5):
        seed += ["COPY r_s%d FROM '%s' WITH (FORMAT csv);" % (t, data) for t in range(10)]
    seed += ["COMMIT;"] + ["DROP TABLE r_s%d;" % t for t in range(10)]
    nightly = ["CREATE TABLE IF NOT EXISTS r_facts (id int, name text, amount numeric);", "TRUNCATE r_facts;"]
    for t in range(P["report_staging"]):
        nightly += ["BEGIN;", "CREATE TABLE r_st%d (id int, name text, amount numeric);" % t,
                    "COPY r_st%d FROM '%s' WITH (FORMAT csv);" % (t, data), "COMMIT;",
                    "INSERT INTO r_facts SELECT * FROM r_st%d;" % t, "DROP TABLE r_st%d;" % t]
    big = ["BEGIN;"]
    for t in range(2):
        big += ["CREATE TABLE r_b%d AS SELECT g AS id, 'customer ' || g %% 977 AS name, g %% 5000 + 0.5 AS amount "
                "FROM generate_series(1, %d) g;" % (t, P["report_big_rows"]),
                "CREATE INDEX ON r_b%d (id);" % t]
    big += ["COMMIT;", "VACUUM r_b0;", "DROP TABLE r_b0, r_b1;"]
    loads = [("the seed 000 shape: 10 tables created and 5 COPYs into each in one transaction, then 10 DROPs", seed),
             ("a nightly load: %d staging tables, each created and COPYed in a transaction, then "
              "INSERT ... SELECT into a fact table and DROP (%d transactions)" % (P["report_staging"],
                                                                                  3 * P["report_staging"] + 2),
              nightly),
             ("two tables of %s rows created with an index in one transaction, VACUUM, DROP"
              % format(P["report_big_rows"], ","), big)]
    configure(c, "walload", {"shared_buffers": "1GB", "wal_level": "minimal"})
    c.wait_for_calibration()
    c.psql("CREATE EXTENSION IF NOT EXISTS walload")
    c.psql("ALTER EXTENSION walload UPDATE")
    # the client's own cost, for scale: psql started, connected and gone
    empty = []
    for _ in range(5):
        t0 = time.monotonic()
        run_psql_file(c, [], os.path.join(tmp, "report-empty.sql"))
        empty.append((time.monotonic() - t0) * 1000)
    empty_ms = statistics.median(empty)
    rows = []
    for n, (name, script) in enumerate(loads):
        path = os.path.join(tmp, "report%d.sql" % n)
        client, reported, tops, source = [], [], None, None
        for rnd in range(rounds):
            app = "walload-bench-report-%d-%d" % (n, rnd)
            c.psql("SELECT walload_reset()")
            t0 = time.monotonic()
            run_psql_file(c, script, path, app=app)
            client.append((time.monotonic() - t0) * 1000)
            source = c.psql("SELECT CASE WHEN xacts_overwritten > 0 THEN format('walload_minutes (the ring "
                            "overwrote %s of %s transactions)', xacts_overwritten, xacts_recorded) "
                            "ELSE format('walload_xacts (%s transactions)', xacts_recorded) END FROM walload_info")
            reported.append(float(c.psql("SELECT coalesce(sum(ms), 0) FROM walload_report(application_name => '%s')"
                                         % app)))
            tops = c.psql("SELECT string_agg(part || ' ' || round(pct) || '%%', '; ') FROM "
                          "(SELECT * FROM walload_report(application_name => '%s') WHERE ms IS NOT NULL "
                          "LIMIT 3) r" % app)
        ratios = sorted(a / b for a, b in zip(reported, client))
        # less what no server sees: the client program's own start and exit
        net = sorted(a / (b - empty_ms) for a, b in zip(reported, client))
        rows.append((name, statistics.median(client), statistics.median(reported), statistics.median(ratios),
                     ratios[0], ratios[-1], tops, source, statistics.median(net), net[0], net[-1]))
        log("report %s: client %.0f ms, report %.0f ms" % (name, statistics.median(client),
                                                           statistics.median(reported)))
    c.stop()
    lines = ["| load | client (psql, ms) | walload_report (ms) | ratio (min-max) "
             "| ratio to the client less an empty run (min-max) | read from (last round) "
             "| largest parts (last round) |",
             "|---|---|---|---|---|---|---|"]
    for name, cl, rep, ratio, lo, hi, tops, source, nratio, nlo, nhi in rows:
        lines.append("| %s | %.0f | %.0f | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %s | %s |"
                     % (name, cl, rep, ratio, lo, hi, nratio, nlo, nhi, source, tops))
    lines += ["", "An empty psql run (started, connected, gone; as root through runuser) took %.0f ms "
              "(median of 5): the client's share that no server sees." % empty_ms]
    return "\n".join(lines)


# walload's DEBUG1 line of each commit prediction (accumulator.c), its parts
COMMIT_LINE = re.compile(
    r"walload: commit predicted to take ([\d.]+) ms: scans [\d.]+ ms, sync [\d.]+ ms, WAL [\d.]+ ms, "
    r"file deletion ([\d.]+) ms, per-file work ([\d.]+) ms; of the sync, fsyncs ([\d.]+) ms "
    r"\(([\d.]+) ms as timed at start\); of the deletion, ([\d.]+) ms if all blocks were on disk")

# the commit model's mechanisms, each taken out of the same prediction
# (issue 38's ablation): from the parts of its DEBUG1 line
COMMIT_VARIANTS = ["full", "-fsync ratio", "-file_commit_us", "-FIEMAP", "none of the three"]


def commit_variants(m):
    total, drop, files, fsync, timed, ondisk = (float(m.group(i)) for i in range(1, 7))
    out = {"full": total, "-fsync ratio": total - fsync + timed, "-file_commit_us": total - files,
           "-FIEMAP": total - drop + ondisk}
    out["none of the three"] = total - fsync + timed - files - drop + ondisk
    return out


def commit_lines(err):
    return [m for m in (COMMIT_LINE.search(line) for line in err.splitlines()) if m]


def predict(c, tmp):
    """pred_commit_ms against commit_ms, per load kind and shared_buffers;
    and the same predictions without each of the commit model's learned or
    file-system-asked parts (from the DEBUG1 line of each)."""
    rounds = 3
    data = os.path.join(tmp, "predict.csv")
    with open(data, "w") as f:
        for i in range(1, 200001):
            f.write("%d,%s\n" % (i, "x" * 60))
    os.chmod(data, 0o644)
    checkpointed = ["CREATE TABLE p_d%d AS SELECT g AS a FROM generate_series(1, 20000) g;" % i
                    for i in range(20)] + ["CHECKPOINT;"]
    # (name, the transaction's statements, what undoes them, what comes before)
    loads = [
        ("CREATE TABLE + COPY 200,000 rows (about 19 MB, synced)",
         ["CREATE TABLE p_t (a int, b text);", "COPY p_t FROM '%s' WITH (FORMAT csv);" % data],
         ["DROP TABLE p_t;"], None),
        ("CREATE TABLE + INSERT ... SELECT 500,000 rows (dirty buffers, synced)",
         ["CREATE TABLE p_t (a int, b text);",
          "INSERT INTO p_t SELECT g, repeat('y', 60) FROM generate_series(1, 500000) g;"], ["DROP TABLE p_t;"],
         None),
        ("CREATE INDEX on a loaded table (index synced)",
         ["CREATE INDEX p_i ON p_base (a);"], ["DROP INDEX p_i;"], None),
        ("20 small new tables (WAL-logged whole)",
         ["CREATE TABLE p_s%d (a int); INSERT INTO p_s%d VALUES (1);" % (i, i) for i in range(20)],
         ["DROP TABLE %s;" % ", ".join("p_s%d" % i for i in range(20))], None),
        ("DROP of 20 loaded tables (deletion scan)",
         ["DROP TABLE %s;" % ", ".join("p_d%d" % i for i in range(20))], None, checkpointed),
        ("DROP of 20 tables loaded a moment before (blocks not yet on disk)",
         ["DROP TABLE %s;" % ", ".join("p_d%d" % i for i in range(20))], None, checkpointed[:-1]),
        ("5 tables created, COPYed and dropped in one transaction (deleted at commit, never synced)",
         sum((["CREATE TABLE p_x%d (a int, b text);" % i, "COPY p_x%d FROM '%s' WITH (FORMAT csv);" % (i, data),
               "DROP TABLE p_x%d;" % i] for i in range(5)), []), None, None),
        ("300 small files in one commit (100 tables with TOAST, WAL-logged whole)",
         ["CREATE TABLE p_s%d (a int, b text); INSERT INTO p_s%d VALUES (1, 'x');" % (i, i) for i in range(100)],
         ["DROP TABLE %s;" % ", ".join("p_s%d" % i for i in range(100))], None),
    ]
    rows = []
    every = []      # pred / measured of every commit
    ablated = []    # (group, size, {variant: estimate / commit_ms}) of each commit
    unpaired = 0
    learned = []
    for size in P["predict_sizes"]:
        configure(c, "walload", {"shared_buffers": size, "wal_level": "minimal", "max_wal_senders": "0"})
        c.psql("CREATE EXTENSION IF NOT EXISTS walload")
        c.psql("DROP TABLE IF EXISTS p_base; CREATE TABLE p_base AS SELECT g AS a FROM generate_series(1, 1000000) g")
        # the calibration worker times the walks and the storage after the
        # start: wait until it is idle
        c.wait_for_calibration()
        for name, body, after, before in loads:
            pred, meas = [], []
            for rnd in range(rounds):
                if before:
                    run_psql_file(c, before, os.path.join(tmp, "p0.sql"))
                c.psql("SELECT walload_reset()")
                _, err = run_psql_file(c, ["SET client_min_messages = debug1;", "BEGIN;"] + body + ["COMMIT;"],
                                       os.path.join(tmp, "p1.sql"), stderr=True)
                got = q(c, "SELECT pred_commit_ms, commit_ms FROM walload_xacts "
                           "WHERE statements > 0 ORDER BY xact_id DESC LIMIT 1")
                pred.append(float(got[0]))
                meas.append(float(got[1]))
                lines = commit_lines(err)
                if lines and abs(float(lines[-1].group(1)) - pred[-1]) < 0.002 and meas[-1] > 0:
                    ablated.append(("deletions" if "DROP" in name or "dropped" in name else "syncs and WAL-logging",
                                    size, {v: est / meas[-1] for v, est in commit_variants(lines[-1]).items()}))
                else:
                    unpaired += 1
                if after:
                    run_psql_file(c, after, os.path.join(tmp, "p2.sql"))
            p_, m_ = statistics.median(pred), statistics.median(meas)
            every += [a / b for a, b in zip(pred, meas) if b > 0]
            rows.append((name, size, p_, m_, p_ / m_ if m_ > 0 else 0))
            log("predict %s %s: predicted %.1f ms, measured %.1f ms" % (size, name, p_, m_))
        # a nightly load's small commits: each its own transaction
        c.psql("SELECT walload_reset()")
        small = ["SET client_min_messages = debug1;"]
        for i in range(P["predict_small_commits"]):
            small += ["BEGIN;", "CREATE TABLE p_c%d (a int, b text);" % i,
                      "INSERT INTO p_c%d SELECT g, 'x' FROM generate_series(1, 100) g;" % i, "COMMIT;"]
        _, err = run_psql_file(c, small, os.path.join(tmp, "p3.sql"), stderr=True)
        got = [(float(x.split("|")[0]), float(x.split("|")[1])) for x in
               c.psql("SELECT pred_commit_ms, commit_ms FROM walload_xacts WHERE statements = 2 "
                      "AND pred_commit_ms IS NOT NULL ORDER BY xact_id").splitlines() if x]
        lines = commit_lines(err)
        if len(lines) == len(got) and all(abs(float(m.group(1)) - p) < 0.002 for m, (p, _) in zip(lines, got)):
            for m, (_, meas) in zip(lines, got):
                if meas > 0:
                    ablated.append(("small commits", size,
                                    {v: est / meas for v, est in commit_variants(m).items()}))
        else:
            unpaired += len(got)
        run_psql_file(c, ["DROP TABLE p_c%d;" % i for i in range(P["predict_small_commits"])],
                      os.path.join(tmp, "p4.sql"))
        if got:
            every += [a / b for a, b in got if b > 0]
            p_, m_ = sum(a for a, _ in got), sum(b for _, b in got)
            rows.append(("%d small commits (a table of 100 rows each; sums)" % len(got), size, p_, m_,
                         p_ / m_ if m_ > 0 else 0))
            log("predict %s small commits: predicted %.1f ms, measured %.1f ms" % (size, p_, m_))
        # (scan_time_ratio is 1 since library 1.5.2: the walks learn nothing)
        learned.append((size,) + tuple(q(c, "SELECT round(fsync_time_ratio::numeric, 2), fsync_time_commits, "
                                            "round(file_commit_us::numeric, 1), file_commit_commits "
                                            "FROM walload_info")))
        c.stop()
    lines = ["| load (one transaction, then COMMIT) | shared_buffers | pred_commit_ms | commit_ms | ratio |",
             "|---|---|---|---|---|"]
    bad = 0
    for name, size, p_, m_, r in rows:
        ok = abs(r - 1) <= 0.25
        bad += 0 if ok else 1
        lines.append("| %s | %s | %.1f | %.1f | %.2f%s |" % (name, size, p_, m_, r, "" if ok else " (beyond)"))
    if every:
        every.sort()
        inside = sum(1 for r in every if 0.5 <= r <= 2.0)
        lines += ["", "pred_commit_ms / commit_ms of every commit above (%d): median %.2f (goal 0.8-1.25), "
                  "10th-90th percentile %.2f-%.2f, %d%% within 0.5-2.0 (goal 90%%)."
                  % (len(every), statistics.median(every), every[len(every) // 10],
                     every[(len(every) * 9) // 10], 100 * inside // len(every))]
    if ablated:
        groups = ["syncs and WAL-logging", "deletions", "small commits"]
        count = {g: sum(1 for x in ablated if x[0] == g) for g in groups}
        lines += ["", "The same commits' predictions without each of the commit model's mechanisms, "
                  "from the parts of their DEBUG1 lines (%d commits%s): estimate / commit_ms, "
                  "median · 10th-90th percentile · share within 0.8-1.25" %
                  (len(ablated), ", %d not paired with their line and left out" % unpaired if unpaired else ""),
                  "", "| variant | " + " | ".join("%s (%d)" % (g, count[g]) for g in groups) + " |",
                  "|---|" + "---|" * len(groups)]
        for v in COMMIT_VARIANTS:
            cells = []
            for g in groups:
                vals = sorted(x[2][v] for x in ablated if x[0] == g)
                n = len(vals)
                cells.append("%.2f · %.2f-%.2f · %d%%" % (statistics.median(vals), vals[n // 10],
                                                          vals[(n * 9) // 10],
                                                          100 * sum(1 for r in vals if 0.8 <= r <= 1.25) // n)
                             if n else "-")
            lines.append("| %s | %s |" % (v, " | ".join(cells)))
        if os.environ.get("BENCH_COMMIT_RAW"):
            with open(os.environ["BENCH_COMMIT_RAW"], "w") as f:
                json.dump(ablated, f)
    lines += ["", "What the commits taught by the end of each size (walload_info): " +
              "; ".join("%s: fsync_time_ratio %s after %s commits, file_commit_us %s after %s"
                        % x for x in learned) + "."]
    return "\n".join(lines), bad


def walknoise(c, tmp):
    """The same walks again and again, in fresh sessions: how far apart the
    walks themselves are, against one estimate for all; and the walk right
    after a session's first, as priced (cold, as every walk since library
    1.5.2) and as the first walk's estimate less its page faults."""
    sessions = P["noise_sessions"]
    rows = []
    # walload's DEBUG2 line per walk estimate (cost.c wl_scans_est_ns):
    # "N walk(s) of kind K over F file(s): U unmapped header pages,
    # B buffers invalidated|written: X ms, page faults Y ms"
    priced = re.compile(r"walk\(s\) of kind \d+ over \d+ file\(s\): \d+ unmapped header pages, "
                        r"\d+ buffers (?:invalidated|written): ([\d.]+) ms, page faults ([\d.]+) ms")
    path = os.path.join(tmp, "n1.sql")
    with open(path, "w") as f:
        f.write("SET client_min_messages = debug2;\nDROP TABLE n_t;\nDROP TABLE n_u;\nSELECT 1;\n")
    os.chmod(path, 0o644)
    for size in P["noise_sizes"]:
        start_walload(c, size, "replica")
        first, second = [], []
        for i in range(sessions):
            c.psql("CREATE TABLE n_t (id int); INSERT INTO n_t VALUES (1); "
                   "CREATE TABLE n_u (id int); INSERT INTO n_u VALUES (1)")
            r = c.as_postgres([os.path.join(c.bindir, "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                               "-f", path], capture_output=True, text=True)
            p_ = priced.findall(r.stderr)
            # each DROP's commit: its cleanup phase as measured (the walk,
            # and deleting a one-block file), and its estimate
            m = [tuple(x.split("|")) for x in c.psql(
                "SELECT commit_cleanup_ms, est_scan_ms FROM (SELECT * FROM walload_xacts "
                "WHERE full_scans > 0 ORDER BY xact_id DESC LIMIT 2) x ORDER BY xact_id").splitlines()]
            if r.returncode != 0 or len(m) != 2 or len(p_) != 2:
                raise RuntimeError("walknoise: not two walks for the two DROPs:\n%s" % r.stderr[-2000:])
            # (measured, estimated, the first walk's estimate less its page
            # faults: a cold walk's)
            first.append((float(m[0][0]), float(m[0][1])))
            second.append((float(m[1][0]), float(m[1][1]),
                           float(p_[0][0]) - float(p_[0][1])))
        c.stop()
        meas = [x[0] for x in first]
        est = [x[1] for x in first]
        lo, hi = min(meas), max(meas)
        near = sum(1 for e, x in zip(est, meas) if abs(e / x - 1) <= 0.2)
        rows.append((size, statistics.median(est), min(est), max(est), lo, statistics.median(meas), hi, near,
                     statistics.median(x[1] / x[0] for x in second),
                     sum(1 for x in second if abs(x[1] / x[0] - 1) <= 0.2),
                     statistics.median(x[2] / x[0] for x in second),
                     sum(1 for x in second if abs(x[2] / x[0] - 1) <= 0.2)))
        log("walknoise %s: estimated %.2f ms (median), walks %.2f..%.2f ms" % (size, statistics.median(est), lo, hi))
    lines = ["| shared_buffers | first walk: estimated, median (min..max) | first walks: min / median / max | "
             "max / min | within +-20% of their estimate | one figure within +-20% of every first walk |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %.2f ms (%.2f..%.2f) | %.2f / %.2f / %.2f ms | %.2f | %d of %d | %s |"
                     % (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[6] / r[4], r[7], sessions,
                        "exists" if 0.8 * r[6] <= 1.2 * r[4] else "none exists"))
    lines += ["", "The walk right after (the second DROP of each session):", "",
              "| shared_buffers | cache share priced | estimate / walk, median | within +-20% | "
              "the first walk's estimate less its page faults / walk, median | within +-20% |",
              "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | removed (1.5.2: priced cold) | %.2f | %d of %d | %.2f | %d of %d |"
                     % (r[0], r[8], r[9], sessions, r[10], r[11], sessions))
    return "\n".join(lines), 0


def strategies(c, tmp):
    """walload.commit_strategy (issue 38, item 6): each load in one
    transaction, then COMMIT, under minimal with off (core's own choice),
    auto, wal and sync, on one server per shared_buffers that keeps running
    (started once, its calibration done): in each round every strategy runs
    each load once, in an order drawn at random each round (--seed), each from
    the same starting state (the previous load's tables dropped, then a
    CHECKPOINT).  Then replica on its own start, for the transaction's total.
    Reported: medians of the rounds and their spread (min..max), auto over
    the best of off/wal/sync, auto over off, and auto's commit predicted
    (pred_commit_ms) against measured."""
    rounds = P["strategy_rounds"]
    copy_mb = P["strategy_copy_mb"]
    os.makedirs(os.path.join(tmp, "strat"), exist_ok=True)
    d = os.path.join(tmp, "strat")
    os.chmod(d, 0o755)

    def csv(name, rows, width):
        path = os.path.join(d, name)
        if not os.path.exists(path):
            pad = "x" * width
            with open(path, "w") as f:
                for i in range(1, rows + 1):
                    f.write("%d,%s\n" % (i, pad))
            os.chmod(path, 0o644)
        return path

    def copy_rows(mb):
        # 100-byte rows, about 78 to a page
        return int(mb * 1024 * 1024 // 8192 * 78)

    seed_csv = os.path.join(d, "seed.csv")
    with open(seed_csv, "w") as f:
        for i in range(1, 1001):
            f.write("%d,customer %d,%d.50\n" % (i, i % 977, i % 5000))
    os.chmod(seed_csv, 0o644)
    loads = []
    body = ["CREATE TABLE st_%d (id int, name text, amount numeric);" % t for t in range(10)]
    for r in range(5):
        body += ["COPY st_%d FROM '%s' WITH (FORMAT csv);" % (t, seed_csv) for t in range(10)]
    loads.append(("seed 000: 10 tables x 5 COPYs of 1,000 rows", body, 10))

    def tables(mbs):
        """CREATE TABLE and one COPY each, of these sizes in MB"""
        body = []
        for n, mb_ in enumerate(mbs):
            body += ["CREATE TABLE st_%d (id int, pad text);" % n,
                     "COPY st_%d FROM '%s' WITH (FORMAT csv);" % (n, csv("mb%s.csv" % mb_, copy_rows(mb_), 90))]
        return body, len(mbs)

    loads.append(("6 tables of 2-64 MB (COPY)",) + tables([2, 4, 8, 16, 32, 64]))
    loads.append(("2 tables of 2.5 MB (COPY)",) + tables([2.5] * 2))
    loads.append(("50 tables of 2.2 MB (COPY)",) + tables([2.2] * 50))
    loads.append(("a %d MB COPY into a new table" % copy_mb,) + tables([copy_mb]))
    strats = ["off", "auto", "wal", "sync"]
    cols = "commit_ms, total_ms, synced_rels, wal_logged_rels, full_scans, pred_commit_ms, strategy_action"

    def run_one(name, body, ntab, strat):
        c.psql("DROP TABLE IF EXISTS %s" % ", ".join("st_%d" % t for t in range(ntab)))
        c.psql("CHECKPOINT")
        run_psql_file(c, ["SET walload.commit_strategy = '%s';" % strat, "BEGIN;"] + body + ["COMMIT;"],
                      os.path.join(d, "st.sql"))
        x = q(c, "SELECT %s FROM walload_xacts WHERE statements > 1 ORDER BY xact_id DESC LIMIT 1" % cols)
        c.psql("DROP TABLE %s" % ", ".join("st_%d" % t for t in range(ntab)))
        return x

    rows = []
    for size in P["strategy_sizes"]:
        res = {}
        t0 = time.time()
        start_walload(c, size, "minimal")
        for rnd in range(rounds):
            order = random_order(strats)
            for name, body, ntab in loads:
                for strat in order:
                    res.setdefault((name, strat), []).append(run_one(name, body, ntab, strat))
        c.stop()
        configure(c, "walload", {"shared_buffers": size, "wal_level": "replica", "max_wal_senders": "10"})
        c.psql("CREATE EXTENSION IF NOT EXISTS walload")
        for rnd in range(rounds):
            for name, body, ntab in loads:
                res.setdefault((name, "replica"), []).append(run_one(name, body, ntab, "off"))
        c.stop()
        log("strategy %s: %.0f s" % (size, time.time() - t0))
        for name, _, _ in loads:
            rows.append((name, size, res))
            log("strategy %s %s: %s" % (size, name, {s: res[(name, s)] for s in strats + ["replica"]}))

    def med(v, i):
        return statistics.median(float(x[i]) for x in v)

    def spread(v, i):
        return "%.0f..%.0f" % (min(float(x[i]) for x in v), max(float(x[i]) for x in v)) \
            if med(v, i) >= 10 else "%.1f..%.1f" % (min(float(x[i]) for x in v), max(float(x[i]) for x in v))

    out = ["| load | shared_buffers | off: commit ms (spread) | auto | wal | sync | auto's path "
           "(synced, WAL-logged, scans; actions) | auto / best | auto / off | auto: predicted / measured "
           "(median, range) | total ms: minimal auto / replica |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    bad = 0
    ratios = []
    for name, size, res in rows:
        m = {s: med(res[(name, s)], 0) for s in strats}
        best_s = min(["off", "wal", "sync"], key=lambda s: m[s])
        best = m[best_s]
        a = res[(name, "auto")]
        # the path a strategy took: (synced, WAL-logged) of each round
        paths = {s: [(x[2], x[3]) for x in res[(name, s)]] for s in strats}
        same = [s for s in ["off", "wal", "sync"] if paths[s] == paths["auto"]]
        ok = m["auto"] <= best * 1.05 or m["auto"] - best < 1.0 or best_s in same
        bad += 0 if ok else 1
        pr = [float(x[5]) / float(x[0]) for x in a if float(x[0]) > 0]
        ratios += pr
        acts = sorted(set(x[6] for x in a))
        path = "%s, %s, %s; %s%s" % (a[-1][2], a[-1][3], a[-1][4], "/".join(acts),
                                     "; as " + " and ".join(same) if same else "")
        cell = lambda s: "%.1f (%s)" % (m[s], spread(res[(name, s)], 0))
        out.append("| %s | %s | %s | %s | %s | %s | %s | %.2f%s | %.2f | %.2f (%.2f..%.2f) | %.0f / %.0f |" % (
            name, size, cell("off"), cell("auto"), cell("wal"), cell("sync"), path,
            m["auto"] / best if best > 0 else 0,
            " (beyond)" if not ok else " (best's path)" if best_s in same and m["auto"] > best * 1.05 else "",
            m["auto"] / m["off"] if m["off"] > 0 else 0,
            statistics.median(pr) if pr else 0, min(pr) if pr else 0, max(pr) if pr else 0,
            med(a, 1), med(res[(name, "replica")], 1)))
    if ratios:
        ratios.sort()
        inside = sum(1 for r in ratios if 0.5 <= r <= 2.0)
        out.append("")
        out.append("auto's pred_commit_ms / commit_ms over all %d commits: median %.2f, %d of %d (%.0f%%) "
                   "within 0.5-2.0." % (len(ratios), statistics.median(ratios), inside, len(ratios),
                                         100.0 * inside / len(ratios)))
    return "\n".join(out), bad


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="walload benchmarks")
    ap.add_argument("--quick", action="store_true", help="fewer rounds, smaller tables")
    ap.add_argument("--only", default="", help="comma-separated sections: " + ",".join(SECTIONS))
    ap.add_argument("--docs", action="store_true", help="copy the SVG charts to docs/")
    ap.add_argument("--seed", type=int, help="the seed of the configurations' orders (default: a new one, printed)")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 10 ** 6)
    ORDER.seed(seed)
    print("bench/run.py: --seed %d (the same --seed repeats this run's orders)" % seed, flush=True)
    only = [s for s in a.only.split(",") if s] or SECTIONS
    for s in only:
        if s not in SECTIONS:
            ap.error("unknown section %s" % s)
    if os.geteuid() != 0:
        print("bench/run.sh needs root (it runs clusters as postgres)")
        return 1
    quick = a.quick
    P.update({
        "rounds": int(os.environ.get("BENCH_ROUNDS", "4" if quick else "10")),
        "seconds": int(os.environ.get("BENCH_SECONDS", "2" if quick else "3")),
        "sizes": os.environ.get("BENCH_SHARED_BUFFERS", "128MB 1GB" if quick else "128MB 1GB 4GB 16GB").split(),
        "large_rows": 20000 if quick else 40000,
        "vac_rows": 300000 if quick else 2000000,
        "copy_rows": 300000 if quick else 2000000,
        "small_tx": 500 if quick else 3000,
        "many_tables": 10000 if quick else 40000,
        "whatif_sizes": os.environ.get("BENCH_WHATIF_SHARED_BUFFERS", "1GB" if quick else "1GB 4GB 16GB").split(),
        "whatif_rows": 100000,
        "predict_small_commits": 200 if quick else 600,
        "seedload_size": os.environ.get("BENCH_SEEDLOAD_SHARED_BUFFERS", "1GB"),
        "seedload_rounds": int(os.environ.get("BENCH_SEEDLOAD_ROUNDS", "7" if quick else "15")),
        "report_rounds": 3,
        "report_staging": 400 if quick else 3400,
        "report_big_rows": 300000 if quick else 1500000,
        "predict_sizes": os.environ.get("BENCH_PREDICT_SHARED_BUFFERS", "1GB" if quick else "1GB 4GB 16GB").split(),
        "noise_sizes": os.environ.get("BENCH_NOISE_SHARED_BUFFERS", "1GB" if quick else "1GB 4GB 16GB").split(),
        "noise_sessions": 6 if quick else 12,
        "strategy_sizes": os.environ.get("BENCH_STRATEGY_SHARED_BUFFERS",
                                         "1GB" if quick else "128MB 1GB 4GB 16GB").split(),
        "strategy_rounds": int(os.environ.get("BENCH_STRATEGY_ROUNDS", "3" if quick else "5")),
        "strategy_copy_mb": int(os.environ.get("BENCH_STRATEGY_COPY_MB", "256" if quick else "1024")),
        "cg_n": {"S": (100, 600), "tpcb": (30, 180), "ddl": (10, 60)} if quick else
                {"S": (200, 2200), "tpcb": (50, 550), "ddl": (20, 170)},
        "out": os.path.join(HERE, "out"),
    })
    bindir = pgconfig("--bindir")
    os.makedirs(P["out"], exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="walload-bench.")
    os.chmod(tmp, 0o755)
    shutil.chown(tmp, "postgres")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    t0 = time.time()
    version = pgconfig("--version")
    cmd = "bench/run.sh" + (" --quick" if quick else "") + (" --only " + a.only if a.only else "") + " --seed %d" % seed
    ncpu = os.cpu_count()
    mem = int(open("/proc/meminfo").read().split()[1]) // 1048576
    parts = ["# walload benchmark report\n",
             "`%s`, started %s; %s; %d CPUs, %d GB RAM.\n" % (cmd, started, version, ncpu, mem)]
    clusters = []
    try:
        template = new_cluster(tmp, "template", bindir)
        clusters.append(template)
        configure(template, "", {"shared_buffers": "256MB"})
        template.as_postgres([os.path.join(bindir, "pgbench"), "-i", "-q", "-s", "10", "postgres"],
                             check=True, capture_output=True)
        template.psql("CHECKPOINT")
        template.stop()
        for i in range(len(CONFIGS)):
            clusters.append(Cluster(os.path.join(tmp, "ov_%d" % i), bindir))
        clusters.append(Cluster(os.path.join(tmp, "cg"), bindir))
        clusters += [Cluster(os.path.join(tmp, "sl_%d" % i), bindir) for i in range(3)]
        if "seedload" in only:
            sl, bad = seedload(template, tmp, bindir, tmp)
            parts.append("""## The seed 000 load's statements with walload and without

Four clusters over the same data, started once (wal_level=minimal,
max_wal_senders=0): one with walload, one with pg_stat_statements, two with
nothing; in each round the seed's load (one
transaction: 10 CREATE TABLE, 5 x 10 COPY of 1,000 rows, COMMIT, then
DROP) runs once on each, in a random order each round (--seed).  A round's ratio: walload's
time for the 60 loading statements, as psql timed them, over the first
cluster without walload in that round; the second one's over the first is
the floor: what two clusters that differ in nothing show; pg_stat_statements'
the same way, for a peer.  Goal (issues 38, 54): median at most 1.02.  %s

%s
""" % ("Met." if bad == 0 else "Not met.", sl))
        if "overhead" in only:
            ov, sh, _ = overhead(template, tmp, bindir, tmp)
            parts.append("""## Overhead: interleaved throughput

Four clusters over the same data (pgbench scale 10), started once, each with
one configuration; shared_buffers=256MB, wal_level=replica,
synchronous_commit=off, autovacuum off; 2 clients, 2 pgbench threads.  %d rounds
per workload of %d s per configuration, the order of the four drawn at random every
round; a round's ratio is its tps over that round's 'nothing'.  Reported: the
median ratio, its interquartile range (IQR) and min..max over the rounds.

%s

Shared memory (same settings, extensions created):

%s

![throughput ratio](overhead.svg)
""" % (P["rounds"], P["seconds"], ov, sh))
        if "callgrind" in only:
            cg, prof, _ = callgrind(template, tmp, bindir, tmp)
            n = P["cg_n"]
            parts.append("""## Overhead: instructions per transaction (callgrind)

The server under `valgrind --tool=callgrind`; one client runs each workload
twice, N1 and N2 transactions (pgbench -S: %d / %d, tpcb-like: %d / %d,
CREATE/COPY/DROP: %d / %d); instructions per transaction are
(Ir(N2) - Ir(N1)) / (N2 - N1) of the backend, so its start and exit cancel
out.  shared_buffers=512MB with the pgbench tables prewarmed (no buffer
misses), wal_level=replica, synchronous_commit=off, pgbench --random-seed=1.  'in
walload.so's hooks and callees' is what walload's functions execute
themselves plus what they call outside walload.so, except the statement they
pass on (standard_*, pg_stat_statements' hooks).  'in JumbleQuery' is core's
query-id computation: for every statement where core computes ids
(pg_stat_statements loaded, or compute_query_id=on); with walload alone, for
the statements walload may record, which walload asks it for.

%s

![instruction ratio](instructions.svg)

### Profile of walload's hot path (callgrind, walload only)

%s
""" % (n["S"][0], n["S"][1], n["tpcb"][0], n["tpcb"][1], n["ddl"][0], n["ddl"][1], cg, prof))
        if "overhead-cg" in only:
            if os.path.exists(os.path.join(P["out"], "overhead-cg.md")):
                os.unlink(os.path.join(P["out"], "overhead-cg.md"))
            r = subprocess.run([sys.executable, os.path.join(HERE, "overhead_cg.py"),
                                "--out", os.path.join(P["out"], "overhead-cg.md")] + (["--quick"] if quick else []),
                               capture_output=True, text=True, timeout=3600)
            try:
                with open(os.path.join(P["out"], "overhead-cg.md")) as f:
                    parts.append(f.read())
            except OSError:
                parts.append("## overhead-cg\n\nfailed (%d):\n\n```\n%s\n```\n" % (r.returncode, r.stderr[-3000:]))
        seed_c = new_cluster(tmp, "seeds", bindir, template)
        clusters.append(seed_c)
        if "seed000" in only:
            sd, _ = seed000(seed_c, tmp)
            parts.append("""## Seed 000: the 10-table, 5-COPY load in one transaction, then 10 DROPs

Client-side times from psql's \\timing; walload's figures from walload_xacts of
the same run (est_scan_ms is walload's estimate, commit_ms its measurement).
wal_skip_threshold is the default 2MB.

%s
![DROP TABLE time by shared_buffers](seed000-drop.svg)

![COMMIT of the larger load](seed000-commit.svg)
""" % sd)
        if "seed001" in only:
            s1, _ = seed001(seed_c, tmp)
            parts.append("""## Seed 001: VACUUM of a table not in shared_buffers

`v (id int, pad text)`, %d rows, one index; 10%% of the rows updated, 30%%
deleted; CHECKPOINT, then a restart so that the table is not in
shared_buffers (it is in the OS page cache, as in the seed).  'prewarmed':
pg_prewarm of the table and its index after the restart.
maintenance_work_mem=1GB (one pass), synchronous_commit=on,
track_wal_io_timing=on.  pg_stat_wal counts every process (the WAL writer
too); walload's counters are the VACUUM backend's own.

%s

![VACUUM](seed001-vacuum.svg)
""" % (P["vac_rows"], s1))
        if "seed003" in only:
            s3, _ = seed003(seed_c, tmp)
            parts.append("""## Seed 003: WAL bytes per COPY, wal_level minimal vs replica

%s

![WAL per COPY](seed003-wal.svg)
""" % s3)
        if "seed004" in only:
            s4, _ = seed004(seed_c, tmp)
            parts.append("""## Seed 004: small transactions, synchronous_commit on vs off

%s

![commit_ms](seed004-commit.svg)
""" % s4)
        if "whatif" in only:
            wi, bad = whatif(seed_c, tmp)
            parts.append("""## What-ifs: walload_diagnose()'s predictions against the alternative, run

Each figure a hint predicts, taken from walload_diagnose() after the load,
beside the alternative run in the same cluster right after it; median of 3
rounds.  DROPs: wal_level=replica, client time of the 20 DROPs (psql
\\timing) minus that of the same 20 in one transaction (the hint predicts
both what goes: all but one commit record and its flush, which a commit that
deletes files always waits for, and all but one walk).  Threshold:
wal_level=minimal, COPY of %d rows into a table created in the transaction,
then the same with `SET wal_skip_threshold` to the value the hint names;
measured: walload's commit_wal_bytes of that transaction (the WAL written
during its commit, which core's log_newpage_range writes there).  %s

%s
""" % (P["whatif_rows"], "Every prediction within its bound." if bad == 0 else
                   "%d prediction(s) beyond the bound." % bad, wi))
        if "predict" in only:
            pr, bad = predict(seed_c, tmp)
            parts.append("""## Commit prediction: pred_commit_ms against commit_ms

wal_level=minimal; each load in one transaction, then COMMIT; median of 3
rounds.  pred_commit_ms is what walload predicted at PRE_COMMIT from the
pending files (the same model and costs walload_activity shows while the
load runs: scans from the calibration, fsync, writes, file deletion, file
lookups and page images from the storage timed by the calibration worker;
the worker is idle before the first load; the synced files' fsyncs
scaled, and core's untimed work per new file added, as the run's earlier
commits taught: a new server start for each size begins from the
calibration alone; the walks priced as calibrated); commit_ms is the
commit phase walload measured.  Bound: 25%%.  %s

%s
""" % ("Every prediction within the bound." if bad == 0 else
       "%d prediction(s) beyond the bound." % bad, pr))
        if "report" in only:
            parts.append("""## walload_report() against the client's stopwatch

Each load run by psql under an application_name of its own, %d rounds,
wal_level=minimal, shared_buffers=1GB; client: psql's run, timed around the
process (its start, connection and exit included); walload_report: the sum
of its parts for that application_name, the load's time from its first
transaction's start to its last one's end.  Ratio: medians of the rounds.
Goal (issue 39): within 5%%.

%s
""" % (P["report_rounds"], report_section(seed_c, tmp)))
        if "strategy" in only:
            st, bad = strategies(seed_c, tmp)
            parts.append("""## walload.commit_strategy: auto against off, wal and sync on a running server

Each load in one transaction, then COMMIT, under wal_level=minimal with
each strategy, on one server per shared_buffers that keeps running (its
calibration done once at start); %d rounds, in each every strategy once per
load in an order drawn at random each round (--seed), each from the same
starting state (the tables of the run before dropped, then CHECKPOINT).
commit_ms as walload measured it: median (min..max of the rounds).  Goal
(issue 38): auto's commit at most 1.05x (or 1 ms above) the best of off,
wal and sync, or auto took the best one's path in every round (the same
files fsynced and WAL-logged: the same work, whose medians differ by the
noise the spreads show; "as" names the strategies whose path auto took).  Replica ran the same loads on its own start; it pays its WAL
while loading, so it is compared through the whole transaction's time (last
column).  %s

%s
""" % (P["strategy_rounds"], "Met in every row." if bad == 0 else "%d row(s) beyond it." % bad, st))
        if "walknoise" in only:
            wn, _ = walknoise(seed_c, tmp)
            parts.append("""## The same walk, again and again: the noise any estimate of a walk is up against

wal_level=replica; %d fresh sessions one after another, each running DROP
TABLE of a one-row table created just before by another session, then
another such DROP: the same work each time, the walk of the whole pool at
the commit's file deletion (the first with the header pages not yet mapped
in that backend, the second right after it, priced cold as every walk is
since library 1.5.2: the 'cache share priced' column of earlier reports
says so).  'estimated': what
walload estimated for that walk before it ran (from the calibration at the
server's start); 'walks': the commit's cleanup phase as walload measured
it (commit_cleanup_ms: the walk, and deleting a one-block file, which at
1GB and above is a small part of it).  A single figure can be within +-20%% of every walk only
if the slowest took at most 1.5 times the fastest.

%s
""" % (P["noise_sessions"], wn))
        if "manyfiles" in only:
            mf, _ = manyfiles(seed_c, tmp)
            parts.append("""## Transactions that create many files

The same cluster (shared_buffers=1GB, wal_level=replica) restarted with
walload and pg_stat_statements preloaded or pg_stat_statements only, median
of 3 interleaved rounds, client time between steps:

%s
""" % mf)
    finally:
        for c in clusters:
            if c.running():
                try:
                    c.stop()
                except RuntimeError as e:
                    log("could not stop %s: %s" % (c.root, e))
        shutil.rmtree(tmp, ignore_errors=True)
    parts.append("Finished in %.0f s.\n" % (time.time() - t0))
    report = "\n".join(parts)
    with open(os.path.join(P["out"], "report.md"), "w") as f:
        f.write(report)
    if a.docs:
        docs = os.path.join(HERE, "..", "docs")
        for svg in glob.glob(os.path.join(P["out"], "*.svg")):
            shutil.copy(svg, docs)
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
