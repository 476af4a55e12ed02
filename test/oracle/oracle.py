#!/usr/bin/env python3
"""Helpers of the uprobe oracle (test/oracle/run.sh does the orchestration).

Subcommands (all read files, print shell-safe KEY=VALUE lines or text):

  functions MAJOR            the scanning functions of that major version and
                             the walload kind each one counts as
  info SCENARIO LEVEL        a scenario file's header: database, expected
                             ERRORs, needed programs, expected counts
  split SCENARIO DIR         writes DIR/setup.sql and DIR/run.sql
  calib TRACE N              calibration from a trace: N real scans (DROP TABLE
                             of permanent tables), then N early returns (temp)
  noise TRACE N BOUND [MS..] the same walk in N fresh sessions: how far apart
                             (the bound's noise floor), and walload's records
  count TRACE ...            per kind, the real scans of client backends
  segment TRACE MARKER OUT   one cut's part of a long trace, as a trace
  table TSV                  the result table, aligned

A trace is what bpftrace prints at a cut (see segment; run.sh cut_trace)
or when it stops: the maps @call[pid, fn, start]
= wall time of the call in ns, @oncpu[pid, fn, start] = the part of it the
process spent on a CPU, @other[pid, fn, start] = the part of that spent in
local-buffer loops and page writes, @nwork[pid, fn, start] = how many of
those probed calls it made; a call is judged by oncpu - other - nwork *
PROBE_NS, the time it spent walking the shared pool.  PROBE_NS (environment
ORACLE_PROBE_NS, from calib) is what each probed call inside a walk adds
to it outside its own measured window: the traps of its uprobe and
uretprobe.  It is the instrument's cost, not the server's (1.5-2 us here,
as much as a page write), and a commit that flushes 640 dirty buffers
would otherwise show a millisecond more walking than it did.  @backend[pid] (processes that entered PostgresMain while it
was attached: client backends; or vacuum(): autovacuum workers), @worker[pid]
(processes that entered an entry point of logical replication's workers:
counted as client backends are, and also per process), @start[tid, fn] (calls that never returned),
@entries and @returns (totals, to detect a full map).
"""
import os
import re
import shlex
import sys

# an ambiguous call that starts within this long after the end of a scan by
# the same backend is a warm walk (see cmd_count, README "Warm walks"): 1 ms
# until 2026-11-25, when set_tablespace's commit-time drop walk came 1.5 ms
# after its statement's FlushRelationBuffers (the index copy and the commit
# record's flush between them) and walked in 240-284 us, inside the band
WARM_GAP_NS = 10000000

KINDS = ["scans_flush_rel", "scans_flush_pending", "scans_drop_rel",
         "scans_drop_pending", "scans_db"]

# The functions that loop over all NBuffers buffer headers, per major version,
# in a fixed order (the index is the function's number in the trace).
FUNCTIONS_13_15 = [("FlushRelationBuffers", "scans_flush_rel"),
                   ("FlushRelationsAllBuffers", "scans_flush_pending"),
                   ("DropRelFileNodeBuffers", "scans_drop_rel"),
                   ("DropRelFileNodesAllBuffers", "scans_drop_pending"),
                   ("DropDatabaseBuffers", "scans_db"),
                   ("FlushDatabaseBuffers", "scans_db")]
FUNCTIONS_16 = [("FlushRelationBuffers", "scans_flush_rel"),
                ("FlushRelationsAllBuffers", "scans_flush_pending"),
                ("DropRelationBuffers", "scans_drop_rel"),
                ("DropRelationsAllBuffers", "scans_drop_pending"),
                ("DropDatabaseBuffers", "scans_db"),
                ("FlushDatabaseBuffers", "scans_db")]
# the drop-all function's number in both lists (DropRelFileNodesAllBuffers,
# DropRelationsAllBuffers): what a DROP TABLE's commit calls
DROP_ALL_FN = 3


# Work done inside a scanning function that is not the walk over the shared
# pool: the local-buffer loops of temporary relations (the early-return
# path) and page writes.  Their time on CPU is subtracted from the call's.
OTHER_WORK_13_15 = ["DropRelFileNodeLocalBuffers", "DropRelFileNodeAllLocalBuffers", "smgrwrite"]
OTHER_WORK_16 = ["DropRelationLocalBuffers", "DropRelationAllLocalBuffers", "smgrwrite"]
OTHER_WORK_17 = ["DropRelationLocalBuffers", "DropRelationAllLocalBuffers", "smgrwritev"]


