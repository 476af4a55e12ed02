#!/usr/bin/env python3
"""The counterfactual bench (issue 51, item 5): each of walload_diagnose()'s
findings with a saving, applied as the finding says and measured.

    PG_CONFIG=... python3 bench/whatif.py [--sizes 1GB,4GB] [--rounds 5] [--scale 1]
                                         [--only LOAD,...] [--quick] [--dry] [--seed N]
                                         [--all-shapes] [--try SETTING=VALUE ...]

For each load (below) and each shared_buffers size: the load runs in its
base shape in a fresh cluster (a copy of one template: the same starting
state every time), and walload_diagnose(application_name => the load's)
is read.  Each finding with a saving_ms says what to change as data
(issue 51, item 2): `setting` and `value` (a GUC: set for the load's
sessions through PGOPTIONS where its context allows, otherwise in the
server's configuration, which a fresh start reads: shared_buffers,
wal_level, ...), or `shape` (one of SHAPES: the load's generator produces
that variant).  Then N rounds (--rounds, default 5): in each, the base,
the base again (A/A: the noise floor) and every alternative, in a random
order, each in a fresh copy of the template.  Printed per finding: the
saving claimed, the saving measured (the base less the alternative, round
by round: median and min-max), their ratio, and flags: SLOWER where the
alternative made the load slower beyond the spread (its best round still
slower than the base by more than the A/A spread), and per load whether the
headline (the first finding) was the largest saving measured.  The goals
(issue 51): measured/claimed median within 0.67-1.5 and 90% of the
findings within 0.5-2.0; no hint SLOWER; the headline the largest measured
saving in 9 of 10 loads.

A finding without those columns (a walload before 1.10's what-if engine)
or with a shape the load cannot produce is skipped, and said so: nothing is
guessed from the words.

--all-shapes also runs every shape variant of a load that no finding
names, and --try SETTING=VALUE (repeatable) every load with a setting no
finding names (shared_buffers=128MB, synchronous_commit=off): the savings
walload did not claim, shown with no claim beside them.

--quick: every load at a small scale, shared_buffers 128MB, 1 round (a
check that the bench works; its figures mean nothing).  --dry: builds the
loads, runs each base once, reads the findings and prints the plan of
alternatives: no timed figure at all.  The time is the client's: from the
start of the load's program (psql, pg_restore) to its exit.

A benchmark, not a test: it asserts nothing.  Its timings are a result only
on a quiet machine (docs/benchmarks.md).  As root the clusters run as the
postgres OS user (scripts/lib/cluster.sh).
"""
import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts", "lib"))
sys.path.insert(0, HERE)
from cluster import Cluster, pgconfig  # noqa: E402
from run import write_conf, new_cluster, log  # noqa: E402  (bench/run.py's cluster helpers)

# the shapes a finding may name (the contract of walload_diagnose()'s
# `shape` column, issue 51 item 2)
SHAPES = ("one_transaction", "batch_commits", "indexes_after_load", "no_truncate_reload",
          "single_transaction_restore", "drop_in_one_transaction")
# every cluster's own settings beside bench/run.py's (write_conf)
MINIMAL = {"wal_level": "minimal", "max_wal_senders": "0"}


def csv_rows(path, rows, width=40):
    """rows lines of id,text,amount (about width+20 bytes each)"""
    pad = "x" * width
    with open(path, "w") as f:
        for i in range(1, rows + 1):
            f.write("%d,%s %d,%d.50\n" % (i, pad, i % 977, i % 5000))
    os.chmod(path, 0o644)


