#!/usr/bin/env python3
"""How long a server takes to start and to crash-restart, with walload
preloaded and without (issue 38: nothing of walload's may delay either).

    PG_CONFIG=... python3 bench/start.py [-n N] [--sizes 4GB,16GB]

For each shared_buffers size, N rounds, each starting the same cluster
without walload and then with it (interleaved, so that the machine's drift
falls on both alike): the time from the launch of pg_ctl start to
"database system is ready to accept connections" (the postmaster's shared
memory hooks run before its first line, "starting PostgreSQL", so the
launch is taken from this script's clock, in UTC as the log's), and, after
a SIGKILL of the WAL writer, from "all server processes terminated;
reinitializing" to the next "ready", both from the server log's own
timestamps (log_line_prefix %m, log_timezone UTC).
Prints the medians and the spread (min-max) of each.  A benchmark, not a
test: it asserts nothing.  As root the cluster runs as the postgres OS user
(scripts/lib/cluster.sh).
"""
import argparse
import datetime
import os
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "lib"))
from cluster import Cluster  # noqa: E402

STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \S+ ")


def stamp(line):
    m = STAMP.match(line)
    return datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f") if m else None


def log_from(c, offset):
    with open(c.log, errors="replace") as f:
        f.seek(offset)
        return f.read().splitlines()


def ms_between(lines, first, then, after=None):
    """ms from the first line containing first (after the line containing
    after, where given) to the next one containing then; None if missing."""
    t0 = None
    armed = after is None
    for line in lines:
        if not armed:
            armed = after in line
            continue
        if t0 is None and first in line:
            t0 = stamp(line)
        elif t0 is not None and then in line:
            return (stamp(line) - t0).total_seconds() * 1000
    return None


def wait_log(c, offset, text, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if any(text in line for line in log_from(c, offset)):
            return
        time.sleep(0.05)
    raise RuntimeError("no %r in the log within %d s" % (text, timeout))


def one_round(c, size, libs):
    c.config({"shared_buffers": size, "shared_preload_libraries": "'%s'" % libs,
              "log_line_prefix": "'%m [%p] '", "log_timezone": "'UTC'",
              "restart_after_crash": "on",
              "max_wal_senders": "0", "wal_level": "minimal"})
    offset = os.path.getsize(c.log) if os.path.exists(c.log) else 0
    launched = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    c.start()                  # returns once walload's calibration is idle
    ready = [stamp(line) for line in log_from(c, offset)
             if "database system is ready to accept connections" in line]
    start_ms = (ready[0] - launched).total_seconds() * 1000 if ready else None
    # little to redo, so that the crash recovery varies less
    c.psql("CHECKPOINT")
    walwriter = int(c.psql("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'"))
    offset = os.path.getsize(c.log)
    os.kill(walwriter, signal.SIGKILL)
    wait_log(c, offset, "all server processes terminated; reinitializing")
    wait_log(c, offset, "database system is ready to accept connections")
    crash_ms = ms_between(log_from(c, offset), "all server processes terminated; reinitializing",
                          "database system is ready to accept connections")
    c.wait_for_calibration()   # the new worker's, before a clean stop
    c.stop()
    return start_ms, crash_ms


def summary(v):
    v = [x for x in v if x is not None]
    if not v:
        return "n/a"
    return "%7.1f ms (%.1f-%.1f, n=%d)" % (statistics.median(v), min(v), max(v), len(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=5, help="rounds per size (default 5)")
    ap.add_argument("--sizes", default="4GB,16GB", help="shared_buffers sizes (default 4GB,16GB)")
    args = ap.parse_args()
    base = tempfile.mkdtemp(prefix="walload-bench-start.")
    os.chmod(base, 0o755)
    root = os.path.join(base, "c")
    os.makedirs(root)
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    c = Cluster(root)
    c.log = os.path.join(root, "server.log")
    try:
        c.init()
        print("%-6s %-8s %-32s %s" % ("size", "walload", "pg_ctl start to ready", "crash-restart to ready"))
        for size in args.sizes.split(","):
            res = {"": ([], []), "walload": ([], [])}
            for _ in range(args.n):
                for libs in ("", "walload"):
                    s, r = one_round(c, size, libs)
                    res[libs][0].append(s)
                    res[libs][1].append(r)
            for libs in ("", "walload"):
                print("%-6s %-8s %-32s %s" % (size, "with" if libs else "without",
                                              summary(res[libs][0]), summary(res[libs][1])))
            sys.stdout.flush()
    finally:
        if c.running():
            c.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
