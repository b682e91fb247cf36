// A learned correction of the model's time for one family of kernels: boosted
// regression trees over dimensionless features of a prediction and its launch
// (each term's share of the throughput-bound time, threads, warps, waves,
// spills, L1 left), fitted to log(measured / predicted) on recorded spaces.
// The analytic terms stay as they are; the correction multiplies their sum.
// bench/experiments/train_residual.py fits one and writes it as JSON; the
// spaces it was fitted on are part of it, so that figures on them can be told
// from figures out of sample.
#pragma once

#include <blocktune/detail/model.hpp>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

// One node of a regression tree: a split (x[feature] <= threshold goes to
// `left`) or, with feature < 0, a leaf holding `value`.
struct TreeNode {
  int feature = -1;
  double threshold = 0;
  int left = 0, right = 0;  // node indices within the tree
  double value = 0;
};

// The features, in the order the trees index them. dram_bytes_per_sm_clock
// tells GPUs apart by their balance, so that trees fitted on several can learn
// where they differ; log2_steps is the walk a thread makes (KernelWork::steps),
// whose start the analytic model does not charge; last_wave_idle is what a
// partly filled last wave leaves idle, log(ceil(waves) / waves), 0 on whole
// waves (the analytic tail spreads the last blocks evenly instead).
inline constexpr std::array<std::string_view, 15> kResidualFeatureNames{
    "dram_share", "l2_share", "l1_share", "shared_share", "issue_share", "latency_share", "staging_share", "log2_threads",
    "warps_per_sm", "log_waves", "spill_bytes", "l1_cache_kib", "dram_bytes_per_sm_clock", "log2_steps", "last_wave_idle"};
using ResidualFeatures = std::array<double, kResidualFeatureNames.size()>;

struct ResidualModel {
  std::vector<TreeNode> nodes;
  std::vector<int> tree_starts;  // each tree's first node in `nodes`
  double baseline = 0;           // log residual before any tree
  std::vector<std::string> fitted_on;  // the recorded spaces it learned from
};

// Reads the JSON train_residual.py writes; `origin` names it in errors.
ResidualModel parse_residual_model(std::string_view json, std::string_view origin);

ResidualFeatures residual_features(const DeviceParameters& device, const KernelWork& work, const Prediction& prediction,
                                   const LaunchResources& launch);

// log(measured / predicted) as the trees estimate it.
double log_residual(const ResidualModel& model, const ResidualFeatures& features);

// The prediction with the correction applied to its total (Prediction::correction).
Prediction corrected(const ResidualModel& model, const DeviceParameters& device, const KernelWork& work, Prediction prediction,
                     const LaunchResources& launch);

}  // namespace blocktune