def other_work_for(major):
    return OTHER_WORK_13_15 if major <= 15 else OTHER_WORK_16 if major == 16 else OTHER_WORK_17


def functions_for(major):
    if major < 13:
        return None          # no FlushRelationsAllBuffers; walload needs 15+
    return FUNCTIONS_13_15 if major <= 15 else FUNCTIONS_16


# ---------------------------------------------------------------- trace

MAP_RE = re.compile(r"^@(\w+)(?:\[([^\]]*)\])?: (\d+)$")


def parse_trace(path, probe_ns=0):
    """The maps bpftrace printed at exit."""
    t = {"call": [], "oncpu": {}, "other": {}, "nwork": {}, "local": {}, "backend": set(), "worker": set(), "start": [], "entries": 0, "returns": 0,
         "marks": [], "ready": False, "text": ""}
    with open(path, errors="replace") as f:
        text = f.read()
    t["text"] = text
    for line in text.splitlines():
        line = line.strip()
        if line == "READY":
            t["ready"] = True
            continue
        if line.startswith("MARK "):
            t["marks"].append(int(line.split()[1]))
            continue
        m = MAP_RE.match(line)
        if not m:
            continue
        name, key, val = m.group(1), m.group(2), int(m.group(3))
        keys = [int(k) for k in key.split(",")] if key else []
        if name == "call":
            pid, fn, start = keys
            t["call"].append((start, pid, fn, val))
        elif name == "oncpu":
            t["oncpu"][tuple(keys)] = val
        elif name == "other":
            t["other"][tuple(keys)] = val
        elif name == "nwork":
            t["nwork"][tuple(keys)] = val
        elif name == "local":
            t["local"][tuple(keys)] = val
        elif name == "backend":
            t["backend"].add(keys[0])
        elif name == "worker":
            t["worker"].add(keys[0])
        elif name == "start":
            t["start"].append((keys[0], keys[1], val))
        elif name in ("entries", "returns"):
            t[name] = val
    # (start, pid, fn, ns on CPU walking the pool, wall ns, ns on CPU in other
    # work, probed calls of other work, whether its argument names only local
    # relations, whether it names a shared one), in call order
    calls = []
    for start, pid, fn, wall in t["call"]:
        oncpu = t["oncpu"].get((pid, fn, start), wall)
        other = t["other"].get((pid, fn, start), 0)
        nwork = t["nwork"].get((pid, fn, start), 0)
        walk = max(oncpu - other - nwork * probe_ns, 0)
        arg = t["local"].get((pid, fn, start), 0)
        calls.append((start, pid, fn, walk, wall, other, nwork, arg == 1, arg == 2))
    t["call"] = sorted(calls)
    return t


def cmd_segment(args):
    """segment TRACE MARKER OUT: the maps printed at the cut of backend
    MARKER (between its "MARK" and "CUT" lines), with the running totals
    @entries and @returns less those printed at the cut before it, written
    as bpftrace prints its maps at exit (with READY first)."""
    path, marker, out = args[0], args[1], args[2]
    with open(path, errors="replace") as f:
        lines = [line.rstrip("\n") for line in f]
    try:
        end = len(lines) - 1 - lines[::-1].index("CUT " + marker)
        begin = max(i for i in range(end) if lines[i] == "MARK " + marker)
    except ValueError:
        raise SystemExit("segment: no cut of backend %s in %s" % (marker, path))

    def totals(block):
        t = {"entries": 0, "returns": 0}
        for line in block:
            m = MAP_RE.match(line.strip())
            if m and m.group(1) in t and not m.group(2):
                t[m.group(1)] = int(m.group(3))
        return t

    now = totals(lines[begin:end])
    before = {"entries": 0, "returns": 0}
    prev_cut = [i for i in range(begin) if lines[i].startswith("CUT ")]
    if prev_cut:
        p = prev_cut[-1]
        prev_mark = max(i for i in range(p) if lines[i] == "MARK " + lines[p].split()[1])
        before = totals(lines[prev_mark:p])
    with open(out, "w") as f:
        f.write("READY\n")
        for line in lines[begin:end]:
            m = MAP_RE.match(line.strip())
            if m and m.group(1) in now and not m.group(2):
                continue
            f.write(line + "\n")
        for k in ("entries", "returns"):
            f.write("@%s: %d\n" % (k, now[k] - before[k]))
    return 0


