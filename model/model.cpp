#include <blocktune/detail/model.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace blocktune {

DeviceParameters with_metrics(DeviceParameters p, const std::map<std::string, double, std::less<>>& metrics) {
  auto take = [&](const ParameterMetric& metric, double& field, double scale) {
    if (const auto found = metrics.find(metric.name); found != metrics.end() && found->second > 0) field = found->second * scale;
  };
  take(kCopyBandwidth, p.dram_bandwidth, 1e9);
  take(kL2Bandwidth, p.l2_bandwidth, 1e9);
  take(kL2Latency, p.l2_latency_cycles, 1);
  take(kDramLatency, p.dram_latency_cycles, 1);
  take(kL1Latency, p.l1_latency_cycles, 1);
  take(kSharedLatency, p.shared_latency_cycles, 1);
  take(kFmaLatency, p.fma_latency_cycles, 1);
  take(kLaunchOverhead, p.launch_overhead_s, 1e-6);
  take(kSmClock, p.sm_clock_hz, 1e6);
  // Shared-memory bandwidth is measured for the whole GPU; the model wants it per SM and clock.
  if (const auto found = metrics.find(kSharedBandwidth.name); found != metrics.end() && found->second > 0 && p.sm_count > 0 && p.sm_clock_hz > 0)
    p.shared_bytes_per_clock = found->second * 1e9 / (p.sm_count * p.sm_clock_hz);
  return p;
}

double l1_cache_bytes(const DeviceParameters& device, double largest_shared_per_sm, int carveout, double shared_in_use) {
  const double reserved = carveout >= 0 ? std::max(shared_in_use, largest_shared_per_sm * carveout / 100) : shared_in_use;
  return std::max(device.l1_bytes - reserved, 0.0);
}

std::string Prediction::bound() const {
  const std::array<std::pair<double, const char*>, 8> terms{{{dram, "DRAM"},
                                                              {l2, "L2"},
                                                              {l1, "L1"},
                                                              {shared, "shared"},
                                                              {issue, "issue"},
                                                              {staging, "staging"},
                                                              {latency, "latency"},
                                                              {tail, "tail"}}};
  return std::ranges::max_element(terms, {}, &std::pair<double, const char*>::first)->second;
}

double waves(const DeviceParameters& d, const LaunchResources& launch) {
  return launch.blocks / (double(launch.blocks_per_sm) * d.sm_count);
}

int resident_warps(const DeviceParameters& d, const LaunchResources& launch) {
  if (launch.blocks < 1 || launch.blocks_per_sm < 1 || launch.threads_per_block < 1 || d.sm_count < 1) return 0;
  const double blocks = std::min(double(launch.blocks_per_sm), std::ceil(launch.blocks / d.sm_count));
  const double warps = blocks * std::ceil(launch.threads_per_block / 32.0);
  return static_cast<int>(std::min(warps, double(d.max_warps_per_sm)));
}

double throughput_bound(const Prediction& p) {
  double sum = 0;
  for (double term : {p.dram, p.l2, p.l1, p.shared, p.issue}) sum += std::pow(term, kOverlapExponent);
  return std::pow(sum, 1 / kOverlapExponent);
}

