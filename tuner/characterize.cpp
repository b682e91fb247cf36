#include <blocktune/detail/device_query.hpp>
#include <blocktune/characterize.hpp>
#include <blocktune/detail/gpu.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>

namespace blocktune {
namespace {

constexpr int kChaseSteps = 4096;
constexpr int kLineWords = 32;  // 128-byte lines of 4-byte links

const std::vector<std::string>& entry_points() {
  static const std::vector<std::string> names = {"clock_overhead", "chase_global", "chase_shared", "fma_latency", "fma_chain",
                                                 "sfu_chain", "read_l2", "read_shared", "empty_kernel"};
  return names;
}

class Bench {
 public:
  Bench(int ordinal, std::string_view source, const VariantCompiler& compiler) : context_(ordinal), sink_(64), cycles_(64) {
    for (const std::string& name : entry_points()) {
      const CompiledVariant v = compiler.compile({.source = std::string(source), .source_name = "microbench.cu", .kernel = name,
                                                  .arch = context_.device().arch()});
      if (!v.ok) throw std::runtime_error(fmt::format("the microbenchmark {} does not compile for {}:\n{}", name, context_.device().arch(), v.log));
      kernels_.emplace(name, std::make_unique<Kernel>(v.cubin, v.lowered_name));
    }
  }

  const DeviceInfo& device() const { return context_.device(); }

  // Launches a kernel once and returns the cycles its thread 0 recorded.
  long long cycles(const std::string& name, const LaunchShape3& shape, std::vector<void*> arguments) {
    kernels_.at(name)->prepare(shape);
    kernels_.at(name)->launch(shape, arguments.data());
    context_.synchronize();
    long long result = 0;
    cycles_.download(&result, sizeof result);
    return result;
  }

  // The median time of a kernel's launches, in seconds.
  double seconds(const std::string& name, const LaunchShape3& shape, std::vector<void*> arguments) {
    const Timing t = time_kernel(context_, *kernels_.at(name), shape, arguments.data(), {.warmup = 2, .min_repeats = 5, .max_repeats = 20});
    return t.median_ms * 1e-3;
  }

  // Host-side cost of one launch: many empty launches back to back.
  double launch_seconds(int launches) {
    const LaunchShape3 one{};
    kernels_.at("empty_kernel")->launch(one, nullptr);
    context_.synchronize();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i) kernels_.at("empty_kernel")->launch(one, nullptr);
    context_.synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / launches;
  }

  CUdeviceptr sink() const { return sink_.get(); }
  CUdeviceptr cycles_buffer() const { return cycles_.get(); }
  double copy_gbs(std::size_t bytes) { return copy_bandwidth_gbs(context_, bytes); }

 private:
  GpuContext context_;
  DeviceBuffer sink_, cycles_;
  std::map<std::string, std::unique_ptr<Kernel>> kernels_;
};

// Links over `lines` 128-byte lines: in order, or as one random cycle
// (Sattolo's shuffle) so that neither caches nor DRAM pages help.
std::vector<unsigned> chase_links(std::size_t lines, bool random) {
  std::vector<unsigned> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  if (random) {
    std::mt19937_64 generator(9);
    for (std::size_t i = lines - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(generator)]);
  }
  std::vector<unsigned> next(lines * kLineWords, 0);
  for (std::size_t i = 0; i < lines; ++i) next[order[i] * kLineWords] = order[(i + 1) % lines] * kLineWords;
  return next;
}

// Cycles per link of a chase through global memory, the clock reads' cost removed.
double chase_latency(Bench& bench, std::size_t lines, bool random, bool bypass_l1, long long overhead) {
  const std::vector<unsigned> next = chase_links(lines, random);
  DeviceBuffer links(next.size() * sizeof(unsigned));
  links.upload(next.data(), links.bytes());
  CUdeviceptr pointer = links.get(), sink = bench.sink(), cycles = bench.cycles_buffer();
  int steps = kChaseSteps, bypass = bypass_l1 ? 1 : 0;
  const long long total = bench.cycles("chase_global", {}, {&pointer, &steps, &bypass, &sink, &cycles});
  return double(total - overhead) / steps;
}

}  // namespace

std::vector<std::string> microbenchmark_kernels() { return entry_points(); }

