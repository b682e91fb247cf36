#include <blocktune/detail/model.hpp>

#include <catch2/catch.hpp>

#include <cmath>

using namespace blocktune;

namespace {

DeviceParameters gpu() {
  DeviceParameters d;
  d.sm_count = 100;
  d.sm_clock_hz = 1e9;
  d.dram_bandwidth = 1e12;
  d.l2_bandwidth = 4e12;
  d.launch_overhead_s = 0;
  return d;
}

}  // namespace

TEST_CASE("a kernel that only streams DRAM is predicted at its bytes over the bandwidth, plus its latency") {
  KernelWork w;
  w.dram_bytes = w.l2_bytes = 1e9;
  const Prediction p = predict(gpu(), w, {.blocks = 100000, .threads_per_block = 256, .blocks_per_sm = 8});
  CHECK(p.dram == Approx(1e-3));
  CHECK(p.l2 == Approx(0.25e-3));
  CHECK(p.bound() == "DRAM");
  CHECK(p.seconds > p.dram);
  const double throughput = std::pow(std::pow(p.dram, 6) + std::pow(p.l2, 6), 1.0 / 6);
  CHECK(p.seconds == Approx(throughput + p.tail + p.latency));
  CHECK(p.tail == Approx(0.5 * throughput / 125));  // 125 waves: half of the last one
}

TEST_CASE("the last blocks finish spread over a block's lifetime: half of it is added, all of the launch with one wave") {
  KernelWork w;
  w.dram_bytes = 1e9;  // 1 ms of DRAM, the only throughput term
  const DeviceParameters d = gpu();
  const Prediction many = predict(d, w, {.blocks = 80000, .threads_per_block = 256, .blocks_per_sm = 8});   // 100 waves
  const Prediction two = predict(d, w, {.blocks = 1600, .threads_per_block = 256, .blocks_per_sm = 8});     // 2 waves
  const Prediction one = predict(d, w, {.blocks = 800, .threads_per_block = 256, .blocks_per_sm = 8});      // 1 wave
  const Prediction half = predict(d, w, {.blocks = 400, .threads_per_block = 256, .blocks_per_sm = 8});     // half a wave
  CHECK(many.tail == Approx(0.5e-3 / 100));
  CHECK(two.tail == Approx(0.5e-3 / 2));
  CHECK(one.tail == Approx(0.5e-3));
  CHECK(half.tail == Approx(0.5e-3));
  CHECK(two.dram == many.dram);  // the throughput terms do not see the waves
  CHECK(two.seconds - many.seconds == Approx(two.tail - many.tail + two.latency - many.latency));
}

TEST_CASE("a launch of fewer blocks than SMs shares its on-chip work among its blocks' SMs only, not its DRAM traffic") {
  KernelWork w;
  w.dram_bytes = w.l2_bytes = 1e8;
  w.l1_wavefronts = w.shared_wavefronts = 1e7;
  w.warp_instructions = 1e8;
  const DeviceParameters d = gpu();
  const auto blocks = [&](double count) { return predict(d, w, {.blocks = count, .threads_per_block = 256, .blocks_per_sm = 8}); };
  const Prediction full = blocks(d.sm_count), many = blocks(8.0 * d.sm_count), half = blocks(d.sm_count / 2.0);
  CHECK(many.issue == Approx(full.issue));  // every SM has work either way
  CHECK(half.issue == Approx(2 * full.issue));
  CHECK(half.l1 == Approx(2 * full.l1));
  CHECK(half.shared == Approx(2 * full.shared));
  CHECK(half.dram == Approx(full.dram));
  CHECK(half.l2 == Approx(full.l2));
}

TEST_CASE("fewer resident blocks or longer dependent chains raise the latency term, not the throughput terms") {
  KernelWork w;
  w.dram_bytes = w.l2_bytes = 1e8;
  const Prediction full = predict(gpu(), w, {.blocks = 12800, .threads_per_block = 256, .blocks_per_sm = 8});
  const Prediction one = predict(gpu(), w, {.blocks = 12800, .threads_per_block = 256, .blocks_per_sm = 1});
  CHECK(one.latency == Approx(8 * full.latency));
  CHECK(one.dram == full.dram);
  w.rounds = 4;
  CHECK(predict(gpu(), w, {.blocks = 12800, .threads_per_block = 256, .blocks_per_sm = 8}).latency > 3.5 * full.latency);
}

TEST_CASE("spilling adds local-memory traffic, through L2 once the resident threads' spills outgrow L1") {
  KernelWork w;
  w.dram_bytes = w.l2_bytes = 1e8;
  const LaunchResources base{.blocks = 10000, .threads_per_block = 1024, .blocks_per_sm = 1};
  LaunchResources small = base, large = base;
  small.spill_bytes = 16;    // 16 KiB per SM: fits L1
  large.spill_bytes = 1024;  // 1 MiB per SM: does not
  const DeviceParameters d = gpu();
  CHECK(predict(d, w, small).l1 > predict(d, w, base).l1);
  CHECK(predict(d, w, small).l2 == predict(d, w, base).l2);
  CHECK(predict(d, w, large).l2 > predict(d, w, base).l2);

  // 16 KiB fits the whole L1, but not what 200 KiB of shared memory leave of it.
  LaunchResources crowded = small;
  crowded.l1_cache_bytes = 256 * 1024 - 200 * 1024;
  CHECK(predict(d, w, crowded).l2 == predict(d, w, base).l2);
  crowded.spill_bytes = 64;  // 64 KiB per SM
  CHECK(predict(d, w, crowded).l2 > predict(d, w, base).l2);
}

