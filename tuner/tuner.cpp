#include <blocktune/compile_pool.hpp>
#include <blocktune/store.hpp>
#include <blocktune/tuner.hpp>
#include <blocktune/worker.hpp>
#include <blocktune/version.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace blocktune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

Outcome PlanEntry::static_outcome() const {
  if (!rejected_by.empty()) return Outcome::rejected_by_constraint;
  if (!variant.ok) return variant.timed_out ? Outcome::compile_timeout : Outcome::compile_error;
  if (!occupancy.invalid.empty()) return Outcome::pruned_by_occupancy;
  return Outcome::ok;
}

std::string PlanEntry::reason() const {
  switch (static_outcome()) {
    case Outcome::rejected_by_constraint: return fmt::format("violates {}", rejected_by);
    case Outcome::compile_error: return "does not compile";
    case Outcome::compile_timeout: return "did not compile in time";
    case Outcome::pruned_by_occupancy: return fmt::format("cannot launch: {}", occupancy.invalid);
    default: return {};
  }
}

std::size_t Plan::count(Outcome outcome) const {
  return static_cast<std::size_t>(std::ranges::count_if(entries, [&](const PlanEntry& e) { return e.static_outcome() == outcome; }));
}

std::size_t Plan::planned() const { return entries.size() - count(Outcome::rejected_by_constraint); }

double Plan::estimated_compile_all_seconds(unsigned threads) const {
  if (compiled == 0) return 0;
  return static_cast<double>(valid) * (compile_seconds / static_cast<double>(compiled)) / std::max(threads, 1u);
}

Occupancy occupancy_of(const ResolvedConfig& resolved, const ResourceUsage& usage, const DeviceInfo& device) {
  const auto& shape = resolved.shape;
  return compute_occupancy(device, {.block_threads = static_cast<int>(shape.block[0] * shape.block[1] * shape.block[2]),
                                    .registers = usage.registers,
                                    .static_smem = usage.static_smem,
                                    .dynamic_smem = static_cast<int>(shape.dynamic_smem),
                                    .carveout = shape.carveout,
                                    .barriers = usage.barriers});
}

namespace {

// Every point of the raw product, in enumeration order, for listing why the
// constraints reject some; only used for small spaces.
std::vector<Config> raw_points(const SearchSpace& space) {
  std::vector<Config> points{Config{}};
  for (const Parameter& parameter : space.parameters()) {
    std::vector<Config> next;
    next.reserve(points.size() * parameter.values.size());
    for (const Config& point : points)
      for (const Value& value : parameter.values) {
        auto entries = point.entries();
        entries.emplace_back(parameter.name, value);
        next.emplace_back(std::move(entries));
      }
    points = std::move(next);
  }
  return points;
}

constexpr double kListRejectedUpTo = 100000;

// The indices a plan compiles: all of them, or `sample` distinct ones drawn
// uniformly (a partial Fisher-Yates over the index range, kept in a map so
// that memory grows with the sample, not the space), in index order.
std::vector<std::uint64_t> planned_indices(std::uint64_t valid, std::optional<std::size_t> sample, std::uint64_t seed) {
  std::vector<std::uint64_t> indices;
  if (!sample || *sample >= valid) {
    indices.resize(valid);
    std::iota(indices.begin(), indices.end(), std::uint64_t{0});
    return indices;
  }
  std::mt19937_64 random(seed);
  std::unordered_map<std::uint64_t, std::uint64_t> swapped;
  const auto at = [&](std::uint64_t i) { const auto found = swapped.find(i); return found == swapped.end() ? i : found->second; };
  for (std::uint64_t i = 0; i < *sample; ++i) {
    const std::uint64_t range = valid - i, limit = std::numeric_limits<std::uint64_t>::max() / range * range;
    std::uint64_t draw = random();
    while (draw >= limit) draw = random();
    const std::uint64_t j = i + draw % range;
    const std::uint64_t chosen = at(j);
    swapped[j] = at(i);
    indices.push_back(chosen);
  }
  std::ranges::sort(indices);
  return indices;
}

}  // namespace

