"""%%cuda: a notebook cell that is a whole CUDA program, built and run by gpulab_run (the GPU where
there is one, else the emulator in its checked mode), its output and reports shown in the cell.

    %load_ext gpulab
    %%cuda [--emulated] [--gpu] [--check full|memcheck|off] [--memory-report] [-- ARGS...]
    #include <cstdio>
    __global__ void hello() { printf("hello from thread %d\\n", threadIdx.x); }
    int main() { hello<<<1, 4>>>(); cudaDeviceSynchronize(); }

A program that fails (a check's report, a wrong answer it detects, a crash) raises CellError with
its exit status, after its output is shown; `%%cuda --no-raise` only shows it."""

import hashlib
import re
import shlex
import subprocess
import sys
from pathlib import Path

from . import _config


class CellError(RuntimeError):
    def __init__(self, status, output):
        super().__init__(f"the CUDA cell's program exited with status {status}")
        self.status = status
        self.output = output


def run_cell(line, cell, stream=None):
    """Builds and runs the cell; returns (exit status, output)."""
    words = shlex.split(line)
    args = []
    if "--" in words:
        cut = words.index("--")
        words, args = words[:cut], words[cut + 1:]
    raise_on_failure = "--no-raise" not in words
    words = [w for w in words if w != "--no-raise"]
    folder = _config.cache_dir("cells")
    source = folder / ("cell_" + hashlib.sha256(cell.encode()).hexdigest()[:16] + ".cu")
    if not source.exists():
        source.write_text(cell)
    command = [str(Path(_config.config()["bin"]) / "gpulab_run")] + words + [str(source)]
    if args:
        command += ["--"] + args
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    lines = []
    out = stream or sys.stdout
    for text in p.stdout:
        # the cell's file is the cell: messages name it as such
        text = re.sub(r"[^\s'\"(]*" + re.escape(source.name), "cell.cu", text)
        lines.append(text)
        out.write(text)
    status = p.wait()
    output = "".join(lines)
    if status != 0 and raise_on_failure:
        raise CellError(status, output)
    return status, output


def cuda(line, cell):
    """%%cuda [gpulab_run's options] [-- program arguments]: the cell as a whole CUDA program."""
    run_cell(line, cell)


def register(ipython):
    ipython.register_magic_function(cuda, magic_kind="cell", magic_name="cuda")
