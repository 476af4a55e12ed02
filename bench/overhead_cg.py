#!/usr/bin/env python3
"""walload's overhead in instructions (issue 40): every configuration from
the same starting state, the backend under callgrind, walload's own
functions judged against an A/A pair.

  python3 bench/overhead_cg.py [--quick] [--jobs N] [--base DIR] [--port-base P]
                               [--out FILE] [--no-linear] [--keep] [--library SO]
                               [--configs A,B] [--workloads A,B]
                               [--tables N,N..] [--stmts N,N..] [--clients C,C..]
                               [--per-client T1,T2] [--lockwait-seconds S [--lockwait-ddl]]
  python3 bench/overhead_cg.py --from-json RESULTS.json [MORE.json ...]

Run as root, with walload already installed (this does not build or install
it), or --library a build.  --quick takes about 7 minutes, --no-linear
about 25 on 2 shared cores (--jobs 3).  The linear shapes at their default
sizes take about 40 minutes per configuration with nothing else on the
cores (40,000 tables about 8, 1e6 statements about 18): start them alone.

One template cluster (initdb, pgbench -i -s 10, a table for the DO
loop) is copied (cp -a of the stopped data directory) once per
configuration, so every configuration starts from identical tables and
catalogs and runs the same statements in the same order: whatever one
workload leaves behind (dead tuples, catalog rows of the DDL loop), every
configuration's next workload finds it alike.

Each configuration's postmaster runs under valgrind --tool=callgrind; each
measurement is one client session (one backend, one callgrind file), run
twice with N1 and N2 transactions (statements, tables): the figure per unit
is (Ir(N2) - Ir(N1)) / (N2 - N1), so backend start and exit cancel out.
Instruction counts do not depend on the machine's load, so configurations
run in parallel (--jobs).

What is judged: walload's own functions' instructions (for every function
in walload.so its own instructions plus what it calls outside walload.so,
except the statement it passes on: standard_*, another extension's hooks).
They repeat to the instruction from run to run, which a paired A/A run shows:
'walload, again' is the same configuration on a second copy of the template,
and the run fails (exit status 2) if walload's functions differ between the
two by more than an instruction (or 0.2%) per unit.  The goals are judged on
that figure.

Reported, not judged: core's residue, the backend's extra over 'nothing'
less walload's functions.  It holds core's timing-dependent work (a client
wait more or less, glibc trimming and re-growing the heap, pg_stat's flush
at most once a second), which no two runs repeat; beside it the A/A floor:
'nothing, again' against 'nothing' (and 'walload, again' against 'walload'),
what two copies that differ in nothing show.  A residue well beyond the floor
is core work walload causes outside its own functions (an allocation pattern,
a catalog lookup): a finding to chase, not a tolerance to widen.

Configurations: nothing preloaded; the same again (a second copy: the
noise floor, what timing alone leaves in the counts); walload; walload again
(its A/A pair); pg_stat_statements; pg_stat_statements with
pg_stat_statements.track=all (the DO loop's comparison: walload records
nested statements there too); both; walload with walload.track=none, with
walload.compute_query_id=off and with walload.track_dml=off.  --configs
names them separated by commas, or by semicolons when a name has a comma
(--workloads likewise);
a configuration's A/A pair ("X, again") comes with it.  Workloads: pgbench -S and tpcb-like with
-M simple and -M prepared; bench/run.py's CREATE/COPY/DROP loop; a DO loop
of INSERTs under walload.track=all; N CREATE TABLE in one transaction for
growing N (nothing and walload only): the extra per table between
consecutive N.  Linear in the work (issue 40, item 3), nothing and walload
only: N CREATE TABLE in one transaction (default up to 40,000 tables;
max_locks_per_transaction is raised so they fit the lock table); one
transaction of N single-row INSERTs sent one by one, the extra per
statement between consecutive N; pgbench tpcb-like at C clients with t1
and t2 transactions per client, every client backend's profile summed
(the extra per transaction at each C).  --lockwait-seconds S adds a
native run (no valgrind) of tpcb-like at the same client counts, S
seconds each, sampling pg_stat_activity for waits on walload's LWLock
tranche ("walload", the store's lock); with --lockwait-ddl the same
again with every transaction creating and dropping a table of its own
name (new aggregates, which take the lock exclusive, and eviction once
the store is full).  Each shape's sessions report
their wall time: look at the small N's before asking for large ones.

The library file may be replaced by someone installing while this runs:
it is copied at the start and every configuration preloads the copy (by
its path); the copy's md5 is checked before every postmaster start and at
the end (a mismatch makes the run invalid: exit status 3), and the report
says whether the installed file changed meanwhile.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "lib"))
from cluster import Cluster, pgconfig  # noqa: E402

WALLOAD_SO = "walload.so"

# (name, shared_preload_libraries, settings)
CONFIGS = [("nothing", "", {}),
           ("nothing, again", "", {}),
           ("walload", "walload", {}),
           ("walload, again", "walload", {}),
           ("pg_stat_statements", "pg_stat_statements", {}),
           ("pg_stat_statements track=all", "pg_stat_statements", {"pg_stat_statements.track": "'all'"}),
           ("both", "walload,pg_stat_statements", {}),
           ("walload track=none", "walload", {"walload.track": "'none'"}),
           # the two settings docs/reference.md offers an OLTP server
           ("walload compute_query_id=off", "walload", {"walload.compute_query_id": "off"}),
           ("walload track_dml=off", "walload", {"walload.track_dml": "off"})]

# every cluster: everything fits in shared_buffers and is prewarmed, and no
# checkpoint starts during a run (its full-page images would land in one
# configuration's run and not another's).  Commits wait for their WAL flush
# (fsync off: the flush's instructions, not the disk's time): with
# asynchronous commits a backend may set a hint bit only once the WAL
# writer has flushed the commit, so how much pruning and hint-bit work a
# session does would depend on timing.
BASE_SETTINGS = {"shared_buffers": "'512MB'", "wal_level": "replica", "synchronous_commit": "on",
                 "fsync": "off",
                 "max_wal_senders": "0", "huge_pages": "off", "max_wal_size": "'32GB'",
                 "checkpoint_timeout": "'1d'", "jit": "off",
                 # one transaction creating 40,000 tables holds a lock on each
                 "max_locks_per_transaction": "1024"}

# the statement a walload hook passes on: not walload's cost
PASS_THROUGH = re.compile(r"^(standard_(ProcessUtility|Executor\w+|planner)|pgss_\w+|prev_\w+)")

TIMEOUT = 1800          # any one client session
lock = threading.Lock()


def log(msg):
    with lock:
        print("# %s %s" % (time.strftime("%H:%M:%S", time.gmtime()), msg), flush=True)


def psql(c, sql, check=True, timeout=300):
    """c.psql, bounded: a server under valgrind that stops answering must not
    hang the run."""
    r = c.as_postgres([os.path.join(c.bindir, "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                       "-d", "postgres", "-c", sql], capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError("psql failed in %s: %s\n%s" % (c.root, sql, r.stderr))
    return r.stdout.strip()


def md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


class LibraryChanged(RuntimeError):
    pass


# ---------------------------------------------------------------- profiles

def parse_callgrind(path):
    """{(obj, fn): [self, {(cobj, cfn): inclusive}]} and total Ir (the
    events line's first event, Ir)."""
    names = {"ob": {}, "fn": {}}
    funcs = {}
    ob = fn = cob = cfn = None
    in_call = False
    total = 0

    def name(kind, v):
        m = re.match(r"\((\d+)\)(?: (.*))?$", v)
        if not m:
            return v
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
            return m.group(2)
        return names[kind].get(m.group(1), "?")

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            c0 = line[0]
            if c0.isdigit() or c0 in "+-*":
                parts = line.split()
                cost = int(parts[1]) if len(parts) > 1 else 0
                entry = funcs.setdefault((ob, fn), [0, {}])
                if in_call:
                    key = (cob or ob, cfn)
                    entry[1][key] = entry[1].get(key, 0) + cost
                    in_call = False
                    cob = None
                else:
                    entry[0] += cost
                    total += cost
                continue
            if line.startswith("ob="):
                ob = name("ob", line[3:])
            elif line.startswith("fn="):
                fn = name("fn", line[3:])
                cob = None
            elif line.startswith("cob="):
                cob = name("ob", line[4:])
            elif line.startswith("cfn="):
                cfn = name("fn", line[4:])
            elif line.startswith("calls="):
                in_call = True
    return funcs, total


def is_backend(funcs):
    return any(fn == "PostgresMain" for (_, fn) in funcs)


def base_name(fn):
    return re.sub(r"'\d+$", "", fn or "?")


def walload_profile(funcs):
    """Per walload function (recursion levels merged):
    self  - its own instructions;
    attr  - self plus what it calls outside walload.so, except the statement
            passed on: these add up, over walload's functions, to walload's
            whole cost without counting anything twice;
    incl  - self plus everything it calls except the statement passed on
            (nested walload functions included: does not add up).
    And per callee outside walload.so, what walload's calls to it cost."""
    prof, callees = {}, {}
    for (ob, fn), (self_ir, calls) in funcs.items():
        if not ob or not ob.endswith(WALLOAD_SO):
            continue
        e = prof.setdefault(base_name(fn), {"self": 0, "attr": 0, "incl": 0})
        e["self"] += self_ir
        e["attr"] += self_ir
        e["incl"] += self_ir
        for (cob, cfn), inc in calls.items():
            if cfn and PASS_THROUGH.match(cfn):
                continue
            e["incl"] += inc
            if cob and cob.endswith(WALLOAD_SO):
                continue
            e["attr"] += inc
            k = base_name(cfn)
            callees[k] = callees.get(k, 0) + inc
    return prof, callees


def pgss_cost(funcs):
    """pg_stat_statements' own cost, the same way (its hooks pass on to
    walload's or standard_*)."""
    tot = 0
    for (ob, fn), (self_ir, calls) in funcs.items():
        if not ob or not ob.endswith("pg_stat_statements.so"):
            continue
        tot += self_ir
        for (cob, cfn), inc in calls.items():
            if cob and (cob.endswith("pg_stat_statements.so") or cob.endswith(WALLOAD_SO)):
                continue
            if cfn and re.match(r"^(standard_\w+|wl_\w+)", cfn):
                continue
            tot += inc
    return tot


def core_inclusive(funcs, fname):
    """Inclusive cost of calls to fname from outside walload.so."""
    t = 0
    for (ob, fn), (s, calls) in funcs.items():
        if ob and ob.endswith(WALLOAD_SO):
            continue
        for (cob, cfn), inc in calls.items():
            if base_name(cfn) == fname:
                t += inc
    return t


def complete(path):
    try:
        with open(path, "rb") as f:
            f.seek(max(os.path.getsize(path) - 4096, 0))
            tail = f.read().decode(errors="replace")
        return "totals:" in tail or "summary:" in tail
    except OSError:
        return False


# ---------------------------------------------------------------- workloads

def write_file(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


def workloads(scripts, quick, linear, sizes=None):
    """(name, kind, client args builder, (N1, N2) or [N...], unit, configs).
    sizes overrides the linear shapes' lists: {"tables": [...], "stmts":
    [...], "clients": [...], "per_client": (t1, t2)}."""
    if quick:
        n = {"S": (100, 600), "tpcb": (30, 180), "ddl": (10, 60), "do": (2000, 20000)}
        lin = {"tables": [250, 1000, 4000], "stmts": [1000, 4000], "clients": [1, 2, 4],
               "per_client": (3, 8)}
    else:
        n = {"S": (200, 1700), "tpcb": (50, 450), "ddl": (20, 140), "do": (10000, 100000)}
        lin = {"tables": [500, 2000, 8000, 40000], "stmts": [10000, 100000, 1000000],
               "clients": [1, 2, 4, 8, 16, 32], "per_client": (10, 40)}
    lin.update(sizes or {})
    pb = ["-n", "-c", "1", "--random-seed=1"]
    w = [("pgbench -S, -M simple", "pgbench", pb + ["-S", "-M", "simple"], n["S"], "transaction", None),
         ("pgbench -S, -M prepared", "pgbench", pb + ["-S", "-M", "prepared"], n["S"], "transaction", None),
         ("tpcb-like, -M simple", "pgbench", pb + ["-M", "simple"], n["tpcb"], "transaction", None),
         ("tpcb-like, -M prepared", "pgbench", pb + ["-M", "prepared"], n["tpcb"], "transaction", None),
         ("CREATE/COPY/DROP loop", "pgbench", pb + ["-f", scripts["ddl"]], n["ddl"], "transaction", None),
         ("DO loop of INSERTs, walload.track=all", "do", None, n["do"], "INSERT", None)]
    if linear:
        w.append(("N CREATE TABLE in one transaction", "linear", None, lin["tables"], "table",
                  ["nothing", "walload"]))
        # one client, BEGIN, N single-row INSERTs sent one by one, COMMIT:
        # whatever walload keeps per statement until the commit must not
        # make a later statement dearer than an earlier one
        w.append(("N INSERTs in one transaction", "stmts", None, lin["stmts"], "statement",
                  ["nothing", "walload"]))
        # C clients of tpcb-like, t1 and t2 transactions each: every client
        # backend's profile summed, so what walload costs in one backend for
        # waiting on another (the store's lock) is in the figure
        ns = []
        for c in lin["clients"]:
            ns += [(c, lin["per_client"][0]), (c, lin["per_client"][1])]
        w.append(("tpcb-like at C clients", "clients", ["-n", "--random-seed=1"], ns, "transaction",
                  ["nothing", "walload"]))
    return w


# ---------------------------------------------------------------- one configuration

class Run:
    def __init__(self, a, base, bindir, libpath):
        self.a, self.base, self.bindir, self.libpath = a, base, bindir, libpath
        self.lib_md5 = md5(libpath)
        # Every configuration preloads one private copy of the library, taken
        # now: an install of another build while this runs cannot make two
        # configurations measure different code.  The copy is loaded by its
        # path; $libdir/walload.so is never loaded (the extension's functions
        # are created unchecked and none is called), so one library only is
        # in each backend.
        libdir = os.path.join(base, "lib")
        os.makedirs(libdir)
        self.snapshot = os.path.join(libdir, WALLOAD_SO)
        shutil.copy(libpath, self.snapshot)
        os.chmod(libdir, 0o755)
        os.chmod(self.snapshot, 0o755)
        if md5(self.snapshot) != self.lib_md5:
            raise LibraryChanged("%s changed while it was copied" % libpath)

    def check_lib(self, when):
        m = md5(self.snapshot)
        if m != self.lib_md5:
            raise LibraryChanged("%s changed %s: md5 %s, was %s" % (self.snapshot, when, m, self.lib_md5))

    def installed_unchanged(self):
        return md5(self.libpath) == self.lib_md5

    def cluster(self, name, port):
        root = os.path.join(self.base, name)
        c = Cluster(root, self.bindir)
        c.port = str(port)
        c.env["PGPORT"] = str(port)
        return c

    def settings(self, port, libs, extra):
        s = dict(BASE_SETTINGS)
        s["port"] = str(port)
        s["shared_preload_libraries"] = "'%s'" % ",".join(
            self.snapshot if lib == "walload" else lib for lib in libs.split(",") if lib)
        s.update(extra)
        return s

    def template(self, port):
        c = self.cluster("template", port)
        os.makedirs(c.root)
        shutil.chown(c.root, "postgres")
        c.init(self.settings(port, "", {}))
        c.start()
        r = c.as_postgres([os.path.join(self.bindir, "pgbench"), "-i", "-q", "-s", "10", "postgres"],
                          capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise RuntimeError("pgbench -i failed: " + r.stderr[-2000:])
        psql(c, "CREATE TABLE cg_ins (id int, v text)")
        # every configuration has the same catalogs: all three extensions,
        # whichever libraries it preloads (walload's functions unchecked, so
        # that $libdir/walload.so is not loaded)
        psql(c, "CREATE EXTENSION pg_prewarm")
        psql(c, "CREATE EXTENSION pg_stat_statements")
        psql(c, "SET check_function_bodies = off; CREATE EXTENSION walload")
        psql(c, "VACUUM ANALYZE")
        psql(c, "CHECKPOINT")
        c.stop()
        return c

    def start_valgrind(self, c, cgdir):
        self.check_lib("before a start of %s" % c.root)
        logf = open(os.path.join(c.root, "valgrind.log"), "w")
        pm = subprocess.Popen(["runuser", "-u", "postgres", "--", "valgrind", "--tool=callgrind",
                               "--dump-instr=no", "--callgrind-out-file=" + os.path.join(cgdir, "cg.%p"),
                               os.path.join(self.bindir, "postgres"), "-D", c.data],
                              stdout=logf, stderr=subprocess.STDOUT, env=c.env, cwd=c.root)
        deadline = time.time() + 300
        while c.as_postgres([os.path.join(self.bindir, "pg_isready"), "-q"], timeout=60).returncode != 0:
            if time.time() > deadline or pm.poll() is not None:
                pm.kill()
                raise RuntimeError("postgres under valgrind did not start (%s)" % c.root)
            time.sleep(0.5)
        return pm, logf

    def wait_calibrated(self, c, timeout=900):
        """Until walload's calibration worker, started with the server, has
        published its figures and waits idle: what it publishes feeds the
        backends' estimates, so no measurement runs before it.  (Under
        valgrind the process titles are valgrind's: asked of the server,
        without calling walload's functions.)"""
        deadline = time.time() + timeout
        while time.time() < deadline:
            # idle is reported once the figures are published (calibrate.c)
            r = psql(c, "SELECT EXISTS (SELECT FROM pg_stat_activity "
                       "WHERE backend_type = 'walload calibration' AND state = 'idle')", check=False)
            if r == "t":
                return
            time.sleep(3)
        raise RuntimeError("walload's calibration in %s did not finish within %d s" % (c.root, timeout))

    def stop_valgrind(self, c, pm, logf):
        try:
            c.stop()
        except RuntimeError as e:
            log("stop of %s: %s" % (c.root, e))
        try:
            pm.wait(timeout=180)
        except subprocess.TimeoutExpired:
            pm.kill()
            pm.wait(timeout=60)
        logf.close()

    def children(self, c):
        """The postmaster's child processes (under valgrind, the postmaster
        is the valgrind process itself)."""
        with open(os.path.join(c.data, "postmaster.pid")) as f:
            pm = f.readline().strip()
        r = subprocess.run(["ps", "-o", "pid=", "--ppid", pm], capture_output=True, text=True, timeout=60)
        return set(r.stdout.split())

    def session(self, c, cgdir, cmd, env_extra, sum_all=False):
        """Run one client session; the callgrind profile of its backend.  A
        client may open more than one connection (pgbench first connects
        alone to look at the tables): once every backend it started has
        exited (and written its file), the largest new backend profile."""
        before = set(glob.glob(os.path.join(cgdir, "cg.*")))
        kids = self.children(c)
        env = dict(c.env, **env_extra)
        pre = ["runuser", "-u", "postgres", "--"]
        r = subprocess.run(pre + ["env"] + ["%s=%s" % kv for kv in env_extra.items()] + cmd,
                           env=env, cwd=c.root, capture_output=True, text=True, timeout=TIMEOUT)
        if r.returncode != 0:
            raise RuntimeError("%s failed (%s):\n%s\n%s" % (" ".join(cmd), c.root, r.stdout[-1500:],
                                                              r.stderr[-1500:]))
        deadline = time.time() + 300
        while time.time() < deadline:
            time.sleep(0.5)
            if self.children(c) - kids:
                continue
            new = set(glob.glob(os.path.join(cgdir, "cg.*"))) - before
            if not all(complete(p) for p in new):
                continue
            parsed = [(parse_callgrind(p), p) for p in new]
            parsed = [x for x in parsed if is_backend(x[0][0])]
            if parsed and sum_all:
                return parsed
            if parsed:
                return max(parsed, key=lambda x: x[0][1])
        raise RuntimeError("no callgrind file for the backend of %s (%s)" % (" ".join(cmd), c.root))

    def client(self, kind, args, n, scripts, tmpdir, tag):
        psql = [os.path.join(self.bindir, "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"]
        if kind == "pgbench":
            return [os.path.join(self.bindir, "pgbench")] + args + ["-t", str(n), "postgres"]
        if kind == "do":
            return psql + ["-c", "DO $$ BEGIN FOR i IN 1..%d LOOP "
                           "INSERT INTO cg_ins VALUES (i, 'x'); END LOOP; END $$" % n]
        if kind == "clients":
            c, t = n
            return [os.path.join(self.bindir, "pgbench")] + args + [
                "-c", str(c), "-j", str(min(c, 4)), "-t", str(t), "postgres"]
        if kind == "stmts":
            path = os.path.join(tmpdir, "stmts_%d.sql" % n)
            if not os.path.exists(path):
                with open(path, "w") as f:
                    f.write("BEGIN;\n")
                    for k in range(n):
                        f.write("INSERT INTO cg_ins VALUES (%d, 'x');\n" % k)
                    f.write("COMMIT;\n")
                os.chmod(path, 0o644)
            return psql + ["-f", path]
        if kind == "linear":
            path = os.path.join(tmpdir, "lin_%s_%d.sql" % (tag, n))
            write_file(path, "BEGIN;\n" + "".join("CREATE TABLE lin_%s_%d (id int);\n" % (tag, k)
                                                  for k in range(n)) + "COMMIT;\n")
            return psql + ["-f", path]
        raise ValueError(kind)

    def lockwaits(self, clients, seconds, interval_ms=10, script=None):
        """The store's lock waits at each client count, natively: a clone of
        the template with walload preloaded, started without valgrind (under
        valgrind the backends are serialised on the machine's cores and any
        wait would be the emulator's).  pgbench tpcb-like (or the script)
        -T seconds while one session samples pg_stat_activity."""
        port = self.a.port_base + (21 if script else 20)
        tmpl = self.cluster("template", self.a.port_base)
        c = self.cluster("native-ddl" if script else "native", port)
        os.makedirs(c.root)
        shutil.chown(c.root, "postgres")
        c.clone(tmpl, self.settings(port, "walload", {}))
        c.start()
        out = []
        try:
            self.wait_calibrated(c)
            # walload's own count of the acquisitions that had to wait
            # (walload_info.lock_waits, lock_wait_ms): its SQL functions are
            # pointed at the preloaded copy, so that no second walload.so is
            # loaded into the backend
            psql(c, "UPDATE pg_proc SET probin = '%s' WHERE probin = '$libdir/walload'" % self.snapshot)
            nsamp = int(seconds * 1000 / interval_ms)
            sampler = (
                "DO $$ DECLARE n int := 0; act int := 0; wl int := 0; lw int := 0; r record; "
                "ev jsonb := '{}'; BEGIN FOR i IN 1..%d LOOP PERFORM pg_stat_clear_snapshot(); "
                "FOR r IN SELECT wait_event_type t, wait_event e FROM pg_stat_activity "
                "WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid() LOOP "
                "act := act + 1; IF r.t = 'LWLock' THEN lw := lw + 1; END IF; "
                "IF r.t = 'LWLock' AND r.e = 'walload' THEN wl := wl + 1; END IF; "
                "IF r.e IS NOT NULL THEN ev := jsonb_set(ev, ARRAY[r.t || ':' || r.e], "
                "to_jsonb(coalesce((ev->>(r.t || ':' || r.e))::int, 0) + 1)); END IF; END LOOP; "
                "n := n + 1; PERFORM pg_sleep(%f); END LOOP; "
                "RAISE NOTICE 'RESULT %% %% %% %% %%', n, act, wl, lw, ev; END $$" % (nsamp, interval_ms / 1000.0))
            for cl in clients:
                w0 = psql(c, "SELECT lock_waits || ' ' || lock_wait_ms FROM walload_info").split()
                pb = subprocess.Popen(["runuser", "-u", "postgres", "--", os.path.join(self.bindir, "pgbench"),
                                       "-n", "-c", str(cl), "-j", str(min(cl, 4)), "-T", str(seconds)]
                                      + (["-f", script] if script else []) + ["postgres"],
                                      env=c.env, cwd=c.root, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True)
                r = c.as_postgres([os.path.join(self.bindir, "psql"), "-X", "-q", "-d", "postgres",
                                   "-c", sampler], capture_output=True, text=True, timeout=seconds * 10 + 120)
                pout, _ = pb.communicate(timeout=seconds * 10 + 120)
                m = re.search(r"RESULT (\d+) (\d+) (\d+) (\d+) (.*)", r.stderr)
                tps = re.search(r"tps = ([\d.]+)", pout)
                if not m:
                    raise RuntimeError("sampler: " + r.stderr[-500:])
                w1 = psql(c, "SELECT lock_waits || ' ' || lock_wait_ms FROM walload_info").split()
                nx = re.search(r"number of transactions actually processed: (\d+)", pout)
                ev = json.loads(m.group(5))
                top = ", ".join("%s %d" % kv for kv in sorted(ev.items(), key=lambda x: -x[1])[:4])
                out.append({"clients": cl, "tps": tps.group(1) if tps else "?", "samples": int(m.group(1)),
                            "active": int(m.group(2)), "walload": int(m.group(3)), "lwlock": int(m.group(4)),
                            "top": top, "seconds": seconds, "interval_ms": interval_ms,
                            "xacts": int(nx.group(1)) if nx else 0,
                            "lock_waits": int(w1[0]) - int(w0[0]),
                            "lock_wait_ms": float(w1[1]) - float(w0[1])})
                log("native lock waits, %d clients: %s" % (cl, out[-1]))
        finally:
            c.stop()
        return out

    def config(self, idx, cname, libs, extra, wls, scripts):
        port = self.a.port_base + 1 + idx
        tmpl = self.cluster("template", self.a.port_base)
        c = self.cluster("c%d" % idx, port)
        os.makedirs(c.root)
        shutil.chown(c.root, "postgres")
        c.clone(tmpl, self.settings(port, libs, extra))
        cgdir = os.path.join(c.root, "cg")
        os.makedirs(cgdir)
        shutil.chown(cgdir, "postgres")
        t0 = time.time()
        pm, logf = self.start_valgrind(c, cgdir)
        out = {}
        try:
            if "walload" in libs:
                self.wait_calibrated(c)
            self.session(c, cgdir, [os.path.join(self.bindir, "psql"), "-X", "-q", "-At", "-c",
                                    "SELECT count(pg_prewarm(oid::regclass)) FROM pg_class "
                                    "WHERE relname LIKE 'pgbench%' AND relkind IN ('r', 'i')"], {})
            for wname, kind, args, ns, unit, only in wls:
                if only and cname not in only:
                    continue
                env = {}
                if kind == "do" and "walload.track" not in extra:
                    env["PGOPTIONS"] = "-c walload.track=all"
                res = []
                try:
                    for n in ns:
                        t1 = time.time()
                        tag = "n%d" % (n if not isinstance(n, (tuple, list)) else n[0] * 1000 + n[1])
                        cmd = self.client(kind, args, n, scripts, c.root, tag)
                        if kind == "clients":
                            res.append(merge_sessions(self.session(c, cgdir, cmd, env, sum_all=True), n))
                        else:
                            (funcs, total), path = self.session(c, cgdir, cmd, env)
                            prof, callees = walload_profile(funcs)
                            res.append({"n": n, "total": total, "prof": prof, "callees": callees,
                                        "pgss": pgss_cost(funcs),
                                        "jumble_core": core_inclusive(funcs, "JumbleQuery"),
                                        "file": os.path.basename(path)})
                        res[-1]["seconds"] = round(time.time() - t1, 1)
                        log("%s / %s: N=%s %.0f Ir in %.0f s" % (cname, wname, n, res[-1]["total"],
                                                                  res[-1]["seconds"]))
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    # the configuration's other workloads still run: the
                    # report leaves out this one, and says so
                    log("%s / %s FAILED: %s" % (cname, wname, str(e)[-600:]))
                    continue
                out[wname] = res
                log("%s / %s: %s" % (cname, wname, ", ".join("N=%s %.0f Ir" % (r["n"], r["total"])
                                                              for r in res)))
        finally:
            self.stop_valgrind(c, pm, logf)
        self.check_lib("after the run of %s" % c.root)
        log("%s done in %.0f s" % (cname, time.time() - t0))
        return out


# ---------------------------------------------------------------- report

def merge_sessions(parsed, n):
    """One result from several backends' profiles (C clients): totals and
    walload's functions summed; n = (clients, transactions per client)."""
    out = {"n": n, "units": n[0] * n[1], "total": 0, "prof": {}, "callees": {}, "pgss": 0,
           "jumble_core": 0, "backends": len(parsed), "file": ""}
    for (funcs, total), path in parsed:
        prof, callees = walload_profile(funcs)
        out["total"] += total
        out["pgss"] += pgss_cost(funcs)
        out["jumble_core"] += core_inclusive(funcs, "JumbleQuery")
        for k, v in prof.items():
            e = out["prof"].setdefault(k, {"self": 0, "attr": 0, "incl": 0})
            for f in e:
                e[f] += v[f]
        for k, v in callees.items():
            out["callees"][k] = out["callees"].get(k, 0) + v
    return out


def units(r):
    return r["units"] if "units" in r else r["n"]


def per_unit(res, i=0, j=1):
    a, b = res[i], res[j]
    d = float(units(b) - units(a))
    tot = (b["total"] - a["total"]) / d
    prof = {}
    for k in set(a["prof"]) | set(b["prof"]):
        pa = a["prof"].get(k, {"self": 0, "attr": 0, "incl": 0})
        pb = b["prof"].get(k, {"self": 0, "attr": 0, "incl": 0})
        prof[k] = {f: (pb[f] - pa[f]) / d for f in ("self", "attr", "incl")}
    callees = {k: (b["callees"].get(k, 0) - a["callees"].get(k, 0)) / d
               for k in set(a["callees"]) | set(b["callees"])}
    return {"total": tot, "prof": prof, "callees": callees,
            "walload": sum(p["attr"] for p in prof.values()),
            "pgss": (b["pgss"] - a["pgss"]) / d,
            "jumble_core": (b["jumble_core"] - a["jumble_core"]) / d}


def selfcheck(extra, own, base_total, floor=0.0):
    """The extra over the reference configuration against walload's own
    cost in the same profile.  Tolerance: twice the noise floor (the same
    sessions on a second 'nothing' cluster: what timing leaves in the
    counts), at least 0.05% of the reference's instructions per unit or 3%
    of the extra: below that, differences that are not walload's (allocator
    state shifted by walload's pallocs, a catalog cache entry more) are not
    worth chasing."""
    tol = max(2.0 * abs(floor), 0.0005 * base_total, 0.03 * abs(extra))
    resid = extra - own
    return resid, tol, abs(resid) <= tol


# issue 54's goals against pg_stat_statements: walload's functions at most
# its extra plus this share of the baseline
PGSS_GOALS = {"CREATE/COPY/DROP loop": 0.003, "tpcb-like, -M prepared": 0.0,
              "DO loop of INSERTs, walload.track=all": 0.0}


def repeats(a, b):
    """walload's functions in an A/A pair: the same to an instruction per
    unit (or 0.2%: a hash table's collisions may differ by the keys' OIDs)."""
    return abs(a - b) <= max(1.0, 0.002 * abs(a))


def report(results, wls, meta):
    L = []
    goals = []
    bounds = {"pgbench -S, -M simple": 0.010, "pgbench -S, -M prepared": 0.010,
              "tpcb-like, -M simple": 0.010, "tpcb-like, -M prepared": 0.010,
              "CREATE/COPY/DROP loop": 0.005, "DO loop of INSERTs, walload.track=all": 0.05}
    checks_ok = True
    for wname, kind, args, ns, unit, only in wls:
        if kind in ("linear", "stmts", "clients"):
            continue
        if wname not in results.get("nothing", {}):
            continue
        pu = {c: per_unit(results[c][wname]) for c, _, _ in CONFIGS if wname in results.get(c, {})}
        b = pu["nothing"]["total"]
        floor = pu["nothing, again"]["total"] - b if "nothing, again" in pu else None
        L.append("### %s\n" % wname)
        L.append("N1 = %d, N2 = %d; instructions per %s of the backend, (Ir(N2) - Ir(N1)) / (N2 - N1).  "
                 "Judged: walload's functions, and that they repeat in the A/A pair.  Reported: core's "
                 "residue (the extra less walload's functions), beside the A/A floor%s.\n"
                 % (ns[0], ns[1], unit, "" if floor is None else " ('nothing, again' against 'nothing': %+.0f)" % floor))
        L.append("| configuration | Ir per %s | over nothing | %% | walload's functions (A/A difference) | core's residue (A/A floor) |" % unit)
        L.append("|---|---|---|---|---|---|")
        for c, _, _ in CONFIGS:
            if c not in pu:
                continue
            t = pu[c]["total"]
            if c == "nothing":
                L.append("| %s | %.0f | | | | |" % (c, t))
                continue
            if c == "nothing, again":
                L.append("| %s | %.0f | %+.0f | %+.3f%% | | the floor |" % (c, t, t - b, 100.0 * (t - b) / b))
                continue
            wl = pu[c]["walload"]
            ref, own = b, wl
            if c.startswith("both"):
                ref = pu.get("pg_stat_statements", pu["nothing"])["total"]
            elif c.startswith("pg_stat_statements"):
                own = pu[c]["pgss"]
            resid = (t - ref) - own
            flo = "" if floor is None else " (%+.0f)" % floor
            if c.endswith(", again"):
                first = c[:-len(", again")]
                if first in pu:
                    d = wl - pu[first]["walload"]
                    ok = repeats(pu[first]["walload"], wl)
                    checks_ok &= ok
                    L.append("| %s | %.0f | %+.0f | %+.2f%% | %.0f (%+.1f: %s) | %+.0f (total %+.0f against '%s') |" % (
                        c, t, t - b, 100.0 * (t - b) / b, wl, d, "repeats" if ok else "DOES NOT REPEAT",
                        resid, t - pu[first]["total"], first))
                    continue
            if c.startswith("pg_stat_statements"):
                L.append("| %s | %.0f | %+.0f | %+.2f%% | - (its own functions %.0f) | %+.0f%s |" % (
                    c, t, t - b, 100.0 * (t - b) / b, own, resid, flo))
                continue
            L.append("| %s | %.0f | %+.0f | %+.2f%% | %.0f | %+.0f%s%s |" % (
                c, t, t - b, 100.0 * (t - b) / b, wl, resid, flo,
                ", over pg_stat_statements" if c.startswith("both") else ""))
        L.append("")
        for c in ("walload", "both"):
            if c not in pu:
                continue
            prof = pu[c]["prof"]
            top = sorted(prof.items(), key=lambda x: -x[1]["attr"])[:10]
            L.append("Top walload functions, %s (Ir per %s; attributed = own + what it calls outside "
                     "walload.so, these add up to walload's cost; inclusive counts nested walload "
                     "functions again):\n" % (c, unit))
            L.append("| function | exclusive | attributed | inclusive |")
            L.append("|---|---|---|---|")
            for fn, v in top:
                L.append("| %s | %.0f | %.0f | %.0f |" % (fn, v["self"], v["attr"], v["incl"]))
            cal = sorted(pu[c]["callees"].items(), key=lambda x: -x[1])[:6]
            L.append("")
            L.append("Called by walload outside walload.so: " +
                     ", ".join("%s %.0f" % (k, v) for k, v in cal if v >= 1) + "\n")
        if "walload" not in pu:
            continue
        w = pu["walload"]["walload"]
        if wname in bounds:
            goals.append((wname + ": walload's functions", "%+.0f (%+.2f%%)" % (w, 100.0 * w / b),
                          "at most %+.1f%%" % (100.0 * bounds[wname]), w / b <= bounds[wname]))
        # issue 54: lighter on loads than pg_stat_statements (its whole
        # extra: its query ids are core's JumbleQuery, outside its functions)
        pk = "pg_stat_statements track=all" if "DO loop" in wname else "pg_stat_statements"
        if wname in PGSS_GOALS and pk in pu:
            p = pu[pk]["total"] - b
            slack = PGSS_GOALS[wname]
            goals.append(("%s: walload's functions against %s" % (wname, pk),
                          "%+.0f vs %+.0f" % (w, p),
                          "at most %s%s" % (pk, " + %.1f%%" % (100.0 * slack) if slack else ""),
                          w <= p + slack * b))
        if "both" in pu and "pg_stat_statements" in pu and "DO loop" not in wname:
            both = pu["both"]["total"] - pu["pg_stat_statements"]["total"]
            goals.append((wname + ": both over pg_stat_statements, against walload alone",
                          "%+.0f vs %+.0f" % (both, pu["walload"]["total"] - b),
                          "both <= sum (residues included)", both <= pu["walload"]["total"] - b))
    for wname, kind, _, ns, unit, _ in wls:
        if kind not in ("linear", "stmts") or not all(wname in results.get(c, {})
                                                       for c in ("nothing", "walload")):
            continue
        rn, rw = results["nothing"][wname], results["walload"][wname]
        L.append("### %s\n" % wname)
        L.append("One session per N (nothing and walload only); per %s between consecutive N.\n" % unit)
        L.append("| N | nothing, Ir | walload, Ir | extra per %s (N_prev to N) | in walload's functions per %s | self-check | seconds (nothing / walload) |" % (unit, unit))
        L.append("|---|---|---|---|---|---|---|")
        extras = []
        # walload's per-unit profile of each interval: the table, the top
        # functions and the cause of a missed goal read the same figures
        pws = [per_unit(rw, i - 1, i) for i in range(1, len(rw))]
        for i in range(len(rn)):
            secs = "%s / %s" % (rn[i].get("seconds", "?"), rw[i].get("seconds", "?"))
            if i == 0:
                L.append("| %d | %.0f | %.0f | | | | %s |" % (rn[i]["n"], rn[i]["total"], rw[i]["total"], secs))
                continue
            pn, pw = per_unit(rn, i - 1, i), pws[i - 1]
            ex = pw["total"] - pn["total"]
            extras.append(ex)
            resid, tol, ok = selfcheck(ex, pw["walload"], pn["total"])
            checks_ok &= ok
            L.append("| %d | %.0f | %.0f | %.0f (%d to %d) | %.0f | %+.0f (%.0f) %s | %s |" % (
                rn[i]["n"], rn[i]["total"], rw[i]["total"], ex, rn[i - 1]["n"], rn[i]["n"], pw["walload"],
                resid, tol, "pass" if ok else "FAIL", secs))
        L.append("")
        for i in range(1, len(rn)):
            pw = pws[i - 1]
            top = sorted(pw["prof"].items(), key=lambda x: -x[1]["attr"])[:8]
            L.append("Top walload functions per %s, %d to %d: %s\n" % (
                unit, rn[i - 1]["n"], rn[i]["n"],
                ", ".join("%s %.0f (excl %.0f)" % (k, v["attr"], v["self"]) for k, v in top)))
        if len(extras) >= 2:
            ratio = max(extras) / min(extras) if min(extras) > 0 else float("inf")
            # the remainder's cause: walload's functions that cost more per
            # unit in the last interval than in the first
            first, last = pws[0], pws[-1]
            grew = sorted(((last["prof"].get(k, {}).get("attr", 0) - first["prof"].get(k, {}).get("attr", 0), k)
                           for k in set(first["prof"]) | set(last["prof"])), reverse=True)
            cause = "" if ratio <= 1.10 else "; grew: " + ", ".join(
                "%s %+.0f" % (k, d) for d, k in grew[:3] if d >= 50)
            goals.append(("extra per %s, %d to %d" % (unit, rn[0]["n"], rn[-1]["n"]),
                          " / ".join("%.0f" % e for e in extras) + " (max/min %.2f)" % ratio + cause,
                          "flat within 10%", ratio <= 1.10))
    for wname, kind, _, ns, unit, _ in wls:
        if kind != "clients" or not all(wname in results.get(c, {}) for c in ("nothing", "walload")):
            continue
        rn, rw = results["nothing"][wname], results["walload"][wname]
        L.append("### %s\n" % wname)
        L.append("pgbench tpcb-like, C clients, t1 and t2 transactions each; every backend's "
                 "profile summed (the pgbench connection that only looks at the tables "
                 "cancels out); per transaction = (sum Ir(C*t2) - sum Ir(C*t1)) / (C*(t2-t1)).\n")
        L.append("| clients | nothing, Ir per transaction | walload, Ir per transaction | extra per transaction | in walload's functions | self-check | backends | seconds (nothing / walload, t2) |")
        L.append("|---|---|---|---|---|---|---|---|")
        extras, owns = [], []
        for i in range(0, len(rn) - 1, 2):
            pn, pw = per_unit(rn, i, i + 1), per_unit(rw, i, i + 1)
            ex = pw["total"] - pn["total"]
            extras.append(ex)
            owns.append(pw["walload"])
            resid, tol, ok = selfcheck(ex, pw["walload"], pn["total"])
            checks_ok &= ok
            L.append("| %d | %.0f | %.0f | %+.0f (%+.2f%%) | %.0f | %+.0f (%.0f) %s | %s / %s | %s / %s |" % (
                rn[i]["n"][0], pn["total"], pw["total"], ex, 100.0 * ex / pn["total"], pw["walload"],
                resid, tol, "pass" if ok else "FAIL", rn[i + 1].get("backends"), rw[i + 1].get("backends"),
                rn[i + 1].get("seconds", "?"), rw[i + 1].get("seconds", "?")))
        L.append("")
        for i in range(0, len(rw) - 1, 2):
            pw = per_unit(rw, i, i + 1)
            top = sorted(pw["prof"].items(), key=lambda x: -x[1]["attr"])[:6]
            L.append("Top walload functions per transaction, %d clients: %s\n" % (
                rw[i]["n"][0], ", ".join("%s %.0f (excl %.0f)" % (k, v["attr"], v["self"]) for k, v in top)))
        if len(extras) >= 2:
            ratio = max(extras) / min(extras) if min(extras) > 0 else float("inf")
            goals.append(("extra per transaction, %d to %d clients" % (rn[0]["n"][0], rn[-1]["n"][0]),
                          " / ".join("%.0f" % e for e in extras) + " (max/min %.2f)" % ratio,
                          "flat within 10%", ratio <= 1.10))
            # at C > 1 the totals also differ by core's work under another
            # interleaving of the clients (row locks, spinlock spins): what
            # walload's own functions cost is the part that is walload's
            ro = max(owns) / min(owns) if min(owns) > 0 else float("inf")
            goals.append(("walload's functions per transaction, %d to %d clients" % (
                rn[0]["n"][0], rn[-1]["n"][0]),
                " / ".join("%.0f" % e for e in owns) + " (max/min %.2f)" % ro, "flat within 10%", ro <= 1.10))
    for key, what in (("lockwaits", "pgbench tpcb-like"),
                      ("lockwaits_ddl", "pgbench with a script whose every transaction creates and "
                       "drops a table of its own name (two new aggregates per transaction: each "
                       "takes the store's lock exclusive, and once walload.max_stats aggregates "
                       "are held, some evict the least recently used)")):
        if not results.get(key):
            continue
        L.append("### The store's lock waits, native (no valgrind)%s\n"
                 % (", DDL of distinct texts" if key == "lockwaits_ddl" else ""))
        L.append("A separate cluster with walload preloaded, not under valgrind; %s "
                 "-T %s per client count while one session samples pg_stat_activity every %s ms "
                 "(pg_stat_clear_snapshot() before each sample).  'walload waits' = samples of a "
                 "client backend with wait_event_type LWLock and wait_event 'walload' (the "
                 "store's tranche); 'backend samples' = client backends seen active in all samples.\n"
                 % (what, results[key][0]["seconds"], results[key][0]["interval_ms"]))
        L.append("'lock_waits' and 'ms waited': walload's own count of its lock's acquisitions "
                 "that had to wait and their total time (walload_info, before and after each "
                 "run), per transaction of the run.\n")
        L.append("| clients | transactions | tps | lock_waits (per 1,000 transactions) | ms waited (per transaction) | samples | active backend samples | waiting on walload | all LWLock waits | top wait events |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        for r in results[key]:
            x = max(r.get("xacts", 0), 1)
            L.append("| %d | %d | %s | %d (%.2f) | %.1f (%.4f) | %d | %d | %d (%.3f%%) | %d | %s |" % (
                r["clients"], r.get("xacts", 0), r["tps"], r.get("lock_waits", -1),
                1000.0 * r.get("lock_waits", 0) / x, r.get("lock_wait_ms", 0.0),
                r.get("lock_wait_ms", 0.0) / x, r["samples"], r["active"], r["walload"],
                100.0 * r["walload"] / r["active"] if r["active"] else 0.0, r["lwlock"], r["top"]))
        L.append("")
    G = ["| goal | measured | bound | |", "|---|---|---|---|"]
    for g, m, bnd, ok in goals:
        G.append("| %s | %s | %s | %s |" % (g, m, bnd, "met" if ok else "NOT met"))
    head = ["## walload's overhead in instructions (bench/overhead_cg.py)\n",
            "Run %s UTC to %s UTC, `%s`; %s; walload.so md5 %s, copied at the start and "
            "preloaded from the copy (the installed file unchanged through the run: %s); "
            "checkout %s.\n" % (meta["start"], meta["end"], meta["cmd"], meta["version"], meta["md5"],
                                meta["lib_ok"], meta["commit"]),
            "Judged: %s.\n" % ("walload's functions repeat in every A/A pair, and the linear "
                                "shapes' extra equals walload's functions (pass)" if checks_ok
                                else "FAILED somewhere (see the tables)"),
            "### Goals (issues 40 and 54), on walload's functions\n"] + G + [""]
    return "\n".join(head + L), checks_ok, goals


# ---------------------------------------------------------------- main

def wanted_configs(arg):
    """The configurations --configs names (separated by ';' when one is, else
    by ','), each with its A/A pair ("X, again"), which its floor needs."""
    names = [x.strip() for x in (arg.split(";") if ";" in arg else arg.split(","))]
    known = [c[0] for c in CONFIGS]
    for x in names:
        if x and x not in known and x != "none":
            sys.exit("unknown configuration %r; known: %s" % (x, "; ".join(known)))
    return set(names) | {x + ", again" for x in names if x + ", again" in known}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer transactions, smaller N")
    ap.add_argument("--jobs", type=int, default=2, help="configurations measured at once")
    ap.add_argument("--base", default=os.environ.get("BENCH_CG_BASE", "/work/b40/cg"),
                    help="directory for the clusters (emptied)")
    ap.add_argument("--port-base", type=int, default=5800, help="template's port; configurations above")
    ap.add_argument("--out", default=os.path.join(HERE, "out", "overhead-cg.md"))
    ap.add_argument("--no-linear", action="store_true", help="skip the N CREATE TABLE shapes")
    ap.add_argument("--keep", action="store_true", help="keep the clusters and profiles")
    ap.add_argument("--library", help="measure this walload.so (default: the installed one)")
    ap.add_argument("--from-json", metavar="FILE", nargs="+",
                    help="only print the report of runs' results.json (merged, later files win)")
    ap.add_argument("--workloads", default="",
                    help="only workloads whose names contain one of these (comma; semicolon when one "
                         "has a comma: 'tpcb-like, -M prepared;DO loop')")
    ap.add_argument("--configs", default="", help="only these configurations (comma)")
    ap.add_argument("--tables", help="N of the CREATE TABLE shape (comma; default 500,2000,8000,40000)")
    ap.add_argument("--stmts", help="N of the INSERTs-in-one-transaction shape (comma)")
    ap.add_argument("--clients", help="client counts of the tpcb-like shape (comma)")
    ap.add_argument("--per-client", help="t1,t2: transactions per client of the tpcb-like shape")
    ap.add_argument("--lockwait-seconds", type=int, default=0,
                    help="also measure the store's lock waits natively, this long per client count")
    ap.add_argument("--lockwait-ddl", action="store_true",
                    help="with --lockwait-seconds, also with each transaction creating and dropping "
                         "a table of its own name")
    a = ap.parse_args()
    if a.from_json:
        merged = None
        for path in a.from_json:
            with open(path) as f:
                one = json.load(f)
            if merged is None:
                merged = one
            else:
                for c, r in one["results"].items():
                    if isinstance(r, dict):
                        merged["results"].setdefault(c, {}).update(r)
                    else:           # lockwaits: a list, the later run's wins
                        merged["results"][c] = r
        saved = merged
        if "meta" not in saved:     # results alone
            saved = {"results": saved, "meta": {"start": "?", "end": "?", "cmd": "?", "version": "?",
                                                "md5": "?", "lib_ok": "?", "commit": "?",
                                                "quick": False, "no_linear": False}}
        wls = workloads({"ddl": "ddl.sql"}, saved["meta"]["quick"], not saved["meta"]["no_linear"],
                        saved["meta"].get("sizes"))
        text, ok, _ = report(saved["results"], wls, saved["meta"])
        print(text)
        return 0 if ok else 2
    if os.geteuid() != 0:
        print("needs root (the clusters run as postgres)")
        return 1
    if not shutil.which("valgrind"):
        print("valgrind is not installed")
        return 1
    bindir = pgconfig("--bindir")
    libpath = a.library or os.path.join(pgconfig("--pkglibdir"), WALLOAD_SO)
    start = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    t0 = time.time()
    if os.path.exists(a.base):
        shutil.rmtree(a.base)
    os.makedirs(a.base)
    shutil.chown(a.base, "postgres")
    os.chmod(a.base, 0o755)
    run = Run(a, a.base, bindir, libpath)
    log("walload.so md5 %s" % run.lib_md5)
    scripts = {"ddl": write_file(os.path.join(a.base, "ddl.sql"),
                                 "CREATE TABLE b_:client_id (id int);\n"
                                 "COPY b_:client_id FROM PROGRAM 'seq 1 100';\n"
                                 "DROP TABLE b_:client_id;\n"),
               # every transaction's statements have texts (query ids) of their own
               "ddl_distinct": write_file(os.path.join(a.base, "ddl_distinct.sql"),
                                          "\\set r 1000000000 * :client_id + random(1, 999999999)\n"
                                          "BEGIN;\n"
                                          "CREATE TABLE lw_:r (id int);\n"
                                          "DROP TABLE lw_:r;\n"
                                          "COMMIT;\n")}
    sizes = {}
    for k in ("tables", "stmts", "clients"):
        if getattr(a, k):
            sizes[k] = [int(x) for x in getattr(a, k).split(",")]
    if a.per_client:
        sizes["per_client"] = tuple(int(x) for x in a.per_client.split(","))
    wls = workloads(scripts, a.quick, not a.no_linear, sizes)
    if a.workloads:
        sep = ";" if ";" in a.workloads else ","
        wls = [w for w in wls if any(x and x in w[0] for x in a.workloads.split(sep))]
    configs = [(i, c) for i, c in enumerate(CONFIGS) if not a.configs or c[0] in wanted_configs(a.configs)]
    results = {}
    lib_ok = True
    installed_same = None
    failed = []
    try:
        run.template(a.port_base)
        log("template ready")
        lex = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        lw = {}
        if a.lockwait_seconds:
            # native: its timings share the cores with the callgrind runs;
            # one after the other (lex has one worker)
            cl = sizes.get("clients") or [1, 2, 4, 8, 16, 32]
            lw["lockwaits"] = lex.submit(run.lockwaits, cl, a.lockwait_seconds)
            if a.lockwait_ddl:
                lw["lockwaits_ddl"] = lex.submit(run.lockwaits, cl, a.lockwait_seconds,
                                                 script=scripts["ddl_distinct"])
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            futs = {ex.submit(run.config, i, cname, libs, extra, wls, scripts): cname
                    for i, (cname, libs, extra) in configs}
            for f in concurrent.futures.as_completed(futs):
                try:
                    results[futs[f]] = f.result()
                except LibraryChanged:
                    raise
                except Exception as e:      # the others' results are still reported
                    log("%s FAILED: %s" % (futs[f], e))
                    failed.append(futs[f])
        for key, f in lw.items():
            try:
                results[key] = f.result()
            except Exception as e:
                log("%s FAILED: %s" % (key, e))
        lex.shutdown()
        run.check_lib("at the end")
        installed_same = run.installed_unchanged()
    except LibraryChanged as e:
        log("INVALID RUN: %s" % e)
        lib_ok = False
    finally:
        if not a.keep:
            for d in glob.glob(os.path.join(a.base, "*", "data")):
                c = Cluster(os.path.dirname(d), bindir)
                if c.running():
                    try:
                        c.stop()
                    except RuntimeError:
                        pass
    if not lib_ok:
        return 3
    commit = subprocess.run(["git", "-C", os.path.join(HERE, ".."), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    meta = {"start": start, "end": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            "cmd": "python3 bench/overhead_cg.py " + " ".join(sys.argv[1:]),
            "version": pgconfig("--version"), "md5": run.lib_md5,
            "lib_ok": "yes" if installed_same else "no, the snapshot taken at the start was measured",
            "commit": commit, "quick": a.quick, "no_linear": a.no_linear, "sizes": sizes}
    with open(os.path.join(a.base, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f)
    text, ok, goals = report(results, wls, meta)
    text += "\nFinished in %.0f s with %d configurations at once.\n" % (time.time() - t0, a.jobs)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text)
    print(text)
    if not a.keep:
        for d in glob.glob(os.path.join(a.base, "c*")) + [os.path.join(a.base, x) for x in ("template", "native")]:
            shutil.rmtree(d, ignore_errors=True)
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(main())
