#include "common/array_runs.hpp"

#include <algorithm>

#include "common/random.hpp"

namespace gpulab {

CpuArrayRun::CpuArrayRun(const ArrayInstance& in, std::string name, ArrayCheck check, ArrayFunction fn,
                         float (*store)(float))
    : in_(in),
      name_(std::move(name)),
      check_(std::move(check)),
      fn_(std::move(fn)),
      launch_{in.shape, 0, {}},
      out_(in.output_size()) {
  if (store != nullptr) {
    for (const auto& input : in.inputs) {
      stored_.emplace_back(input.size());
      std::transform(input.begin(), input.end(), stored_.back().begin(), store);
    }
  }
  for (const auto& input : store != nullptr ? stored_ : in.inputs) inputs_.emplace_back(input);
}

void CpuArrayRun::poison() { gpulab::poison(out_); }
void CpuArrayRun::compute() { fn_(inputs_, out_, launch_); }
CheckResult CpuArrayRun::check() const { return check_(out_, in_, 0, run_name(in_, name_, Backend::cpu)); }

RunFactory cpu_array_run(const std::string& name, const ArrayCheck& check, ArrayFunction fn, float (*store)(float)) {
  return factory<ArrayInstance>([=](const ArrayInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
    return std::make_unique<CpuArrayRun>(in, name, check, fn, store);
  });
}

std::vector<std::pair<Backend, RunFactory>> kernel_backends(const std::string& name, const ArrayCheck& check,
                                                            const ArrayFunction& fn, const KernelHooks& hooks) {
  return on_devices(kernel_array_run(name, check, fn, hooks));
}

std::vector<std::pair<Backend, RunFactory>> kernel_backends(const std::string& name, const ArrayCheck& check,
                                                            const ArrayFunction& fn,
                                                            const OccupancyFunction& occupancy) {
  return kernel_backends(name, check, fn, with_occupancy(occupancy));
}

std::vector<std::pair<Backend, RunFactory>> one_block_backends(const std::string& name, const ArrayCheck& check,
                                                               const ArrayFunction& fn, const std::string& instead) {
  return on_devices(one_block_run(name, check, fn, instead));
}

std::unique_ptr<ArrayInstance> random_inputs(const std::string& topic, const std::vector<std::string>& names,
                                             std::size_t count, std::uint64_t seed, float lo, float hi) {
  auto in = std::make_unique<ArrayInstance>();
  in->topic = topic;
  in->input_names = names;
  in->inputs.assign(names.size(), std::vector<float>(count));
  for (std::size_t k = 0; k < names.size(); ++k) fill_uniform(in->inputs[k], seed, k, lo, hi);
  in->expected.resize(count);
  return in;
}

void use_array_sizes(Lesson& lesson) {
  lesson.default_n = 1 << 20;
  lesson.max_n = std::int64_t{1} << 36;
  lesson.sweep.clear();
  for (int p = 10; p <= 28; p += 2) lesson.sweep.push_back(std::int64_t{1} << p);
  lesson.test_sizes = {1, 31, 32, 1000, 1023, 1025, (1 << 20) + 3};
  lesson.problem = [](std::int64_t n) { return Problem{n, {{"n", n}}}; };
}

void fill_expected(ArrayInstance& in, const std::function<double(std::size_t)>& f) {
  const auto n = static_cast<std::ptrdiff_t>(in.expected.size());
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) in.expected[static_cast<std::size_t>(i)] = f(static_cast<std::size_t>(i));
}

}  // namespace gpulab
