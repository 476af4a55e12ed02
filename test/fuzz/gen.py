#!/usr/bin/env python3
"""Seeded random bulk-load scenarios for the uprobe oracle (test/oracle/).

    gen.py SEED [--units N] [--keep 0,3,5] [--name NAME] > NN_fuzz_sSEED.sql

A scenario is a list of independent *units*.  Each unit owns its objects
(names start with its prefix, u<i>_) and never touches another unit's, so
any subset of the units is still a valid scenario: that is what the shrinker
(shrink.sh) relies on.  A unit is a short sequence of operations from
walload's domain (CREATE TABLE with and without a key, CREATE TABLE AS,
COPY, INSERT ... SELECT, CREATE INDEX, TRUNCATE, DROP, ALTER TABLE rewrites
and SET TABLESPACE, VACUUM (FULL), CLUSTER, REFRESH, sequences, temporary
and unlogged tables, CREATE / DROP DATABASE) placed in one nesting shape:
top level, a transaction block, SAVEPOINT / ROLLBACK TO, an SQL function, a
plpgsql function, DO, a procedure with COMMIT and ROLLBACK, PREPARE /
EXECUTE, a cursor with FETCH between other statements, an EXCEPTION block
that catches an injected error, a transaction that fails and is rolled
back, PREPARE TRANSACTION / COMMIT PREPARED (or ROLLBACK PREPARED).  Tables
are small (100 rows) or large (50,000 rows, about 3.5 MB, above the default
wal_skip_threshold of 2 MB).

The output is an oracle scenario: a header with the exact number of ERRORs
the scenario provokes at top level (@errors), the settings that make both
judges see every nesting level (walload.track = all,
pg_stat_statements.track = all), then the units.  The same seed always
gives the same text (Python's random.Random is stable across versions for
these calls).
"""
import random
import sys

SMALL, LARGE = 100, 50000


class Unit:
    def __init__(self, rng, i):
        self.rng = rng
        self.p = "u%d_" % i
        self.i = i
        self.errors = 0          # ERRORs printed at top level


def rows(rng):
    return LARGE if rng.random() < 0.3 else SMALL


def table_ops(rng, u, t, n_ops, allow_nontx, temp_ok=True, allow_copy=True):
    """A sequence of statements on table t (created by the first one).
    allow_nontx: VACUUM and friends (only at top level, outside a block)."""
    ops = []
    kind = rng.choice(["plain", "plain", "pkey", "unlogged", "temp"] if temp_ok
                      else ["plain", "plain", "pkey", "unlogged"])
    n = rows(rng)
    if kind == "temp":
        n = SMALL                    # see test/oracle/README.md, Limits
    pre = {"plain": "", "pkey": "", "unlogged": "UNLOGGED ", "temp": "TEMP "}[kind]
    key = " PRIMARY KEY" if kind == "pkey" else ""
    if rng.random() < 0.3 and kind != "pkey":
        ops.append("CREATE %sTABLE %s AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, %d) g"
                   % (pre, t, n))
    else:
        ops.append("CREATE %sTABLE %s (id int%s, v text)" % (pre, t, key))
    st = {"index": False, "ts": False, "col": 0, "next": n + 1, "rows": 0}
    for _ in range(n_ops):
        choices = ["insert", "insert", "index", "truncate", "rewrite", "settablespace", "copy",
                   "cluster", "select"]
        if not allow_copy:
            choices.remove("copy")
        if allow_nontx:
            choices += ["vacuum", "vacuumfull"]
        op = rng.choice(choices)
        if op == "insert":
            m = rows(rng) if kind != "temp" else SMALL
            ops.append("INSERT INTO %s SELECT g, md5(g::text) FROM generate_series(%d, %d) g"
                       % (t, st["next"], st["next"] + m - 1))
            st["next"] += m
        elif op == "copy":
            m = rows(rng) if kind != "temp" else SMALL
            ops.append("COPY %s (id) FROM PROGRAM 'seq %d %d'" % (t, st["next"], st["next"] + m - 1))
            st["next"] += m
        elif op == "index":
            if st["index"]:
                ops.append("REINDEX TABLE %s" % t)
            else:
                ops.append("CREATE INDEX %si ON %s (id)" % (t, t))
                st["index"] = True
        elif op == "truncate":
            ops.append("TRUNCATE %s" % t)
        elif op == "rewrite":
            st["col"] += 1
            ops.append("ALTER TABLE %s ADD COLUMN c%d float8 DEFAULT random()" % (t, st["col"]))
        elif op == "settablespace":
            if kind == "temp":
                continue
            ops.append("ALTER TABLE %s SET TABLESPACE %s" % (t, "pg_default" if st["ts"] else "oracle_ts"))
            st["ts"] = not st["ts"]
        elif op == "cluster":
            if not st["index"] or kind == "temp":
                continue
            ops.append("CLUSTER %s USING %si" % (t, t))
        elif op == "select":
            ops.append("SELECT count(*) FROM %s" % t)
        elif op == "vacuum":
            ops.append("VACUUM %s" % t)
        elif op == "vacuumfull":
            ops.append("VACUUM FULL %s" % t)
    if rng.random() < 0.4:
        ops.append("DROP TABLE %s" % t)
    return ops, kind


