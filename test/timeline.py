#!/usr/bin/env python3
"""scripts/timeline.py on the demo's load, rendered by headless Chromium.
Prints TAP; scripts/test.sh runs it with prove (suite "timeline").  Needs
root (scripts/demo.sh installs walload and runs pg_virtualenv).

scripts/demo.sh runs the demo's load with WALLOAD_DEMO_TIMELINE set: it
prints walload_xacts and walload_diagnose() as always, then draws the load
from the live sandbox server (libpq's environment) and saves the snapshot.
Chromium renders the page (--dump-dom, --screenshot), and:

 - statement bars = the statements of the demo's walload_xacts table (its
   "stmts" column, added up), COPY bars = the COPY calls of its walload_stats
 - scan marks = its "full_scans" column, transaction by transaction: k marks
   for a transaction with k scans, none for one with 0 (load 1's big
   transaction)
 - one lane per backend, one commit phase (sync + cleanup) per transaction,
   one finding per walload_diagnose() record, hover text with the statement
 - the page from the saved snapshot is the same, byte for byte
 - the screenshot has the colours of COPY bars and of scan marks; the page
   of an empty snapshot has no scan mark, in its DOM or in its screenshot
 - the demo's load, and it repeated to 200 and to 10,000 transactions, at
   1280x800 and 1920x1080: no element reaches past the window or out of
   its box (a script added to a copy of the page measures it); at 10,000
   transactions the lanes are summaries, whose columns hold every
   transaction and every scan, and no statement bar is drawn
 - scripts/report.py's Markdown and text: the total and the rows of the
   demo's walload_report() and walload_diagnose(); filtered to an
   application that ran nothing, no part and only "nothing recorded"
Environment: WALLOAD_TIMELINE_PORT (default 5606), the sandbox cluster's TCP
port; WALLOAD_TIMELINE_SCREENSHOT=path keeps the screenshot there.
"""
import datetime, html, html.parser, json, os, re, shutil, subprocess, sys, tempfile

from PIL import Image  # Debian's python3-pil

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
port = os.environ.get("WALLOAD_TIMELINE_PORT", "5606")
n = 0
failures = 0


def ok(cond, what, diag=None):
    global n, failures
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what), flush=True)
    if not cond:
        failures += 1
        if diag is not None:
            for line in str(diag).splitlines()[-40:]:
                print("#   " + line)
    return cond


def finish():
    print("1..%d" % n)
    sys.exit(1 if failures else 0)


if os.geteuid() != 0:
    print("1..0 # SKIP needs root (scripts/demo.sh installs walload, pg_virtualenv)")
    sys.exit(0)
chromium = shutil.which("chromium")
if not chromium:
    print("1..0 # SKIP chromium is not installed (scripts/deps.sh)")
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix="walload-timeline.")
os.chmod(tmp, 0o755)


def chrome(*args):
    return subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--user-data-dir=" + os.path.join(tmp, "chromium")] + list(args),
                          capture_output=True, text=True, timeout=120)


def num(v):
    return float(v) if v is not None else 0.0


def ts_of(v):
    return datetime.datetime.fromisoformat(v).timestamp()


def shift(v, seconds):
    return (datetime.datetime.fromisoformat(v) + datetime.timedelta(seconds=seconds)).isoformat()


class Dom(html.parser.HTMLParser):
    """the elements of the rendered page, with their attributes and texts"""

    def __init__(self):
        super().__init__()
        self.elems = []  # (tag, attrs dict, title text)
        self.stack = []

    def handle_starttag(self, tag, attrs):
        e = [tag, dict(attrs), ""]
        self.elems.append(e)
        if tag not in ("br", "meta", "img", "input", "hr", "link"):  # HTML's void elements
            self.stack.append(e)

    def handle_endtag(self, tag):
        if any(e[0] == tag for e in self.stack):
            while self.stack and self.stack.pop()[0] != tag:
                pass

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] == "title" and len(self.stack) > 1:
            self.stack[-2][2] += data

    def cls(self, c):
        return [e for e in self.elems if c in (e[1].get("class") or "").split()]


def png_pixels(path):
    """(width, height, {RGB bytes: pixel count}) of a PNG, decoded by Pillow
    (Debian's python3-pil)"""
    with Image.open(path) as im:
        im.load()
        rgb = im.convert("RGB")
        w, h = rgb.size
        colours = {bytes(c): n for n, c in rgb.getcolors(maxcolors=w * h)}
    return w, h, colours