std::vector<DeviceMeasurement> characterize(int ordinal, std::string_view source, const VariantCompiler& compiler,
                                            const std::function<void(const DeviceMeasurement&)>& progress) {
  Bench bench(ordinal, source, compiler);
  const DeviceInfo& device = bench.device();
  std::vector<DeviceMeasurement> results;
  auto add = [&](std::string name, double value, std::string unit, std::string what) {
    results.push_back({std::move(name), value, std::move(unit), std::move(what)});
    if (progress) progress(results.back());
  };
  CUdeviceptr sink = bench.sink(), cycles = bench.cycles_buffer();

  // Device-to-device copy: the DRAM bandwidth memory-bound kernels can reach.
  const auto copy_bytes = static_cast<std::size_t>(std::min<std::int64_t>(std::max<std::int64_t>(16 * device.l2_bytes, std::int64_t{512} << 20),
                                                                          device.memory_bytes / 8));
  add("copy_bandwidth_gbs", bench.copy_gbs(copy_bytes), "GB/s", "device-to-device copy, bytes read + written");

  const long long overhead = bench.cycles("clock_overhead", {}, {&cycles});
  add("clock_overhead_cycles", double(overhead), "cycles", "two back-to-back clock64() reads, removed from every latency");

  // Latencies: 64 lines stay in L1; 4096 lines read past L1 stay in L2; a
  // random cycle over 256 MiB (several times L2) comes from DRAM, and the
  // timed pass follows links the warming pass did not touch.
  add("l1_latency_cycles", chase_latency(bench, 64, false, false, overhead), "cycles", "pointer chase, 8 KiB in L1");
  add("l2_latency_cycles", chase_latency(bench, 4096, false, true, overhead), "cycles", "pointer chase, 512 KiB through L2 (ld.global.cg)");
  const std::size_t dram_lines = static_cast<std::size_t>(std::max<std::int64_t>(256 << 20, 4 * device.l2_bytes)) / 128;
  add("dram_latency_cycles", chase_latency(bench, dram_lines, true, true, overhead), "cycles",
      fmt::format("pointer chase, random over {} MiB (ld.global.cg)", dram_lines * 128 >> 20));
  {
    int count = 4096, stride = 1, steps = kChaseSteps;
    const long long total = bench.cycles("chase_shared", {.block = {32, 1, 1}}, {&count, &stride, &steps, &sink, &cycles});
    add("shared_latency_cycles", double(total - overhead) / steps, "cycles", "pointer chase in shared memory");
  }

  // Arithmetic: one dependent chain for latency; 8 independent chains in
  // every thread of 8 blocks per SM for throughput.
  const unsigned blocks = static_cast<unsigned>(device.sm_count * 8);
  {
    int steps = kChaseSteps;
    float a = 0.999f, b = 0.001f;
    const long long total = bench.cycles("fma_latency", {}, {&steps, &a, &b, &sink, &cycles});
    add("fma_latency_cycles", double(total - overhead) / steps, "cycles", "dependent FP32 FMAs, one thread");
    const LaunchShape3 full{.grid = {blocks, 1, 1}, .block = {256, 1, 1}};
    const double s = bench.seconds("fma_chain", full, {&steps, &a, &b, &sink, &cycles});
    add("fma_gflops", 2.0 * 8 * steps * blocks * 256 / s / 1e9, "GFLOP/s", "FP32 FMA throughput, 8 chains per thread");
  }
  {
    int steps = kChaseSteps, one = 1, eight = 8;
    const long long total = bench.cycles("sfu_chain", {}, {&steps, &one, &sink, &cycles});
    add("sfu_latency_cycles", double(total - overhead) / steps, "cycles", "dependent __sinf (MUFU.SIN), one thread");
    const LaunchShape3 full{.grid = {blocks, 1, 1}, .block = {256, 1, 1}};
    const double s = bench.seconds("sfu_chain", full, {&steps, &eight, &sink, &cycles});
    add("sfu_gops", 8.0 * steps * blocks * 256 / s / 1e9, "Gop/s", "__sinf throughput, 8 chains per thread");
  }

  // Bandwidths: each block reads its own slice of a buffer half the size of
  // L2, many times over (an 8 MiB buffer that every block reads whole would
  // measure the lines' copies near each SM: 11.9 TB/s on an H100, not what a
  // kernel streaming distinct data sees); every thread reads conflict-free
  // 16-byte words of shared memory.
  {
    const unsigned l2_blocks = static_cast<unsigned>(device.sm_count * 2);
    int slice = static_cast<int>(std::max<std::int64_t>(device.l2_bytes / 2 / 16 / l2_blocks, 1024));
    DeviceBuffer data(std::size_t{l2_blocks} * static_cast<std::size_t>(slice) * 16);
    check(Driver::get().cuMemsetD32(data.get(), 0x3f800000u, data.bytes() / 4), "filling the L2 buffer");
    CUdeviceptr pointer = data.get();
    int passes = 16;
    const double s = bench.seconds("read_l2", {.grid = {l2_blocks, 1, 1}, .block = {1024, 1, 1}}, {&pointer, &slice, &passes, &sink});
    add("l2_bandwidth_gbs", double(data.bytes()) * passes / s / 1e9, "GB/s",
        fmt::format("16-byte loads through L2 (ld.global.cg), a slice per block, {} MiB in all", data.bytes() >> 20));
  }
  {
    int steps = kChaseSteps;
    const double s = bench.seconds("read_shared", {.grid = {blocks, 1, 1}, .block = {256, 1, 1}}, {&steps, &sink});
    add("shared_bandwidth_gbs", double(blocks) * 256 * steps * 16 / s / 1e9, "GB/s", "16-byte shared-memory loads, no bank conflicts");
  }

  add("launch_overhead_us", bench.launch_seconds(2000) * 1e6, "us", "one empty kernel launch, 2000 back to back");
  add("sm_clock_mhz", double(current_sm_clock_mhz(device)), "MHz", "SM clock after the benchmarks (NVML; 0 if unknown)");
  return results;
}

}  // namespace blocktune
