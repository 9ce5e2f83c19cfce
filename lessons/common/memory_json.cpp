#include "common/memory_json.hpp"

#include <stdexcept>
#include <string>

namespace gpulab {

namespace {

using emulated::MemoryKind;

// The JSON key of a kind, and the name of its unit there.
const char* key_of(MemoryKind k) {
  static const char* const keys[] = {"global_load", "global_store", "shared_load", "shared_store"};
  return keys[static_cast<int>(k)];
}
const char* unit_of(MemoryKind k) { return emulated::is_shared(k) ? "wavefronts" : "sectors"; }

nlohmann::ordered_json traffic_json(MemoryKind k, const emulated::Traffic& t) {
  nlohmann::ordered_json j;
  j["requests"] = t.requests;
  j[unit_of(k)] = t.units;
  j[emulated::is_shared(k) ? "ideal_wavefronts" : "ideal_sectors"] = t.ideal;
  j["bytes"] = t.bytes;
  if (emulated::is_shared(k)) {
    j["bank_conflicts"] = t.conflicts();
  } else {
    j["sectors_per_request"] = t.per_request();
  }
  return j;
}

emulated::Traffic traffic_of(MemoryKind k, const nlohmann::json& j) {
  emulated::Traffic t;
  t.requests = j.at("requests").get<std::uint64_t>();
  t.units = j.at(unit_of(k)).get<std::uint64_t>();
  t.ideal = j.at(emulated::is_shared(k) ? "ideal_wavefronts" : "ideal_sectors").get<std::uint64_t>();
  t.bytes = j.at("bytes").get<std::uint64_t>();
  return t;
}

MemoryKind kind_of(const std::string& key) {
  for (int i = 0; i < emulated::kMemoryKinds; ++i) {
    if (key == key_of(static_cast<MemoryKind>(i))) return static_cast<MemoryKind>(i);
  }
  throw std::invalid_argument("'" + key + "' is no kind of memory access");
}

}  // namespace

nlohmann::ordered_json memory_to_json(const std::vector<emulated::KernelTraffic>& kernels) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const emulated::KernelTraffic& k : kernels) {
    nlohmann::ordered_json j;
    j["kernel"] = k.kernel;
    j["launches"] = k.launches;
    j["threads_per_block"] = k.threads_per_block;
    j["static_shared_bytes"] = k.static_shared_bytes;
    j["dynamic_shared_bytes"] = k.dynamic_shared_bytes;
    for (int i = 0; i < emulated::kMemoryKinds; ++i) {
      const auto kind = static_cast<MemoryKind>(i);
      if (k.of(kind).requests > 0) j[key_of(kind)] = traffic_json(kind, k.of(kind));
    }
    j["lines"] = nlohmann::ordered_json::array();
    for (const emulated::LineTraffic& l : k.lines) {
      nlohmann::ordered_json line = traffic_json(l.kind, l.traffic);
      line["place"] = l.place;
      line["kind"] = key_of(l.kind);
      line["worst_request"] = {
          {"bytes_per_lane", l.worst.bytes_per_lane}, {"offsets", l.worst.offset}, {unit_of(l.kind), l.worst.units}};
      j["lines"].push_back(line);
    }
    all.push_back(j);
  }
  return all;
}

std::vector<emulated::KernelTraffic> memory_from_json(const nlohmann::json& all) {
  std::vector<emulated::KernelTraffic> kernels;
  try {
    for (const nlohmann::json& j : all) {
      emulated::KernelTraffic k;
      k.kernel = j.at("kernel").get<std::string>();
      k.launches = j.at("launches").get<std::uint64_t>();
      k.threads_per_block = j.value("threads_per_block", 0u);
      k.static_shared_bytes = j.value("static_shared_bytes", std::uint64_t{0});
      k.dynamic_shared_bytes = j.value("dynamic_shared_bytes", std::uint64_t{0});
      for (int i = 0; i < emulated::kMemoryKinds; ++i) {
        const auto kind = static_cast<MemoryKind>(i);
        if (j.contains(key_of(kind))) k.traffic[static_cast<std::size_t>(i)] = traffic_of(kind, j.at(key_of(kind)));
      }
      for (const nlohmann::json& line : j.at("lines")) {
        emulated::LineTraffic l;
        l.place = line.at("place").get<std::string>();
        l.kind = kind_of(line.at("kind").get<std::string>());
        l.traffic = traffic_of(l.kind, line);
        const nlohmann::json& worst = line.at("worst_request");
        l.worst.bytes_per_lane = worst.at("bytes_per_lane").get<int>();
        l.worst.offset = worst.at("offsets").get<std::array<std::int64_t, 32>>();
        l.worst.units = worst.at(unit_of(l.kind)).get<std::uint64_t>();
        k.lines.push_back(l);
      }
      kernels.push_back(std::move(k));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("memory: ") + e.what());
  }
  return kernels;
}

}  // namespace gpulab