Prediction predict(const DeviceParameters& d, const KernelWork& w, const LaunchResources& launch) {
  if (d.sm_count < 1 || d.sm_clock_hz <= 0 || d.dram_bandwidth <= 0 || d.l2_bandwidth <= 0)
    throw std::invalid_argument("device parameters need the SM count, clock, DRAM and L2 bandwidth");
  if (launch.blocks < 1 || launch.threads_per_block < 1 || launch.blocks_per_sm < 1)
    throw std::invalid_argument("a launch needs at least one block, one thread and one block per SM");
  // SM-cycles per second of the SMs with work: blocks go one to an SM before
  // any SM takes a second, so a launch of fewer blocks than SMs leaves the rest
  // idle, and its L1, shared-memory and issue work is shared by its blocks' SMs
  // only (matmul 1024^3 on an H200, 64 tiles of 128x128: measured 1.9x slower
  // than predicted when all 132 SMs were counted; bench/results/model/README.md).
  const double busy_sms = std::min<double>(d.sm_count, launch.blocks);
  const double sm_clocks = busy_sms * d.sm_clock_hz;
  const double threads = launch.blocks * launch.threads_per_block;
  Prediction p;
  p.dram = w.dram_bytes / d.dram_bandwidth;
  // The counts assume the L1 serves the reuse (what goes through L1 beyond the
  // L2 traffic). It does while the resident blocks' footprint of the steps
  // that share loads fits in the L1 the carveout leaves; beyond, the share that
  // does not fit goes to L2.
  double l2_bytes = w.l2_bytes;
  const double reused = std::max(0.0, w.l1_wavefronts * 128 - w.l2_bytes);
  if (launch.l1_cache_bytes > 0 && reused > 0) {
    const double footprint = launch.blocks_per_sm * (w.reuse_footprint > 0 ? w.reuse_footprint : w.l2_bytes / (launch.blocks * w.steps));
    if (footprint > launch.l1_cache_bytes) l2_bytes += reused * (1 - launch.l1_cache_bytes / footprint);
  }
  p.l2 = l2_bytes / d.l2_bandwidth;
  p.l1 = w.l1_wavefronts * 128 / (d.l1_bytes_per_clock * sm_clocks);
  p.shared = w.shared_wavefronts * 128 / (d.shared_bytes_per_clock * sm_clocks);
  p.issue = w.warp_instructions / (d.issue_per_clock * sm_clocks);
  if (launch.spill_bytes > 0) {
    // Local memory goes through L1, and on to L2 once the resident threads'
    // spills outgrow it: the L1 the carveout and shared memory leave, where known.
    const double spilled = threads * w.steps * launch.spill_bytes;
    const double l1_for_spills = launch.l1_cache_bytes > 0 ? launch.l1_cache_bytes : d.l1_bytes;
    p.l1 += spilled / (d.l1_bytes_per_clock * sm_clocks);
    if (double(launch.blocks_per_sm) * launch.threads_per_block * launch.spill_bytes > l1_for_spills) p.l2 += spilled / d.l2_bandwidth;
  }

  // Latency the resident warps cannot hide: each warp's steps run one after
  // another, every step waits for its rounds of loads (from L2, or from DRAM
  // for the share of bytes that come from there) and its own instructions.
  const double warps_per_block = std::ceil(launch.threads_per_block / 32.0);
  const double dram_share = w.l2_bytes > 0 ? std::min(1.0, w.dram_bytes / w.l2_bytes) : 1.0;
  const double round_cycles = d.l2_latency_cycles + dram_share * (d.dram_latency_cycles - d.l2_latency_cycles);
  const double instructions_per_warp_step = w.warp_instructions / (launch.blocks * warps_per_block * w.steps);
  const double step_cycles = w.rounds * round_cycles + w.near_rounds * d.l1_latency_cycles + instructions_per_warp_step / std::max(w.chains, 1.0) * d.fma_latency_cycles;
  const double fill = waves(d, launch);
  p.latency = std::ceil(fill) * w.steps * step_cycles / d.sm_clock_hz;

  // A staged block cannot overlap its loads with its computation; only other
  // resident blocks fill the gap. Of the shorter phase, 1/blocks_per_sm stays
  // exposed: all of it with one block per SM, none with many; in between an
  // interpolation, not a derivation.
  if (w.staged > 0) p.staging = std::min(std::max({p.dram, p.l2, p.l1}), std::max(p.shared, p.issue)) / launch.blocks_per_sm;

  const double throughput = throughput_bound(p);

  // The last blocks. A launch's blocks do not finish together: after the
  // first wave each one starts when another ends, so their phases spread, and
  // within a wave they drift apart. An SM whose blocks are done waits for the
  // others, on average half a block's lifetime, the throughput-bound time over
  // the waves (all of it with one wave or less). Uniform spread of the
  // finishes is an assumption, not fitted; bench/results/model/README.md
  // ("the last blocks") has the evidence: long z walks with few waves run up to 1.3x
  // slower at the same counts.
  p.tail = 0.5 * throughput / std::max(fill, 1.0);
  p.seconds = throughput + p.tail + p.staging + p.latency + d.launch_overhead_s;
  return p;
}

namespace {

std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::sort(order, [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> rank(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = (double(i) + double(j)) / 2;
    i = j + 1;
  }
  return rank;
}

}  // namespace

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) throw std::invalid_argument("rank correlation needs two series of the same length, at least 2");
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double mean = (double(a.size()) - 1) / 2;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace blocktune
