// Lesson 05's own checks: the product checker fails on wrong products (full and sampled), every
// build of the blocked CPU version this CPU can run agrees with OpenBLAS, and the launchers
// refuse shapes that do not match their buffers.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/backend.hpp"
#include "common/random.hpp"
#include "common/targets.hpp"
#include "matmul/matmul.hpp"
#include "matmul/matmul_cpu_blocked.hpp"
#include "problems/matmul/matmul_check.hpp"
#include "support/lesson_runs.hpp"

using namespace gpulab;

namespace {

struct Product {
  int m, n, k;
  std::vector<float> a, b, c;
};

Product random_product(int m, int n, int k, std::uint64_t seed) {
  Product p{m,
            n,
            k,
            std::vector<float>(static_cast<std::size_t>(m) * k),
            std::vector<float>(static_cast<std::size_t>(k) * n),
            std::vector<float>(static_cast<std::size_t>(m) * n)};
  fill_uniform(p.a, seed, 0, -1.0f, 1.0f);
  fill_uniform(p.b, seed, 1, -1.0f, 1.0f);
  matmul::cpu_openblas(p.a, p.b, p.c, m, n, k);
  return p;
}

}  // namespace

TEST_CASE("the product check passes a correct product and names the first wrong element", "[matmul]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  Product p = random_product(67, 45, 129, seed);
  const ProductReference ref = product_reference(p.a, p.b, p.m, p.n, p.k, seed);
  CHECK_FALSE(ref.sampled);
  CHECK(check_product(p.c, ref, "matmul test").passed);

  SECTION("a term too many in one element") {
    // The largest term of the sum: a random one can be near zero and hide under the bound.
    float term = 0.0f;
    for (int kk = 0; kk < p.k; ++kk) {
      const float t = p.a[17 * 129 + kk] * p.b[kk * 45 + 3];
      if (std::fabs(t) > std::fabs(term)) term = t;
    }
    p.c[17 * 45 + 3] += term;
    const CheckResult r = check_product(p.c, ref, "matmul test");
    CHECK_FALSE(r.passed);
    CHECK_THAT(r.message, Catch::Matchers::Contains("first at (17, 3)"));
  }
  SECTION("an element never written") {
    poison(std::span<float>(p.c).subspan(66 * 45 + 44, 1));
    const CheckResult r = check_product(p.c, ref, "matmul test");
    CHECK_FALSE(r.passed);
    CHECK_THAT(r.message, Catch::Matchers::Contains("never written"));
  }
  SECTION("NaN") {
    p.c[0] = std::nanf("");
    CHECK_FALSE(check_product(p.c, ref, "matmul test").passed);
  }
}

TEST_CASE("the sampled check of a large product checks whole rows and columns, and sums the rest", "[matmul]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  Product p = random_product(1100, 1050, 1000, seed);  // just over the full check's limit
  const ProductReference ref = product_reference(p.a, p.b, p.m, p.n, p.k, seed);
  REQUIRE(ref.sampled);
  CHECK(check_product(p.c, ref, "matmul test").passed);
  // Rows 1 ... m-2 and columns 1 ... n-2 not in the sample: only the sums can see them.
  int row = 1, col = 1;
  while (std::find(ref.rows.begin(), ref.rows.end(), row) != ref.rows.end()) ++row;
  while (std::find(ref.cols.begin(), ref.cols.end(), col) != ref.cols.end()) ++col;
  const std::size_t at = static_cast<std::size_t>(row) * 1050 + col;

  SECTION("one term too many in a sampled row") {
    p.c[static_cast<std::size_t>(ref.rows[1]) * 1050 + col] += 0.5f;
    const CheckResult r = check_product(p.c, ref, "matmul test");
    CHECK_FALSE(r.passed);
    CHECK_THAT(r.message,
               Catch::Matchers::Contains("(" + std::to_string(ref.rows[1]) + ", " + std::to_string(col) + ")"));
  }
  SECTION("garbage outside the sample: the row sum sees it") {
    p.c[at] = 1e5f;
    const CheckResult r = check_product(p.c, ref, "matmul test");
    CHECK_FALSE(r.passed);
    CHECK_THAT(r.message, Catch::Matchers::Contains("row " + std::to_string(row)));
  }
  SECTION("never written") {
    poison(std::span<float>(p.c).subspan(at, 1));
    const CheckResult r = check_product(p.c, ref, "matmul test");
    CHECK_FALSE(r.passed);
    CHECK_THAT(r.message, Catch::Matchers::Contains("never written"));
  }
}

TEST_CASE("every build of the blocked CPU multiply this CPU runs agrees with OpenBLAS", "[matmul]") {
  using Gemm = void (*)(const float*, const float*, float*, int, int, int, float*, float*);
  struct Build {
    const char* name;
    Gemm gemm;
    matmul::blocked::Sizes sizes;
    bool runs;
  };
  std::vector<Build> builds = {{"generic", matmul::blocked::generic::gemm, matmul::blocked::generic::sizes(), true}};
#if defined(__x86_64__)
  builds.push_back({"avx2", matmul::blocked::avx2::gemm, matmul::blocked::avx2::sizes(),
                    __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")});
  builds.push_back({"avx512", matmul::blocked::avx512::gemm, matmul::blocked::avx512::sizes(),
                    __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")});
#endif
  const std::uint64_t seed = test::test_seed();
  // Edges of every blocking: rows past a micro-tile and a block, columns past a sliver and a
  // task, k past a panel.
  const Product p = random_product(197, 1061, 300, seed);
  const ProductReference ref = product_reference(p.a, p.b, p.m, p.n, p.k, seed);
  for (const Build& build : builds) {
    if (!build.runs) continue;
    CAPTURE(build.name, seed);
    std::vector<float> c(p.c.size());
    poison(c);
    std::vector<float> b_panel(build.sizes.b_panel_floats(p.n));
    std::vector<float> a_blocks(build.sizes.a_block_floats() *
                                static_cast<std::size_t>(matmul::blocked::max_threads()));
    build.gemm(p.a.data(), p.b.data(), c.data(), p.m, p.n, p.k, b_panel.data(), a_blocks.data());
    const CheckResult r = check_product(c, ref, std::string("cpu_blocked ") + build.name);
    INFO(r.message);
    CHECK(r.passed);
  }
}

TEST_CASE("the matmul launchers refuse buffers that do not match m, n and k", "[matmul]") {
  UseDevice on_emulator(Backend::emulated);
  DeviceBuffer<float> a(6, "A"), b(6, "B"), c(4, "C");
  a.fill_bytes(0), b.fill_bytes(0);  // (initcheck would report the read of unwritten inputs)
  CHECK_THROWS_AS(matmul::warp_tiled(a.span(), b.span(), c.span(), 2, 2, 4), std::invalid_argument);
  CHECK_THROWS_AS(matmul::naive(a.span(), b.span(), c.span(), -1, 2, 3, 256), std::invalid_argument);
  CHECK_THROWS_AS(matmul::cpu_blocked(a.span(), b.span(), c.span(), 2, 2, 4), std::invalid_argument);
  CHECK_NOTHROW(matmul::register_2d(a.span(), b.span(), c.span(), 2, 2, 3));
}
