"""The lessons as data, their plots and the grader, from Python."""

import json

import pytest

import gpulab


def test_a_lesson_run_returns_its_rows():
    rows = gpulab.run(5, variants="cpu_naive,naive", sizes=[17, 40], backends="cpu,emulated", reps=1, seed=5,
                      as_frame=False)
    assert [(r["variant"], r["n"], r["status"]) for r in rows] == [
        ("cpu_naive", 17, "passed"), ("naive", 17, "passed"), ("cpu_naive", 40, "passed"), ("naive", 40, "passed")]
    assert all(r["seed"] == 5 and r["kernel_ms"] > 0 for r in rows)
    report = gpulab.run("matmul", variants="naive", n=8, backends="emulated", reps=1, report=True)
    assert report["results"][0]["timed_on"].startswith("cpu") and "lesson05_matmul" in report["command"]


def test_a_bad_lesson_or_variant_is_a_clear_error():
    with pytest.raises(ValueError, match="no lesson"):
        gpulab.run(99)
    with pytest.raises(gpulab.LessonError, match="exited with 2"):
        gpulab.run(1, variants="no_such_variant", n=10)


def test_recorded_gpu_rows_and_a_plot(tmp_path):
    recorded = gpulab.recorded(5, as_frame=False)
    assert recorded and all(r["device"] for r in recorded if r["backend"] == "gpu")
    assert any(r["peak_gflops"] for r in recorded)
    import matplotlib
    matplotlib.use("Agg")
    rows = gpulab.run(1, variants="cpu_loop,grid_stride", sizes=[1000, 100000], backends="cpu,emulated", reps=1,
                      as_frame=False)
    for y in ("time", "speedup", "gbps"):
        ax = gpulab.plot(rows, y=y, recorded_rows=gpulab.recorded(1, as_frame=False), title=f"lesson 01, {y}")
        ax.figure.savefig(tmp_path / f"{y}.png")
        assert (tmp_path / f"{y}.png").stat().st_size > 10000
        assert any("grid_stride (emulated)" in t.get_text() for t in ax.get_legend().get_texts())


def test_grading_a_solution_and_a_stub(tmp_path):
    solution = gpulab.grade("01_vector_add", file=gpulab.lessons._config.config()["source_dir"] +
                            "/lessons/01_vector_add/exercises/01_vector_add/solution.cu", seed=3)
    assert solution["passed"] and solution["exercises"][0]["score"] == 1.0
    stub = gpulab.grade("01_vector_add", seed=3)  # the exercise as handed out
    assert not stub["passed"] and stub["exit_status"] != 0
    json.dumps(stub)
