#!/usr/bin/env python3
"""walload's metrics through the real prometheus-postgres-exporter and the real
query-exporter, both scraped by the real Prometheus server.  Prints TAP; scripts/test.sh runs it with prove
(suite "exporter").  Needs root (the cluster runs as the postgres OS user).

A throwaway cluster (wal_level=minimal, walload preloaded, its calibration
done); postgres_exporter with prometheus/walload_queries.yaml; query-exporter
(scripts/deps.sh's virtualenv, or WALLOAD_QUERY_EXPORTER; missing: its checks
skipped, failed under CI=true) with prometheus/walload_query_exporter.yaml,
whose queries, metrics, types and labels must be the other file's;
Prometheus with a configuration written here (scrape both every second,
prometheus/walload_alerts.yml as rules).  A load as role
"loader" in database "app" (CREATE TABLE + COPY of 100,000 rows in one
transaction, an INSERT, a COPY that fails, DROP TABLE) and one as postgres.
`promtool check metrics` on each exporter's /metrics reports nothing (and
does report a gauge named like walload's before its rename).  Then, through
Prometheus' HTTP API, at the first scrape after the load:

 - for each exporter, the walload series are exactly those the views give (walload_info,
   walload_stats grouped by database, role, command and nesting level,
   walload_xacts of the last 5 minutes), each value equal to the view's
 - the scans of the load are there (kind flush_pending = 1, drop_pending = 2)
   and those it did not do are 0 or absent (kind db, command VACUUM)
 - the load's commits have a sync and a cleanup phase adding up to their
   commit time; the failed COPY has an abort series, nothing a prepare one
 - no label carries a query text or a query id
 - the alerting rules are loaded and healthy, and none fires
 - every query of prometheus/walload_dashboard.json (Grafana's variables
   given their "all servers, last 5 minutes" values) answers with a
   non-empty result: the scans panel has every kind, the top commands
   COPY, CREATE TABLE and DROP TABLE but no VACUUM
 - after walload_reset(), the next scrape has the counters at 0 and no
   statement series
Ports: WALLOAD_EXPORTER_PORT (default 5604), the next one (Prometheus) and
the one after (query-exporter), which must be free.
Every wait polls with a deadline.
"""
import json, math, os, shutil, socket, subprocess, sys, tempfile, time, urllib.parse, urllib.request

import yaml  # Debian's python3-yaml
from prometheus_client.parser import text_string_to_metric_families  # python3-prometheus-client

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
queries = os.path.join(here, "prometheus", "walload_queries.yaml")
alerts = os.path.join(here, "prometheus", "walload_alerts.yml")
dashboard = os.path.join(here, "prometheus", "walload_dashboard.json")
qe_config = os.path.join(here, "prometheus", "walload_query_exporter.yaml")
alerts_test = os.path.join(here, "prometheus", "walload_alerts_test.yml")
gen = os.path.join(here, "prometheus", "gen.py")
sys.path.insert(0, os.path.join(here, "prometheus"))
import gen as walload_gen  # noqa: E402  prometheus/gen.py: the SQL every collector runs

eport = int(os.environ.get("WALLOAD_EXPORTER_PORT", "5604"))
pport = eport + 1
qport = eport + 2
# scripts/deps.sh installs query-exporter (PyPI) into this virtualenv
qe_bin = os.environ.get("WALLOAD_QUERY_EXPORTER", os.path.join(
    os.environ.get("WALLOAD_QUERY_EXPORTER_VENV", "/var/cache/walload/query-exporter"), "bin", "query-exporter"))
ci = os.environ.get("CI") == "true"
# scripts/deps.sh installs grafana-foundation-sdk (PyPI) into this virtualenv
gf_python = os.path.join(os.environ.get("WALLOAD_GRAFANA_SDK_VENV", "/var/cache/walload/grafana-sdk"), "bin", "python3")
GF_CHECK = """
import json, sys
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.cog.plugins import register_default_plugins
from grafana_foundation_sdk.models import dashboard as m
register_default_plugins()
d = json.load(open(sys.argv[1]))
back = json.loads(json.dumps(m.Dashboard.from_json(d), cls=JSONEncoder))
lost = []
def cmp(a, b, path):
    if isinstance(a, dict):
        for k, v in a.items():
            if not isinstance(b, dict) or k not in b:
                lost.append(path + "." + k)
            elif k != "options":   # a panel plugin's own options: not in the dashboard schema
                cmp(v, b[k], path + "." + k)
    elif isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            cmp(x, y, "%s[%d]" % (path, i))
cmp(d, back, "")
print("ok" if not lost else "not in the model: " + " ".join(lost))
"""
pgconfig = os.environ.get("PG_CONFIG", "/usr/lib/postgresql/15/bin/pg_config")

n = 0
failures = 0


def ok(cond, what, diag=None):
    global n, failures
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what), flush=True)
    if not cond:
        failures += 1
        if diag:
            for line in str(diag).splitlines():
                print("#   " + line)
    return cond


def finish():
    print("1..%d" % n)
    sys.exit(1 if failures else 0)


def skip(why):
    print("1..0 # SKIP " + why)
    sys.exit(0)


if os.geteuid() != 0:
    skip("needs root (the cluster runs as the postgres OS user)")
for prog in ("prometheus", "prometheus-postgres-exporter", "promtool"):
    if not shutil.which(prog):
        skip(prog + " is not installed (scripts/deps.sh)")