TEST_CASE("independent chains of instructions shorten the latency term, not the issue term") {
  KernelWork w;
  w.dram_bytes = w.l2_bytes = 1e8;
  w.warp_instructions = 1e8;
  const LaunchResources launch{.blocks = 12800, .threads_per_block = 256, .blocks_per_sm = 2};
  const Prediction one = predict(gpu(), w, launch);
  w.chains = 8;
  const Prediction eight = predict(gpu(), w, launch);
  CHECK(eight.latency < one.latency);
  CHECK(eight.issue == one.issue);
  w.rounds = 0;  // without memory rounds, the instructions' wait alone: 8 chains wait an eighth
  const double chained = predict(gpu(), w, launch).latency;
  w.chains = 1;
  CHECK(predict(gpu(), w, launch).latency == Approx(8 * chained));
}

TEST_CASE("a staged block leaves the shorter of its memory and compute phases exposed, shared among its SM's blocks") {
  KernelWork w;
  w.dram_bytes = w.l2_bytes = 1e9;  // 1 ms of DRAM
  w.warp_instructions = 2e8;        // 0.5 ms of issue: the shorter phase
  const LaunchResources one{.blocks = 100000, .threads_per_block = 256, .blocks_per_sm = 1};
  LaunchResources eight = one;
  eight.blocks_per_sm = 8;
  const DeviceParameters d = gpu();
  CHECK(predict(d, w, one).staging == 0);  // not staged: the units overlap as the soft maximum says
  w.staged = 1;
  const Prediction alone = predict(d, w, one), shared = predict(d, w, eight);
  CHECK(alone.issue == Approx(0.5e-3));
  CHECK(alone.staging == Approx(alone.issue));  // nothing else on the SM to overlap with
  CHECK(shared.staging == Approx(alone.staging / 8));
  CHECK(alone.seconds - shared.seconds ==
        Approx(alone.staging - shared.staging + alone.latency - shared.latency + alone.tail - shared.tail));
}

TEST_CASE("reuse the carveout leaves no room for in L1 goes to L2") {
  // 1000 blocks of 10 steps, 4 resident per SM; each step's footprint is
  // 10 KB of L2 traffic, and L1 serves 30 KB more of reuse.
  KernelWork w;
  w.steps = 10;
  w.dram_bytes = w.l2_bytes = 1000 * 10 * 10e3;
  w.l1_wavefronts = 4 * w.l2_bytes / 128;
  const DeviceParameters d = gpu();
  LaunchResources launch{.blocks = 1000, .threads_per_block = 256, .blocks_per_sm = 4};
  const double unknown = predict(d, w, launch).l2;
  launch.l1_cache_bytes = 64e3;  // the resident footprint, 40 KB, fits
  CHECK(predict(d, w, launch).l2 == unknown);
  launch.l1_cache_bytes = 20e3;  // half of it fits: half the reuse goes to L2
  CHECK(predict(d, w, launch).l2 == Approx(unknown * 2.5));
  // Reuse across steps (a z loop's planes) needs more than one step's footprint.
  launch.l1_cache_bytes = 64e3;
  w.reuse_footprint = 32e3;  // 128 KB resident: half of it fits
  CHECK(predict(d, w, launch).l2 == Approx(unknown * 2.5));
  w.reuse_footprint = 0;

  // The unified array less the shared memory the carveout or the blocks take.
  const double largest_shared = 228 * 1024;
  CHECK(l1_cache_bytes(d, largest_shared, -1, 0) == d.l1_bytes);
  CHECK(l1_cache_bytes(d, largest_shared, 0, 0) == d.l1_bytes);
  CHECK(l1_cache_bytes(d, largest_shared, 100, 0) == Approx(d.l1_bytes - largest_shared));
  CHECK(l1_cache_bytes(d, largest_shared, 0, 64 * 1024) == d.l1_bytes - 64 * 1024);
  CHECK(l1_cache_bytes(d, largest_shared, 100, 1e9) == 0);
}

TEST_CASE("characterised metrics replace the defaults they name") {
  DeviceParameters d = gpu();
  d.sm_clock_hz = 2e9;
  const DeviceParameters m = with_metrics(d, {{"copy_bandwidth_gbs", 3000}, {"l2_latency_cycles", 250}, {"sm_clock_mhz", 1755},
                                              {"shared_bandwidth_gbs", 100 * 1.755 * 128}, {"unrelated", 1}, {"dram_latency_cycles", 0}});
  CHECK(m.dram_bandwidth == Approx(3e12));
  CHECK(m.l2_latency_cycles == 250);
  CHECK(m.sm_clock_hz == Approx(1.755e9));
  CHECK(m.shared_bytes_per_clock == Approx(128));
  CHECK(m.dram_latency_cycles == d.dram_latency_cycles);  // a zero measurement is no measurement
}

TEST_CASE("Spearman's correlation: 1 for the same order, -1 reversed, ties share their rank") {
  CHECK(spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == Approx(1));
  CHECK(spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == Approx(-1));
  CHECK(spearman({1, 1, 2}, {5, 5, 6}) == Approx(1));
  CHECK_THROWS_AS(spearman({1}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(predict(gpu(), {}, {.blocks = 0, .threads_per_block = 32, .blocks_per_sm = 1}), std::invalid_argument);
}