class Load:
    """A load: its base shape and each shape variant it supports, as a psql
    script (or another program); setup() writes what the template holds
    before any run (data files, source tables, a dump)."""
    name = ""
    what = ""
    shapes = ()
    settings = MINIMAL          # the base server's settings
    standby = None              # {settings} of a synchronous standby, or None

    def __init__(self, scale, tmp):
        self.scale = scale
        self.tmp = tmp
        self.app = "whatif_" + self.name

    def n(self, full, least=1):
        return max(least, int(full * self.scale))

    def setup(self, c):
        pass

    def script(self, shape):
        """the load's SQL in this shape (None: the base)"""
        raise NotImplementedError

    def command(self, c, shape, path):
        """the program that runs the load: psql -f of script(shape)"""
        with open(path, "w") as f:
            f.write(self.script(shape))
        os.chmod(path, 0o644)
        return [os.path.join(c.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", path,
                "-o", "/dev/null"]


class SeedLoad(Load):
    name = "seed000"
    what = "seed 000: 10 tables created and 5 COPYs of 1,000 rows into each in one transaction (minimal), then 10 DROPs"
    shapes = ("drop_in_one_transaction",)

    def setup(self, c):
        csv_rows(os.path.join(self.tmp, "seed.csv"), 1000)

    def script(self, shape):
        csv = os.path.join(self.tmp, "seed.csv")
        ntab = 10
        out = ["BEGIN;"] + ["CREATE TABLE s%d (id int, name text, amount numeric);" % t for t in range(ntab)]
        out += ["\\copy s%d FROM '%s' WITH (FORMAT csv)" % (i % ntab, csv) for i in range(5 * ntab)]
        out += ["COMMIT;"]
        drops = ["DROP TABLE s%d;" % t for t in range(ntab)]
        out += (["BEGIN;"] + drops + ["COMMIT;"]) if shape == "drop_in_one_transaction" else drops
        return "\n".join(out) + "\n"


class NightlyEtl(Load):
    name = "nightly_etl"
    what = ("nightly ETL: N staging tables (200; scale), each created, loaded, truncated and reloaded in a "
            "transaction, merged into a fact table, then dropped one by one")
    shapes = ("one_transaction", "batch_commits", "no_truncate_reload", "drop_in_one_transaction")

    def setup(self, c):
        csv_rows(os.path.join(self.tmp, "etl.csv"), 2000)
        c.psql("CREATE TABLE fact (id int, name text, amount numeric)")

    def script(self, shape):
        csv = os.path.join(self.tmp, "etl.csv")
        k = self.n(200, 4)
        batch = 20
        out = []
        if shape == "one_transaction":
            out.append("BEGIN;")
        for t in range(k):
            if shape == "batch_commits":
                if t % batch == 0:
                    out.append("BEGIN;")
            elif shape != "one_transaction":
                out.append("BEGIN;")
            out.append("CREATE TABLE stg%d (id int, name text, amount numeric);" % t)
            if shape != "no_truncate_reload":
                # a first, partial load, then the reload: truncated in place
                out.append("\\copy stg%d FROM '%s' WITH (FORMAT csv)" % (t, csv))
                out.append("TRUNCATE stg%d;" % t)
            out.append("\\copy stg%d FROM '%s' WITH (FORMAT csv)" % (t, csv))
            out.append("INSERT INTO fact SELECT * FROM stg%d;" % t)
            if shape == "batch_commits":
                if t % batch == batch - 1 or t == k - 1:
                    out.append("COMMIT;")
            elif shape != "one_transaction":
                out.append("COMMIT;")
        drops = ["DROP TABLE stg%d;" % t for t in range(k)]
        if shape == "one_transaction":
            out += drops + ["COMMIT;"]
        elif shape in ("drop_in_one_transaction", "batch_commits"):
            out += ["BEGIN;"] + drops + ["COMMIT;"]
        else:
            out += drops
        return "\n".join(out) + "\n"


class SmallCommits(Load):
    name = "small_commits"
    what = "many small commits: N single-row INSERTs (2,000; scale), each its own transaction"
    shapes = ("one_transaction", "batch_commits")

    def setup(self, c):
        c.psql("CREATE TABLE events (id int, payload text)")

    def script(self, shape):
        k = self.n(2000, 20)
        ins = ["INSERT INTO events VALUES (%d, 'event %d');" % (i, i) for i in range(k)]
        if shape == "one_transaction":
            return "\n".join(["BEGIN;"] + ins + ["COMMIT;"]) + "\n"
        if shape == "batch_commits":
            out = []
            for i in range(0, k, 100):
                out += ["BEGIN;"] + ins[i:i + 100] + ["COMMIT;"]
            return "\n".join(out) + "\n"
        return "\n".join(ins) + "\n"


class SyncStandby(SmallCommits):
    name = "sync_standby"
    what = ("a synchronous standby on this machine (synchronous_commit=remote_apply, the standby applying "
            "10 ms late): N small commits")
    settings = {"wal_level": "replica", "max_wal_senders": "4", "synchronous_standby_names": "'*'",
                "synchronous_commit": "remote_apply"}
    standby = {"hot_standby": "on", "recovery_min_apply_delay": "'10ms'"}

    def script(self, shape):
        # fewer: each commit waits for the late standby
        k = self.n(300, 10)
        ins = ["INSERT INTO events VALUES (%d, 'event %d');" % (i, i) for i in range(k)]
        if shape == "one_transaction":
            return "\n".join(["BEGIN;"] + ins + ["COMMIT;"]) + "\n"
        if shape == "batch_commits":
            out = []
            for i in range(0, k, 30):
                out += ["BEGIN;"] + ins[i:i + 30] + ["COMMIT;"]
            return "\n".join(out) + "\n"
        return "\n".join(ins) + "\n"


class IndexesFirst(Load):
    name = "indexes_first"
    what = "a load with its indexes created first: a primary key and two indexes, then COPY of N rows (1M; scale)"
    shapes = ("indexes_after_load", "one_transaction")

    def setup(self, c):
        csv_rows(os.path.join(self.tmp, "idx.csv"), self.n(1000000, 2000))

    def script(self, shape):
        csv = os.path.join(self.tmp, "idx.csv")
        tab = "CREATE TABLE t (id int, name text, amount numeric);"
        idx = ["ALTER TABLE t ADD PRIMARY KEY (id);", "CREATE INDEX ON t (name);", "CREATE INDEX ON t (amount);"]
        copy = "\\copy t FROM '%s' WITH (FORMAT csv)" % csv
        if shape == "indexes_after_load":
            out = [tab, copy] + idx
        elif shape == "one_transaction":
            out = ["BEGIN;", tab] + idx + [copy, "COMMIT;"]
        else:
            out = [tab] + idx + [copy]
        return "\n".join(out) + "\n"


class BigCopy(Load):
    name = "copy_1gb"
    what = "a 1 GB COPY (scale) into a table created just before, in its own transaction"
    shapes = ("one_transaction",)

    def setup(self, c):
        # about 100 bytes a row
        csv_rows(os.path.join(self.tmp, "big.csv"), self.n(10 * 1024 * 1024, 5000), width=75)

    def script(self, shape):
        csv = os.path.join(self.tmp, "big.csv")
        out = ["CREATE TABLE big (id int, name text, amount numeric);",
               "\\copy big FROM '%s' WITH (FORMAT csv)" % csv]
        if shape == "one_transaction":
            out = ["BEGIN;"] + out + ["COMMIT;"]
        return "\n".join(out) + "\n"


class VacuumAfterDelete(Load):
    name = "vacuum_delete"
    what = "a VACUUM after a large delete: 30% of N rows (2M; scale) of an indexed table deleted, then VACUUM"
    shapes = ()

    def setup(self, c):
        rows = self.n(2000000, 5000)
        c.psql("CREATE TABLE v (id int PRIMARY KEY, name text, amount numeric)")
        c.psql("INSERT INTO v SELECT g, 'name ' || g, g %% 5000 FROM generate_series(1, %d) g" % rows)
        c.psql("VACUUM ANALYZE v")

    def script(self, shape):
        return "DELETE FROM v WHERE id % 10 < 3;\nVACUUM v;\n"


class Restore(Load):
    name = "restore"
    what = "pg_restore of a dump (30 tables with keys and an index, N rows each: 100k; scale) without --single-transaction"
    shapes = ("single_transaction_restore", "one_transaction")
    single = False

    def __init__(self, scale, tmp):
        super().__init__(scale, tmp)
        # pg_restore's own application_name: each run is a fresh cluster in
        # which nothing else runs pg_restore
        self.app = "pg_restore"

    def setup(self, c):
        rows = self.n(100000, 500)
        c.psql("CREATE DATABASE src")
        c.psql("DO $$BEGIN FOR t IN 1..30 LOOP "
               "EXECUTE format('CREATE TABLE r%%s (id int PRIMARY KEY, name text, amount numeric)', t); "
               "EXECUTE format('INSERT INTO r%%s SELECT g, ''name '' || g, g %%%% 5000 "
               "FROM generate_series(1, %d) g', t); "
               "EXECUTE format('CREATE INDEX ON r%%s (name)', t); END LOOP; END$$" % rows, db="src")
        self.dump = os.path.join(self.tmp, "restore.dump")
        r = c.as_postgres([os.path.join(c.bindir, "pg_dump"), "-Fc", "-f", self.dump, "src"],
                          capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("pg_dump failed: " + r.stderr)
        c.psql("DROP DATABASE src")
        c.psql("CREATE DATABASE target")

    def script(self, shape):
        return ""

    def command(self, c, shape, path):
        single = self.single or shape in ("single_transaction_restore", "one_transaction")
        return ([os.path.join(c.bindir, "pg_restore"), "-d", "target"] +
                (["--single-transaction"] if single else []) + [os.path.join(self.tmp, "restore.dump")])


class RestoreSingle(Restore):
    name = "restore_single"
    what = "the same pg_restore with --single-transaction"
    shapes = ()
    single = True


LOADS = [NightlyEtl, SeedLoad, Restore, RestoreSingle, SmallCommits, IndexesFirst, BigCopy, SyncStandby,
         VacuumAfterDelete]


# ------------------------------------------------------------- clusters

class Bench:
    def __init__(self, a, tmp):
        self.a = a
        self.tmp = tmp
        self.bindir = pgconfig("--bindir")
        self.n = 0
        self.live = []
        self.pristine = None

    def settings(self, load, size, extra=None, quiet_calibration=False):
        s = {"shared_buffers": size}
        s.update(load.settings)
        if not load.standby:
            s.pop("synchronous_standby_names", None)
        if quiet_calibration:
            s["walload.calibration"] = "off"
        s.update(extra or {})
        if str(s.get("wal_level", "")).strip("'") == "minimal":
            s["max_wal_senders"] = "0"
        return s

    def template(self, load, size):
        """a cluster with walload, the extension and the load's setup, stopped"""
        if self.pristine is None:
            # one initdb for all: each template starts as its copy
            self.pristine = new_cluster(self.tmp, "pristine", self.bindir)
        t = new_cluster(self.tmp, "template-%s-%s" % (load.name, size), self.bindir, self.pristine)
        # nothing of the setup is priced: no calibration to wait for
        st = self.settings(load, size, quiet_calibration=True)
        st.pop("synchronous_standby_names", None)
        write_conf(t, "walload", st)
        self.live.append(t)
        t.start()
        t.psql("CREATE EXTENSION walload")
        load.setup(t)
        t.psql("CHECKPOINT")
        t.psql("SELECT walload_reset()")
        t.stop()
        return t

    def fresh(self, template, load, size, extra=None, quiet_calibration=False):
        """a copy of the template, started with these settings (and its
        standby, where the load has one): (primary, standby or None)"""
        self.n += 1
        c = new_cluster(self.tmp, "run%04d" % self.n, self.bindir, template)
        st = self.settings(load, size, extra, quiet_calibration)
        # a commit waits for a synchronous standby: named once it is there
        sync_names = st.pop("synchronous_standby_names", None)
        write_conf(c, "walload", st)
        self.live.append(c)
        c.start()
        c.wait_for_calibration()
        s = None
        if load.standby:
            root = os.path.join(self.tmp, "run%04d-standby" % self.n)
            os.makedirs(root)
            shutil.chown(root, "postgres")
            s = Cluster(root, self.bindir)
            r = c.as_postgres([os.path.join(self.bindir, "pg_basebackup"), "-D", s.data, "-R", "-X", "stream",
                               "-c", "fast"], capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError("pg_basebackup failed: " + r.stderr)
            # pg_basebackup -R wrote primary_conninfo (the primary's socket)
            st = self.settings(load, size, load.standby, quiet_calibration)
            st.pop("synchronous_standby_names", None)
            # the standby only applies: walload is not loaded there (nor its
            # calibration, which a standby does not run, waited for)
            write_conf(s, "", st)
            self.live.append(s)
            s.start()
            if sync_names:
                c.psql("ALTER SYSTEM SET synchronous_standby_names = %s" % sync_names)
                c.psql("SELECT pg_catalog.pg_reload_conf()")
                deadline = time.time() + 120
                while c.psql("SELECT count(*) FROM pg_catalog.pg_stat_replication WHERE sync_state = 'sync'") == "0":
                    if time.time() > deadline:
                        raise RuntimeError("the standby did not become synchronous within 120 s")
                    time.sleep(0.2)
        return c, s

    def drop(self, c, s):
        for x in (c, s):
            if x is not None:
                if x.running():
                    x.stop()
                shutil.rmtree(x.root, ignore_errors=True)
                if x in self.live:
                    self.live.remove(x)

    def stop_all(self):
        """every server still running (an error, an interrupt)"""
        for x in self.live:
            if x.running():
                try:
                    x.stop()
                except RuntimeError:
                    pass
        self.live = []

    def run_load(self, c, load, shape, session):
        """the client's ms from the load program's start to its exit"""
        path = os.path.join(self.tmp, "load-%s.sql" % load.name)
        cmd = load.command(c, shape, path)
        # pg_restore names its own sessions (the restore finding knows it by
        # that name); every other load is scoped by its own
        env = ["env"] if load.app == "pg_restore" else ["env", "PGAPPNAME=%s" % load.app]
        if session:
            env.append("PGOPTIONS=" + " ".join("-c %s=%s" % (k, v.strip("'").replace(" ", "\\ "))
                                               for k, v in session.items()))
        t0 = time.monotonic()
        r = c.as_postgres(env + cmd, capture_output=True, text=True)
        ms = (time.monotonic() - t0) * 1000
        if r.returncode != 0:
            raise RuntimeError("%s (%s) failed:\n%s" % (load.name, shape or "base", r.stderr[-2000:]))
        return ms

    def findings(self, c, load):
        # 1.11: the whole record is walload_findings()'; before, walload_diagnose()'
        fn = "walload_findings" if c.psql("SELECT to_regproc('walload_findings') IS NOT NULL") == "t" \
            else "walload_diagnose"
        out = c.psql("SELECT coalesce(json_agg(to_jsonb(d)), '[]') FROM %s(application_name => '%s') d"
                     % (fn, load.app))
        return json.loads(out)

    def apply_setting(self, c, p, name, value):
        """p's change: the setting for the load's sessions where its context
        allows (user, superuser), else in the server's configuration, which
        the alternative's fresh start reads"""
        ctx = c.psql("SELECT context FROM pg_catalog.pg_settings WHERE name = '%s'" % name.replace("'", "''"))
        quoted = "'%s'" % str(value).replace("'", "''")
        if ctx in ("user", "superuser"):
            p["session"] = {name: quoted}
            p["change"] = "SET %s = %s (the load's sessions)" % (name, quoted)
        elif ctx:
            p["server"] = {name: quoted}
            p["change"] = "%s = %s in the server's configuration (%s: a fresh start)" % (name, quoted, ctx)
        else:
            p["skip"] = "no such setting: %s" % name

    def plan(self, c, load, finds):
        """each finding: what to change, or why it is skipped"""
        plans = []
        for i, f in enumerate(finds):
            p = {"no": i + 1, "finding": f.get("finding"), "claimed": f.get("saving_ms"), "change": None,
                 "session": {}, "server": {}, "shape": None, "skip": None}
            if not f.get("saving_ms"):
                if f.get("shape") in load.shapes:
                    # named, not priced: measured with no claim beside it
                    p["shape"] = f["shape"]
                    p["change"] = "shape: %s (not priced)" % f["shape"]
                else:
                    p["skip"] = "no saving claimed"
            elif "setting" not in f and "shape" not in f:
                p["skip"] = "walload_diagnose() names no change (no setting/value/shape columns: before 1.10)"
            elif f.get("setting"):
                if f.get("value") is None:
                    p["skip"] = "setting %s without a value" % f["setting"]
                else:
                    self.apply_setting(c, p, f["setting"], f["value"])
            elif f.get("shape"):
                if f["shape"] not in SHAPES:
                    p["skip"] = "unknown shape %s" % f["shape"]
                elif f["shape"] not in load.shapes:
                    p["skip"] = "this load has no %s variant" % f["shape"]
                else:
                    p["shape"] = f["shape"]
                    p["change"] = "shape: " + f["shape"]
            else:
                p["skip"] = "neither a setting nor a shape"
            plans.append(p)
        if self.a.all_shapes:
            named = {p["shape"] for p in plans}
            for i, shape in enumerate(load.shapes):
                if shape not in named:
                    plans.append({"no": 100 + i, "finding": "(no finding) every variant: " + shape, "claimed": None,
                                  "change": "shape: " + shape, "session": {}, "server": {}, "shape": shape,
                                  "skip": None})
        for i, t in enumerate(self.a.try_setting or []):
            p = {"no": 200 + i, "finding": "(no finding) --try " + t, "claimed": None, "change": None,
                 "session": {}, "server": {}, "shape": None, "skip": None}
            name, value = t.split("=", 1)
            self.apply_setting(c, p, name.strip(), value.strip())
            plans.append(p)
        return plans

    def one(self, template, load, size, alt, quiet):
        c, s = self.fresh(template, load, size, alt.get("server") if alt else None, quiet)
        try:
            return self.run_load(c, load, alt.get("shape") if alt else None, alt.get("session") if alt else None)
        finally:
            self.drop(c, s)

    def bench(self, load, size):
        a = self.a
        log("%s at shared_buffers %s: template" % (load.name, size))
        template = self.template(load, size)
        try:
            c, s = self.fresh(template, load, size)
            try:
                base_ms = self.run_load(c, load, None, None)
                finds = self.findings(c, load)
                plans = self.plan(c, load, finds)
            finally:
                self.drop(c, s)
            print("\n## %s, shared_buffers %s\n\n%s\n" % (load.name, size, load.what))
            print("| # | finding | saving claimed (ms) | change applied |")
            print("|---|---|---|---|")
            for p in plans:
                print("| %d | %s | %s | %s |" % (p["no"], p["finding"],
                                                 "" if p["claimed"] is None else "%.1f" % p["claimed"],
                                                 p["change"] or "SKIPPED: " + p["skip"]))
            todo = [p for p in plans if p["change"]]
            skipped = [p for p in plans if p["skip"] and p["claimed"]]
            for p in skipped:
                log("SKIPPED %s: %s" % (p["finding"], p["skip"]))
            if a.dry:
                return {"load": load.name, "size": size, "plans": plans, "rows": []}
            # rounds: base, base again (A/A) and each alternative, in a random order
            runs = {"base": [], "aa": []}
            for p in todo:
                runs[p["no"]] = []
            for r in range(a.rounds):
                order = ["base", "aa"] + [p["no"] for p in todo]
                self.rng.shuffle(order)
                for key in order:
                    alt = None if key in ("base", "aa") else next(p for p in todo if p["no"] == key)
                    try:
                        runs[key].append(self.one(template, load, size, alt, a.quick))
                    except RuntimeError as e:
                        if alt is None:
                            raise
                        # a change the server refuses (wal_level=minimal
                        # beside a standby): said, not measured
                        alt["error"] = str(e).strip().splitlines()[-1][:200]
                        runs[key].append(None)
                log("%s %s round %d: %s" % (load.name, size, r + 1,
                                            ", ".join("%s %s" % (k, "failed" if v[-1] is None else "%.0f ms" % v[-1])
                                                      for k, v in runs.items())))
            return {"load": load.name, "size": size, "plans": plans, "runs": runs, "base_once": base_ms}
        finally:
            self.drop(template, None)


def spread(v):
    return "%.1f (%.1f..%.1f)" % (statistics.median(v), min(v), max(v))


def verdict(results, rounds):
    """claimed against measured, per finding; the goals"""
    lines = ["", "# Claimed against measured (ms; median (min..max) of %d rounds, base less alternative, "
             "paired by round)" % rounds, "",
             "| load | shared_buffers | finding | change | claimed | measured | measured/claimed | flag |",
             "|---|---|---|---|---|---|---|---|"]
    ratios, above, headline_ok, loads = [], [], 0, 0
    for res in results:
        runs = res["runs"]
        aa = [b - x for b, x in zip(runs["base"], runs["aa"])]
        noise = max(abs(x) for x in aa)
        lines.append("| %s | %s | A/A (base against base): the noise floor | | 0 | %s | | |"
                     % (res["load"], res["size"], spread(aa)))
        measured = {}
        for p in res["plans"]:
            if not p["change"]:
                continue
            if p.get("error"):
                lines.append("| %s | %s | %s | %s | %s | could not run: %s | | |"
                             % (res["load"], res["size"], p["finding"], p["change"],
                                "-" if p["claimed"] is None else "%.1f" % p["claimed"], p["error"]))
                continue
            sav = [b - x for b, x in zip(runs["base"], runs[p["no"]])]
            med = statistics.median(sav)
            measured[p["no"]] = med
            ratio = med / p["claimed"] if p["claimed"] else None
            claimed = "-" if p["claimed"] is None else "%.1f" % p["claimed"]
            if ratio is not None:
                ratios.append(ratio)
                if p["claimed"] > noise:
                    above.append(ratio)
            flag = "SLOWER" if max(sav) < -noise else ""
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |"
                         % (res["load"], res["size"], p["finding"], p["change"], claimed, spread(sav),
                            "" if ratio is None else "%.2f" % ratio, flag))
        if measured:
            best = max(measured, key=measured.get)
            # the headline: the first finding that claims a saving (1.10's
            # first row is the verdict in words, with none)
            claims = [p["no"] for p in res["plans"] if p["claimed"]]
            head = min(claims) if claims else None
            if head in measured:
                loads += 1
                headline_ok += best == head
                lines.append("| %s | %s | the headline (finding %d) the largest measured saving? | | | | | %s |"
                             % (res["load"], res["size"], head, "yes" if best == head else
                                "NO: %s saved more" % ("finding %d" % best if best < 100 else "an unclaimed variant")))
            else:
                lines.append("| %s | %s | the headline was not measured | | | | | |"
                             % (res["load"], res["size"]))
    lines.append("")
    if ratios:
        within = sum(0.5 <= r <= 2.0 for r in ratios) / len(ratios)
        lines.append("measured/claimed: median %.2f (goal 0.67-1.5), %.0f%% of %d findings within 0.5-2.0 "
                     "(goal 90%%); the headline the largest measured saving in %d of %d loads (goal 9 of 10)"
                     % (statistics.median(ratios), 100 * within, len(ratios), headline_ok, loads))
        # a claim inside its load's A/A spread cannot be told from the noise
        # in these rounds: the same goals over the claims above it
        if above:
            lines.append("of the %d findings claiming more than their load's noise floor (the largest A/A "
                         "difference): median %.2f, %.0f%% within 0.5-2.0"
                         % (len(above), statistics.median(above),
                            100 * sum(0.5 <= r <= 2.0 for r in above) / len(above)))
    else:
        lines.append("no finding with a change to measure")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", help="shared_buffers sizes, comma-separated (default 1GB,4GB; --quick 128MB)")
    ap.add_argument("--rounds", type=int, help="rounds (default 5; --quick 1)")
    ap.add_argument("--scale", type=float, help="the loads' size against their full one (default 1; --quick 0.02)")
    ap.add_argument("--only", default="", help="comma-separated loads: " + ",".join(l.name for l in LOADS))
    ap.add_argument("--quick", action="store_true", help="small loads, 1 round, 128MB: the bench works")
    ap.add_argument("--dry", action="store_true", help="base once per load, the findings and the plan: no timing")
    ap.add_argument("--all-shapes", action="store_true",
                    help="also run every shape variant of each load that no finding names (unclaimed savings)")
    ap.add_argument("--try", dest="try_setting", action="append", metavar="SETTING=VALUE",
                    help="also run each load with this setting, which no finding names (repeatable)")
    ap.add_argument("--seed", type=int, default=51, help="the random order's seed")
    a = ap.parse_args()
    a.sizes = (a.sizes or ("128MB" if a.quick else "1GB,4GB")).split(",")
    a.rounds = a.rounds or (1 if a.quick else 5)
    a.scale = a.scale or (0.02 if a.quick else 1.0)
    names = [l.name for l in LOADS]
    only = [s for s in a.only.split(",") if s] or names
    for s in only:
        if s not in names:
            ap.error("unknown load %s (loads: %s)" % (s, ", ".join(names)))
    for t in a.try_setting or []:
        if "=" not in t or not t.split("=", 1)[0].strip():
            ap.error("--try takes SETTING=VALUE, not %r" % t)
    if a.rounds < 1 or a.scale <= 0:
        ap.error("--rounds and --scale must be positive")
    if os.geteuid() != 0:
        sys.exit("bench/whatif.py needs root (it runs clusters as postgres)")
    tmp = tempfile.mkdtemp(prefix="walload-whatif.")
    os.chmod(tmp, 0o755)
    shutil.chown(tmp, "postgres")
    # an interrupt (SIGTERM, SIGINT) stops the servers and removes their files
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("bench/whatif.py: terminated"))
    b = Bench(a, tmp)
    b.rng = random.Random(a.seed)
    print("# walload counterfactual bench: %s; %s; loads %s; shared_buffers %s; %d rounds; scale %g%s"
          % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), pgconfig("--version"), ",".join(only),
             ",".join(a.sizes), a.rounds, a.scale, "; DRY: no timing" if a.dry else ""))
    results, failed = [], []
    try:
        for size in a.sizes:
            for cls in LOADS:
                if cls.name not in only:
                    continue
                d = os.path.join(tmp, "data-" + cls.name)
                os.makedirs(d, exist_ok=True)
                os.chmod(d, 0o755)
                shutil.chown(d, "postgres")
                try:
                    results.append(b.bench(cls(a.scale, d), size))
                except RuntimeError as e:
                    # one load's failure is said, and the others run
                    failed.append("%s at %s" % (cls.name, size))
                    print("\n## %s, shared_buffers %s: FAILED\n\n```\n%s\n```" % (cls.name, size, e))
                sys.stdout.flush()
    finally:
        b.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)
    planned = sum(1 for r in results for p in r["plans"] if p["change"])
    skipped = sum(1 for r in results for p in r["plans"] if p["skip"] and p["claimed"])
    print("\n%d findings with a change to apply, %d with a saving skipped" % (planned, skipped))
    if skipped:
        print("SKIPPED findings are listed above, each with why")
    if failed:
        print("FAILED loads: " + ", ".join(failed))
    if not a.dry:
        print(verdict(results, a.rounds))
        if a.quick:
            print("\n(--quick: small loads, one round: these figures only show that the bench works)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