bindir = subprocess.run([pgconfig, "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
tmp = tempfile.mkdtemp(prefix="walload-exporter.")
os.chmod(tmp, 0o755)
sock = os.path.join(tmp, "pg")
os.mkdir(sock)
shutil.chown(sock, "postgres")
pgdata = os.path.join(sock, "data")
procs = []


def cleanup():
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    if os.path.exists(os.path.join(pgdata, "postmaster.pid")):
        subprocess.run(["runuser", "-u", "postgres", "--", bindir + "/pg_ctl", "-D", pgdata,
                        "-m", "immediate", "-w", "stop"], capture_output=True)
    shutil.rmtree(tmp, ignore_errors=True)


def as_pg(*args, **kw):
    return subprocess.run(["runuser", "-u", "postgres", "--"] + list(args), capture_output=True, text=True, **kw)


def psql(sql, db="postgres", user="postgres", stdin=None):
    r = subprocess.run([bindir + "/psql", "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                        "-h", sock, "-U", user, "-d", db, "-c", sql] if stdin is None else
                       [bindir + "/psql", "-X", "-q", "-At", "-h", sock, "-U", user, "-d", db],
                       input=stdin, capture_output=True, text=True, timeout=120)
    return r


def rows(sql, db="postgres"):
    r = psql(sql, db)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return [line.split("\t") for line in r.stdout.splitlines() if line != ""]


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as f:
        return f.read().decode()


def prom(path, **params):
    url = "http://127.0.0.1:%d/api/v1/%s" % (pport, path)
    if params:
        url += "?" + urllib.parse.urlencode(params)
    d = json.loads(http_get(url))
    if d.get("status") != "success":
        raise RuntimeError(d)
    return d["data"]


def poll(what, fn, deadline_s):
    """call fn until it returns a true value or the deadline passes"""
    end = time.monotonic() + deadline_s
    last = None
    while time.monotonic() < end:
        try:
            v = fn()
            if v:
                return v
            last = v
        except Exception as e:  # not up yet
            last = e
        time.sleep(0.2)
    raise TimeoutError("%s: not within %d s (%s)" % (what, deadline_s, last))


try:
    # ------------------------------------------------------------ cluster
    r = as_pg(bindir + "/initdb", "-D", pgdata, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C")
    if not ok(r.returncode == 0, "initdb", r.stdout + r.stderr):
        finish()
    with open(os.path.join(pgdata, "postgresql.conf"), "a") as f:
        f.write("listen_addresses = ''\nunix_socket_directories = '%s'\n"
                "shared_preload_libraries = 'walload'\nwal_level = minimal\nmax_wal_senders = 0\n"
                "autovacuum = off\nwalload.max_stats = 100\n" % sock)
    r = as_pg(bindir + "/pg_ctl", "-D", pgdata, "-l", os.path.join(sock, "server.log"), "-w", "-t", "60", "start")
    if not ok(r.returncode == 0, "the cluster starts with walload preloaded", r.stdout + r.stderr):
        finish()
    setup = psql(None, stdin="\\set ON_ERROR_STOP 1\nCREATE EXTENSION walload;\nCREATE ROLE loader LOGIN;\n"
                 "CREATE DATABASE app OWNER loader;\n")
    setup2 = psql(None, db="app", stdin="\\set ON_ERROR_STOP 1\nCREATE EXTENSION walload;\nSELECT walload_reset();\n")
    ok(setup.returncode == 0 and setup2.returncode == 0, "CREATE EXTENSION walload in postgres and app; role loader",
       setup.stderr + setup2.stderr)
    # the calibration worker sets walload_scan_seconds_per_buffer when it is
    # done: were that between a scrape and the test's read of the views,
    # the two would differ
    try:
        calib = poll("walload's calibration ends", lambda: (lambda v: v if v != "running" else None)(
            rows("SELECT calibration FROM walload_info")[0][0]), 60)
    except TimeoutError as e:
        calib = str(e)
    ok(calib == "done", "walload's calibration is done before the exporters start", calib)
    real_views = rows("SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_depend dep ON dep.objid = c.oid"
                      " AND dep.deptype = 'e' WHERE c.relname IN ('walload_command_totals', 'walload_histograms',"
                      " 'walload_build_info')")[0][0] == "3"
    ok(real_views, "the extension has walload_command_totals, walload_histograms and walload_build_info")

    # ----------------------------------------------------- exporter, Prometheus
    # a process left listening on a port (an earlier run's) would answer in
    # place of the exporter or Prometheus started here, with other figures
    def port_free(port):
        with socket.socket() as sk:
            return sk.connect_ex(("127.0.0.1", port)) != 0
    busy = [p for p in (eport, pport, qport) if not port_free(p)]
    if not ok(not busy, "ports %d, %d and %d are free" % (eport, pport, qport), "in use: %s" % busy):
        finish()
    elog = open(os.path.join(tmp, "exporter.log"), "w")
    env = dict(os.environ, DATA_SOURCE_NAME="host=%s user=postgres dbname=postgres sslmode=disable" % sock)
    procs.append(subprocess.Popen(["prometheus-postgres-exporter", "--web.listen-address=127.0.0.1:%d" % eport,
                                   "--extend.query-path=" + queries, "--disable-default-metrics",
                                   "--disable-settings-metrics", "--log.level=warn"],
                                  env=env, stdout=elog, stderr=subprocess.STDOUT))
    try:
        text = poll("the exporter serves /metrics", lambda: (lambda t: t if "walload_xacts_recorded_total" in t else None)(
            http_get("http://127.0.0.1:%d/metrics" % eport)), 30)
        ok(True, "prometheus-postgres-exporter serves walload's metrics on 127.0.0.1:%d" % eport)
        load_err = [l for l in text.splitlines() if l.startswith("pg_exporter_user_queries_load_error")]
        ok(load_err and all(l.endswith(" 0") for l in load_err), "the exporter loaded the queries file without error",
           "\n".join(load_err))
        ok("pg_exporter_last_scrape_error 0" in text, "the exporter's last scrape of PostgreSQL had no error",
           open(os.path.join(tmp, "exporter.log")).read())
    except TimeoutError as e:
        ok(False, "prometheus-postgres-exporter serves walload's metrics", str(e) + "\n" + open(os.path.join(tmp, "exporter.log")).read())
        finish()

    # query-exporter, the maintained exporter of its own queries file: where
    # it cannot be installed (scripts/deps.sh), its checks are skipped, and
    # under CI=true they fail
    exporters = {"postgres_exporter": eport}
    if not os.access(qe_bin, os.X_OK):
        qe_missing = "%s is not installed (scripts/deps.sh installs it from PyPI)" % qe_bin
        ok(not ci, "query-exporter is installed" + ("" if ci else " # SKIP " + qe_missing), qe_missing)
    else:
        qlog = open(os.path.join(tmp, "query-exporter.log"), "w")
        qenv = dict(os.environ, WALLOAD_DSN="postgresql://postgres@/postgres?host=%s" % sock,
                    PROMETHEUS_DISABLE_CREATED_SERIES="true")
        procs.append(subprocess.Popen([qe_bin, "--config", qe_config, "--host", "127.0.0.1", "--port", str(qport),
                                       "--log-level", "warning"], env=qenv, stdout=qlog, stderr=subprocess.STDOUT))
        try:
            poll("query-exporter serves /metrics", lambda: "walload_xacts_recorded_total{" in
                 http_get("http://127.0.0.1:%d/metrics" % qport), 30)
            ok(True, "query-exporter serves walload's metrics on 127.0.0.1:%d" % qport)
            exporters["query_exporter"] = qport
        except TimeoutError as e:
            ok(False, "query-exporter serves walload's metrics",
               str(e) + "\n" + open(os.path.join(tmp, "query-exporter.log")).read())

    # every collector's file comes from prometheus/metrics.yaml: regenerated
    # here, each must be the committed one; and the check must see an edit
    r = subprocess.run([sys.executable, gen, "--check"], capture_output=True, text=True)
    ok(r.returncode == 0, "prometheus/gen.py --check: every generated file is as metrics.yaml makes it",
       r.stdout + r.stderr)
    edited = os.path.join(tmp, "metrics-edited.yaml")
    with open(edited, "w") as f:
        f.write(open(os.path.join(here, "prometheus", "metrics.yaml")).read().replace(
            "lock_wait_ms / 1000.0", "lock_wait_ms / 1000.0 + 0"))
    r = subprocess.run([sys.executable, gen, "--check", "--source", edited], capture_output=True, text=True)
    ok(r.returncode == 1 and all(f in r.stdout for f in walload_gen.OUTPUTS),
       "the check finds every generated file stale after an edit of metrics.yaml alone", r.stdout + r.stderr)
    if os.access(qe_bin, os.X_OK):
        r = subprocess.run([qe_bin, "--check-only", "--config", qe_config], capture_output=True, text=True,
                           env=dict(os.environ, WALLOAD_DSN="postgresql://postgres@/postgres?host=%s" % sock))
        ok(r.returncode == 0, "query-exporter --check-only accepts walload_query_exporter.yaml", r.stdout + r.stderr)

    # the collectors not obtainable here (otelcol-contrib, sql_exporter,
    # pgwatch: no Debian package, no PyPI one): their files against the
    # fields their documentation requires
    def schema_problems():
        probs = []
        sq = yaml.safe_load(open(os.path.join(here, "prometheus", "walload_sql_exporter.collector.yml")))
        qnames = {q["query_name"] for q in sq["queries"]}
        if sq.get("collector_name") != "walload":
            probs.append("sql_exporter: collector_name")
        for m in sq["metrics"]:
            if set(m) - {"metric_name", "type", "help", "key_labels", "values", "query_ref"} or \
                    m["type"] not in ("counter", "gauge") or m["query_ref"] not in qnames or len(m["values"]) != 1:
                probs.append("sql_exporter: " + m["metric_name"])
        oc = yaml.safe_load(open(os.path.join(here, "prometheus", "walload_otelcol.yaml")))
        rc = oc["receivers"]["sqlquery/walload"]
        if rc["driver"] != "postgres" or not rc["datasource"]:
            probs.append("otelcol: driver/datasource")
        for q in rc["queries"]:
            for m in q.get("metrics", []):
                if set(m) - {"metric_name", "value_column", "value_type", "data_type", "monotonic", "aggregation",
                             "attribute_columns", "description", "unit"} or m["data_type"] not in ("sum", "gauge") or \
                        m["value_type"] not in ("int", "double"):
                    probs.append("otelcol: " + m["metric_name"])
            if q.get("logs") and not q.get("tracking_column"):
                probs.append("otelcol: logs without tracking_column")
        for pl in oc["service"]["pipelines"].values():
            if any(x not in oc["receivers"] for x in pl["receivers"]) or any(x not in oc["exporters"] for x in pl["exporters"]):
                probs.append("otelcol: pipeline")
        pw = yaml.safe_load(open(os.path.join(here, "prometheus", "walload_pgwatch.yaml")))
        for k, m in pw["metrics"].items():
            if not all(isinstance(v, int) for v in m["sqls"]) or any("epoch_ns" not in q for q in m["sqls"].values()):
                probs.append("pgwatch: " + k)
        if set(pw["presets"]["walload"]["metrics"]) != set(pw["metrics"]):
            probs.append("pgwatch: preset")
        return probs
    ok(not schema_problems(), "sql_exporter's, otelcol's and pgwatch's files have the fields their documentation names",
       schema_problems())

    r = subprocess.run(["promtool", "check", "rules", alerts], capture_output=True, text=True)
    ok(r.returncode == 0, "promtool check rules prometheus/walload_alerts.yml", r.stdout + r.stderr)
    r = subprocess.run(["promtool", "test", "rules", alerts_test], capture_output=True, text=True,
                       cwd=os.path.dirname(alerts_test))
    for line in (r.stdout + r.stderr).splitlines():
        print("# promtool: " + line)
    ntests = len(yaml.safe_load(open(alerts_test))["tests"])
    ok(r.returncode == 0 and "SUCCESS" in r.stdout and ntests == len(yaml.safe_load(open(alerts))["groups"][0]["rules"]),
       "promtool test rules prometheus/walload_alerts_test.yml: a firing and a silent case per rule (%d)" % ntests,
       r.stdout + r.stderr)
    broken = os.path.join(tmp, "walload_alerts.yml")
    with open(broken, "w") as f:  # a rule that aggregates the target labels away must fail its unit test
        f.write(open(alerts).read().replace("expr: rate(walload_xacts_overwritten_total[15m]) > 0",
                                            "expr: max by (instance) (rate(walload_xacts_overwritten_total[15m])) > 0"))
    shutil.copy(alerts_test, tmp)
    r = subprocess.run(["promtool", "test", "rules", os.path.basename(alerts_test)], capture_output=True, text=True, cwd=tmp)
    ok(r.returncode != 0 and "WalloadRingOverwriting" in r.stdout + r.stderr,
       "the unit tests fail a rule that keeps only instance (max by (instance))", r.stdout + r.stderr)
    conf = os.path.join(tmp, "prometheus.yml")
    with open(conf, "w") as f:
        f.write("""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %s
scrape_configs:
""" % alerts)
        for job, port in exporters.items():
            f.write("  - job_name: %s\n    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
                    "        labels: {env: test}\n" % (job, port))
    plog = open(os.path.join(tmp, "prometheus.log"), "w")
    procs.append(subprocess.Popen(["prometheus", "--config.file=" + conf, "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
                                   "--web.listen-address=127.0.0.1:%d" % pport, "--log.level=warn"],
                                  stdout=plog, stderr=subprocess.STDOUT))
    try:
        poll("Prometheus is ready", lambda: "Ready" in http_get("http://127.0.0.1:%d/-/ready" % pport), 60)
        poll("the targets are up", lambda: sorted(t["labels"]["job"] for t in prom("targets")["activeTargets"]
                                                  if t["health"] == "up") == sorted(exporters), 30)
        ok(True, "Prometheus scrapes the exporters (%s: targets up)" % ", ".join(sorted(exporters)))
    except TimeoutError as e:
        ok(False, "Prometheus scrapes the exporter", str(e) + "\n" + open(os.path.join(tmp, "prometheus.log")).read())
        finish()

    # --------------------------------------------------------------- the load
    data = "".join("%d\tpayload of row %d, padded to some length\n" % (i, i) for i in range(1, 100001))
    steps = [
        ("app", "loader", "BEGIN;\nCREATE TABLE t (id int, payload text);\nCOPY t FROM STDIN;\n" + data + "\\.\nCOMMIT;\n"),
        ("app", "loader", "INSERT INTO t SELECT g, 'more' FROM generate_series(1, 1000) g;\n"),
        ("app", "loader", "CREATE TABLE u (i int);\n"),
        ("app", "loader", "COPY u FROM STDIN;\nnot a number\n\\.\n"),
        ("app", "loader", "DROP TABLE t;\nDROP TABLE u;\n"),
        ("postgres", "postgres", "CREATE TABLE p (i int);\nINSERT INTO p VALUES (1);\n"),
    ]
    os.environ["PGAPPNAME"] = "walload-load"
    for db, user, script in steps:
        psql(None, db=db, user=user, stdin=script)
    del os.environ["PGAPPNAME"]
    # a backend stores at its commit only what it can without waiting for
    # walload's lock (which the exporter's reads may hold), the rest at its
    # exit: wait until the load's backends are gone, so that the next scrape
    # sees all of it
    poll("the load's backends exit", lambda: rows(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'walload-load'") == [["0"]], 30)
    t_load = time.time()

    def scraped_after(t):
        """the time of the latest scrape, when every exporter's was after t"""
        res = prom("query", query="timestamp(walload_xacts_recorded_total)")["result"]
        ts = [float(r["value"][1]) for r in res]
        return len(ts) == len(exporters) and min(ts) > t and max(ts)

    def series_of(job, t):
        """{(name, labels): value} of the job's walload series; the labels
        the exporter or Prometheus add (instance, job; postgres_exporter's
        server, query-exporter's database) left out"""
        out = {}
        for s in prom("query", query='{__name__=~"walload_.+", job="%s"}' % job, time="%.3f" % t)["result"]:
            m = dict(s["metric"])
            name = m.pop("__name__")
            for k in ("instance", "job", "env", "server", "database"):
                m.pop(k, None)
            if "le" in m:  # 0.001, 1, +Inf: as each exporter writes a float
                m["le"] = repr(float(m["le"]))
            out[(name, tuple(sorted(m.items())))] = float(s["value"][1])
        return out

    t_scrape = poll("a scrape after the load", lambda: scraped_after(t_load), 60)
    got = series_of("postgres_exporter", t_scrape)
    labelnames = {k for key in got for k, _ in key[1]}

    # what the exporter serves for this load, for the log (docs/monitoring.md
    # shows it), read by prometheus_client's parser of the text format
    served = http_get("http://127.0.0.1:%d/metrics" % eport)
    families = {}
    for job, port in sorted(exporters.items()):
        text = served if port == eport else http_get("http://127.0.0.1:%d/metrics" % port)
        # a list, so that two families of one name would show (OpenMetrics
        # forbids it: the counter walload_commit_seconds_total is family
        # walload_commit_seconds, hence the histograms' walload_xact_ names)
        families[job] = [f for f in text_string_to_metric_families(text) if f.name.startswith("walload_")]
    for f in families["postgres_exporter"]:
        for smp in f.samples:
            print("# metrics: %s{%s} %r" % (smp.name, ",".join('%s="%s"' % kv for kv in sorted(smp.labels.items())),
                                              smp.value))
    # the series count per server: what each exporter serves of walload
    nseries = {job: sum(len(f.samples) for f in fams) for job, fams in families.items()}
    print("# walload series per exporter: %s" % nseries)
    ok(all(0 < v <= 300 for v in nseries.values()), "at most 300 walload series per server and exporter: %s" % nseries)
    hist = {f.name for f in families["postgres_exporter"] if f.type == "histogram"}
    ok(hist == {"walload_xact_commit_seconds", "walload_xact_walk_seconds"},
       "postgres_exporter serves walload_xact_commit_seconds and walload_xact_walk_seconds as histograms"
       " (TYPE histogram)", hist)
    dup = {job: sorted(n for n in {f.name for f in fams} if [f.name for f in fams].count(n) > 1)
           for job, fams in families.items()}
    ok(not any(dup.values()), "no two walload families share a name (as OpenMetrics requires)", dup)

    # promtool's lint of the exposition: the exporter's own metrics are in
    # it too, so a complaint about any name fails (Debian's exporter has
    # none); and promtool must be able to complain, or its silence proves
    # nothing: a gauge named as a summary's part is the walload name it
    # flagged before 1.6's rename.  query-exporter cannot serve a
    # pre-aggregated histogram: its gauges named as a histogram's parts are
    # the only complaints allowed, each named.
    qe_parts = {"walload_xact_%s_seconds_%s" % (h, p) for h in ("commit", "walk") for p in ("bucket", "sum", "count")}
    for job, port in sorted(exporters.items()):
        text = served if port == eport else http_get("http://127.0.0.1:%d/metrics" % port)
        r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
        lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
        if job == "postgres_exporter":
            ok(r.returncode == 0 and not lines, "promtool check metrics: nothing to report on %s's /metrics" % job,
               r.stdout + r.stderr)
        else:
            other = [l for l in lines if l.split(" ")[0] not in qe_parts]
            ok(not other and {l.split(" ")[0] for l in lines} == qe_parts,
               "promtool check metrics on %s's /metrics: only its histogram parts served as gauges" % job,
               r.stdout + r.stderr)
    names = {smp.name for f in families["postgres_exporter"] for smp in f.samples}
    ok("walload_recent_commit_seconds" in names and
       not any(smp.name.endswith("_sum") for f in families["postgres_exporter"] if f.type != "histogram"
               for smp in f.samples),
       "the commit phases' sum is walload_recent_commit_seconds; _sum only in the histograms")
    bad_text = ("# HELP walload_recent_commit_seconds_sum Their commit phases, added up\n"
                "# TYPE walload_recent_commit_seconds_sum gauge\nwalload_recent_commit_seconds_sum 0.5\n")
    r = subprocess.run(["promtool", "check", "metrics"], input=bad_text, capture_output=True, text=True)
    ok(r.returncode != 0 and "_sum" in r.stdout + r.stderr,
       "promtool check metrics flags a gauge named walload_recent_commit_seconds_sum", r.stdout + r.stderr)

    # -------------------------------------------------- what the views say
    exp = {}
    info = rows("SELECT xacts_recorded, xacts_overwritten, statements_recorded, statements_overwritten, stats_entries,"
                " stats_evicted, full_scans, scanned_buffers, lock_waits, lock_wait_ms, scan_ns_per_buffer, shmem_bytes,"
                " extract(epoch FROM stats_reset), scans_flush_rel, scans_flush_pending, scans_drop_rel,"
                " scans_drop_pending, scans_db FROM walload_info")[0]
    f = [float(v) for v in info]
    for i, name in enumerate(["xacts_recorded_total", "xacts_overwritten_total", "statements_recorded_total",
                              "statements_overwritten_total", "stats_entries", "stats_evicted_total", "full_scans_total",
                              "scanned_buffers_total", "lock_waits_total"]):
        exp[("walload_" + name, ())] = f[i]
    exp[("walload_lock_wait_seconds_total", ())] = f[9] / 1000
    exp[("walload_scan_seconds_per_buffer", ())] = f[10] / 1e9
    exp[("walload_shmem_bytes", ())] = f[11]
    exp[("walload_stats_reset_timestamp_seconds", ())] = f[12]
    for kind, v in zip(["flush_rel", "flush_pending", "drop_rel", "drop_pending", "db"], f[13:18]):
        exp[("walload_scans_total", (("kind", kind),))] = v
    m_rec, m_over = rows("SELECT minutes_recorded, minutes_overwritten FROM walload_info")[0]
    exp[("walload_minute_sums_recorded_total", ())] = float(m_rec)
    exp[("walload_minute_sums_overwritten_total", ())] = float(m_over)
    sync_ms, cleanup_ms = rows("SELECT commit_sync_ms, commit_cleanup_ms FROM walload_info")[0]
    exp[("walload_commit_seconds_total", (("phase", "sync"),))] = float(sync_ms) / 1000
    exp[("walload_commit_seconds_total", (("phase", "cleanup"),))] = float(cleanup_ms) / 1000
    learned = rows("SELECT fsync_time_ratio, fsync_time_commits, file_commit_us, file_commit_commits,"
                   " scan_time_ratio, scan_time_commits FROM walload_info")[0]
    g = [float(v) for v in learned]
    exp[("walload_learned_fsync_time_ratio", ())] = g[0]
    exp[("walload_learned_fsync_time_commits_total", ())] = g[1]
    exp[("walload_learned_file_commit_seconds", ())] = g[2] / 1e6
    exp[("walload_learned_file_commit_commits_total", ())] = g[3]
    exp[("walload_learned_scan_time_ratio", ())] = g[4]
    exp[("walload_learned_scan_time_commits_total", ())] = g[5]

    for d, u, c, calls, secs, csecs, nrows, walks, wal in rows(
            "SELECT datname, rolname, command, calls, total_seconds, commit_seconds, rows, walks, wal_bytes"
            " FROM walload_command_totals"):
        key = (("command", c), ("datname", d), ("rolname", u))
        for name, v in zip(["calls_total", "seconds_total", "commit_seconds_total", "rows_total", "walks_total",
                            "wal_bytes_total"], [calls, secs, csecs, nrows, walks, wal]):
            exp[("walload_command_" + name, key)] = float(v)
    for metric, le, cnt, sm, mx in rows("SELECT metric, le, count, sum_seconds, max_seconds FROM walload_histograms"):
        name = "walload_xact_" + metric
        exp[(name + "_bucket", (("le", repr(float(le))),))] = float(cnt)
        if le == "Infinity":
            exp[(name + "_count", ())] = float(cnt)
        exp[(name + "_sum", ())] = float(sm)
        exp[(name + "_max", ())] = float(mx)
    for v, sv in rows("SELECT version, sql_version FROM walload_build_info"):
        exp[("walload_build_info", (("sql_version", sv), ("version", v)))] = 1.0

    recent = {}
    for d, u, o, total, commit, sync, clean, scan_ms, scans in rows(
            "SELECT d.datname, r.rolname, x.outcome, x.total_ms, x.commit_ms, x.commit_sync_ms, x.commit_cleanup_ms,"
            " x.est_scan_ms, x.full_scans"
            " FROM walload_xacts x JOIN pg_database d ON d.oid = x.dbid JOIN pg_roles r ON r.oid = x.userid"
            " WHERE x.xact_end > now() - interval '5 minutes'"):
        recent.setdefault((("datname", d), ("outcome", o), ("usename", u)), []).append(
            [float(total), float(commit), float(sync), float(clean), float(scan_ms), float(scans)])
    for key, xs in recent.items():
        exp[("walload_recent_xacts", key)] = len(xs)
        exp[("walload_recent_xact_seconds_max", key)] = max(x[0] for x in xs) / 1000
        exp[("walload_recent_commit_seconds_max", key)] = max(x[1] for x in xs) / 1000
        exp[("walload_recent_commit_seconds", key)] = sum(x[1] for x in xs) / 1000
        exp[("walload_recent_commit_sync_seconds_max", key)] = max(x[2] for x in xs) / 1000
        exp[("walload_recent_commit_sync_seconds", key)] = sum(x[2] for x in xs) / 1000
        exp[("walload_recent_commit_cleanup_seconds_max", key)] = max(x[3] for x in xs) / 1000
        exp[("walload_recent_commit_cleanup_seconds", key)] = sum(x[3] for x in xs) / 1000
        exp[("walload_recent_scan_seconds_max", key)] = max(x[4] for x in xs) / 1000
        exp[("walload_recent_full_scans", key)] = sum(x[5] for x in xs)

    # ------------------------------------------------- no column is NULL
    # every query of every generated configuration, on the loaded server:
    # no row has a NULL column (the OpenTelemetry receiver fails on one;
    # the exporters would drop or zero the value)
    wq, wlogs = walload_gen.load(os.path.join(here, "prometheus", "metrics.yaml"))
    all_sql = [("postgres_exporter " + k, q["query"]) for k, q in yaml.safe_load(open(queries)).items()]
    all_sql += [("flat " + name, sql) for name, _, sql, _, _ in walload_gen.flat(wq)]
    all_sql += [("logs " + l["name"], l["sql"].replace("$1", "0")) for l in wlogs]

    def null_rows(sql):
        return int(rows("SELECT count(*) FROM (%s) AS q WHERE NOT (q IS NOT NULL)" % sql.strip())[0][0])
    nulls = {}
    for what, sql in all_sql:
        try:
            nulls[what] = null_rows(sql)
        except RuntimeError as e:
            nulls[what] = str(e)
    ok(all(v == 0 for v in nulls.values()), "no row of the %d queries of the configurations has a NULL column" % len(nulls),
       {k: v for k, v in nulls.items() if v != 0})
    ok(null_rows("SELECT 1 AS a, NULL::int AS b") == 1, "the NULL check finds a NULL column")
    lr = rows("SELECT count(*), count(DISTINCT xact_id) FROM (%s) AS q" % wlogs[0]["sql"].replace("$1", "0").strip())[0]
    ok(lr[0] == lr[1] and lr[0] != "0", "the logs query: one row per transaction, its tracking column xact_id unique", lr)

    # ------------------------------------------------------------ compare
    def fmt(keys):
        return "\n".join("%s{%s}" % (k[0], ",".join("%s=%s" % kv for kv in k[1])) for k in sorted(keys))

    for job in sorted(exporters):
        gj = got if job == "postgres_exporter" else series_of(job, t_scrape)
        ok(set(gj) == set(exp), "%s: Prometheus has exactly the walload series the views give (%d series)" % (job, len(exp)),
           "missing in Prometheus:\n" + fmt(set(exp) - set(gj)) + "\nnot from the views:\n" + fmt(set(gj) - set(exp)))
        bad = [(k, exp[k], gj[k]) for k in sorted(set(exp) & set(gj))
               if not math.isclose(exp[k], gj[k], rel_tol=1e-9, abs_tol=1e-12)]
        ok(not bad, "%s: every value in Prometheus equals the view's (%d compared)" % (job, len(set(exp) & set(gj))),
           "\n".join("%s: view %r, Prometheus %r" % (fmt([k]), e, g) for k, e, g in bad))

    def g(name, **labels):
        return got.get((name, tuple(sorted(labels.items()))))

    ok(g("walload_scans_total", kind="flush_pending") == 1, "the load's commit-time sync: walload_scans_total{kind=\"flush_pending\"} = 1",
       g("walload_scans_total", kind="flush_pending"))
    ok(g("walload_scans_total", kind="drop_pending") == 2, "the two DROP TABLEs: walload_scans_total{kind=\"drop_pending\"} = 2",
       g("walload_scans_total", kind="drop_pending"))
    ok(g("walload_scans_total", kind="db") == 0, "no DROP DATABASE: walload_scans_total{kind=\"db\"} = 0",
       g("walload_scans_total", kind="db"))
    ok(g("walload_command_calls_total", datname="app", rolname="loader", command="COPY") == 2,
       "loader's COPYs in app: 2 calls", g("walload_command_calls_total", datname="app", rolname="loader", command="COPY"))
    ok(g("walload_command_calls_total", datname="postgres", rolname="postgres", command="CREATE TABLE") == 1,
       "postgres' CREATE TABLE in postgres: 1 call, in a series of its own")
    lc = dict(datname="app", usename="loader", outcome="commit")
    phases = (g("walload_recent_commit_seconds", **lc), g("walload_recent_commit_sync_seconds", **lc),
              g("walload_recent_commit_cleanup_seconds", **lc))
    ok(None not in phases and phases[1] > 0 and phases[2] > 0 and
       math.isclose(phases[0], phases[1] + phases[2], rel_tol=1e-6),
       "loader's commits in app: sync and cleanup phases both > 0, adding up to the commit time", phases)
    ok(g("walload_recent_commit_seconds", datname="app", usename="loader", outcome="abort") is not None and
       not any(("outcome", "prepare") in k[1] for k in got),
       "the failed COPY has an outcome=\"abort\" series; nothing was prepared: no outcome=\"prepare\" series")
    lt = dict(datname="app", rolname="loader")
    charged = {c: g("walload_command_commit_seconds_total", command=c, **lt)
               for c in ("CREATE TABLE", "DROP TABLE", "COPY", "INSERT")}
    ok(charged["CREATE TABLE"] is not None and charged["CREATE TABLE"] > 0 and
       charged["DROP TABLE"] is not None and charged["DROP TABLE"] > 0 and
       charged["COPY"] == 0 and charged["INSERT"] == 0,
       "loader's commit time charged: CREATE TABLE (its files synced or WAL-logged) and DROP TABLE (deleted) > 0,"
       " COPY and INSERT (no file of theirs) 0", charged)
    ok(not any(k[0] == "walload_command_calls_total" and ("command", "VACUUM") in k[1] for k in got),
       "no VACUUM ran: no series with command=\"VACUUM\"")
    ok(labelnames <= {"kind", "phase", "datname", "usename", "rolname", "command", "outcome", "le", "version",
                      "sql_version"},
       "labels are only kind, phase, datname, usename, rolname, command, outcome, le, version, sql_version",
       sorted(labelnames))
    # the histograms: every transaction recorded since the reset is counted
    # in them (the load's, the exporters' own reads are no transactions of
    # walload's), buckets cumulative, the largest commit its max
    bk = sorted((float(dict(k[1])["le"]), v) for k, v in got.items() if k[0] == "walload_xact_commit_seconds_bucket")
    ok(bk and bk[-1][0] == math.inf and all(a[1] <= b[1] for a, b in zip(bk, bk[1:])) and
       g("walload_xact_commit_seconds_count") == bk[-1][1] and bk[-1][1] > 0,
       "walload_xact_commit_seconds: cumulative buckets up to +Inf, whose count is _count (%s)" % (bk[-1:] or None), bk)
    # (the ring has overwritten nothing yet: it holds every one of them)
    xr = rows("SELECT i.xacts_recorded, (SELECT coalesce(max(commit_ms), 0) / 1000.0 FROM walload_xacts),"
              " i.xacts_overwritten FROM walload_info i")[0]
    ok(g("walload_xact_commit_seconds_count") == float(xr[0]) and xr[2] == "0" and
       math.isclose(g("walload_xact_commit_seconds_max"), float(xr[1]), rel_tol=1e-9),
       "walload_xact_commit_seconds_count = walload_info.xacts_recorded, _max = the longest commit in walload_xacts",
       (g("walload_xact_commit_seconds_count"), g("walload_xact_commit_seconds_max"), xr))
    les = {(m, float(le)) for m, le in rows("SELECT metric, le FROM walload_histograms")}
    ok(("commit_seconds", 5.0) in les and ("walk_seconds", 1.0) in les and ("commit_seconds", math.inf) in les,
       "walload_histograms has the buckets the alerts read: commit_seconds le=5, walk_seconds le=1, +Inf")
    bi = [k for k in got if k[0] == "walload_build_info"]
    ok(len(bi) == 1 and got[bi[0]] == 1, "walload_build_info{version, sql_version} = 1, one series", bi)
    values = {v for k in got for _, v in k[1]}
    ok(not any("FROM" in v or "generate_series" in v or v.isdigit() for v in values),
       "no label value is a query text or a query id", sorted(values))

    rules = [r for grp in prom("rules")["groups"] for r in grp["rules"]]
    nrules = len(yaml.safe_load(open(alerts))["groups"][0]["rules"])
    ok(len(rules) == nrules and all(r["health"] == "ok" for r in rules),
       "Prometheus loaded the %d alerting rules, all healthy" % nrules, json.dumps(rules)[:2000])
    ok(prom("alerts")["alerts"] == [], "no alert fires for this small load", prom("alerts"))

    # -------------------------------------------------------- the dashboard
    # Grafana is not here: its variables are given the values Grafana would
    # give them for "all servers, the last 5 minutes", and each query goes
    # to the real Prometheus that scraped the load.  A panel that answers
    # nothing shows "No data": as much a failure as an error.
    grafana_vars = {"$__rate_interval": "1m", "$__range": "5m", "$instance": ".+", "$job": ".+", "$env": ".*"}

    def answer(expr, t):
        """(result, why not): why not is None when Prometheus answers a non-empty result"""
        for k, v in grafana_vars.items():
            expr = expr.replace(k, v)
        if "$" in expr:
            return None, "a variable this test does not know: " + expr
        try:
            res = prom("query", query=expr, time="%.3f" % t)["result"]
        except Exception as e:  # Prometheus' HTTP 400 for a bad query
            return None, "error: %s" % getattr(e, "read", lambda: str(e).encode())().decode(errors="replace")
        return res, None if res else "empty: " + expr

    dash = json.load(open(dashboard))
    targets = [(p["title"], t["refId"], t["expr"]) for p in dash["panels"] for t in p.get("targets", [])]
    ok(len({p["id"] for p in dash["panels"]}) == len(dash["panels"]) and
       all(p.get("targets") or p["type"] in ("alertlist", "text", "row") for p in dash["panels"]),
       "dashboard: %d panels, ids unique, each with a query but the alert list (%d queries)" % (len(dash["panels"]), len(targets)))
    ok(answer("walload_no_such_metric", t_scrape)[1] and answer("sum(walload_scans_total", t_scrape)[1] and
       answer("walload_scans_total{instance=~\"$server\"}", t_scrape)[1],
       "a query of no series, a syntax error and an unknown variable each count as a panel's failure")
    # the series of statements appear with the load: rate() and increase()
    # need two of their samples, a few scrapes after the load; the top
    # commands answer as soon as an older series (a SELECT before the load)
    # has two, so the load's commands are waited for there too
    load_cmds = {"COPY", "CREATE TABLE", "DROP TABLE"}
    top_expr = [e for t, _, e in targets if t.startswith("Top commands by time")][0]

    def dash_ready(t):
        got = {e: answer(e, t) for _, _, e in targets}
        return t if all(why is None for _, why in got.values()) and load_cmds <= {
            r["metric"].get("command") for r in got[top_expr][0] or []} else None
    try:
        t_dash = poll("every panel answers, the load's commands among the top ones",
                      lambda: dash_ready(time.time()), 20)
    except TimeoutError:
        t_dash = time.time()
    for title, ref, expr in targets:
        res, why = answer(expr, t_dash)
        ok(why is None, "dashboard panel \"%s\" (%s) answers (%d series)" % (title, ref, len(res or [])), why)
    lv = {v["name"]: v for v in dash["templating"]["list"] if v["type"] == "query"}
    want_vals = {"job": sorted(exporters), "env": ["test"],
                 "instance": sorted("127.0.0.1:%d" % p for p in exporters.values())}
    ok(sorted(lv) == sorted(want_vals), "dashboard variables: job, env, instance", sorted(lv))
    for name, v in sorted(lv.items()):
        q = v["query"]["query"]
        metric, label = q[len("label_values("):-1].rsplit(", ", 1)
        for k, val in grafana_vars.items():
            metric = metric.replace(k, val)
        vals = prom("label/%s/values" % label, **{"match[]": metric})
        ok(vals == want_vals.get(name), "dashboard variable $%s (%s): %s" % (name, q, want_vals.get(name)), vals)
    al = [p for p in dash["panels"] if p["type"] == "alertlist"]
    ok(len(al) == 1 and "datasource" not in al[0]["options"] and "datasource" not in al[0] and
       "${datasource}" not in json.dumps(al[0]),
       "the alert list names no data source (its datasource option takes a rules source's name, never"
       " interpolated: none lists every source's rules)", al)
    # Grafana's dashboard schema, as the grafana-foundation-sdk models it
    # (PyPI; scripts/deps.sh installs it into a virtualenv): every key the
    # dashboard, its panels, variables and targets use is a field of the
    # model (a round trip through Dashboard.from_json keeps it)
    if os.access(gf_python, os.X_OK):
        r = subprocess.run([gf_python, "-c", GF_CHECK, dashboard], capture_output=True, text=True)
        ok(r.returncode == 0 and r.stdout.strip() == "ok",
           "grafana-foundation-sdk's Dashboard model has every field the dashboard uses", r.stdout + r.stderr)
        bogus = os.path.join(tmp, "dashboard-bogus.json")
        with open(bogus, "w") as f:
            json.dump(dict(dash, panels=[dict(dash["panels"][0], datasourse="typo")] + dash["panels"][1:]), f)
        r = subprocess.run([gf_python, "-c", GF_CHECK, bogus], capture_output=True, text=True)
        ok("panels[0].datasourse" in r.stdout, "the same check finds a panel's misspelt field", r.stdout + r.stderr)
    else:
        ok(not ci, "grafana-foundation-sdk is installed" + ("" if ci else " # SKIP %s is missing (scripts/deps.sh)" % gf_python))
    def panel_result(prefix):
        return answer([e for t, _, e in targets if t.startswith(prefix)][0], t_dash)[0] or []

    scans = {s["metric"].get("kind") for s in panel_result("Full scans")}
    ok(scans == {"flush_rel", "flush_pending", "drop_rel", "drop_pending", "db"},
       "the scans panel's series: one per kind", scans)
    top = panel_result("Top commands by time")
    ok({s["metric"].get("command") for s in top} >= load_cmds and
       not any(s["metric"].get("command") == "VACUUM" for s in top),
       "top commands by time: COPY, CREATE TABLE, DROP TABLE there; no VACUUM",
       [s["metric"] for s in top])

    # ------------------------------ counters that only rise, a commit never lost
    # 3,000 distinct CREATE TABLE/DROP TABLE pairs (each text its own
    # walload_stats aggregate) through walload.max_stats = 100, and 6,000
    # transactions through the 1,000-entry ring: between a scrape before and
    # one after, each exporter's command counters rise by exactly the
    # pairs, with no counter reset in between, and the commit histogram
    # still holds the load's longest commit and counts every transaction.
    # (That walload_stats' sums, which 1.9's series read, fall behind here
    # is test/t/140_metrics_command_totals.pl's case where it must not
    # hold.)
    def scrape_values(t, expr):
        return {s["metric"]["job"]: float(s["value"][1]) for s in prom("query", query=expr, time="%.3f" % t)["result"]}
    drop_sel = 'walload_command_calls_total{datname="app",rolname="loader",command="DROP TABLE"}'
    t_before = time.time()
    t0 = poll("a scrape before the pairs", lambda: scraped_after(t_before), 15)
    before = scrape_values(t0, drop_sel)
    max_before = scrape_values(t0, "walload_xact_commit_seconds_max")
    npairs = 3000
    psql(None, db="app", user="loader",
         stdin="".join("CREATE TABLE pair_%d (i int);\nDROP TABLE pair_%d;\n" % (i, i) for i in range(npairs)))
    poll("the pairs' backend exits", lambda: rows(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = 'app' AND usename = 'loader'") == [["0"]], 30)
    t_pairs = time.time()
    t1 = poll("a scrape after the pairs", lambda: scraped_after(t_pairs), 30)
    after = scrape_values(t1, drop_sel)
    window = "%ds" % (int(t1 - t0) + 2)
    resets = scrape_values(t1, "resets(%s[%s])" % (drop_sel, window))
    evicted = float(rows("SELECT stats_evicted FROM walload_info")[0][0])
    cnt = scrape_values(t1, "walload_xact_commit_seconds_count")
    rec = scrape_values(t1, "walload_xacts_recorded_total")
    max_after = scrape_values(t1, "walload_xact_commit_seconds_max")
    for job in sorted(exporters):
        rises = after.get(job, 0) - before.get(job, 0)
        exact = rises == npairs and resets.get(job) == 0
        lost = cnt.get(job) != rec.get(job) or max_after.get(job, 0) < max_before.get(job, 0)
        print("# %s: DROP TABLE calls %r -> %r (+%r), resets %r; commits counted %r of %r recorded; max %r -> %r;"
              " %d aggregates evicted" % (job, before.get(job), after.get(job), rises, resets.get(job), cnt.get(job),
                                          rec.get(job), max_before.get(job), max_after.get(job), evicted))
        ok(exact, "%s: %d distinct DROP TABLE through walload.max_stats = 100 (%d evicted): the counter rose by"
           " exactly %d, no reset" % (job, npairs, evicted, npairs), (before.get(job), after.get(job), resets.get(job)))
        ok(not lost, "%s: after %d more transactions through the ring, walload_xact_commit_seconds_count = the"
           " transactions recorded and _max still the load's longest commit" % (job, 2 * npairs),
           (cnt.get(job), rec.get(job), max_before.get(job), max_after.get(job)))

    # ------------------------------------------------- after walload_reset()
    psql("SELECT walload_reset()")
    t_reset = time.time()
    want = [("walload_full_scans_total", "0"), ("walload_xacts_recorded_total", "0")]
    # the command totals: at 0 or gone (the reset empties them)
    # query-exporter drops a series its query no longer returns only once
    # the metric's expiration (2 s) has passed: poll, for both, a while
    for job in sorted(exporters):
        seen = []

        def reset_seen():
            t2 = scraped_after(t_reset)
            if not t2:
                return None
            after = prom("query", query='{__name__=~"walload_(xacts_recorded|full_scans|command_calls)_total",'
                         'job="%s"}' % job, time="%.3f" % t2)["result"]
            seen[:] = sorted(set((s["metric"]["__name__"], s["value"][1]) for s in after) -
                             {("walload_command_calls_total", "0")})
            return seen == want
        try:
            poll("%s after walload_reset()" % job, reset_seen, 15)
        except TimeoutError:
            pass
        ok(seen == want, "%s, within 15 s of walload_reset(): counters at 0, the command totals at 0 or gone" % job, seen)

    # ------------------------------------------------- walload absent
    # DROP EXTENSION: every query fails; no exporter may serve the last
    # values as if they were current (query-exporter: the expiration)
    r = psql("DROP EXTENSION walload CASCADE")
    ok(r.returncode == 0, "DROP EXTENSION walload in the exporters' database", r.stderr)
    t_drop = time.time()
    for job, port in sorted(exporters.items()):
        def walload_samples():
            fams = text_string_to_metric_families(http_get("http://127.0.0.1:%d/metrics" % port))
            return [smp.name for f in fams if f.name.startswith("walload_") for smp in f.samples]
        try:
            left = poll("%s without walload" % job, lambda: (lambda x: "none" if not x else None)(walload_samples()), 15)
        except TimeoutError:
            left = walload_samples()
        ok(left == "none", "%s serves no walload series within 15 s of DROP EXTENSION walload (%.0f s)"
           % (job, time.time() - t_drop), left)
except Exception as e:  # an unexpected failure is a failed test, with its cause
    import traceback
    ok(False, "the test ran to its end", traceback.format_exc())
finally:
    cleanup()
finish()
