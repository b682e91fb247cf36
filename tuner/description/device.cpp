#include <blocktune/arch.hpp>
#include <blocktune/detail/device.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <stdexcept>

namespace blocktune {

std::string DeviceInfo::arch() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

namespace {

constexpr int KiB = 1024;
constexpr std::int64_t MiB = 1024 * 1024;
constexpr std::int64_t GiB = 1024 * MiB;

// Per-SM facts are those of the architecture (CUDA C++ Programming Guide,
// "Technical Specifications per Compute Capability"); the SM count, L2,
// memory and clocks are those of the example product named.
DeviceInfo profile(const char* product, int major, int minor, int sms, std::int64_t l2, int smem_sm, int smem_optin,
                   int reserved, int threads_sm, int blocks_sm, std::int64_t memory, int sm_mhz, int mem_mhz, int bus) {
  DeviceInfo d;
  d.name = product;
  d.cc_major = major;
  d.cc_minor = minor;
  d.sm_count = sms;
  d.l2_bytes = l2;
  d.shared_per_sm = smem_sm;
  d.shared_per_block = 48 * KiB;
  d.shared_per_block_optin = smem_optin;
  d.reserved_shared_per_block = reserved;
  d.registers_per_sm = 64 * KiB;
  d.registers_per_block = 64 * KiB;
  d.max_threads_per_block = 1024;
  d.max_threads_per_sm = threads_sm;
  d.max_blocks_per_sm = blocks_sm;
  d.memory_bytes = memory;
  d.sm_clock_mhz = sm_mhz;
  d.memory_clock_mhz = mem_mhz;
  d.memory_bus_bits = bus;
  // Data-centre parts ship with ECC on; consumer parts have none.
  d.ecc = std::string_view(product).find("GeForce") == std::string_view::npos;
  return d;
}

const std::array<DeviceInfo, 8>& profiles() {
  static const std::array<DeviceInfo, 8> all = {
      profile("Tesla V100-SXM2-32GB (sm_70 profile)", 7, 0, 80, 6 * MiB, 96 * KiB, 96 * KiB, 0, 2048, 32, 32 * GiB, 1530, 877, 4096),
      profile("Tesla T4 (sm_75 profile)", 7, 5, 40, 4 * MiB, 64 * KiB, 64 * KiB, 0, 1024, 16, 15 * GiB, 1590, 5001, 256),
      profile("NVIDIA A100-SXM4-80GB (sm_80 profile)", 8, 0, 108, 40 * MiB, 164 * KiB, 163 * KiB, KiB, 2048, 32, 80 * GiB, 1410, 1593, 5120),
      profile("NVIDIA GeForce RTX 3090 (sm_86 profile)", 8, 6, 82, 6 * MiB, 100 * KiB, 99 * KiB, KiB, 1536, 16, 24 * GiB, 1695, 9751, 384),
      profile("NVIDIA GeForce RTX 4090 (sm_89 profile)", 8, 9, 128, 72 * MiB, 100 * KiB, 99 * KiB, KiB, 1536, 24, 24 * GiB, 2520, 10501, 384),
      profile("NVIDIA H100 80GB HBM3 (sm_90 profile)", 9, 0, 132, 50 * MiB, 228 * KiB, 227 * KiB, KiB, 2048, 32, 80 * GiB, 1980, 2619, 5120),
      profile("NVIDIA B200 (sm_100 profile)", 10, 0, 148, 126 * MiB, 228 * KiB, 227 * KiB, KiB, 2048, 32, 180 * GiB, 1965, 3996, 8192),
      profile("NVIDIA GeForce RTX 5090 (sm_120 profile)", 12, 0, 170, 96 * MiB, 100 * KiB, 99 * KiB, KiB, 1536, 24, 32 * GiB, 2407, 14001, 512),
  };
  return all;
}

}  // namespace

namespace {

// Each field once, for both directions.
template <typename Json, typename Device>
void for_each_field(Json& json, Device& d, auto&& visit) {
  visit(json, "ordinal", d.ordinal);
  visit(json, "name", d.name);
  visit(json, "uuid", d.uuid);
  visit(json, "cc_major", d.cc_major);
  visit(json, "cc_minor", d.cc_minor);
  visit(json, "sm_count", d.sm_count);
  visit(json, "memory_bytes", d.memory_bytes);
  visit(json, "l2_bytes", d.l2_bytes);
  visit(json, "shared_per_sm", d.shared_per_sm);
  visit(json, "shared_per_block", d.shared_per_block);
  visit(json, "shared_per_block_optin", d.shared_per_block_optin);
  visit(json, "reserved_shared_per_block", d.reserved_shared_per_block);
  visit(json, "registers_per_sm", d.registers_per_sm);
  visit(json, "registers_per_block", d.registers_per_block);
  visit(json, "max_threads_per_block", d.max_threads_per_block);
  visit(json, "max_threads_per_sm", d.max_threads_per_sm);
  visit(json, "max_blocks_per_sm", d.max_blocks_per_sm);
  visit(json, "warp_size", d.warp_size);
  visit(json, "sm_clock_mhz", d.sm_clock_mhz);
  visit(json, "memory_clock_mhz", d.memory_clock_mhz);
  visit(json, "memory_bus_bits", d.memory_bus_bits);
  visit(json, "ecc", d.ecc);
  visit(json, "driver_version", d.driver_version);
  visit(json, "driver_release", d.driver_release);
}

}  // namespace

std::string device_to_json(const DeviceInfo& device) {
  nlohmann::json json = nlohmann::json::object();
  for_each_field(json, device, [](nlohmann::json& j, const char* key, const auto& value) { j[key] = value; });
  json["compute_capability"] = fmt::format("{}.{}", device.cc_major, device.cc_minor);
  return json.dump();
}

DeviceInfo device_from_json(std::string_view text) {
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) throw std::invalid_argument("device description is not a JSON object");
  DeviceInfo device;
  try {
    for_each_field(json, device, [](const nlohmann::json& j, const char* key, auto& value) { j.at(key).get_to(value); });
  } catch (const nlohmann::json::exception& error) {
    throw std::invalid_argument(fmt::format("device description: {}", error.what()));
  }
  return device;
}

std::string stored_uuid(const DeviceInfo& device) { return device.uuid.empty() ? device.arch() + "-profile" : device.uuid; }

std::vector<std::string> known_architectures() {
  std::vector<std::string> names;
  for (const DeviceInfo& p : profiles()) names.push_back(p.arch());
  return names;
}

std::optional<DeviceInfo> arch_profile(std::string_view arch) {
  // Profiles are for the base architecture: "sm_90a" names none (its code runs on sm_90a devices only).
  if (arch.ends_with('a') || arch.ends_with('f')) return std::nullopt;
  auto cc = parse_arch(arch);
  if (!cc) return std::nullopt;
  for (const DeviceInfo& p : profiles()) {
    if (p.cc_major == cc->first && p.cc_minor == cc->second) return p;
  }
  return std::nullopt;
}

DeviceInfo require_arch_profile(std::string_view arch) {
  if (auto p = arch_profile(arch)) return *p;
  throw std::invalid_argument(fmt::format("unknown architecture '{}': known are {}", arch,
                                          fmt::join(known_architectures(), ", ")));
}

}  // namespace blocktune
