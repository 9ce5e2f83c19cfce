"""%%cuda: a notebook cell as a whole CUDA program, through gpulab_run."""

import pytest

from gpulab import magic

HELLO = r'''
#include <cstdio>
__global__ void hello() { printf("hello from thread %d\n", threadIdx.x); }
int main() {
  hello<<<1, 3>>>();
  cudaDeviceSynchronize();
  return 0;
}
'''

RACE = r'''
#include <cstdio>
__global__ void count(int* total) { *total += 1; }  // every thread, no atomic
int main() {
  int* total;
  cudaMalloc(&total, sizeof(int));
  cudaMemset(total, 0, sizeof(int));
  count<<<1, 64>>>(total);
  int host = 0;
  cudaMemcpy(&host, total, sizeof(int), cudaMemcpyDeviceToHost);
  printf("total %d\n", host);
  return 0;
}
'''


def test_a_cell_is_built_and_run(capsys):
    status, output = magic.run_cell("--emulated", HELLO)
    assert status == 0
    assert sorted(line for line in output.splitlines() if line.startswith("hello")) == [
        "hello from thread 0", "hello from thread 1", "hello from thread 2"]
    assert "hello from thread 2" in capsys.readouterr().out


def test_a_race_in_a_cell_is_reported_in_its_output():
    with pytest.raises(magic.CellError) as e:
        magic.run_cell("--emulated", RACE)
    assert e.value.status != 0
    assert "racecheck" in e.value.output and "cell.cu:3" in e.value.output
    status, output = magic.run_cell("--emulated --no-raise", RACE)
    assert status != 0 and "ERROR SUMMARY" in output


def test_program_arguments_after_two_dashes():
    status, output = magic.run_cell("--emulated -- 7 eight", r'''
#include <cstdio>
int main(int argc, char** argv) { for (int i = 1; i < argc; ++i) printf("[%s]", argv[i]); printf("\n"); }
''')
    assert status == 0 and "[7][eight]" in output


def test_the_extension_registers_the_cell_magic():
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "gpulab")
    assert "cuda" in shell.magics_manager.magics["cell"]
    shell.run_cell_magic("cuda", "--emulated", HELLO)


def test_the_memory_report_option_counts_a_cells_kernels():
    status, output = magic.run_cell("--emulated --memory-report", r'''
__global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }
int main() {
  float* x;
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaMemset(x, 0, 1024 * sizeof(float));
  scale<<<4, 256>>>(x, 1024);
  cudaDeviceSynchronize();
  cudaFree(x);
}
''')
    assert status == 0 and "scale" in output and "sector" in output.lower()
