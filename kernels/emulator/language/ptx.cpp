// Inline PTX on the emulator (ptx.hpp): the statement's text parsed once per call, its operands
// substituted, and each instruction carried out for the calling lane, the warp's lanes pooling
// what they hold through the emulator's warp exchanges (as the shuffles do).
#include "emulator/language/ptx.hpp"

#include <array>
#include <cctype>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "emulator/execution/scheduler.hpp"
#include "emulator/execution/shared_memory.hpp"
#include "emulator/language/cuda_language.hpp"
#include "emulator/language/half.hpp"
#include "emulator/observers/checker.hpp"

namespace gpulab::emulated::ptx {

namespace {

[[noreturn]] void refuse(const std::string& what) {
  throw std::runtime_error("inline PTX: " + what +
                           " (the emulator carries out ldmatrix.sync.aligned.m8n8 and mma.sync.aligned.m16n8k16 "
                           "with FP16 or BF16 inputs and FP32 sums; any other PTX runs only on a GPU)");
}

// One instruction: its opcode and operands, each a register (%N), a braced list of registers or
// a [%N] address, as operand numbers.
struct Instruction {
  std::string opcode;
  std::vector<std::vector<int>> operands;
  std::vector<bool> address;  // operand i was [%N]
};

int operand_number(std::string_view token, std::size_t count) {
  std::size_t i = 0;
  while (i < token.size() && std::isspace(static_cast<unsigned char>(token[i]))) ++i;
  if (i >= token.size() || token[i] != '%') refuse("an operand that is not %N: '" + std::string(token) + "'");
  int n = 0;
  for (++i; i < token.size() && std::isdigit(static_cast<unsigned char>(token[i])); ++i) n = n * 10 + (token[i] - '0');
  if (static_cast<std::size_t>(n) >= count) refuse("%" + std::to_string(n) + " names no operand");
  return n;
}

std::vector<Instruction> parse(std::string_view text, std::size_t count) {
  std::vector<Instruction> all;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(';', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view statement = text.substr(at, end - at);
    at = end + 1;
    std::size_t b = 0;
    while (b < statement.size() && std::isspace(static_cast<unsigned char>(statement[b]))) ++b;
    statement.remove_prefix(b);
    if (statement.empty()) continue;
    Instruction ins;
    std::size_t op_end = 0;
    while (op_end < statement.size() && !std::isspace(static_cast<unsigned char>(statement[op_end]))) ++op_end;
    ins.opcode = std::string(statement.substr(0, op_end));
    std::string_view rest = statement.substr(op_end);
    int depth = 0;
    std::size_t start = 0;
    auto flush = [&](std::string_view piece) {
      std::size_t s = 0, e = piece.size();
      while (s < e && std::isspace(static_cast<unsigned char>(piece[s]))) ++s;
      while (e > s && std::isspace(static_cast<unsigned char>(piece[e - 1]))) --e;
      piece = piece.substr(s, e - s);
      if (piece.empty()) return;
      std::vector<int> registers;
      const bool braced = piece.front() == '{', bracketed = piece.front() == '[';
      if (braced || bracketed) piece = piece.substr(1, piece.size() - 2);
      std::size_t from = 0;
      for (std::size_t i = 0; i <= piece.size(); ++i) {
        if (i == piece.size() || piece[i] == ',') {
          registers.push_back(operand_number(piece.substr(from, i - from), count));
          from = i + 1;
        }
      }
      ins.operands.push_back(registers);
      ins.address.push_back(bracketed);
    };
    for (std::size_t i = 0; i < rest.size(); ++i) {
      if (rest[i] == '{' || rest[i] == '[') ++depth;
      if (rest[i] == '}' || rest[i] == ']') --depth;
      if (rest[i] == ',' && depth == 0) {
        flush(rest.substr(start, i - start));
        start = i + 1;
      }
    }
    flush(rest.substr(start));
    all.push_back(std::move(ins));
  }
  return all;
}

bool has(const std::string& opcode, std::string_view part) { return opcode.find(part) != std::string::npos; }

// The warp's 32 values of this lane's `value` (every lane of the warp takes part).
std::array<std::uint64_t, 32> pooled(std::uint64_t value) {
  const detail::Exchange e = detail::warp_exchange(0xFFFFFFFFu, value);
  std::array<std::uint64_t, 32> all{};
  std::memcpy(all.data(), e.slots, sizeof all);
  return all;
}

std::uint16_t read_shared_16(std::uint64_t shared_address, const void* pc) {
  auto* p = static_cast<const unsigned char*>(__cvta_shared_to_generic(shared_address));
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (check::hooks_on) check::access(a, 2, check::Access::read, pc);
  std::uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

void write(const Operand& o, std::uint64_t bits) { std::memcpy(o.target, &bits, o.bytes); }

// ldmatrix: lane l names row l % 8 of matrix l / 8 (of 1, 2 or 4); each lane receives, of each
// matrix, the pair (row l / 4, columns 2 (l % 4) and the next), or with .trans the pair (rows
// 2 (l % 4) and the next, column l / 4).
void ldmatrix(const Instruction& ins, const std::vector<Operand>& ops, const void* pc) {
  const int matrices = has(ins.opcode, ".x4") ? 4 : has(ins.opcode, ".x2") ? 2 : 1;
  const bool trans = has(ins.opcode, ".trans");
  if (ins.operands.size() != 2 || !ins.address[1] || static_cast<int>(ins.operands[0].size()) != matrices) {
    refuse("ldmatrix takes {registers}, [address]");
  }
  const auto rows = pooled(ops[static_cast<std::size_t>(ins.operands[1][0])].value & 0xFFFFFFFFu);
  const unsigned lane = detail::lane_id();
  for (int j = 0; j < matrices; ++j) {
    std::uint32_t pair = 0;
    for (unsigned h = 0; h < 2; ++h) {
      const unsigned row = trans ? 2 * (lane % 4) + h : lane / 4, col = trans ? lane / 4 : 2 * (lane % 4) + h;
      pair |= static_cast<std::uint32_t>(read_shared_16(rows[static_cast<std::size_t>(8 * j) + row] + 2 * col, pc))
              << (16 * h);
    }
    write(ops[static_cast<std::size_t>(ins.operands[0][static_cast<std::size_t>(j)])], pair);
  }
}

float element(std::uint32_t pair, unsigned half, bool bf16) {
  const auto bits = static_cast<std::uint16_t>(pair >> (16 * half));
  return bf16 ? types::half_bits::bf16_to_float(bits) : types::half_bits::to_float(bits);
}

// mma.sync m16n8k16, row.col: lane l (g = l / 4, t = l % 4) holds A's pairs (g, 2t), (g + 8, 2t),
// (g, 2t + 8), (g + 8, 2t + 8); B's pairs along k (2t, g), (2t + 8, g); and C's and D's
// (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
void mma(const Instruction& ins, const std::vector<Operand>& ops) {
  if (!has(ins.opcode, ".m16n8k16") || !has(ins.opcode, ".row.col") || !has(ins.opcode, ".f32.") ||
      ins.operands.size() != 4 || ins.operands[0].size() != 4 || ins.operands[1].size() != 4 ||
      ins.operands[2].size() != 2 || ins.operands[3].size() != 4) {
    refuse("'" + ins.opcode + "' with these operands is not emulated");
  }
  const bool bf16 = has(ins.opcode, ".bf16");
  if (!bf16 && !has(ins.opcode, ".f16")) refuse("'" + ins.opcode + "': inputs other than FP16 and BF16");
  const auto reg = [&](int o, int i) {
    return static_cast<std::uint32_t>(
        ops[static_cast<std::size_t>(ins.operands[static_cast<std::size_t>(o)][static_cast<std::size_t>(i)])].value);
  };
  const auto a01 = pooled(reg(1, 0) | std::uint64_t{reg(1, 1)} << 32);
  const auto a23 = pooled(reg(1, 2) | std::uint64_t{reg(1, 3)} << 32);
  const auto b01 = pooled(reg(2, 0) | std::uint64_t{reg(2, 1)} << 32);
  float a[16][16], b[16][8];
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned g = l / 4, t = l % 4;
    const std::uint32_t regs[4] = {static_cast<std::uint32_t>(a01[l]), static_cast<std::uint32_t>(a01[l] >> 32),
                                   static_cast<std::uint32_t>(a23[l]), static_cast<std::uint32_t>(a23[l] >> 32)};
    for (unsigned h = 0; h < 2; ++h) {
      a[g][2 * t + h] = element(regs[0], h, bf16);
      a[g + 8][2 * t + h] = element(regs[1], h, bf16);
      a[g][2 * t + 8 + h] = element(regs[2], h, bf16);
      a[g + 8][2 * t + 8 + h] = element(regs[3], h, bf16);
      b[2 * t + h][g] = element(static_cast<std::uint32_t>(b01[l]), h, bf16);
      b[2 * t + 8 + h][g] = element(static_cast<std::uint32_t>(b01[l] >> 32), h, bf16);
    }
  }
  const unsigned lane = detail::lane_id(), g = lane / 4, t = lane % 4;
  for (int i = 0; i < 4; ++i) {
    const unsigned row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i % 2);
    float c;
    const auto c_bits = static_cast<std::uint32_t>(reg(3, i));
    std::memcpy(&c, &c_bits, 4);
    for (int k = 0; k < 16; ++k) c += a[row][k] * b[k][col];
    std::uint32_t d_bits;
    std::memcpy(&d_bits, &c, 4);
    write(ops[static_cast<std::size_t>(ins.operands[0][static_cast<std::size_t>(i)])], d_bits);
  }
}

}  // namespace

void run(const char* text, std::initializer_list<Operand> operands) {
  const void* pc = __builtin_return_address(0);
  if (!in_kernel()) refuse("PTX in host code");
  const std::vector<Operand> ops(operands);
  for (const Instruction& ins : parse(text, ops.size())) {
    if (ins.opcode.starts_with("ldmatrix.sync.aligned.m8n8") && has(ins.opcode, ".b16")) {
      ldmatrix(ins, ops, pc);
    } else if (ins.opcode.starts_with("mma.sync.aligned.")) {
      mma(ins, ops);
    } else {
      refuse("'" + ins.opcode + "' is not emulated");
    }
  }
}

void unreadable(const char* file, int line) {
  refuse(std::string("the asm statement at ") + file + ":" + std::to_string(line) +
         " has operands the emulator's rewrite cannot read (written through a macro?)");
}

}  // namespace gpulab::emulated::ptx

std::size_t __cvta_generic_to_shared(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) - gpulab::emulated::shared::window_begin;
}
void* __cvta_shared_to_generic(std::size_t address) {
  return reinterpret_cast<void*>(gpulab::emulated::shared::window_begin + address);
}
