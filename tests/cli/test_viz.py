#!/usr/bin/env python3
"""CLI tests of the pictures and traces of `fennel run` (README, Commands): timelines (SVG, PNG,
PDF), the program view, the Chrome/Perfetto trace and the DOT file. They check structure,
not pixels: the SVG's lanes, labels and message lines with coordinates consistent with
the times; PNG size and content; PDF header and page count; the trace's events against
the JSON summary.

Usage: test_viz.py FENNEL SOURCE_ROOT. Prints TAP.
"""
import json
import os
import re
import struct
import tempfile
import xml.etree.ElementTree as ET
import zlib

from harness import FENNEL, ROOT, check, fennel
from harness import finish as finish_tap

MODEL = "models/presets/thesis-figures.yaml"
PINGPONG = "programs/examples/pingpong.yaml"
SENDRECV = "tests/data/viz/sendrecv.yaml"
LOGP = "tests/data/viz/logp-noise.model.yaml"
SVG = "{http://www.w3.org/2000/svg}"


def close(a, b, tol=0.02):
    return abs(a - b) <= tol


# ---- reading the SVG ----

def groups(root, klass):
    """The <g> elements whose class list contains klass."""
    return [g for g in root.iter(SVG + "g") if klass in g.get("class", "").split()]


def time_scale(root):
    """x = x0 + ns * k, from the labelled ticks (each holds a line at its time)."""
    ticks = [(float(g.get("data-ns")), float(g.find(SVG + "line").get("x1")))
             for g in groups(root, "tick")]
    (t0, x0), (t1, x1) = ticks[0], ticks[-1]
    k = (x1 - x0) / (t1 - t0)
    return lambda ns: x0 + (ns - t0) * k, ticks


def lane_y(root):
    """Rank -> y of its lane line (slot 0)."""
    return {int(g.get("data-rank")): float(g.find(SVG + "line").get("y1"))
            for g in groups(root, "lane") if g.get("data-slot", "0") == "0"}


def message_lines(root):
    out = []
    for g in groups(root, "message"):
        line = g.find(SVG + "line")
        out.append({"task": g.get("data-task"), "src": int(g.get("data-src")),
                    "dst": int(g.get("data-dst")), "sent": float(g.get("data-sent-ns")),
                    "arrival": float(g.get("data-arrival-ns")),
                    "x1": float(line.get("x1")), "y1": float(line.get("y1")),
                    "x2": float(line.get("x2")), "y2": float(line.get("y2"))})
    return out


def texts(root):
    return [t.text for t in root.iter(SVG + "text")]


PATH_COLOUR = "#f0e442"


def path_bands(root):
    """The critical path's marks: (task, glyph or message class, rank, start, end) each."""
    return sorted((g.get("data-task"), g.get("data-glyph"), int(g.get("data-rank")),
                   float(g.get("data-start-ns")), float(g.get("data-end-ns")))
                  for g in groups(root, "critical-path") if g.get("data-task"))


def uses_path_colour(path):
    return PATH_COLOUR in open(path, encoding="utf-8").read()


# ---- reading PNG files (stdlib only) ----

