#!/usr/bin/env python3
"""Render the book's results tables from `cryptopt bench` outputs.

Every data set is a folder `docs/results/data/<date>-<machine>/` holding the files one
`cryptopt bench` run wrote (at least `bench.csv`; `bench.md` for the machine line) and,
optionally, `command.txt` (the command that made it) and `machine.txt` (the `compiler:`
and `counter:` lines the run printed). This script writes one table per data set and measure to
`docs/src/results-tables.md`, newest data set first.

Usage (from the repository root; Python 3 standard library only):

    python3 docs/results/render.py            # write docs/src/results-tables.md
    python3 docs/results/render.py --check    # exit 1 if that file is out of date
    python3 docs/results/render.py --data DIR --out FILE

Adding a data set: run `cryptopt bench ... --out /tmp/b`, copy `/tmp/b/bench.csv` and
`/tmp/b/bench.md` into a new `docs/results/data/<YYYY-MM-DD>-<cpu>/` (with the run's
`compiler:` and `counter:` lines in `machine.txt`), run this script, commit both.
"""

import argparse
import csv
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_DATA = os.path.join(ROOT, "docs", "results", "data")
DEFAULT_OUT = os.path.join(ROOT, "docs", "src", "results-tables.md")

# The columns `cryptopt bench` writes around the per-compiler pairs
# (crates/cli/src/bench/report.rs: mode,function,instructions,stack_bytes,cryptopt,
# then <cc>,speedup_over_<cc> per compiler, then halves_agree,counter,
# optimize_seconds,evals_per_second).
LEADING = ["mode", "function", "instructions", "stack_bytes", "cryptopt"]
TRAILING = ["halves_agree", "counter", "optimize_seconds", "evals_per_second"]
# Written since 2026-12-02 after TRAILING: the algorithm the program computes by.
OPTIONAL = "algorithm"


class DataError(Exception):
    pass


def read_csv(path):
    """The rows of a bench.csv and its compiler columns, checked against the format."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise DataError(f"{path}: empty")
    header = rows[0]
    known = header[:-1] if header and header[-1] == OPTIONAL else header
    if known[: len(LEADING)] != LEADING or known[-len(TRAILING):] != TRAILING:
        raise DataError(f"{path}: not the bench.csv format (header {','.join(header)})")
    middle = known[len(LEADING): -len(TRAILING)]
    if len(middle) % 2:
        raise DataError(f"{path}: compiler columns do not come in pairs")
    compilers = []
    for i in range(0, len(middle), 2):
        cc, su = middle[i], middle[i + 1]
        if su != f"speedup_over_{cc}":
            raise DataError(f"{path}: column {su!r} should be speedup_over_{cc}")
        compilers.append(cc)
    records = []
    for n, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise DataError(f"{path}:{n}: {len(row)} fields, the header has {len(header)}")
        records.append(dict(zip(header, row)))
    return compilers, records


def machine_line(folder):
    """What the data set records about the machine: CPU, counter, target, budget."""
    parts = []
    md = os.path.join(folder, "bench.md")
    if os.path.exists(md):
        with open(md, encoding="utf-8") as f:
            text = f.read()
        m = re.search(r"CPU ([^;\n]+);", text)
        if m:
            parts.append(f"CPU {m.group(1).strip()}")
        m = re.search(r"counter `([^`]+)`", text)
        if m:
            parts.append(f"counter `{m.group(1)}`")
        m = re.search(r"target (\S+) \(compilers: `([^`]*)`\)", text)
        if m:
            parts.append(f"target `{m.group(1)}`, compilers `{m.group(2)}`")
        m = re.search(r"Functions from [^;]+; ([^;]+);", text)
        if m:
            parts.append(m.group(1).strip())
        m = re.search(r"mean of (\d+) repeated", text)
        if m:
            parts.append(f"{m.group(1)} repetitions")
    return "; ".join(parts)


def fmt(value, digits):
    try:
        x = float(value)
    except ValueError:
        return "–"
    if not math.isfinite(x):
        return "–"
    return f"{x:.{digits}f}"


def geomean(values):
    xs = []
    for v in values:
        try:
            x = float(v)
        except ValueError:
            continue
        if math.isfinite(x) and x > 0:
            xs.append(x)
    if not xs:
        return float("nan")
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def table(compilers, records, mode):
    rows = [r for r in records if r["mode"] == mode]
    if not rows:
        return []
    head = ["function", "instructions", "stack bytes", "cryptopt"]
    for cc in compilers:
        head += [cc, f"speed-up over {cc}"]
    algorithms = any(r.get(OPTIONAL) for r in rows)
    if algorithms:
        head.append("algorithm")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        star = "" if r["halves_agree"] == "true" else "*"
        cells = [f"`{r['function']}`", r["instructions"], r["stack_bytes"],
                 fmt(r["cryptopt"], 1) + star]
        for cc in compilers:
            cells += [fmt(r[cc], 1), fmt(r[f"speedup_over_{cc}"], 2)]
        if algorithms:
            cells.append(r.get(OPTIONAL) or "–")
        out.append("| " + " | ".join(cells) + " |")
    foot = ["**geometric mean**", "", "", ""]
    for cc in compilers:
        g = geomean(r[f"speedup_over_{cc}"] for r in rows)
        foot += ["", f"**{g:.2f}**" if math.isfinite(g) else "–"]
    if algorithms:
        foot.append("")
    out.append("| " + " | ".join(foot) + " |")
    return out


# A data set of `bench/seeds/run.sh`: the other seeds' programs are `--compare`d under
# these names, so their columns sit beside the first seed's `cryptopt` column.
SEED = re.compile(r"seed\d+")
# How far behind the fastest seed any seed may be (issue 64, item 4, in throughput).
SEED_SPREAD = 0.03
SEED_MODE = "throughput"


def seeds_table(compilers, records):
    """Per function, each seed's ticks and how far the slowest is behind the fastest."""
    seeds = [cc for cc in compilers if SEED.fullmatch(cc)]
    rows = [r for r in records if r["mode"] == SEED_MODE]
    if not seeds or not rows:
        return []
    within_label = f"within {100 * SEED_SPREAD:.0f}%"
    head = ["function", "first seed"] + seeds + ["slowest seed behind the fastest", within_label]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    within = 0
    for r in rows:
        # Each seed's time over the first seed's, from that run's paired measurements.
        times = [1.0]
        for s in seeds:
            try:
                times.append(float(r[f"speedup_over_{s}"]))
            except ValueError:
                raise DataError(f"{r['function']}: no ratio for {s}") from None
        gap = max(times) / min(times) - 1
        ok = gap <= SEED_SPREAD
        within += ok
        cells = [f"`{r['function']}`", fmt(r["cryptopt"], 1)]
        cells += [fmt(r[s], 1) for s in seeds]
        cells += [f"{100 * gap:.1f}%", "yes" if ok else "**no**"]
        out.append("| " + " | ".join(cells) + " |")
    out.append(f"| **{within} of {len(rows)} {within_label}** |" + " |" * (len(head) - 1))
    return out


