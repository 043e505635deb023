#!/usr/bin/env python3
"""Top frames of a JFR recording: self and inclusive shares of jdk.ExecutionSample (or, with --alloc, of
jdk.ObjectAllocationSample weight), per thread group, optionally only after the first FRACTION of the recording
(to leave out start-up and JIT warm-up). Usage: jfr-top.py FILE.jfr [--from FRACTION] [--alloc] [--top N]"""
import argparse, collections, os, re, subprocess

ap = argparse.ArgumentParser()
ap.add_argument("jfr")
ap.add_argument("--from", dest="frac", type=float, default=0.0)
ap.add_argument("--alloc", action="store_true")
ap.add_argument("--top", type=int, default=40)
a = ap.parse_args()
kind = "jdk.ObjectAllocationSample" if a.alloc else "jdk.ExecutionSample"
jfr = os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "jfr")
text = subprocess.run([jfr, "print", "--stack-depth", "64", "--events", kind, a.jfr],
                      capture_output=True, text=True, check=True).stdout
events = text.split(kind + " {")[1:]

def seconds(ev):
    m = re.search(r"startTime = (\d+):(\d+):([\d.]+)", ev)
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))

times = [seconds(e) for e in events]
cut = min(times) + (max(times) - min(times)) * a.frac if times else 0
own, incl, threads, total = collections.Counter(), collections.Counter(), collections.Counter(), 0.0
units = {"bytes": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
for ev, t in zip(events, times):
    if t < cut:
        continue
    th = re.search(r'(?:sampledThread|eventThread) = "(.*?)"', ev)
    group = re.sub(r"\d+", "N", th.group(1)) if th else "?"
    frames = [re.sub(r"\s+line:.*", "", f.strip()) for f in re.findall(r"\n\s+(\S.*line:.*)", ev)]
    w = 1.0
    wm = re.search(r"weight = ([\d.]+) (\w+)", ev)
    if wm:
        w = float(wm.group(1)) * units.get(wm.group(2), 1)
    top = frames[0] if frames else "?"
    oc = re.search(r"objectClass = (\S+)", ev)
    if oc:
        top = oc.group(1) + " @ " + top
    total += w
    threads[group] += w
    own[group[:18] + " | " + top] += w
    for f in set(frames):
        incl[group[:18] + " | " + f] += w
print(f"{kind}: total {total:,.0f}")
for k, v in threads.most_common(8):
    print(f"{100 * v / total:5.1f}%  thread {k}")
print("--- self")
for k, v in own.most_common(a.top):
    print(f"{100 * v / total:5.1f}%  {k}")
print("--- inclusive")
for k, v in incl.most_common(a.top):
    print(f"{100 * v / total:5.1f}%  {k}")
