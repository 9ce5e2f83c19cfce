#!/usr/bin/env bash
# Grades a class on a Slurm cluster as a job array: each task one shard of the students, then one
# job that merges the shards' gradebooks (README: "Grading a class").
#   sbatch --array=1-8 tools/course/slurm-grade.sh class/ grades/        # 8 shards
#   build/default/bin/gpulab_grade --merge grades/part-*.csv --gradebook grades.csv
#SBATCH --job-name=gpulab-grade
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
submissions=${1:?usage: slurm-grade.sh SUBMISSIONS-DIR OUT-DIR}
out=${2:?usage: slurm-grade.sh SUBMISSIONS-DIR OUT-DIR}
mkdir -p "$out"
k=${SLURM_ARRAY_TASK_ID:?run it as an array job: sbatch --array=1-N}
n=${SLURM_ARRAY_TASK_COUNT:?run it as an array job: sbatch --array=1-N}
# Every shard grades with the same seed, so the hidden cases are the same for every student.
"$here/build/default/bin/gpulab_grade" --submissions "$submissions" --shard "$k/$n" --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  --seed "${GPULAB_SEED:?set GPULAB_SEED, the same for every shard}" --gradebook "$out/part-$k.csv" --gradescope
