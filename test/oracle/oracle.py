#!/usr/bin/env python3
"""The uprobe oracle: walload's scan counts against the machine's.

Attaches uprobes and uretprobes (bpftrace) to the functions of the installed
postgres binary that walk the whole shared buffer pool, times every call, and
counts as a scan only a call that took long enough to have walked the pool
(an early return -- a temporary relation, nothing to drop -- takes
microseconds).  Runs every scenario in scenarios/ under wal_level=minimal and
wal_level=replica and compares, kind by kind, with walload_info.  Prints TAP.

Usage: oracle.py [--no-walload] [--only NAME]   (run as root)
Environment: PG_CONFIG, ORACLE_SHARED_BUFFERS (default 4GB), CI.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PG_CONFIG = os.environ.get("PG_CONFIG", "/usr/lib/postgresql/15/bin/pg_config")
SHARED_BUFFERS = os.environ.get("ORACLE_SHARED_BUFFERS", "4GB")
KINDS = ["scans_flush_rel", "scans_flush_pending", "scans_drop_rel",
         "scans_drop_pending", "scans_db"]

# scanning functions per major version, and the kind each one is
FUNCTIONS = {
    15: {"FlushRelationBuffers": "scans_flush_rel",
         "FlushRelationsAllBuffers": "scans_flush_pending",
         "DropRelFileNodeBuffers": "scans_drop_rel",
         "DropRelFileNodesAllBuffers": "scans_drop_pending",
         "DropDatabaseBuffers": "scans_db",
         "FlushDatabaseBuffers": "scans_db"},
}
for v in (16, 17, 18, 19):
    FUNCTIONS[v] = {"FlushRelationBuffers": "scans_flush_rel",
                    "FlushRelationsAllBuffers": "scans_flush_pending",
                    "DropRelationBuffers": "scans_drop_rel",
                    "DropRelationsAllBuffers": "scans_drop_pending",
                    "DropDatabaseBuffers": "scans_db",
                    "FlushDatabaseBuffers": "scans_db"}

tap_n = 0
tap_failed = 0


def tap(ok, desc, diag=None):
    global tap_n, tap_failed
    tap_n += 1
    if not ok:
        tap_failed += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", tap_n, desc), flush=True)
    if diag and not ok:
        for line in diag.splitlines():
            print("# " + line, flush=True)


def skip_or_fail(reason):
    if os.environ.get("CI") == "true":
        print("1..1")
        print("not ok 1 - uprobe oracle cannot run here: " + reason)
        sys.exit(1)
    print("1..0 # SKIP uprobe oracle: " + reason)
    print("# SKIP uprobe oracle: " + reason, file=sys.stderr)
    sys.exit(0)


def pgconfig(opt):
    return subprocess.check_output([PG_CONFIG, opt], text=True).strip()


class Cluster:
    def __init__(self, root, bindir, walload):
        self.root = root
        self.bindir = bindir
        self.walload = walload
        self.data = os.path.join(root, "data")
        self.sock = root
        self.port = "5544"
        self.env = dict(os.environ, PGHOST=self.sock, PGPORT=self.port,
                        PGUSER="postgres", PATH=bindir + ":" + os.environ["PATH"])

    def as_postgres(self, args, **kw):
        return subprocess.run(["runuser", "-u", "postgres", "--"] + args,
                              env=self.env, **kw)

    def initdb(self):
        self.as_postgres([os.path.join(self.bindir, "initdb"), "-D", self.data,
                          "-A", "trust", "--no-sync"], check=True,
                         stdout=subprocess.DEVNULL)

    def start(self, wal_level):
        # ORACLE_LIBS: for builds without pg_stat_statements (the PyPI PostgreSQL 16)
        libs = os.environ.get("ORACLE_LIBS") or (
            "walload,pg_stat_statements" if self.walload else "pg_stat_statements")
        conf = {
            "shared_preload_libraries": "'%s'" % libs,
            "shared_buffers": SHARED_BUFFERS,
            "wal_level": wal_level,
            "max_wal_senders": "0",
            "autovacuum": "off",
            "max_prepared_transactions": "5",
            "port": self.port,
            "unix_socket_directories": "'%s'" % self.sock,
            "listen_addresses": "''",
            "walload.track": "all" if self.walload else None,
        }
        with open(os.path.join(self.data, "postgresql.auto.conf"), "w") as f:
            for k, v in conf.items():
                if v is not None:
                    f.write("%s = %s\n" % (k, v))
        self.as_postgres([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-w",
                          "-l", os.path.join(self.root, "log"), "start"],
                         check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            self.postmaster = int(f.readline())

    def stop(self):
        self.as_postgres([os.path.join(self.bindir, "pg_ctl"), "-D", self.data, "-w",
                          "-m", "fast", "stop"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)

    def psql(self, sql, db="postgres", check=True):
        r = self.as_postgres([os.path.join(self.bindir, "psql"), "-X", "-q", "-At",
                              "-v", "ON_ERROR_STOP=1", "-d", db, "-c", sql],
                             capture_output=True, text=True)
        if check and r.returncode != 0:
            raise RuntimeError("psql failed: %s\n%s" % (sql, r.stderr))
        return r.stdout.strip()

    def background_pids(self):
        out = self.psql("SELECT pid FROM pg_stat_activity WHERE backend_type <> 'client backend'")
        return {int(x) for x in out.split()}


class Tracer:
    """One bpftrace for the whole run; markers separate the scenarios."""

    def __init__(self, binary, functions, out):
        self.out = out
        lines = []
        for fn in functions:
            lines.append('uprobe:%s:%s { @start[tid] = nsecs; }' % (binary, fn))
            lines.append('uretprobe:%s:%s /@start[tid]/ { printf("CALL %s %%d %%d %%d\\n", pid, '
                         'curtask->real_parent->tgid, (nsecs - @start[tid]) / 1000); '
                         'delete(@start[tid]); }' % (binary, fn, fn))
        lines.append('uprobe:%s:pg_backend_pid { printf("MARK %%d\\n", pid); }' % binary)
        self.script = os.path.join(os.path.dirname(out), "oracle.bt")
        with open(self.script, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.fh = open(out, "w")
        self.proc = subprocess.Popen(["bpftrace", "-B", "none", self.script],
                                     stdout=self.fh, stderr=subprocess.STDOUT)
        self.pos = 0

    def read(self):
        with open(self.out) as f:
            return f.read()

    def wait_for(self, cond, what, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            text = self.read()
            if cond(text):
                return text
            if self.proc.poll() is not None:
                raise RuntimeError("bpftrace exited: " + text[-2000:])
            time.sleep(0.05)
        raise RuntimeError("timed out waiting for " + what)

    def mark(self, cluster):
        """Make a marker event and wait until it has come through: everything
        that happened before it is then in the output.  Right after bpftrace
        starts its probes may not be live yet, so a marker that does not come
        through is sent again."""
        deadline = time.time() + 120
        while time.time() < deadline:
            pid = cluster.psql("SELECT pg_backend_pid()")
            tag = "MARK %s\n" % pid
            try:
                text = self.wait_for(lambda t: tag in t[self.pos:], "marker", 5)
            except RuntimeError:
                continue
            end = text.index(tag, self.pos) + len(tag)
            chunk = text[self.pos:end]
            self.pos = end
            return chunk
        raise RuntimeError("no marker came through bpftrace")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.fh.close()


def parse_calls(chunk, postmaster, background):
    calls = []
    for m in re.finditer(r"^CALL (\S+) (\d+) (\d+) (\d+)$", chunk, re.M):
        fn, pid, ppid, us = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
        if ppid == postmaster and pid not in background:
            calls.append((fn, pid, us))
    return calls


def run_scenario(cluster, path, db, tmp):
    env = dict(cluster.env, ORACLE_DB=db, ORACLE_TMP=tmp)
    if path.endswith(".sql"):
        args = [os.path.join(cluster.bindir, "psql"), "-X", "-q", "-d", db, "-f", path]
    else:
        args = ["bash", path]
    r = subprocess.run(["runuser", "-u", "postgres", "--", "env"] +
                       ["%s=%s" % kv for kv in env.items() if kv[0] in
                        ("PGHOST", "PGPORT", "PGUSER", "PATH", "ORACLE_DB", "ORACLE_TMP")] + args,
                       capture_output=True, text=True)
    return r


def main():
    no_walload = "--no-walload" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None

    if os.geteuid() != 0:
        skip_or_fail("needs root for uprobes")
    if shutil.which("bpftrace") is None:
        skip_or_fail("bpftrace is not installed")
    if not os.path.exists("/sys/kernel/tracing/uprobe_events"):
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"],
                       stderr=subprocess.DEVNULL)
        if not os.path.exists("/sys/kernel/tracing/uprobe_events"):
            skip_or_fail("the kernel offers no uprobes (no tracefs uprobe_events)")

    bindir = pgconfig("--bindir")
    major = int(re.match(r"PostgreSQL (\d+)", pgconfig("--version")).group(1))
    binary = os.path.join(bindir, "postgres")
    functions = FUNCTIONS[major]
    nm = subprocess.run(["nm", "-D", binary], capture_output=True, text=True).stdout
    missing = [f for f in functions if not re.search(r" T %s$" % f, nm, re.M)]
    if missing:
        skip_or_fail("the postgres binary does not export " + ", ".join(missing))
    walload = not no_walload and os.path.exists(os.path.join(pgconfig("--pkglibdir"), "walload.so"))
    if not no_walload and not walload:
        skip_or_fail("walload is not installed")

    scenarios = sorted(f for f in os.listdir(os.path.join(HERE, "scenarios"))
                       if f.endswith((".sql", ".sh")) and (only is None or only in f))
    tmp = tempfile.mkdtemp(prefix="walload-oracle.")
    os.chmod(tmp, 0o755)
    shutil.chown(tmp, "postgres")
    os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
    cluster = Cluster(tmp, bindir, walload)
    tracer = None
    table = []
    try:
        cluster.initdb()
        tsdir = os.path.join(tmp, "ts")
        os.makedirs(tsdir)
        shutil.chown(tsdir, "postgres")
        if walload:
            print("1..%d" % (len(scenarios) * 2 * (len(KINDS) + 1) + 2), flush=True)
        tracer = Tracer(binary, functions, os.path.join(tmp, "trace.out"))
        for wal_level in ("minimal", "replica"):
            cluster.start(wal_level)
            postmaster = cluster.postmaster
            background = cluster.background_pids()
            if wal_level == "minimal":
                cluster.psql("CREATE TABLESPACE o_ts LOCATION '%s'" % tsdir)
            if walload:
                cluster.psql("CREATE EXTENSION IF NOT EXISTS walload")
            tracer.mark(cluster)

            # calibration: real scans (DROP of permanent tables) against early
            # returns (DROP of temporary tables, which enters the function)
            cluster.psql("CREATE DATABASE calib")
            for i in range(5):
                cluster.psql("CREATE TABLE c%d (a int); CREATE TEMP TABLE t%d (a int); DROP TABLE t%d" % (i, i, i), db="calib")
            tracer.mark(cluster)
            for i in range(5):
                cluster.psql("DROP TABLE c%d" % i, db="calib")
            calls = parse_calls(tracer.mark(cluster), postmaster, background)
            real = [us for fn, pid, us in calls if fn.startswith("DropRel") and "All" in fn]
            for i in range(5):
                cluster.psql("CREATE TEMP TABLE t%d (a int); DROP TABLE t%d" % (i, i), db="calib")
            calls = parse_calls(tracer.mark(cluster), postmaster, background)
            early = [us for fn, pid, us in calls if fn.startswith("DropRel") and "All" in fn]
            cluster.psql("DROP DATABASE calib")
            tracer.mark(cluster)
            if len(real) != 5 or len(early) != 5:
                raise RuntimeError("calibration saw %d real and %d early calls, expected 5 and 5" % (len(real), len(early)))
            threshold = (min(real) * max(max(early), 1)) ** 0.5
            separated = min(real) >= 10 * max(max(early), 1)
            print("# %s: shared_buffers=%s, a real scan takes %d-%d us, an early return %d-%d us, "
                  "threshold %d us" % (wal_level, SHARED_BUFFERS, min(real), max(real),
                                       min(early), max(early), threshold), flush=True)
            if walload:
                tap(separated, "%s: scans and early returns are separated by 10x or more "
                    "(scan >= %d us, early <= %d us)" % (wal_level, min(real), max(early)))
            elif not separated:
                raise RuntimeError("scans and early returns are not separated")

            for sc in scenarios:
                name = sc.rsplit(".", 1)[0]
                db = "o_" + re.sub(r"\W", "_", name)
                cluster.psql("CREATE DATABASE %s" % db)
                if walload:
                    cluster.psql("CREATE EXTENSION walload", db=db)
                    cluster.psql("SELECT walload_reset()")
                tracer.mark(cluster)
                r = run_scenario(cluster, os.path.join(HERE, "scenarios", sc), db, tmp)
                calls = parse_calls(tracer.mark(cluster), postmaster, background)
                got = dict.fromkeys(KINDS, 0)
                early_n = 0
                for fn, pid, us in calls:
                    if us >= threshold:
                        got[functions[fn]] += 1
                    else:
                        early_n += 1
                row = [name, wal_level] + [got[k] for k in KINDS] + [early_n]
                table.append(row)
                if walload:
                    w = cluster.psql("SELECT %s FROM walload_info" % ", ".join(KINDS)).split("|")
                    wx = cluster.psql("SELECT %s FROM walload_xacts" % ", ".join(
                        "coalesce(sum(%s), 0)" % k for k in KINDS)).split("|")
                    detail = "uprobe calls (function pid us): %s\nscenario stderr: %s" % (
                        calls, r.stderr[-1500:])
                    for k, wv in zip(KINDS, w):
                        tap(int(wv) == got[k], "%s/%s %s: walload=%s uprobe=%d" % (
                            wal_level, name, k, wv, got[k]), detail)
                    tap([int(x) for x in wx] == [int(x) for x in w],
                        "%s/%s: walload_xacts sums equal walload_info totals" % (wal_level, name),
                        "xacts: %s info: %s" % (wx, w))
                cluster.psql("DROP DATABASE %s" % db)
                tracer.mark(cluster)
            cluster.stop()
    finally:
        if tracer:
            tracer.stop()
        cluster.stop()
        with open(os.path.join(HERE, "out", "uprobe-counts.txt"), "w") as f:
            hdr = ["scenario", "wal_level"] + KINDS + ["early_returns"]
            f.write(" | ".join(hdr) + "\n")
            for row in table:
                f.write(" | ".join(str(x) for x in row) + "\n")
        shutil.rmtree(tmp, ignore_errors=True)

    if not walload:
        with open(os.path.join(HERE, "out", "uprobe-counts.txt")) as f:
            print(f.read())
        return 0
    print("# %d of %d comparisons failed" % (tap_failed, tap_n))
    return 1 if tap_failed else 0


if __name__ == "__main__":
    sys.exit(main())