try:
    # ------------------------------------------------------- the demo's load
    page = os.path.join(tmp, "load.html")
    env = dict(os.environ, NONROOT="1", PGPORT=port, WALLOAD_DEMO_TIMELINE=page)
    r = subprocess.run(["bash", os.path.join(here, "scripts", "demo.sh")], env=env, capture_output=True, text=True,
                       timeout=240)
    demo = r.stdout
    if not ok(r.returncode == 0 and os.path.exists(page),
              "scripts/demo.sh with WALLOAD_DEMO_TIMELINE draws the load", demo + r.stderr):
        finish()
    print("# " + "\n# ".join(l for l in demo.splitlines() if l.startswith(("server:", "/"))))

    # what the demo printed: walload_xacts' rows, walload_stats' COPY calls, the findings
    xact_rows = {}
    copy_calls = -1
    section = None
    for line in demo.splitlines():
        if line.startswith("== "):
            section = line
        elif section and section.startswith("== walload_xacts") and re.match(r"^\s+\d+ \|", line):
            cells = [c.strip() for c in line.split("|")]
            xact_rows[cells[0]] = {"stmts": int(cells[2]), "full_scans": int(cells[10])}
        elif section and section.startswith("== walload_stats") and line.strip().startswith("COPY "):
            copy_calls = int(line.split("|")[1])
    # the demo's walload_diagnose() table: its "(N rows)" line
    m = re.search(r"^== walload_diagnose\(\).*?^\((\d+) rows?\)", demo, re.M | re.S)
    findings = int(m.group(1)) if m else 0
    stmts = sum(x["stmts"] for x in xact_rows.values())
    scans = sum(x["full_scans"] for x in xact_rows.values())
    print("# the demo printed %d transactions, %d statements, %d full scans, %d COPY calls, %d findings"
          % (len(xact_rows), stmts, scans, copy_calls, findings))
    # ------------------------------------------- the report for a ticket
    # scripts/report.py's Markdown and text against the demo's own tables
    report_ms = [float(l.split("|")[1]) for l in demo.split("== walload_report()", 1)[-1].split("\n== ", 1)[0].splitlines()
                 if re.match(r"^ [^|]+\|\s+[\d.]+ \|", l)]
    md = open(os.path.join(tmp, "load.md")).read()
    txt = open(os.path.join(tmp, "load.txt")).read()
    none = open(os.path.join(tmp, "load-none.md")).read()
    m = re.search(r"^## Where the time went: ([\d.]+) ms$", md, re.M)
    ok(m and report_ms and abs(float(m.group(1)) - sum(report_ms)) <= 0.05 * len(report_ms) + 0.05,
       "report.py's Markdown: the load's time is the sum of the demo's walload_report() parts (%.1f ms)" % sum(report_ms),
       md[:400])
    sections = md.split("\n## ")
    # the verdict (1.10), first, has no ms: not a part
    part_rows = [l for l in sections[1].splitlines() if l.startswith("| ") and not l.startswith("| part |")
                 and not l.startswith("| verdict: ")] if len(sections) > 1 else []
    verdicts = [l for l in sections[1].splitlines() if l.startswith("| ")][1:2] if len(sections) > 1 else []
    ok(len(verdicts) == 1 and verdicts[0].startswith("| verdict: ") and " of the load's " in verdicts[0],
       "report.py's first row is walload_report()'s verdict in words", verdicts)
    find_rows = [l for l in sections[2].split("### In full")[0].splitlines()
                 if l.startswith("| ") and not l.startswith("| severity |")] if len(sections) > 2 else []
    ok(len(part_rows) == len(report_ms) and len(find_rows) == findings,
       "one table row per part (%d) and per finding (%d), as the demo printed" % (len(report_ms), findings),
       (len(part_rows), len(find_rows)))
    ok(len(re.findall(r"^\d+\. \*\*", md, re.M)) == findings,
       "each finding in full under the tables")
    ok(m and ("Where the time went: %s ms" % m.group(1)) in txt and "What to change, largest saving first" in txt,
       "the text format has the same total and both tables")
    ok("No recorded transaction is within the filters." in none and "| info |  | nothing recorded |" in none
       and "file deletion" not in none and "| COPY |" not in none,
       "filtered to an application that ran nothing: no part, and only 'nothing recorded'", none[:600])
    snap = json.load(open(os.path.join(tmp, "load.json")))

    # ------------------------------------------------- rendered by Chromium
    r = chrome("--dump-dom", "file://" + page)
    dom = Dom()
    dom.feed(r.stdout)
    ok(r.returncode == 0 and "<svg" in r.stdout, "chromium --headless --dump-dom renders the page", r.stderr)
    bars = dom.cls("stmt")
    marks = dom.cls("scan")
    ok(len(bars) == stmts and stmts > 0, "statement bars = statements in the demo's walload_xacts (%d)" % stmts, len(bars))
    ok(len([b for b in bars if b[1].get("data-cmd") == "COPY"]) == copy_calls,
       "COPY bars = COPY calls in the demo's walload_stats (%d)" % copy_calls)
    ok(len(marks) == scans and scans > 0, "scan marks = full_scans in the demo's walload_xacts (%d)" % scans, len(marks))
    per_xact = {}
    for m in marks:
        per_xact[m[1]["data-xact"]] = per_xact.get(m[1]["data-xact"], 0) + 1
    wrong = {x: (v["full_scans"], per_xact.get(x, 0)) for x, v in xact_rows.items() if per_xact.get(x, 0) != v["full_scans"]}
    ok(not wrong, "each transaction has as many scan marks as full scans", wrong)
    no_scan = [x for x, v in xact_rows.items() if v["full_scans"] == 0]
    ok(no_scan and all(per_xact.get(x, 0) == 0 for x in no_scan),
       "no scan mark on the transaction(s) without a scan (%s)" % ", ".join(no_scan))
    pids = {x["pid"] for x in snap["xacts"]}
    ok(len(dom.cls("lane")) == len(pids) == 2, "one lane per backend (2: the demo's two psql sessions)", len(dom.cls("lane")))
    commits = [x for x in snap["xacts"] if (x.get("commit_ms") or 0) > 0]
    ok(len(dom.cls("commit-sync")) == len(dom.cls("commit-cleanup")) == len(commits) == len(xact_rows),
       "one commit phase, sync and cleanup, per transaction (%d)" % len(commits))
    ok(len(dom.cls("finding")) == findings and findings > 0,
       "one finding beside the timeline per walload_diagnose() record (%d)" % findings, len(dom.cls("finding")))
    copy_titles = [b[2] for b in bars if b[1].get("data-cmd") == "COPY"]
    ok(copy_titles and all("COPY" in t and "FROM '" in t for t in copy_titles),
       "each COPY bar's hover text (<title>) has its statement", copy_titles[:1])
    ok(len(dom.cls("wal-line")) == 1, "the WAL line is drawn")
    summary = dom.cls("meta")[0][1]
    ok(summary.get("data-statements") == str(stmts) and summary.get("data-full-scans") == str(scans),
       "the page's summary counts the same statements and scans", summary)

    # ---------------------------------------------------- the saved snapshot
    again = os.path.join(tmp, "again.html")
    r = subprocess.run([sys.executable, os.path.join(here, "scripts", "timeline.py"), "--snapshot",
                        os.path.join(tmp, "load.json"), "-o", again], capture_output=True, text=True)
    ok(r.returncode == 0 and open(again).read() == open(page).read(),
       "the page drawn from the saved snapshot is the same", r.stderr)

    # ------------------------------------------------------------ screenshot
    shot = os.path.join(tmp, "timeline.png")
    r = chrome("--window-size=1900,1000", "--screenshot=" + shot, "file://" + page)
    if ok(r.returncode == 0 and os.path.exists(shot), "chromium --headless --screenshot", r.stderr):
        w, h, colours = png_pixels(shot)
        copy_px = colours.get(bytes.fromhex("4e79a7"), 0)
        scan_px = colours.get(bytes.fromhex("d62728"), 0)
        if os.environ.get("WALLOAD_TIMELINE_SCREENSHOT"):
            shutil.copy(shot, os.environ["WALLOAD_TIMELINE_SCREENSHOT"])
            shutil.copy(page, re.sub(r"\.png$", "", os.environ["WALLOAD_TIMELINE_SCREENSHOT"]) + ".html")
    # nothing recorded: no scan mark, drawn or painted
    empty = dict(snap, xacts=[], statements=[], diagnosis=[])
    json.dump(empty, open(os.path.join(tmp, "empty.json"), "w"))
    subprocess.run([sys.executable, os.path.join(here, "scripts", "timeline.py"), "--snapshot",
                    os.path.join(tmp, "empty.json"), "-o", os.path.join(tmp, "empty.html")], capture_output=True)
    r = chrome("--dump-dom", "file://" + os.path.join(tmp, "empty.html"))
    d2 = Dom()
    d2.feed(r.stdout)
    r2 = chrome("--window-size=1900,1000", "--screenshot=" + os.path.join(tmp, "empty.png"),
                "file://" + os.path.join(tmp, "empty.html"))
    _, _, ecolours = png_pixels(os.path.join(tmp, "empty.png"))
    ecopy_px = ecolours.get(bytes.fromhex("4e79a7"), 0)  # the legend's squares only
    escan_px = ecolours.get(bytes.fromhex("d62728"), 0)
    ok("<svg" in r.stdout and not d2.cls("scan") and not d2.cls("stmt") and 0 < escan_px <= 150 and 0 < ecopy_px <= 150,
       "an empty snapshot: no bar and no scan mark in the DOM; in the screenshot only the legend's squares"
       " of those colours (%d and %d px)" % (ecopy_px, escan_px))
    # a mark is at least 2 x 8 pixels, but marks may touch or overlap (ten
    # DROPs a few milliseconds apart): ask for two marks' worth, which the
    # two lanes' marks, far apart, give at least
    ok((w, h) == (1900, 1000) and copy_px > ecopy_px + 1000 and scan_px >= escan_px + 32,
       "the screenshot (1900x1000) shows COPY bars (%d px) and scan marks (%d px) beyond the legend's"
       % (copy_px, scan_px), (w, h))

    # ---------------------------------- 200 and 10,000 transactions, two sizes
    # the demo's transactions repeated one after another, as a nightly load of
    # that many would record them
    def repeated(n):
        xs, st = snap["xacts"], snap["statements"]
        t_first = min(ts_of(x["xact_start"]) for x in xs)
        span = max(ts_of(x["xact_end"]) for x in xs) - t_first
        by = {}
        for s_ in st:
            by.setdefault(s_["xact_id"], []).append(s_)
        out_x, out_s = [], []
        while len(out_x) < n:
            off = span * (len(out_x) // len(xs)) + 1.0
            for x in xs[:n - len(out_x)]:
                y = dict(x, xact_id=len(out_x) + 1, xact_start=shift(x["xact_start"], off),
                         xact_end=shift(x["xact_end"], off))
                out_s += [dict(s_, xact_id=y["xact_id"], stmt_start=shift(s_["stmt_start"], off))
                          for s_ in by.get(x["xact_id"], [])]
                out_x.append(y)
        return dict(snap, xacts=out_x, statements=out_s)

    # what the page's layout does at a window size: elements reaching past
    # the window's right edge, or boxes whose content is wider than they are
    check_js = """<script>(function () {
      var w = document.documentElement.clientWidth, bad = [];
      if (document.documentElement.scrollWidth > w + 1) bad.push('page ' + document.documentElement.scrollWidth + ' > ' + w);
      document.querySelectorAll('body *').forEach(function (e) {
        if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') return;
        var r = e.getBoundingClientRect();
        if (r.width > 0 && r.right > w + 1) bad.push(e.tagName + '.' + e.className + ' ends at ' + Math.round(r.right));
        if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) bad.push(e.tagName + '.' + e.className + ' content ' + e.scrollWidth + ' > ' + e.clientWidth);
      });
      document.body.setAttribute('data-overflow', JSON.stringify(bad));
    })();</script>"""

    def overflow(path, size, extra=""):
        checked = path + ".checked.html"
        open(checked, "w").write(open(path).read().replace("</body>", extra + check_js + "</body>"))
        r = chrome("--window-size=" + size, "--dump-dom", "file://" + checked)
        m = re.search(r'data-overflow="([^"]*)"', r.stdout)
        return json.loads(html.unescape(m.group(1))) if m else ["no result: " + r.stderr[-300:]]

    bad = overflow(page, "1280,800", '<div style="width: 2000px">too wide</div>')
    ok(any("ends at" in b for b in bad), "the layout check sees an element wider than the window", bad)
    pages = [("the demo's load", page)]
    for n_x in (200, 10000):
        path = os.path.join(tmp, "load-%d.html" % n_x)
        rep_snap = repeated(n_x)
        json.dump(rep_snap, open(path + ".json", "w"))
        r = subprocess.run([sys.executable, os.path.join(here, "scripts", "timeline.py"), "--snapshot", path + ".json",
                            "-o", path], capture_output=True, text=True, timeout=300)
        pages.append(("%d transactions" % n_x, path))
        if n_x == 10000:
            d3 = Dom()
            d3.feed(open(path).read())
            bins = [a for t_, a, _ in d3.elems if "bin" in (a.get("class") or "").split()]
            ok(r.returncode == 0 and 'data-mode="summary"' in open(path).read()
               and sum(int(a["data-xacts"]) for a in bins) == 10000
               and sum(int(a["data-scans"]) for a in bins) == sum(int(num(x.get("full_scans"))) for x in rep_snap["xacts"]),
               "10,000 transactions: summary lanes whose columns hold every transaction and every scan", r.stderr)
            ok(not d3.cls("stmt"), "and no bar per statement (the barcode)")
    for name, path in pages:
        for size in ("1280,800", "1920,1080"):
            bad = overflow(path, size)
            ok(not bad, "%s at %s: nothing reaches past the window or out of its box" % (name, size.replace(",", "x")), bad)
            if os.environ.get("WALLOAD_TIMELINE_DOCS"):
                chrome("--window-size=" + size, "--screenshot=" + os.path.join(
                    os.environ["WALLOAD_TIMELINE_DOCS"], "timeline-%s-%s.png" % (
                        name.split()[0].replace("the", "demo"), size.replace(",", "x"))), "file://" + path)
except Exception:
    import traceback
    ok(False, "the test ran to its end", traceback.format_exc())
finally:
    shutil.rmtree(tmp, ignore_errors=True)
finish()
