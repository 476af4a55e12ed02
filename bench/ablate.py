#!/usr/bin/env python3
"""Ablation of est_scan_ms's pricing mechanisms against the uprobe oracle.

    bench/ablate.py OUT_DIR [OUT_DIR ...]

Each OUT_DIR is a copy of test/oracle/out/ after a run of
`ORACLE_SCENARIO_PGOPTIONS="-c client_min_messages=debug2" test/oracle/run.sh`
(one shared_buffers size, one major version).  walload's DEBUG2 line of every
walk estimate carries the estimate's parts (cost.c wl_scans_est_ns):
the walks as timed, the same walks cold, the learned ratio, the page faults
and the buffers.  So one run prices the same walks with and without each
mechanism, paired, and the oracle's traced walk judges them all:

  full        the estimate as recorded (est_scan_ms)
  -faults     without the page faults of mapping the header pages
              (/proc/self/pagemap)
  -pagemap    the page faults of every header page at the walk that found
              some unmapped (a backend's first), not of those pagemap
              counted unmapped
  -cache      without the CPU-cache share (age, streak, touched pages)
  -ratio      without the ratio learned from the server's commits
  -buffers    without the buffers invalidated or written (owned-buffer
              stretch counting)
  cold walks  none of the four: NBuffers times the calibrated cost of one
              header, per walk
  1.5.2       what walload prices since 1.5.2: cold walks, the page faults
              as -pagemap, the buffers

From library 1.5.2 on, the DEBUG2 line carries no parts: such runs are
judged as full, -faults and -pagemap only ("-" for the others).

Per scenario and wal_level: the sum over the DEBUG2 lines of its sessions,
checked against the oracle's estimate_ms (a scenario whose walks are
estimated by a session that does not print them, e.g. a shell scenario's
pg_restore, fails the check and is left out, counted).  Printed per run and
pooled per label: the median of estimate / measured, the 10th and 90th
percentiles, and how many scenarios fall within 0.8-1.25 and 0.5-2.0.
Repeated runs of one label give the run-to-run spread of each median: a
mechanism moves the estimate only where its effect exceeds that spread.
"""
import glob
import os
import re
import statistics
import sys

LINE = re.compile(
    r"walload: (\d+) walk\(s\) of kind (\d+) over (\d+) file\(s\): (-?\d+) unmapped header pages, "
    r"(?:cache share ([\d.]+), )?(-?\d+) buffers \w+: ([\d.]+) ms, page faults ([\d.]+) ms"
    r"(?:; parts: walks ([\d.]+) ms as timed, ([\d.]+) ms cold, learned ratio ([\d.]+), buffers ([\d.]+) ms)?")

VARIANTS = ["full", "-faults", "-pagemap", "-cache", "-ratio", "-buffers", "cold walks", "1.5.2"]


def variants(m, header_pages):
    est, fault = float(m.group(7)), float(m.group(8))
    unmapped = int(m.group(4))
    # a first walk's faults as 1.5.2 prices them: every header page
    all_faults = fault / unmapped * header_pages if unmapped > 0 else 0
    paged = est - fault + all_faults
    if m.group(9) is None:
        # 1.5.2 on: the line no longer splits the walks from the buffers,
        # and there is no cache share or ratio left to take out
        return {"full": est, "-faults": est - fault, "-pagemap": paged}
    walk, cold, ratio, buf = (float(m.group(i)) for i in (9, 10, 11, 12))
    return {
        "full": est,
        "-faults": est - fault,
        "-pagemap": paged,
        "-cache": est - walk * ratio + cold * ratio,
        "-ratio": est - walk * ratio + walk,
        "-buffers": est - buf,
        "cold walks": cold,
        "1.5.2": cold + buf + all_faults,
    }


def read_table(path):
    rows = {}
    with open(path) as f:
        lines = f.read().splitlines()
    head = [c.strip() for c in lines[0].split("|")]
    for ln in lines[2:]:
        cols = [c.strip() for c in ln.split("|")]
        if len(cols) != len(head):
            continue
        r = dict(zip(head, cols))
        rows[(r["wal_level"], r["scenario"])] = r
    return rows


def read_run(out):
    tables = glob.glob(os.path.join(out, "uprobe-counts-pg*-walload.txt"))
    if len(tables) != 1:
        sys.exit("%s: expected one uprobe-counts-pgNN-walload.txt" % out)
    rows = read_table(tables[0])
    raw = glob.glob(os.path.join(out, "raw-pg*-walload"))[0]
    calib = open(os.path.join(out, "calibration.txt")).readline().strip()
    size = re.search(r"shared_buffers=(\d+)([MG])B", calib)
    nbuffers = int(size.group(1)) * (1024 if size.group(2) == "G" else 1) * 128
    header_pages = nbuffers * 64 // 4096
    ratios = {v: [] for v in VARIANTS}
    left_out = []
    learned = set()
    for (level, name), r in sorted(rows.items()):
        if r.get("walload") != "yes":
            continue
        meas, est = float(r["measured_ms"]), float(r["estimate_ms"])
        if meas <= 0:
            continue
        files = glob.glob(os.path.join(raw, "%s-[0-9][0-9]_%s.stderr" % (level, name)))
        sums = dict.fromkeys(VARIANTS, 0.0)
        judged = set(VARIANTS)
        for fn in files:
            for ln in open(fn, errors="replace"):
                m = LINE.search(ln)
                if m:
                    learned.add(m.group(11) or "none")
                    parts = variants(m, header_pages)
                    judged &= set(parts)
                    for k, v in parts.items():
                        sums[k] += v
        if abs(sums["full"] - est) > 0.01 + 0.005 * est:
            left_out.append("%s/%s (printed %.3f, recorded %.3f)" % (level, name, sums["full"], est))
            continue
        for k in judged:
            ratios[k].append(sums[k] / meas)
    return calib, ratios, left_out, learned


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


def summary(r):
    if not r:
        return "-"
    n = len(r)
    return "%5.2f  %4.2f-%4.2f  %2d/%d  %2d/%d" % (
        statistics.median(r), pct(r, 0.1), pct(r, 0.9),
        sum(0.8 <= x <= 1.25 for x in r), n, sum(0.5 <= x <= 2.0 for x in r), n)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pooled = {}
    medians = {}
    print("per run: median of estimate/measured, 10th-90th percentile, within 0.8-1.25, within 0.5-2.0")
    for out in sys.argv[1:]:
        calib, ratios, left_out, learned = read_run(out)
        label = os.path.basename(os.path.normpath(out)).rsplit(".", 1)[0]
        print("\n%s: %s" % (out, calib))
        print("  learned ratios seen: %s; left out: %d %s" % (
            ", ".join(sorted(learned)) or "none", len(left_out), "; ".join(left_out)))
        for k in VARIANTS:
            print("  %-11s %s" % (k, summary(ratios[k])))
            pooled.setdefault(label, {}).setdefault(k, []).extend(ratios[k])
            if ratios[k]:
                medians.setdefault(label, {}).setdefault(k, []).append(statistics.median(ratios[k]))
    print("\npooled per label (runs named LABEL.N): the same, and the spread of the runs' medians")
    for label in pooled:
        print("\n%s" % label)
        for k in VARIANTS:
            m = medians.get(label, {}).get(k, [])
            spread = "%.2f-%.2f" % (min(m), max(m)) if len(m) > 1 else "one run"
            print("  %-11s %s   medians of runs %s" % (k, summary(pooled[label][k]), spread))


if __name__ == "__main__":
    main()