def us(ns):
    return ns / 1000.0


def fmt_ns(ns):
    return "%.0fus" % us(ns) if ns < 1_000_000 else "%.2fms" % (ns / 1e6)


def shell_out(d):
    for k, v in d.items():
        print("%s=%s" % (k, shlex.quote(str(v))))


def cmd_functions(args):
    fl = functions_for(int(args[0]))
    if fl is None:
        return 1
    for name, kind in fl:
        print(name, kind)
    return 0


def cmd_other_work(args):
    print("\n".join(other_work_for(int(args[0]))))
    return 0


def cmd_calib(args):
    path, n = args[0], int(args[1])
    argchk = os.environ.get("ORACLE_ARGCHK") == "1"
    t = parse_trace(path)
    calls = [c for c in t["call"] if c[2] == DROP_ALL_FN and c[1] in t["backend"]]
    flushes = [c for c in t["call"] if c[2] == 0 and c[1] in t["backend"]]
    res = {"calib_ok": 0, "calib_error": ""}
    if len(calls) != 3 * n or len(flushes) != 2 * n:
        res["calib_error"] = ("expected %d calls of the drop-all function by the calibration "
                              "backend (%d real, %d early), saw %d; and %d of the one-relation "
                              "flush (of temporary tables), saw %d"
                              % (3 * n, n, 2 * n, len(calls), 2 * n, len(flushes)))
        shell_out(res)
        return 0
    # each probed call inside a walk: what it added beyond its own window,
    # from the flushes of 9 and of 443 dirty local blocks (same loop over
    # temp_buffers, one probed page write per dirty block)
    slopes = []
    for small, large in zip(flushes[0::2], flushes[1::2]):
        if large[6] > small[6]:
            slopes.append(max(large[3] - small[3], 0) / (large[6] - small[6]))
    if len(slopes) != n:
        res["calib_error"] = "the flushes of temporary tables wrote no more for 443 blocks than for 9"
        shell_out(res)
        return 0
    # the argument check (run.sh local_path_check) proves its offsets here:
    # the permanent tables' drops must read as shared, the temporary ones'
    # drops and flushes as local
    if argchk:
        wrong = ([("DROP TABLE of a permanent table", c) for c in calls[:n] if c[7] or not c[8]] +
                 [("DROP TABLE of a temporary table", c) for c in calls[n:] if not c[7]] +
                 [("flush of a temporary table", c) for c in flushes if not c[7]])
        if wrong:
            res["calib_error"] = ("the local-buffer path read from the arguments is wrong for %d of %d "
                                  "calls (first: %s)" % (len(wrong), len(calls) + len(flushes), wrong[0][0]))
            shell_out(res)
            return 0
    probe_ns = int(sorted(slopes)[n // 2])
    real = sorted(c[3] for c in calls[:n])       # time walking the pool
    early = sorted(c[3] for c in calls[n:])
    med_r, med_e = real[n // 2], early[n // 2]
    ratio = real[0] / max(med_e, 1)
    # A walk over NBuffers descriptors costs at least what the cheapest walk
    # here cost (a single-relation drop, back to back: warm caches); load only
    # makes it slower.  An early return costs microseconds, plus a few for
    # each nested probe, plus whatever the hypervisor steals.  So: a scan is a
    # call that walked for at least half the cheapest walk; below a quarter it
    # returned early; in between it is ambiguous, and fails rather than being
    # guessed.  The populations must be 10x apart (cheapest walk against the
    # typical early return) and every early return must be below a quarter.
    thr = real[0] // 2
    lo = real[0] // 4
    # Where the argument says which calls take the local path (run.sh
    # local_path_check, checked above), an early return is known without its
    # time, and only the populations' separation is asked: the first temporary
    # drop of the calibration's backend took up to 42 us here, with a quarter
    # of the cheapest walk at 50 us.
    ok = ratio >= 10 and (argchk or early[-1] < lo)
    res.update({
        "calib_ok": 1 if ok else 0,
        "real_min": real[0], "real_med": med_r, "real_max": real[-1],
        "early_min": early[0], "early_med": med_e, "early_max": early[-1],
        "ratio": "%.0f" % ratio,
        "threshold": thr, "lo": lo, "hi": thr, "probe_ns": probe_ns,
        "calib_text": "real scans %s / %s / %s (min/median/max), early returns %s / %s / %s, "
                      "%.0fx apart (cheapest scan / median early return); a scan is a call that "
                      "walked >= %s, ambiguous %s-%s; each probed page write inside a walk "
                      "adds %.2fus of probe traps, subtracted (%.2f-%.2fus)" % (
                          fmt_ns(real[0]), fmt_ns(med_r), fmt_ns(real[-1]),
                          fmt_ns(early[0]), fmt_ns(med_e), fmt_ns(early[-1]),
                          ratio, fmt_ns(thr), fmt_ns(lo), fmt_ns(thr),
                          probe_ns / 1000, min(slopes) / 1000, max(slopes) / 1000),
    })
    if argchk:
        res["calib_text"] += ("; the local-buffer path read from the arguments agreed on all %d calls"
                              % (len(calls) + len(flushes)))
    if not ok:
        res["calib_error"] = ("scans and early returns are not separated (10x apart%s): %s"
                              % ("" if argchk else ", every early return below a quarter of the cheapest scan",
                                 res["calib_text"]))
    shell_out(res)
    return 0


def cmd_noise(args):
    """noise TRACE N BOUND [EST_MS...]: a trace of N fresh sessions one after
    another, each dropping an empty table (one walk of the pool each, its
    session's first: the same work every time).  How far apart those walks
    are, and whether one figure can be within BOUND (0.20: +-20%) of every
    one of them; EST_MS, walload's est_scan_ms of the same N transactions in
    order (each the estimate made when its walk was counted), against them."""
    path, n, bound = args[0], int(args[1]), float(args[2])
    ests = [float(x) for x in args[3:]]
    t = parse_trace(path, int(os.environ.get("ORACLE_PROBE_NS", "0")))
    walks = [c[3] for c in t["call"] if c[2] == DROP_ALL_FN and c[1] in t["backend"]]
    if len(walks) != n or min(walks, default=0) <= 0:
        shell_out({"noise_ok": 0, "noise_spread": "-",
                   "noise_text": "noise floor not measured: expected %d walks of the drop-all function, "
                                 "one per session, saw %d" % (n, len(walks))})
        return 0
    w = sorted(walks)
    spread = w[-1] / w[0]
    exists = (1 - bound) * w[-1] <= (1 + bound) * w[0]
    text = ("the same walk in %d fresh sessions (DROP TABLE of an empty table, each session's first "
            "walk): %s / %s / %s walking the pool (min/median/max), the slowest %.2f times the fastest: "
            "one figure within +-%d%% of every one %s" % (
                n, fmt_ns(w[0]), fmt_ns(w[n // 2]), fmt_ns(w[-1]), spread, round(bound * 100),
                "exists" if exists else "does not exist"))
    if len(ests) == n:
        r = sorted(e / (x / 1e6) for e, x in zip(ests, walks))
        text += "; walload estimated them at %.2f-%.2f of these" % (r[0], r[-1])
    shell_out({"noise_ok": 1, "noise_spread": "%.2f" % spread, "noise_text": text})
    return 0


def warm_after_scan(last_scan_end, pid, start):
    """A walk right after another one of the same backend finds the
    descriptors in the CPU cache (TRUNCATE of a new table: heap, TOAST,
    index, back to back) and can take a third of a cold one."""
    return pid in last_scan_end and 0 <= start - last_scan_end[pid] <= WARM_GAP_NS


def worker_walks(by_worker):
    """The walks per worker process, as run.sh reads walload's:
    "PID:kind=N,kind=N PID:..." by pid, kinds in KINDS order, processes
    without a walk left out ("" for none)."""
    return " ".join("%d:%s" % (pid, ",".join("%s=%d" % (k[len("scans_"):], n)
                                             for k, n in by_worker[pid].items() if n))
                    for pid in sorted(by_worker) if any(by_worker[pid].values()))


def cmd_count(args):
    """count TRACE MAJOR THRESHOLD LO HI DIAGFILE [EXCLUDE_PID...]"""
    path, major, thr, lo, hi, diagfile = args[:6]
    exclude = {int(p) for p in args[6:]}
    thr, lo, hi = int(thr), int(lo), int(hi)
    fl = functions_for(int(major))
    probe_ns = int(os.environ.get("ORACLE_PROBE_NS", "0"))
    t = parse_trace(path, probe_ns)
    got = dict.fromkeys(KINDS, 0)
    early = ambiguous = other = contradicted = 0
    per_fn = {}
    odd = []
    # logical replication's workers (run.sh: their entry points) are counted
    # as a client backend is, and also apart, per process: walload records
    # their transactions with their pid (walload_xact_backend_types())
    workers = t["worker"] - exclude
    clients = (t["backend"] | workers) - exclude
    by_worker = {}
    last_scan_end = {}
    scan_ns = 0
    for start, pid, fn, dur, wall, otherwork, nwork, local, shared in t["call"]:
        name, kind = fl[fn]
        if pid not in clients:
            other += 1
            cls = "not a client backend"
        elif local and dur >= thr:
            # core's code returns early on this argument; a walk this long
            # means the oracle or that reading of core is wrong
            contradicted += 1
            cls = "CONTRADICTED: walked as long as a scan, but its argument names only local relations"
            odd.append("%s %s (local relations only)" % (name, fmt_ns(dur)))
        elif local:
            early += 1
            cls = "early return, local relations only (its argument)"
        elif lo <= dur < hi and not shared and not warm_after_scan(last_scan_end, pid, start):
            odd.append("%s %s" % (name, fmt_ns(dur)))
            ambiguous += 1
            cls = "AMBIGUOUS"
        elif lo <= dur < hi or dur >= thr:
            got[kind] += 1
            if pid in workers:
                w = by_worker.setdefault(pid, dict.fromkeys(KINDS, 0))
                w[kind] += 1
            scan_ns += dur
            last_scan_end[pid] = start + wall
            cls = ("scan" if not lo <= dur < hi else
                   "scan, its argument names a shared relation (core walks for it)" if shared else
                   "scan, right after another (warm caches)")
        else:
            early += 1
            cls = "early return"
        extra = []
        if otherwork >= 1000:
            extra.append("+%s in local-buffer loops and page writes" % fmt_ns(otherwork))
        if nwork:
            extra.append("%d probed, -%s of probe traps" % (nwork, fmt_ns(nwork * probe_ns)))
        if wall - dur - otherwork - nwork * probe_ns >= 1000:
            extra.append("%s wall" % fmt_ns(wall))
        per_fn.setdefault(name, []).append("pid %d %s%s (%s)" % (
            pid, fmt_ns(dur), " [%s]" % ", ".join(extra) if extra else "", cls))
    unreturned = len(t["start"])
    # every entry either returned (and was recorded) or is still in @start
    lost = abs(t["entries"] - t["returns"] - unreturned) + abs(t["returns"] - len(t["call"]))
    with open(diagfile, "w") as f:
        f.write("client backends (entered PostgresMain while attached): %s\n"
                % (", ".join(str(p) for p in sorted(clients - workers)) or "none"))
        f.write("logical replication workers (entered %s while attached): %s\n"
                % ("ApplyWorkerMain or a tablesync entry point", ", ".join(str(p) for p in sorted(workers)) or "none"))
        if exclude:
            f.write("excluded (the liveness marker's backend): %s\n"
                    % ", ".join(str(p) for p in sorted(exclude)))
        if not per_fn:
            f.write("no call of any scanning function\n")
        for name, _ in fl:
            if name in per_fn:
                f.write("%s: %d call(s): %s\n" % (name, len(per_fn[name]), "; ".join(per_fn[name])))
        for tid, fn, start in t["start"]:
            f.write("UNRETURNED: %s entered by tid %d and never returned\n" % (fl[fn][0], tid))
        if lost:
            f.write("LOST: entries %d, returns %d, recorded %d (map full?)\n"
                    % (t["entries"], t["returns"], len(t["call"])))
        f.write("durations: time on CPU walking the pool [+ time on CPU in local-buffer loops and page "
                "writes, wall time if longer]; a scan walked >= %s, ambiguous %s-%s\n"
                % (fmt_ns(thr), fmt_ns(lo), fmt_ns(hi)))
    out = dict(got)
    out.update({"scan_us": scan_ns // 1000, "early": early, "ambiguous": ambiguous,
                "contradicted": contradicted, "odd_calls": ", ".join(odd), "unreturned": unreturned,
                "lost": lost, "other": other, "nclients": len(clients),
                "nworkers": len(workers), "worker_walks": worker_walks(by_worker),
                "ready": 1 if t["ready"] else 0})
    shell_out(out)
    return 0


# ---------------------------------------------------------------- scenarios

def read_headers(path):
    h = {"db": "", "errors": "0", "needs": "", "publisher": "", "expect": {}, "title": "",
         "min-version": "", "max-version": "", "skip": {}}
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        m = re.match(r"^\s*(?:--|#)\s*@([\w-]+)(?:\s+(\w+))?:\s*(.*?)\s*$", line)
        if not m:
            continue
        key, level, val = m.group(1), m.group(2), m.group(3)
        if key == "expect":
            h["expect"][level or "*"] = val
        elif key == "skip":
            h["skip"][level or "*"] = val
        elif key in h:
            h[key] = val
    for line in lines:
        m = re.match(r"^\s*(?:--|#)\s*([^@!\s].*)$", line)
        if m:
            h["title"] = m.group(1)
            break
    return h


def expected(h, level):
    spec = h["expect"].get(level, h["expect"].get("*"))
    if spec is None:
        return None
    exp = dict.fromkeys(KINDS, 0)
    for item in spec.split():
        if item == "none":
            continue
        k, v = item.split("=")
        k = k if k.startswith("scans_") else "scans_" + k
        if k not in exp:
            raise SystemExit("unknown kind %r in %s" % (k, spec))
        exp[k] = int(v)
    return exp


def cmd_info(args):
    path, level = args
    h = read_headers(path)
    exp = expected(h, level)
    for key in ("min-version", "max-version"):
        if h[key] and not re.match(r"^[0-9]+$", h[key]):
            raise SystemExit("@%s: %r is not a major version number (%s)" % (key, h[key], path))
    out = {"sc_db": h["db"], "sc_errors": h["errors"], "sc_needs": h["needs"], "sc_publisher": h["publisher"],
           "sc_title": h["title"], "sc_has_expect": 0 if exp is None else 1,
           "sc_min_version": h["min-version"], "sc_max_version": h["max-version"],
           "sc_skip": h["skip"].get(level, h["skip"].get("*", ""))}
    for k in KINDS:
        out["exp_" + k] = "" if exp is None else exp[k]
    shell_out(out)
    return 0


def cmd_split(args):
    """Splits a .sql scenario at '-- @setup' / '-- @run' into setup.sql and run.sql."""
    path, outdir = args
    setup, run, cur = [], [], None
    with open(path) as f:
        for line in f:
            s = line.strip()
            if re.match(r"^--\s*@setup\s*$", s):
                cur = setup
                continue
            if re.match(r"^--\s*@run\s*$", s):
                cur = run
                continue
            (run if cur is None else cur).append(line)
    with open(os.path.join(outdir, "setup.sql"), "w") as f:
        f.write("".join(setup))
    with open(os.path.join(outdir, "run.sql"), "w") as f:
        f.write("".join(run))
    return 0


def cmd_table(args):
    rows = []
    with open(args[0]) as f:
        for line in f:
            rows.append(line.rstrip("\n").split("\t"))
    if not rows:
        return 0
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(len(rows[0]))]
    for j, r in enumerate(rows):
        print(" | ".join(c.ljust(widths[i]) if i < 2 else c.rjust(widths[i])
                         for i, c in enumerate(r)).rstrip())
        if j == 0:
            print("-|-".join("-" * w for w in widths))
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmds = {"functions": cmd_functions, "other-work": cmd_other_work, "info": cmd_info, "split": cmd_split,
            "calib": cmd_calib, "noise": cmd_noise, "count": cmd_count, "table": cmd_table, "segment": cmd_segment}
    return cmds[argv[1]](argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