Plan make_plan(const KernelDescription& kernel, const DeviceInfo& device, const ProblemSize& problem,
               const VariantCompiler& compiler, const PlanOptions& options) {
  const auto start = Clock::now();
  require_memory(kernel, device, problem);
  Plan plan;
  plan.device = device;
  plan.problem = problem;
  plan.raw_size = kernel.space.raw_size();
  const Lookup env = environment(kernel, device, problem);
  const auto report = [&](std::string_view stage, double done, double total) {
    if (options.progress) options.progress({stage, done, total, seconds_since(start)});
  };

  const ConstrainedSpace space(kernel.space, env, [&](double fraction) { report("counting", fraction, 1); });
  plan.valid = space.size();
  plan.count_seconds = seconds_since(start);
  report("counting", 1, 1);

  if (options.include_rejected && plan.raw_size <= kListRejectedUpTo) {
    for (Config& config : raw_points(kernel.space))
      if (auto violation = kernel.space.check(config, env)) plan.entries.push_back({std::move(config), violation->constraint, {}, {}, {}});
  }

  // Compiled through a pool of worker processes, a bounded number ahead, so
  // that memory grows with what is compiled; configurations that differ only
  // in launch settings (the carveout) share one compile.
  const std::vector<std::uint64_t> indices = planned_indices(plan.valid, options.sample, options.seed);
  plan.sampled = indices.size() < plan.valid;
  CompilePool pool(compiler, {.workers = options.threads, .timeout_seconds = options.compile_timeout_seconds,
                              .executable = find_worker_executable()});
  std::unordered_map<std::string, std::shared_future<CompiledVariant>> variant_of;  // by the request's content hash
  std::deque<std::pair<PlanEntry, std::shared_future<CompiledVariant>>> compiling;
  std::size_t next = 0, done = 0;
  const std::size_t ahead = 2 * std::size_t{pool.workers()};
  const auto out_of_time = [&] {
    if (options.stop_requested && options.stop_requested()) return std::string("interrupted");
    if (options.max_seconds && seconds_since(start) > *options.max_seconds)
      return fmt::format("stopped after {:.0f} s (--max-seconds): {} of {} configurations compiled", seconds_since(start), done,
                         indices.size());
    return std::string();
  };
  auto last_report = Clock::now();
  while (next < indices.size() || !compiling.empty()) {
    while (next < indices.size() && compiling.size() < ahead && plan.stopped.empty()) {
      PlanEntry entry;
      entry.config = space.at(indices[next++]);
      entry.resolved = resolve(kernel, entry.config, device, problem);
      const std::string key = content_hash(entry.resolved.request.identity());
      auto found = variant_of.find(key);
      if (found == variant_of.end()) found = variant_of.emplace(key, pool.submit(entry.resolved.request)).first;
      compiling.emplace_back(std::move(entry), found->second);
    }
    if (compiling.empty()) break;
    auto& [entry, variant] = compiling.front();
    while (variant.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready && plan.stopped.empty()) {
      if (seconds_since(last_report) >= 1) report("compiling", static_cast<double>(done), static_cast<double>(indices.size())), last_report = Clock::now();
      plan.stopped = out_of_time();
    }
    if (!plan.stopped.empty()) break;  // the pool stops what is still compiling
    entry.variant = variant.get();
    entry.occupancy = entry.variant.ok ? occupancy_of(entry.resolved, entry.variant.usage, device) : Occupancy{};
    plan.entries.push_back(std::move(entry));
    compiling.pop_front();
    ++done;
    if (seconds_since(last_report) >= 1 || done == indices.size())
      report("compiling", static_cast<double>(done), static_cast<double>(indices.size())), last_report = Clock::now();
    if (plan.stopped.empty()) plan.stopped = out_of_time();
    if (!plan.stopped.empty()) compiling.clear();  // the pool stops what is still compiling
  }
  for (const auto& [key, variant] : variant_of) {
    if (variant.wait_for(std::chrono::seconds(0)) != std::future_status::ready) continue;
    const CompiledVariant& v = variant.get();
    if (v.from_cache) {
      ++plan.cached;
    } else {
      ++plan.compiled;
      plan.compile_seconds += v.compile_seconds;
    }
  }
  std::ranges::stable_sort(plan.entries, {}, [](const PlanEntry& e) { return !e.rejected_by.empty(); });
  plan.seconds = seconds_since(start);
  return plan;
}

namespace {

PlanEntry plan_with(const KernelDescription& kernel, const Config& config, const DeviceInfo& device, const ProblemSize& problem,
                    const std::function<CompiledVariant(const CompileRequest&)>& compile) {
  PlanEntry entry;
  entry.config = config;
  const Lookup env = environment(kernel, device, problem);
  if (auto violation = kernel.space.check(config, env)) {
    entry.rejected_by = violation->constraint;
    return entry;
  }
  entry.resolved = resolve(kernel, config, device, problem);
  entry.variant = compile(entry.resolved.request);
  if (entry.variant.ok) entry.occupancy = occupancy_of(entry.resolved, entry.variant.usage, device);
  return entry;
}

}  // namespace

PlanEntry plan_one(const KernelDescription& kernel, const Config& config, const DeviceInfo& device, const ProblemSize& problem,
                   const VariantCompiler& compiler) {
  return plan_with(kernel, config, device, problem, [&](const CompileRequest& request) { return compiler.compile(request); });
}

PlanEntry plan_one(const KernelDescription& kernel, const Config& config, const DeviceInfo& device, const ProblemSize& problem,
                   CompilePool& pool) {
  return plan_with(kernel, config, device, problem, [&](const CompileRequest& request) {
    const CompiledVariant variant = pool.submit(request).get();
    // The pool leaves the machine code in the variant cache, where this reads it without compiling.
    return variant.ok ? pool.compiler().compile(request) : variant;
  });
}

DeviceRecord to_record(const DeviceInfo& d) {
  DeviceRecord r;
  r.uuid = stored_uuid(d);
  r.name = d.name;
  r.cc_major = d.cc_major;
  r.cc_minor = d.cc_minor;
  r.sm_count = d.sm_count;
  r.memory_bytes = d.memory_bytes;
  r.l2_bytes = d.l2_bytes;
  r.sm_clock_mhz = d.sm_clock_mhz;
  r.memory_clock_mhz = d.memory_clock_mhz;
  r.memory_bus_bits = d.memory_bus_bits;
  // The store keeps the driver as one number: 580.159.04 -> 580159.
  if (unsigned major = 0, minor = 0; std::sscanf(d.driver_release.c_str(), "%u.%u", &major, &minor) == 2)
    r.driver_version = static_cast<int>(major * 1000 + minor);
  r.cuda_version = d.driver_version;
  r.ecc = d.ecc;
  return r;
}

}  // namespace blocktune
