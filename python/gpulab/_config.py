"""Where GPU Lab's build is: the compilers, the emulator's headers and the libraries the package
loads, as CMake wrote them (build/<preset>/python/gpulab_build.json).

Looked for in order: $GPULAB_BUILD (a build folder); the builds of the repository this package
lies in (build/default, build/emulated, build-h100), or of the one named in _repository.txt (a
copy installed by pip); the first that has the file wins."""

import json
import os
from pathlib import Path

_PRESETS = ("build/default", "build/emulated", "build-h100")


class BuildNotFound(RuntimeError):
    pass


def _candidates():
    if os.environ.get("GPULAB_BUILD"):
        yield Path(os.environ["GPULAB_BUILD"])
        return
    roots = [Path(__file__).resolve().parent.parent.parent]
    written = Path(__file__).resolve().parent / "_repository.txt"
    if written.exists():
        roots.append(Path(written.read_text().strip()))
    for root in roots:
        for preset in _PRESETS:
            yield root / preset


_config = None


def config():
    """The build's facts (a dict), read once."""
    global _config
    if _config is None:
        tried = []
        for folder in _candidates():
            path = folder / "python" / "gpulab_build.json"
            tried.append(str(path))
            if path.exists():
                _config = json.loads(path.read_text())
                break
        else:
            raise BuildNotFound(
                "gpulab: no GPU Lab build found (looked for " + ", ".join(tried) + "). Build it first "
                "(tools/build.sh, or tools/test.sh), or set GPULAB_BUILD to a build folder.")
    return _config


def cache_dir(what):
    """$XDG_CACHE_HOME/gpulab/<what> (or ~/.cache/gpulab/<what>), as gpulab_run's cache."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "gpulab" / what
    path.mkdir(parents=True, exist_ok=True)
    return path
