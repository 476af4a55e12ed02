"""The Python face of scripts/lib/cluster.sh: a throwaway cluster made,
started, stopped and addressed by that shell library (so there is one way),
for Python callers (bench/run.py).

    from cluster import Cluster
    c = Cluster("/tmp/x/a", bindir)        # DIR as in cluster.sh
    c.init({"shared_buffers": "1GB"})      # initdb + settings
    c.config({"wal_level": "minimal"})     # replace the settings (stopped)
    c.start(); c.psql("SELECT 1"); c.stop()

As root the cluster runs as the postgres OS user (cluster.sh's default);
as_postgres() runs any other command so, with PGHOST/PGPORT/PGUSER set.
"""
import os
import subprocess
import time

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cluster.sh")


def pgconfig(opt):
    return subprocess.check_output([os.environ.get("PG_CONFIG", "pg_config"), opt],
                                   text=True).strip()


def settings_args(settings):
    """{"name": "value"} -> ["name = value", ...]; a value is written as
    given (quote strings: "'8GB'")."""
    return ["%s = %s" % (k, v) for k, v in (settings or {}).items()]


class Cluster:
    """A throwaway cluster in ROOT (ROOT/data, ROOT/server.log, its socket in
    ROOT), reached only through that socket."""

    PORT = "5432"      # names the socket file; there is no TCP port

    def __init__(self, root, bindir=None):
        self.root = root
        self.bindir = bindir or pgconfig("--bindir")
        self.data = os.path.join(root, "data")
        self.sock = root
        self.port = self.PORT
        self.log = os.path.join(root, "server.log")
        self.env = dict(os.environ, PGHOST=self.sock, PGPORT=self.port, PGUSER="postgres",
                        PGDATABASE="postgres", PATH=self.bindir + ":" + os.environ["PATH"])

    def _lib(self, *args, **kw):
        env = dict(os.environ, cluster_bindir=self.bindir)
        r = subprocess.run(["bash", LIB] + list(args), env=env, capture_output=True, text=True, **kw)
        if r.returncode != 0:
            raise RuntimeError("%s failed:\n%s%s" % (" ".join(args[:2]), r.stdout[-3000:], r.stderr[-3000:]))
        return r.stdout

    def init(self, settings=None):
        self._lib("cluster_init", self.root, *settings_args(settings))

    def config(self, settings=None):
        self._lib("cluster_config", self.root, *settings_args(settings))

    def clone(self, template, settings=None):
        self._lib("cluster_clone", template.root, self.root, *settings_args(settings))

    def start(self, settings=None):
        """Start (with these settings first, if given)."""
        if settings is not None:
            self.config(settings)
        self._lib("cluster_start", self.root)

    def stop(self):
        self._lib("cluster_stop", self.root)

    def running(self):
        return os.path.exists(os.path.join(self.data, "postmaster.pid"))

    def wait_for_calibration(self, timeout=300):
        """Return once walload's calibration worker, started with the server
        and timing the walks and the storage for a few seconds, is idle (its
        ps title ends in "idle"; the extension may not be created yet, so it
        is looked for among the postmaster's children); at once without
        walload loaded or with walload.calibration = off; RuntimeError after
        timeout seconds."""
        if self.psql("SELECT current_setting('walload.calibration', true)", check=False) != "on":
            return
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            pm = f.readline().strip()
        deadline = time.time() + timeout
        while True:
            r = subprocess.run(["ps", "-o", "args=", "--ppid", pm], capture_output=True, text=True)
            if "walload calibration idle" in r.stdout:
                return
            if time.time() > deadline:
                raise RuntimeError("walload's calibration worker was not idle within %d s" % timeout)
            time.sleep(0.1)

    def as_postgres(self, args, **kw):
        pre = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run(pre + args, env=self.env, cwd=self.root, **kw)

    def psql(self, sql, db="postgres", check=True):
        r = self.as_postgres([os.path.join(self.bindir, "psql"), "-X", "-q", "-At",
                              "-v", "ON_ERROR_STOP=1", "-d", db, "-c", sql],
                             capture_output=True, text=True)
        if check and r.returncode != 0:
            raise RuntimeError("psql failed: %s\n%s" % (sql, r.stderr))
        return r.stdout.strip()