def render(data_dir):
    if not os.path.isdir(data_dir):
        raise DataError(f"{data_dir}: no such folder")
    sets = sorted(
        (d for d in os.listdir(data_dir)
         if os.path.isfile(os.path.join(data_dir, d, "bench.csv"))),
        reverse=True,
    )
    lines = [
        "# Results tables",
        "",
        "<!-- Generated by docs/results/render.py from docs/results/data/*/bench.csv;",
        "     do not edit: add a data set and run the script. -->",
        "",
        "Each table is one past `cryptopt bench` run, named by its date and machine. The",
        "numbers are median counter ticks per call (lower is better) and speed-ups (the",
        "compiler's ticks over cryptopt's, above 1 is faster), all from interleaved",
        "measurements inside that one run; `*` marks a program whose repetitions' halves",
        "disagreed. Compare ratios within a table, never absolute numbers across tables:",
        "machines, counters and versions differ.",
        "",
    ]
    if not sets:
        lines += ["No data sets yet.", ""]
    for name in sets:
        folder = os.path.join(data_dir, name)
        compilers, records = read_csv(os.path.join(folder, "bench.csv"))
        lines += [f"## {name}", ""]
        machine = machine_line(folder)
        counters = sorted({r["counter"] for r in records})
        if machine:
            lines += [f"Machine: {machine}.", ""]
        elif counters:
            lines += [f"Counter: {', '.join(f'`{c}`' for c in counters)}.", ""]
        machine_txt = os.path.join(folder, "machine.txt")
        if os.path.exists(machine_txt):
            with open(machine_txt, encoding="utf-8") as f:
                said = [ln.strip() for ln in f if ln.strip()]
            if said:
                lines += ["What the run printed about the machine:", ""]
                lines += [f"- `{ln}`" for ln in said] + [""]
        command = os.path.join(folder, "command.txt")
        if os.path.exists(command):
            with open(command, encoding="utf-8") as f:
                cmd = f.read().strip()
            if cmd:
                lines += ["```sh", cmd, "```", ""]
        for mode in ("throughput", "latency"):
            t = table(compilers, records, mode)
            if t:
                lines += [f"### {mode}", ""] + t + [""]
        t = seeds_table(compilers, records)
        if t:
            lines += [f"### {SEED_MODE}: seeds side by side", ""] + t + [""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA, help="folder of data sets")
    ap.add_argument("--out", default=DEFAULT_OUT, help="markdown file to write")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if --out differs from what would be written")
    args = ap.parse_args(argv)
    try:
        text = render(args.data)
    except (DataError, OSError) as e:
        print(f"render.py: {e}", file=sys.stderr)
        return 2
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print(f"render.py: {args.out} is out of date: run docs/results/render.py",
                  file=sys.stderr)
            return 1
        return 0
    tmp = args.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, args.out)
    print(f"wrote {args.out} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