def png_pixels(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour = ihdr[:4]
    bpp = {2: 3, 6: 4}[colour]
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


with tempfile.TemporaryDirectory() as tmp:
    def out(name):
        return os.path.join(tmp, name)

    # ---- ping-pong timeline (SVG) ----
    # Times from docs/SEMANTICS.md (lbp) with thesis-figures.yaml (alpha_p 500 ns, alpha_r 100 ns,
    # beta 0.4 ns/B, 8 B): p0_0 is issued at 0, its sender is busy until 100 (alpha_r),
    # its data arrives at 100 + 500 + 8 * 0.4 = 603.2. p1_0 waits for it, is issued at
    # 603.2, busy until 703.2, arrives at 603.2 + 603.2 = 1206.4, the makespan.
    code, o, e = fennel("run", PINGPONG, "--model", MODEL, "--timeline", out("pp.svg"), "--json")
    summary = json.loads(o) if code == 0 else {}
    try:
        root = ET.parse(out("pp.svg")).getroot()
    except (ET.ParseError, OSError) as err:
        root = ET.Element("svg")
        check("ping-pong SVG parses as XML", False, err)
    else:
        check("ping-pong SVG parses as XML", root.tag == SVG + "svg")
    x_of, ticks = time_scale(root) if groups(root, "tick") else (lambda ns: 0, [])
    ys = lane_y(root)
    check("ping-pong: two lanes, rank 0 above rank 1", sorted(ys) == [0, 1] and ys[0] < ys[1], ys)
    check("ping-pong: lanes labelled 'rank 0' and 'rank 1'",
          "rank 0" in texts(root) and "rank 1" in texts(root))
    check("ping-pong: the axis names its unit", "time (ns)" in texts(root), texts(root)[:8])
    check("ping-pong: round-number ticks", len(ticks) >= 5 and
          all(t % 100 == 0 for t, _ in ticks), ticks)
    msgs = message_lines(root)
    check("ping-pong: one message line per put", len(msgs) == 2, msgs)
    expected = {"p0_0": (0, 1, 100, 603.2), "p1_0": (1, 0, 703.2, 1206.4)}
    for m in msgs:
        src, dst, leave, arrive = expected.get(m["task"], (None, None, 0, 0))
        check(f"ping-pong: {m['task']} runs from rank {src} to rank {dst}",
              (m["src"], m["dst"]) == (src, dst), m)
        check(f"ping-pong: {m['task']} leaves at {leave} ns and arrives at {arrive} ns",
              close(m["x1"], x_of(leave)) and close(m["x2"], x_of(arrive)) and
              m["arrival"] == arrive, (m, x_of(leave), x_of(arrive)))
        check(f"ping-pong: {m['task']} ends on the target's lane",
              close(m["y2"], ys.get(dst, -1)) and abs(m["y1"] - ys.get(src, -1)) < 40, m)
    puts = {g.get("data-task"): g for g in groups(root, "put")}
    check("ping-pong: the sender's busy boxes span alpha_r",
          set(puts) == {"p0_0", "p1_0"} and
          close(float(puts["p0_0"].find(SVG + "rect").get("x")), x_of(0)) and
          close(float(puts["p0_0"].find(SVG + "rect").get("width")), x_of(100) - x_of(0)) and
          close(float(puts["p1_0"].find(SVG + "rect").get("x")), x_of(603.2)), list(puts))
    mk = groups(root, "makespan")
    check("ping-pong: the makespan is marked at 1206.4 ns",
          len(mk) == 1 and mk[0].get("data-ns") == "1206.4" and
          close(float(mk[0].find(SVG + "line").get("x1")), x_of(1206.4)) and
          summary.get("makespan_ns") == 1206.4, summary.get("makespan_ns"))
    legend = [g.get("data-label") for g in groups(root, "legend-entry")]
    check("ping-pong: a legend of what is drawn",
          {"start", "put: sender busy", "message", "makespan"} <= set(legend), legend)

    # ---- the critical path on the timeline ----
    # README, Commands: with --critical-path the timeline highlights the path. In the
    # ping-pong above the makespan is set by x1_1, ready when p1_0 completes (1206.4);
    # p1_0 became ready when p0_0's data arrived (603.2; its other predecessor, x1_0,
    # completed at 0), p0_0 when x0_0 completed, x0_0 when s0 did. Proxies are not drawn,
    # so exactly s0, the two puts and both messages are marked, and nothing of rank 1's
    # start s1.
    check("ping-pong without --critical-path: nothing highlighted",
          not groups(root, "critical-path") and not uses_path_colour(out("pp.svg")) and
          "critical path" not in legend and
          all(g.find(SVG + "line").get("stroke-width") == "1.1" for g in groups(root, "message")))
    code, o, e = fennel("run", PINGPONG, "--model", MODEL, "--timeline", out("pp-path.svg"),
                        "--critical-path")
    root = ET.parse(out("pp-path.svg")).getroot() if code == 0 else ET.Element("svg")
    check("ping-pong --critical-path: exactly s0, p0_0, p1_0 and their messages are marked",
          path_bands(root) == [("p0_0", "message data", 0, 100, 603.2),
                               ("p0_0", "put", 0, 0, 100),
                               ("p1_0", "message data", 1, 703.2, 1206.4),
                               ("p1_0", "put", 1, 603.2, 703.2),
                               ("s0", "start", 0, 0, 0)], (e, path_bands(root)))
    check("ping-pong --critical-path: each mark is a band in the path colour",
          groups(root, "critical-path") and all(any(el.get("fill") == PATH_COLOUR or el.get("stroke") == PATH_COLOUR
                  for el in g) for g in groups(root, "critical-path")))
    check("ping-pong --critical-path: the path's messages are drawn twice as thick",
          sorted(g.find(SVG + "line").get("stroke-width") for g in groups(root, "message")) ==
          ["2.2", "2.2"])
    check("ping-pong --critical-path: a legend entry 'critical path'",
          "critical path" in [g.get("data-label") for g in groups(root, "legend-entry")])
    # Under LogP (L = 500, o = 100, g = 0) the path also runs through the receive
    # overheads: each message is o at the sender, L in flight, o at the receiver.
    code, o, e = fennel("run", "--generate", "pingpong", "--network", "logp", "-s", "L=500ns",
                        "-s", "o=100ns", "-s", "g=0ns", "--critical-path", "--timeline",
                        out("logp-path.svg"))
    root = ET.parse(out("logp-path.svg")).getroot() if code == 0 else ET.Element("svg")
    check("LogP ping-pong --critical-path: send and receive overheads and messages marked",
          sorted(b[1:] for b in path_bands(root)) ==
          sorted([("start", 0, 0, 0), ("message data", 0, 100, 600), ("put", 0, 0, 100),
                  ("recv-overhead", 1, 600, 700), ("message data", 1, 800, 1300),
                  ("put", 1, 700, 800), ("recv-overhead", 0, 1300, 1400)]),
          (e, path_bands(root)))

    # Two-sided: rank 1 posts its receive at 0, rank 0 computes 1 us and sends
    # (tests/data/critical-path/posted-first.yaml, derivation there). The path goes through
    # the send, so its issue box, its message and its receive overhead on rank 1 are
    # marked; the receive's wait from 0 to 1700 is not on the path and is not marked, nor
    # is rank 1's start.
    code, o, e = fennel("run", os.path.join(ROOT, "tests", "data", "critical-path",
                                            "posted-first.yaml"),
                        "--network", "logp", "-s", "L=500ns", "-s", "o=100ns", "-s", "g=0ns",
                        "--critical-path", "--timeline", out("send-path.svg"))
    root = ET.parse(out("send-path.svg")).getroot() if code == 0 else ET.Element("svg")
    check("send/recv --critical-path: the send, its message and receive overhead marked",
          path_bands(root) ==
          [("c0", "compute", 0, 0, 1000), ("s0", "start", 0, 0, 0),
           ("send", "message data", 0, 1100, 1600), ("send", "recv-overhead", 1, 1600, 1700),
           ("send", "send", 0, 1000, 1100), ("work", "compute", 1, 1700, 1900)],
          (e, path_bands(root)))

    # ---- a8: the thesis' Fig. 5.27 ----
    # allreduce-rm with schedule a8 on 8 ranks: each rank puts to the 7 others in peer
    # order, one every alpha_r = 100 ns (issued at 100k, k = 0..6), each arriving at
    # 100k + 603.2; every compute waits for the last arrival, 600 + 603.2 = 1203.2, and
    # takes 10 ns: makespan 1213.2 (algorithms reference §5.3, check 1: boxes back to
    # back from 0 to 700 ns, arrivals between 603 and 1203 ns, a compute sliver at
    # 1203-1213).
    code, o, e = fennel("run", "--generate", "allreduce-rm", "--ranks", "8", "--size", "8B",
                        "--schedule", "a8", "--model", MODEL, "--timeline", out("a8.svg"),
                        "--json")
    check("a8 runs", code == 0, e)
    if code == 0:
        root = ET.parse(out("a8.svg")).getroot()
        x_of, _ = time_scale(root)
        ys = lane_y(root)
        check("a8: eight lanes", sorted(ys) == list(range(8)), ys)
        msgs = message_lines(root)
        check("a8: 56 message lines, one per put", len(msgs) == 56, len(msgs))
        arrivals = sorted(m["arrival"] for m in msgs)
        check("a8: arrivals from 603.2 to 1203.2 ns, 8 at each of the 7 steps",
              arrivals == sorted([100 * k + 603.2 for k in range(7)] * 8), arrivals[:10])
        check("a8: every line starts at its box's end and ends at its arrival",
              all(close(m["x1"], x_of(m["sent"] + 100)) and close(m["x2"], x_of(m["arrival"]))
                  and close(m["y2"], ys[m["dst"]]) for m in msgs))
        put_starts = sorted(float(g.get("data-start-ns")) for g in groups(root, "put"))
        check("a8: 7 back-to-back boxes per rank from 0 to 700 ns",
              put_starts == sorted([100.0 * k for k in range(7)] * 8), put_starts[:10])
        computes = [(float(g.get("data-start-ns")), float(g.get("data-end-ns")))
                    for g in groups(root, "compute")]
        check("a8: one compute per rank, 1203.2 to 1213.2 ns",
              computes == [(1203.2, 1213.2)] * 8, computes)
        check("a8: makespan 1213.2", json.loads(o)["makespan_ns"] == 1213.2, o)

        # Ranks shown: four lanes; the messages of the others are cut to stubs.
        code, o, e = fennel("run", "--generate", "allreduce-rm", "--ranks", "8", "--size", "8B",
                            "--schedule", "a8", "--model", MODEL, "--timeline", out("a8-4.svg"),
                            "--ranks-shown", "2,0-1,3")
        root = ET.parse(out("a8-4.svg")).getroot()
        msgs = message_lines(root)
        check("--ranks-shown: only the ranks asked for, in order",
              list(lane_y(root)) == [0, 1, 2, 3], lane_y(root))
        # Lines between shown ranks: 4 x 3; stubs to or from hidden ranks: 4 x 4 x 2.
        check("--ranks-shown: whole lines between shown ranks, stubs to the others",
              sum(1 for m in msgs if m["src"] < 4 and m["dst"] < 4) == 12 and len(msgs) == 44,
              len(msgs))

        # A window: ticks and glyphs only inside it.
        code, o, e = fennel("run", "--generate", "allreduce-rm", "--ranks", "8", "--size", "8B",
                            "--schedule", "a8", "--model", MODEL, "--timeline", out("a8-w.svg"),
                            "--time-window", "500ns:1us")
        root = ET.parse(out("a8-w.svg")).getroot()
        tick_ns = [float(g.get("data-ns")) for g in groups(root, "tick")]
        check("--time-window 500ns:1us: ticks from 500 to 1000 ns",
              tick_ns and tick_ns[0] == 500 and tick_ns[-1] == 1000, tick_ns)
        check("--time-window: the computes (after 1203.2 ns) are not drawn",
              not groups(root, "compute") and groups(root, "put"))

        # The a8 path: the seven puts into rank 7 that arrive last (at 1203.2) tie, and
        # the first in program order, rank 0's put to rank 7 (its seventh, issued at 600
        # after waiting for its slot), carries the path; then rank 7's compute.
        a8 = ["run", "--generate", "allreduce-rm", "--ranks", "8", "--size", "8B",
              "--schedule", "a8", "--model", MODEL, "--critical-path"]
        whole = [("compute", 7, 1203.2, 1213.2), ("message data", 0, 700, 1203.2),
                 ("put", 0, 600, 700), ("start", 0, 0, 0)]
        code, o, e = fennel(*a8, "--timeline", out("a8-path.svg"))
        root = ET.parse(out("a8-path.svg")).getroot() if code == 0 else ET.Element("svg")
        check("a8 --critical-path: rank 0's start and last put, its message, rank 7's compute",
              sorted(b[1:] for b in path_bands(root)) == sorted(whole), path_bands(root))
        # Hidden ranks: rank 0's marks are not drawn; the message becomes a stub into
        # rank 7 and stays marked.
        code, o, e = fennel(*a8, "--timeline", out("a8-path-4.svg"), "--ranks-shown", "4-7")
        root = ET.parse(out("a8-path-4.svg")).getroot() if code == 0 else ET.Element("svg")
        check("a8 --critical-path --ranks-shown 4-7: only rank 7's compute and the stub",
              sorted(b[1:] for b in path_bands(root)) ==
              [("compute", 7, 1203.2, 1213.2), ("message data", 0, 700, 1203.2)],
              path_bands(root))
        # A window: marks outside it are not drawn.
        code, o, e = fennel(*a8, "--timeline", out("a8-path-w.svg"), "--time-window",
                            "500ns:1us")
        root = ET.parse(out("a8-path-w.svg")).getroot() if code == 0 else ET.Element("svg")
        check("a8 --critical-path --time-window 500ns:1us: the put and its message only",
              sorted(b[1:] for b in path_bands(root)) ==
              [("message data", 0, 700, 1203.2), ("put", 0, 600, 700)], path_bands(root))

    # ---- LogP: overheads, NIC gaps, two-sided messages, noise ----
    code, o, e = fennel("run", SENDRECV, "--model", LOGP, "--timeline", out("sr.svg"), "--json")
    summary = json.loads(o) if code == 0 else {}
    root = ET.parse(out("sr.svg")).getroot() if code == 0 else ET.Element("svg")
    kinds = {k: len(groups(root, k)) for k in
             ["send", "recv", "recv-overhead", "nic-send", "nic-recv", "noise", "get", "put",
              "sleep", "skew", "request", "response", "data"]}
    # Two sends and two receives; a receive overhead for each of the four messages that
    # need a slot (two sends, the put, the get's response; the request only needs the
    # NIC); noise on the two computes and on the host's share of the sends and put.
    check("LogP timeline: a glyph for each kind of interval",
          kinds["send"] == 2 and kinds["recv"] == 2 and kinds["recv-overhead"] == 4 and
          kinds["nic-send"] >= 4 and kinds["nic-recv"] >= 4 and kinds["noise"] >= 2 and
          kinds["get"] == 1 and kinds["put"] == 1 and kinds["sleep"] == 1 and
          kinds["skew"] == 1 and kinds["request"] == 1 and kinds["response"] == 1 and
          kinds["data"] == 3, kinds)
    check("LogP timeline: one message line per message",
          len(groups(root, "message")) == summary.get("messages"), summary.get("messages"))
    legend = [g.get("data-label") for g in groups(root, "legend-entry")]
    check("LogP timeline: the legend names overheads, gaps and noise",
          {"receive overhead", "NIC send gap", "NIC receive gap", "noise"} <= set(legend), legend)

    # ---- PNG and PDF ----
    code, o, e = fennel("run", PINGPONG, "--model", MODEL, "--timeline", out("pp.png"),
                        "--width", "800")
    try:
        w, h, rows = png_pixels(out("pp.png"))
    except (OSError, ValueError, KeyError) as err:
        w, h, rows = 0, 0, []
        check("PNG parses", False, err)
    check("PNG: the requested width", code == 0 and w == 800 and 100 < h < 800, (w, h, e))
    colours = {px for row in rows for px in row}
    check("PNG: not blank (white background, black text, the put colour)",
          (255, 255, 255) in colours and (0, 114, 178) in colours and
          sum(1 for row in rows for px in row if px != (255, 255, 255)) > 2000, len(colours))
    # --picture-width is the picture's even with a generator that takes --width.
    code, o, e = fennel("run", "--generate", "multicast", "--width", "4", "--model", MODEL,
                        "--timeline", out("mc.png"), "--picture-width", "640", "--json")
    try:
        w, h, rows = png_pixels(out("mc.png"))
    except (OSError, ValueError, KeyError) as err:
        w, h, rows = 0, 0, []
    check("--picture-width 640 with multicast --width 4: 640 pixels, 5 ranks",
          code == 0 and w == 640 and json.loads(o).get("ranks") == 5, (w, o, e))
    code, o, e = fennel("run", PINGPONG, "--model", MODEL, "--dag", out("pp-dag.png"),
                        "--width", "600")
    try:
        w, h, rows = png_pixels(out("pp-dag.png"))
    except (OSError, ValueError, KeyError) as err:
        w, h, rows = 0, 0, []
    check("program view PNG: at most the requested width, not blank",
          code == 0 and 400 <= w <= 600 and
          sum(1 for row in rows for px in row if px != (255, 255, 255)) > 500, (w, h, e))

    code, o, e = fennel("run", PINGPONG, "--model", MODEL, "--timeline", out("pp.pdf"))
    pdf = open(out("pp.pdf"), "rb").read() if os.path.exists(out("pp.pdf")) else b""
    check("PDF: a valid header and trailer", code == 0 and re.match(rb"%PDF-1\.\d", pdf) and
          pdf.rstrip().endswith(b"%%EOF"), pdf[:16])
    check("PDF: one page", len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 1)
    code, o, e = fennel("run", PINGPONG, "--model", MODEL, "--timeline", out("pp2.pdf"))
    same = os.path.exists(out("pp2.pdf")) and open(out("pp2.pdf"), "rb").read() == pdf
    check("PDF: the same run gives the same bytes", same)

    # ---- the Chrome/Perfetto trace ----
    # Every task that ran is one complete event; every message one flow (flow_out on
    # its source event, flow_in on its arrival); times are the summary's. The LogP run
    # adds receive overheads (on the receiver's slot) and NIC gaps (on NIC threads).
    task_types = {"start", "proxy", "sleep", "compute", "put", "get", "send", "recv"}
    for label, args, model in [
            ("ping-pong", [PINGPONG], MODEL),
            ("a8", ["--generate", "allreduce-rm", "--ranks", "8", "--size", "8B", "--schedule",
                    "a8"], MODEL),
            ("fetch (a get)", ["programs/examples/fetch.yaml"], MODEL),
            ("send/recv under LogP with noise", [SENDRECV], LOGP)]:
        code, o, e = fennel("run", *args, "--model", model, "--trace", out("t.json"), "--json")
        summary = json.loads(o) if code == 0 else {}
        try:
            doc = json.load(open(out("t.json"), encoding="utf-8"))
        except (OSError, ValueError) as err:
            doc = {}
            check(f"trace of {label} parses as JSON", False, err)
        events = doc.get("traceEvents", [])
        tasks = [ev for ev in events if ev.get("ph") == "X" and ev.get("cat") in task_types]
        check(f"trace of {label}: one complete event per task",
              len(tasks) == summary.get("tasks") and
              len({(ev["name"], ev["pid"]) for ev in tasks}) == len(tasks),
              (len(tasks), summary.get("tasks")))
        outs = [ev["bind_id"] for ev in events if ev.get("flow_out")]
        ins = [ev["bind_id"] for ev in events if ev.get("flow_in")]
        check(f"trace of {label}: one flow pair per message",
              len(outs) == len(ins) == summary.get("messages") and
              sorted(outs) == sorted(ins) and len(set(outs)) == len(outs),
              (len(outs), len(ins), summary.get("messages")))
        # NIC gaps may outlast the run: a NIC is not a slot (engine rule 5, docs/SEMANTICS.md).
        end = max(round((ev["ts"] + ev["dur"]) * 1e6) for ev in events
                  if ev.get("ph") == "X" and not ev.get("cat", "").startswith("nic-"))
        check(f"trace of {label}: the last event ends at the makespan",
              end == round(summary.get("makespan_ns", -1) * 1000), (end, summary))
        # A rank finishes when its slots are last free: its tasks, receive overheads and
        # waits (engine rule 5, docs/SEMANTICS.md); NIC gaps and arrivals do not hold a slot.
        on_slots = [ev for ev in events if ev.get("ph") == "X" and
                    (ev.get("cat") in task_types | {"receive-overhead", "wait"})]
        finish = [max([round((ev["ts"] + ev["dur"]) * 1e6) for ev in on_slots if ev["pid"] == r])
                  for r in range(summary.get("ranks", 0))]
        check(f"trace of {label}: each rank's last task ends at its finish time",
              finish == [round(t * 1000) for t in summary.get("rank_finish_ns", [])],
              (finish, summary.get("rank_finish_ns")))
        names = {ev["pid"]: ev["args"]["name"] for ev in events
                 if ev.get("ph") == "M" and ev.get("name") == "process_name"}
        check(f"trace of {label}: a process per rank, named",
              names == {r: f"rank {r}" for r in range(summary.get("ranks", 0))}, names)

    # ---- the program view and DOT ----
    code, o, e = fennel("run", PINGPONG, "--model", MODEL, "--dag", out("pp-dag.svg"),
                        "--dot", out("pp.dot"))
    root = ET.parse(out("pp-dag.svg")).getroot()
    nodes = groups(root, "node")
    labels = sorted((g.get("data-rank"), g.find(SVG + "text").text) for g in nodes)
    # pingpong.yaml: a start and a put per rank; its four proxies are not drawn.
    check("program view: S and P nodes per rank, proxies hidden",
          labels == [("0", "P"), ("0", "S"), ("1", "P"), ("1", "S")], labels)
    dot = open(out("pp.dot"), encoding="utf-8").read() if os.path.exists(out("pp.dot")) else ""
    # 8 tasks, 8 dependencies in pingpong.yaml (each `after` entry is one edge).
    check("DOT: a digraph with a cluster per rank, every task and every dependency",
          dot.startswith("digraph ") and dot.count("subgraph cluster_rank") == 2 and
          len(re.findall(r"^\s+t\d+ \[", dot, re.M)) == 8 and dot.count("->") == 8, dot[:300])

    # `run --dot` and `generate --from FILE -f dot` are one writer: the same text but for the
    # comment line `generate` puts first.
    code, o, e = fennel("generate", "--from", PINGPONG, "-f", "dot")
    check("DOT: run --dot writes what generate -f dot writes",
          code == 0 and o.split("\n", 1)[1] == dot, (code, e, o[:200], dot[:200]))

    # ---- a large run: the density view ----
    code, o, e = fennel("run", "--generate", "allreduce-rd", "--ranks", "1024", "--size", "8B",
                        "--model", MODEL, "--timeline", out("big.svg"))
    size = os.path.getsize(out("big.svg")) if os.path.exists(out("big.svg")) else 0
    root = ET.parse(out("big.svg")).getroot() if size else ET.Element("svg")
    dens = groups(root, "density")
    check("1024 ranks: a density view of at most 256 rows, said so in the picture",
          code == 0 and len(dens) == 1 and int(dens[0].get("data-rows")) <= 256 and
          any("Density view" in (t or "") for t in texts(root)) and not groups(root, "message"),
          (code, e, len(dens)))
    check("1024 ranks: the SVG stays small", 0 < size < 1_000_000, size)
    check("1024 ranks without --critical-path: no trail",
          not groups(root, "critical-path") and not uses_path_colour(out("big.svg")))
    # With --critical-path the density view draws the path as a trail through the rows:
    # recursive doubling's path crosses to a new partner in each of its 10 stages.
    code, o, e = fennel("run", "--generate", "allreduce-rd", "--ranks", "1024", "--size", "8B",
                        "--model", MODEL, "--timeline", out("big-path.svg"), "--critical-path")
    root = ET.parse(out("big-path.svg")).getroot() if code == 0 else ET.Element("svg")
    trail = groups(root, "critical-path")
    lines = [ln for g in trail for ln in g.iter(SVG + "line") if ln.get("stroke") == PATH_COLOUR]
    rises = [ln for ln in lines if ln.get("y1") != ln.get("y2")]
    check("1024 ranks --critical-path: one trail in the path colour, crossing rows",
          len(trail) == 1 and len(rises) >= 5 and
          "critical path" in [g.get("data-label") for g in groups(root, "legend-entry")],
          (e, len(trail), len(lines), len(rises)))

    # ---- bad input: one line, exit 2, no file written ----
    def expect_usage(name, args, message, path):
        code, o, e = fennel(*args)
        check(name, code == 2 and e == "fennel: " + message + "\n" and o == "" and
              not os.path.exists(path), (code, e))

    expect_usage("unknown picture extension",
                 ["run", PINGPONG, "--timeline", out("x.gif")],
                 f"--timeline {out('x.gif')}: unknown picture format (use .svg, .png or .pdf)",
                 out("x.gif"))
    expect_usage("unknown program view extension",
                 ["run", PINGPONG, "--dag", out("x.jpeg")],
                 f"--dag {out('x.jpeg')}: unknown picture format (use .svg, .png or .pdf)",
                 out("x.jpeg"))
    expect_usage("empty window", ["run", PINGPONG, "--timeline", out("w.svg"),
                                  "--time-window", "2us:1us"],
                 "--time-window 2us:1us: the window is empty (its end must come after its start)",
                 out("w.svg"))
    expect_usage("window without two times", ["run", PINGPONG, "--timeline", out("w.svg"),
                                              "--time-window", "2us"],
                 "--time-window 2us: expected A:B, two times such as 0:2us (A: or :B leave that "
                 "side open)", out("w.svg"))
    expect_usage("window with a bad time", ["run", PINGPONG, "--timeline", out("w.svg"),
                                            "--time-window", "0:soon"],
                 "--time-window 0:soon: soon: expected a number", out("w.svg"))
    expect_usage("rank out of range", ["run", PINGPONG, "--model", "postal-unit",
                                       "--timeline", out("r.svg"),
                                       "--ranks-shown", "0-2"],
                 "--ranks-shown 0-2: rank 2 is out of range (the run has 2 ranks, 0 to 1)",
                 out("r.svg"))
    expect_usage("bad rank list", ["run", PINGPONG, "--timeline", out("r.svg"),
                                   "--ranks-shown", "0,x"],
                 "--ranks-shown 0,x: 'x' is not a rank or a range of ranks (0-7)", out("r.svg"))
    expect_usage("empty rank range", ["run", PINGPONG, "--timeline", out("r.svg"),
                                      "--ranks-shown", "3-1"],
                 "--ranks-shown 3-1: the range 3-1 is empty", out("r.svg"))
    expect_usage("window without a timeline", ["run", PINGPONG, "--time-window", "0:1us"],
                 "--time-window applies to the timeline: add --timeline FILE", out("none"))
    expect_usage("width out of range", ["run", PINGPONG, "--timeline", out("n.png"),
                                        "--width", "20"],
                 "--width 20: expected a whole number of pixels from 300 to 16384", out("n.png"))
    expect_usage("picture width out of range", ["run", PINGPONG, "--timeline", out("n.png"),
                                                "--picture-width", "20"],
                 "--picture-width 20: expected a whole number of pixels from 300 to 16384",
                 out("n.png"))
    expect_usage("picture width without a picture", ["run", PINGPONG, "--picture-width", "600"],
                 "--picture-width applies to pictures: add --timeline FILE or --dag FILE",
                 out("none"))
    check("no temporary files left behind",
          not [f for f in os.listdir(tmp) if re.search(r"\.\w+\.\w{6}$", f)], os.listdir(tmp))

# Picture details: a glyph's tooltip gives its interval in one unit ("0 to 100 ns", not
# "0 ps to 100 ns"); the program view's legend lists `any` only for a program that uses it.
with tempfile.TemporaryDirectory() as tmp:
    svg, dag, dag_any = (os.path.join(tmp, n) for n in ("t.svg", "d.svg", "a.svg"))
    fennel("run", "--generate", "allreduce-rd", "--ranks", "4", "--model", MODEL,
           "--timeline", svg, "--dag", dag)
    titles = re.findall(r"<title>([^<]*)</title>", open(svg).read())
    check("tooltips: an interval in one unit", any(", 0 to 100 ns" in t for t in titles) and
          not any(re.search(r"\d (ps|ns|µs) to ", t) for t in titles), titles[:5])
    check("program view: no `any` entry without any", "any: K" not in open(dag).read())
    fennel("run", "tests/data/reference/any.yaml", "--model", MODEL, "--dag", dag_any)
    check("program view: the `any` entry with any", "any: K" in open(dag_any).read())

# The density view (1024 ranks): the axis caption and the first row's label do not overlap
# (baselines at least a line of 10.5-unit text apart).
with tempfile.TemporaryDirectory() as tmp:
    svg = os.path.join(tmp, "den.svg")
    fennel("run", "--generate", "allreduce-rd", "--ranks", "1024", "--model", MODEL,
           "--timeline", svg)
    text = open(svg).read() if os.path.exists(svg) else ""
    caption = re.search(r'<text[^>]* y="([\d.]+)"[^>]*>time \(ns\)</text>', text)
    first = re.search(r'<text[^>]* y="([\d.]+)"[^>]*>rank 0</text>', text)
    check("density view: 'time (ns)' and 'rank 0' apart",
          caption and first and float(first.group(1)) - float(caption.group(1)) >= 10.5,
          (caption and caption.group(0), first and first.group(0)))


# Publication options: --title replaces the caption's first line (program and model),
# --no-caption drops the caption (only --title stays), --picture-size writes the picture at
# W x H (SVG width and height over the drawing's own viewBox, a PDF page of W x H points, a
# PNG of W x H pixels); plot's --size draws the chart at W x H.
with tempfile.TemporaryDirectory() as tmp:
    def out(name):
        return os.path.join(tmp, name)
    base = ["run", "--generate", "allreduce-rd", "--ranks", "8", "--model", MODEL]
    fennel(*base, "--timeline", out("plain.svg"))
    fennel(*base, "--timeline", out("titled.svg"), "--dag", out("titled-dag.svg"), "--title",
           "Recursive doubling")
    fennel(*base, "--timeline", out("bare.svg"), "--no-caption")
    fennel(*base, "--timeline", out("t.svg"), "--title", "RD", "--no-caption", "--picture-size",
           "252x180")
    fennel(*base, "--timeline", out("t.pdf"), "--picture-size", "252x180")
    fennel(*base, "--timeline", out("t.png"), "--picture-size", "300x200")

    def texts(name):
        return re.findall(r"<text[^>]*>([^<]*)</text>", open(out(name)).read())
    plain = texts("plain.svg")
    check("a timeline's caption: program and model, then the run",
          plain[0].startswith("allreduce-rd under lbp") and plain[1].startswith("8 ranks"),
          plain[:2])
    check("--title replaces the first caption line (timeline and program view)",
          texts("titled.svg")[:2] == ["Recursive doubling", plain[1]]
          and "Recursive doubling" in texts("titled-dag.svg")
          and not any("under lbp" in t for t in texts("titled-dag.svg")),
          texts("titled.svg")[:2])
    check("--no-caption: neither caption line",
          not any("under lbp" in t or t.startswith("8 ranks") for t in texts("bare.svg"))
          and texts("bare.svg")[0] == "time (ns)", texts("bare.svg")[:2])
    head = open(out("t.svg")).read(400)
    m = re.search(r'width="([\d.]+)" height="([\d.]+)" viewBox="0 0 ([\d.]+) ([\d.]+)"', head)
    check("--picture-size: the SVG is 252 x 180 over the drawing's own 1200-wide viewBox",
          m and m.group(1, 2) == ("252", "180") and m.group(3) == "1200"
          and texts("t.svg")[0] == "RD", (head, texts("t.svg")[:1]))
    pdf = open(out("t.pdf"), "rb").read() if os.path.exists(out("t.pdf")) else b""
    check("--picture-size: a PDF page of 252 x 180 points",
          re.findall(rb"/MediaBox \[ ?0 0 252 180 ?\]", pdf), pdf[:0])
    w, h, _ = png_pixels(out("t.png")) if os.path.exists(out("t.png")) else (0, 0, None)
    check("--picture-size: a PNG of 300 x 200 pixels", (w, h) == (300, 200), (w, h))
    for args, message in [
            (["--picture-size", "252x180"],
             "--picture-size applies to pictures: add --timeline FILE or --dag FILE"),
            (["--title", "x"], "--title applies to pictures: add --timeline FILE or --dag FILE"),
            (["--timeline", out("x.svg"), "--picture-size", "252"],
             "--picture-size 252: expected WIDTHxHEIGHT from 10 to 100000 each (points in a "
             "PDF, pixels otherwise), e.g. 252x180")]:
        code, o, e = fennel(*base, *args)
        check("usage error: " + message[:40], code == 2 and e == "fennel: " + message + "\n", e)
    code, o, e = fennel("plot", "tests/data/plot/box.csv", "--kind", "box", "-x", "ranks", "-y",
                        "makespan_ns", "--size", "252x180", "-o", out("p.svg"))
    head = open(out("p.svg")).read(400) if code == 0 else ""
    check("plot --size: the chart drawn at 252 x 180",
          'width="252" height="180" viewBox="0 0 252 180"' in head, (e, head))
    code, o, e = fennel("plot", "tests/data/plot/box.csv", "--kind", "box", "-x", "ranks", "-y",
                        "makespan_ns", "--size", "252x180", "--width", "300", "-o", out("q.svg"))
    check("plot: --size and --width are exclusive", code == 2 and e ==
          "fennel: plot: give --size or --width and --height, not both\n", e)

finish_tap()