def plpgsql(stmts):
    out = []
    for s in stmts:
        out.append("PERFORM " + s[len("SELECT "):] if s.startswith("SELECT ") else s)
    return out


def unit_sql(rng, i):
    u = Unit(rng, i)
    p = u.p
    t = p + "t"
    shape = rng.choice(["top", "xact", "savepoint", "sqlfunc", "plpgsql", "do", "procedure",
                        "prepare", "cursor", "exception", "failing_xact", "twophase", "matview",
                        "sequence", "database", "forloop"])
    out = ["-- unit %d: %s" % (i, shape)]
    n_ops = rng.randint(1, 4)
    if shape == "top":
        ops, _ = table_ops(rng, u, t, n_ops, allow_nontx=True)
        out += [s + ";" for s in ops]
    elif shape == "xact":
        ops, _ = table_ops(rng, u, t, n_ops, allow_nontx=False)
        end = rng.choice(["COMMIT", "COMMIT", "ROLLBACK"])
        out += ["BEGIN;"] + [s + ";" for s in ops] + [end + ";"]
    elif shape == "savepoint":
        ops, _ = table_ops(rng, u, t, n_ops + 1, allow_nontx=False)
        k = rng.randint(1, len(ops) - 1)
        out += ["BEGIN;"] + [s + ";" for s in ops[:k]] + ["SAVEPOINT %ss;" % p]
        inner, _ = table_ops(rng, u, p + "st", rng.randint(1, 3), allow_nontx=False)
        out += [s + ";" for s in inner]
        if rng.random() < 0.3:
            out.append("SELECT 1/0;")
            u.errors += 1
            out.append("ROLLBACK TO SAVEPOINT %ss;" % p)
        else:
            out.append(rng.choice(["ROLLBACK TO SAVEPOINT", "RELEASE SAVEPOINT"]) + " %ss;" % p)
        out += [s + ";" for s in ops[k:] if not s.startswith("DROP")] + ["COMMIT;"]
    elif shape == "sqlfunc":
        # before 18 an SQL function's body is analysed as a whole before it
        # runs: its table must exist when it is called
        out.append("CREATE TABLE %s (id int, v text);" % t)
        body = []
        nxt = 1
        for _ in range(n_ops):
            op = rng.choice(["insert", "insert", "truncate", "index", "copy"])
            if op == "insert":
                m = rows(rng)
                body.append("INSERT INTO %s SELECT g, md5(g::text) FROM generate_series(%d, %d) g"
                            % (t, nxt, nxt + m - 1))
                nxt += m
            elif op == "copy":
                m = rows(rng)
                body.append("COPY %s (id) FROM PROGRAM 'seq %d %d'" % (t, nxt, nxt + m - 1))
                nxt += m
            elif op == "truncate":
                body.append("TRUNCATE %s" % t)
            else:
                body.append("CREATE INDEX ON %s (id)" % t)
        out.append("CREATE FUNCTION %sf() RETURNS void LANGUAGE sql AS $f$\n  %s;\n$f$;"
                   % (p, ";\n  ".join(body)))
        out.append("SELECT %sf();" % p)
        if rng.random() < 0.5:
            out.append("SELECT %sf();" % p)
        if rng.random() < 0.5:
            out.append("DROP TABLE %s;" % t)
    elif shape in ("plpgsql", "do"):
        ops, _ = table_ops(rng, u, t, n_ops, allow_nontx=False)
        body = "\n  ".join(s + ";" for s in plpgsql(ops))
        if shape == "do":
            out.append("DO $d$\nBEGIN\n  %s\nEND\n$d$;" % body)
        else:
            out.append("CREATE FUNCTION %sf() RETURNS int LANGUAGE plpgsql AS $f$\nBEGIN\n  %s\n  RETURN 1;\nEND\n$f$;"
                       % (p, body))
            out.append("SELECT %sf();" % p)
    elif shape == "procedure":
        ops, _ = table_ops(rng, u, t, n_ops + 1, allow_nontx=False, temp_ok=False)
        body = []
        for s in plpgsql(ops):
            body.append(s + ";")
            r = rng.random()
            if r < 0.4:
                body.append("COMMIT;")
            elif r < 0.55:
                body.append("ROLLBACK;")
        # a ROLLBACK may have undone the CREATE: the statements after it
        # would fail, so the unit ends with the transaction it is in
        fixed, created = [], True
        for s in body:
            fixed.append(s)
            if s == "ROLLBACK;":
                break
        out.append("CREATE PROCEDURE %sp() LANGUAGE plpgsql AS $f$\nBEGIN\n  %s\nEND\n$f$;"
                   % (p, "\n  ".join(fixed)))
        out.append("CALL %sp();" % p)
    elif shape == "prepare":
        out.append("CREATE TABLE %s (id int, v text);" % t)
        m = rows(rng)
        out.append("PREPARE %sq(int) AS INSERT INTO %s SELECT g, md5(g::text) FROM generate_series($1, $1 + %d) g;"
                   % (p, t, m - 1))
        wrap = rng.random() < 0.5
        if wrap:
            out.append("BEGIN;")
        for k in range(rng.randint(1, 3)):
            out.append("EXECUTE %sq(%d);" % (p, 1 + k * m))
            if rng.random() < 0.4:
                out.append("TRUNCATE %s;" % t)
        if wrap:
            out.append(rng.choice(["COMMIT;", "ROLLBACK;"]))
        out.append("DEALLOCATE %sq;" % p)
    elif shape == "cursor":
        out.append("CREATE TABLE %s AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, %d) g;"
                   % (t, rows(rng)))
        out.append("BEGIN;")
        out.append("DECLARE %sc CURSOR FOR SELECT id FROM %s ORDER BY id;" % (p, t))
        ops, _ = table_ops(rng, u, p + "o", n_ops, allow_nontx=False)
        for s in ops:
            out.append("FETCH 3 FROM %sc;" % p)
            out.append(s + ";")
        out.append("FETCH 3 FROM %sc;" % p)
        out.append("CLOSE %sc;" % p)
        out.append(rng.choice(["COMMIT;", "ROLLBACK;"]))
    elif shape == "forloop":
        out.append("CREATE TABLE %s AS SELECT g AS id FROM generate_series(1, 5) g;" % t)
        ops, _ = table_ops(rng, u, p + "o", 0, allow_nontx=False, temp_ok=False)
        out.append(ops[0] + ";")
        out.append("DO $d$\nDECLARE r record;\nBEGIN\n  FOR r IN SELECT id FROM %s LOOP\n"
                   "    INSERT INTO %so SELECT r.id * 1000000 + g, md5(g::text) FROM generate_series(1, %d) g;\n"
                   "  END LOOP;\nEND\n$d$;" % (t, p, rows(rng) // 5))
    elif shape == "exception":
        ops, _ = table_ops(rng, u, t, n_ops, allow_nontx=False)
        inner, _ = table_ops(rng, u, p + "x", rng.randint(1, 3), allow_nontx=False)
        body = ["  " + s + ";" for s in plpgsql(ops)]
        body += ["  BEGIN"] + ["    " + s + ";" for s in plpgsql(inner)]
        body += ["    PERFORM 1/0;", "  EXCEPTION WHEN division_by_zero THEN", "    NULL;", "  END;"]
        out.append("DO $d$\nBEGIN\n%s\nEND\n$d$;" % "\n".join(body))
    elif shape == "failing_xact":
        ops, _ = table_ops(rng, u, t, n_ops, allow_nontx=False)
        k = rng.randint(1, len(ops))
        out += ["BEGIN;"] + [s + ";" for s in ops[:k]]
        if ops[k - 1].startswith("DROP"):
            out.append("SELECT 1/0;")
        else:
            out.append(rng.choice(["SELECT 1/0;", "INSERT INTO %s (id) VALUES ('x');" % t]))
        u.errors += 1
        out.append("ROLLBACK;")
    elif shape == "twophase":
        ops, _ = table_ops(rng, u, t, n_ops, allow_nontx=False, temp_ok=False)
        out += ["BEGIN;"] + [s + ";" for s in ops]
        out.append("PREPARE TRANSACTION '%sg';" % p)
        out.append(rng.choice(["COMMIT PREPARED", "COMMIT PREPARED", "ROLLBACK PREPARED"]) + " '%sg';" % p)
    elif shape == "matview":
        out.append("CREATE TABLE %s AS SELECT g AS id FROM generate_series(1, %d) g;" % (t, rows(rng)))
        out.append("CREATE MATERIALIZED VIEW %sm AS SELECT * FROM %s;" % (p, t))
        if rng.random() < 0.5:
            out.append("CREATE UNIQUE INDEX ON %sm (id);" % p)
            out.append("REFRESH MATERIALIZED VIEW CONCURRENTLY %sm;" % p)
        out.append("BEGIN;" if rng.random() < 0.5 else "")
        out.append("REFRESH MATERIALIZED VIEW %sm;" % p)
        if out[-2] == "BEGIN;":
            out.append(rng.choice(["COMMIT;", "ROLLBACK;"]))
        if rng.random() < 0.5:
            out.append("DROP MATERIALIZED VIEW %sm;" % p)
        out = [s for s in out if s]
    elif shape == "sequence":
        out.append("CREATE SEQUENCE %ss;" % p)
        out.append("SELECT count(nextval('%ss')) FROM generate_series(1, 100);" % p)
        out.append("CREATE TABLE %s (id bigint DEFAULT nextval('%ss'), v text);" % (t, p))
        out.append("INSERT INTO %s (v) SELECT md5(g::text) FROM generate_series(1, %d) g;" % (t, rows(rng)))
        out.append("ALTER SEQUENCE %ss RESTART;" % p)
        if rng.random() < 0.5:
            out.append("DROP TABLE %s;" % t)
            out.append("DROP SEQUENCE %ss;" % p)
    elif shape == "database":
        db = p + "db"
        out.append("CREATE DATABASE %s;" % db)
        if rng.random() < 0.5:
            out.append("ALTER DATABASE %s SET TABLESPACE oracle_ts;" % db)
        out.append("DROP DATABASE %s;" % db)
    return out, u.errors


def generate(seed, units, keep=None):
    rng = random.Random(seed)
    blocks = []
    for i in range(units):
        # each unit its own generator: dropping one does not change the others
        blocks.append(unit_sql(random.Random("%d/%d" % (seed, i)), i))
    rng.random()
    sel = range(units) if keep is None else keep
    errors = sum(blocks[i][1] for i in sel)
    lines = ["-- fuzz seed %d, units %s (test/fuzz/gen.py)" % (seed, ",".join(str(i) for i in sel)),
             "-- @errors: %d" % errors,
             "-- @run",
             "SET walload.track = 'all';",
             "SET pg_stat_statements.track = 'all';",
             "SET client_min_messages = warning;"]
    for i in sel:
        lines += blocks[i][0]
    return "\n".join(lines) + "\n"


def main(argv):
    seed = int(argv[1])
    units, keep = 6, None
    args = argv[2:]
    while args:
        if args[0] == "--units":
            units = int(args[1]); args = args[2:]
        elif args[0] == "--keep":
            keep = [int(x) for x in args[1].split(",") if x != ""]; args = args[2:]
        else:
            raise SystemExit("unknown argument %s" % args[0])
    sys.stdout.write(generate(seed, units, keep))


if __name__ == "__main__":
    main(sys.argv)
