"""The lessons as data: gpulab.run runs a lesson's executable with --json and returns its rows (a
pandas DataFrame when pandas is there, else a list of dicts); gpulab.recorded gives the rows
recorded on reference GPUs (assets/results); gpulab.plot draws what the app's Run view draws;
gpulab.grade grades a file with the exercise's grader and returns its report."""

import glob
import json
import os
import subprocess
import tempfile
from pathlib import Path

from . import _config


class LessonError(RuntimeError):
    """A lesson or grader run that failed: its output is in `output`."""

    def __init__(self, message, output=""):
        super().__init__(message + ("\n" + output.strip() if output.strip() else ""))
        self.output = output


def _binary(lesson):
    bin_dir = Path(_config.config()["bin"])
    key = str(lesson)
    if key.isdigit():
        key = f"lesson{int(key):02d}_"
    elif not key.startswith("lesson"):
        key = f"lesson*_{key}"
    found = sorted(glob.glob(str(bin_dir / (key + "*"))))
    if not found:
        names = sorted(p.name for p in bin_dir.glob("lesson*"))
        raise ValueError(f"no lesson {lesson!r} (the lessons: {', '.join(names)})")
    return found[0]


def _words(name, value):
    if value is None or value is False:
        return []
    if value is True:
        return [f"--{name}"]
    if isinstance(value, (list, tuple)):
        value = ",".join(str(v) for v in value)
    return [f"--{name}", str(value)]


def _json_of(command, option):
    """Runs a GPU Lab executable that writes its report as JSON to the file after `option`; the
    report, with the run's output and exit status. A run that wrote none raises LessonError."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "report.json")
        p = subprocess.run(command + [option, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not os.path.exists(path):
            raise LessonError(f"{os.path.basename(command[0])} exited with {p.returncode}", p.stdout)
        with open(path) as f:
            data = json.load(f)
    data["output"] = p.stdout
    data["exit_status"] = p.returncode
    return data


def _frame(rows, as_frame):
    if as_frame is False:
        return rows
    try:
        import pandas
    except ImportError:
        if as_frame:
            raise
        return rows
    return pandas.DataFrame(rows)


def run(lesson, variants=None, sizes=None, shape=None, backends=None, n=None, reps=None, warmup=None, seed=None,
        block=None, extra=(), as_frame=None, report=False):
    """Runs a lesson (5, "05", "matmul" or "lesson05_matmul") and returns its rows: variant, backend,
    n, kernel_ms, gbps, gflops, percent of peak, the check's error and status. `report=True` returns
    the whole JSON report (device, peaks, seed, command) with the rows under "results"."""
    command = [_binary(lesson)]
    for name, value in (("variant", variants), ("sizes", sizes), ("shape", shape), ("backend", backends), ("n", n),
                        ("reps", reps), ("warmup", warmup), ("seed", seed), ("block", block)):
        command += _words(name, value)
    command += list(extra)
    data = _json_of(command, "--json")
    if report:
        return data
    return _frame([_with_device(r, data) for r in data["results"]], as_frame)


def _with_device(row, report):
    """A row with its report's GPU and measured ceilings beside it (for plots against the ceiling)."""
    peaks = report.get("peaks") or {}
    device = (report.get("device") or {}).get("name", "")
    return dict(row, device=device if row.get("backend") == "gpu" else "",
                peak_gbps=peaks.get("copy_gbps") if row.get("backend") == "gpu" else None,
                peak_gflops=peaks.get("fp32_gflops") if row.get("backend") == "gpu" else None)


def recorded(lesson, as_frame=None):
    """The rows recorded on reference GPUs for a lesson (assets/results/lessonNN-*.json), each with
    the file's GPU ("device") and command."""
    number = Path(_binary(lesson)).name[len("lesson"):len("lesson") + 2]
    rows = []
    folder = Path(_config.config()["source_dir"]) / "assets" / "results"
    for path in sorted(folder.glob(f"lesson{number}-*.json")):
        data = json.loads(path.read_text())
        for r in data.get("results", []):
            rows.append(dict(_with_device(r, data), file=path.name, command=data.get("command", "")))
    return _frame(rows, as_frame)


def _records(rows):
    if hasattr(rows, "to_dict"):
        return rows.to_dict("records")
    return list(rows)


_Y = {"time": ("kernel_ms", "kernel time (ms)"), "gflops": ("gflops", "GFLOP/s"), "gbps": ("gbps", "GB/s"),
      "speedup": ("speedup", "speedup over the CPU")}


def plot(rows, y="time", recorded_rows=None, ax=None, title=None):
    """Draws rows (from run) as the app's Run view does: y ("time", "speedup", "gflops" or "gbps")
    against the problem size, a line per variant and backend; recorded GPU rows (from recorded)
    dashed beside them. Returns the matplotlib Axes."""
    import matplotlib.pyplot as plt

    if y not in _Y:
        raise ValueError(f"y must be one of {', '.join(_Y)}, not {y!r}")
    field, label = _Y[y]
    rows = _records(rows)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.2))

    def series(records, style, suffix):
        groups = {}
        for r in records:
            if not r.get("passed") or r.get("kernel_ms") is None:
                continue
            groups.setdefault((r["variant"], r["backend"]), []).append(r)
        if y == "speedup":  # each size's time against the CPU's fastest row at that size
            cpu = {}
            for r in records:
                if r.get("backend") == "cpu" and r.get("kernel_ms"):
                    cpu[r["n"]] = min(cpu.get(r["n"], float("inf")), r["kernel_ms"])
        for (variant, backend), rs in sorted(groups.items()):
            rs.sort(key=lambda r: r["n"])
            if y == "speedup":
                pts = [(r["n"], cpu[r["n"]] / r["kernel_ms"]) for r in rs if r["n"] in cpu]
            else:
                pts = [(r["n"], r[field]) for r in rs if r.get(field) is not None]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, style, marker="o", markersize=3, label=f"{variant} ({backend}){suffix}")

    series(rows, "-", "")
    recs = [r for r in _records(recorded_rows)] if recorded_rows is not None else []
    recs = [r for r in recs if r.get("backend") == "gpu"]
    if recs:
        series(recs, "--", f", {recs[0].get('device') or 'recorded'}")
    # The measured ceilings (a GPU's copy bandwidth or FP32 peak), as the app's Run view draws them.
    ceiling = {"gbps": ("peak_gbps", "copy", "GB/s"), "gflops": ("peak_gflops", "FP32 peak", "GFLOP/s")}.get(y)
    if ceiling:
        seen = {}
        for r in rows + recs:
            if r.get(ceiling[0]):
                seen.setdefault(r.get("device") or "GPU", r[ceiling[0]])
        for device, value in seen.items():
            ax.axhline(value, color="grey", linestyle=":", linewidth=1)
            ax.annotate(f"measured {ceiling[1]}, {device}: {value:,.0f} {ceiling[2]}", (0.01, value),
                        xycoords=("axes fraction", "data"), fontsize=7, color="grey", va="bottom")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("problem size n")
    ax.set_ylabel(label)
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return ax


def grade(exercise, file=None, backend="emulated", seed=None, time_limit=None):
    """Grades `file` (else the exercise's own exercise.cu) with GPU Lab's grader; returns its JSON
    report (exercises, cases, score, what failed and why)."""
    command = [str(Path(_config.config()["bin"]) / "gpulab_grade"), "--exercise", str(exercise), "--backend", backend]
    if file is not None:
        command += ["--file", os.path.abspath(file)]
    command += _words("seed", seed) + _words("time-limit", time_limit)
    return _json_of(command, "--report")
