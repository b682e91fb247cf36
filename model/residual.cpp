#include <blocktune/detail/residual.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace blocktune {
namespace {

// A tree's nodes, each [feature, threshold, left, right, value], children by
// index within the tree and after their parent (so every walk ends).
void append_tree(const nlohmann::json& tree, ResidualModel& model, std::string_view origin, std::size_t index) {
  if (!tree.is_array() || tree.empty()) throw std::runtime_error(fmt::format("{}: tree {} has no nodes", origin, index));
  model.tree_starts.push_back(static_cast<int>(model.nodes.size()));
  const int size = static_cast<int>(tree.size());
  for (int i = 0; i < size; ++i) {
    const auto& n = tree[static_cast<std::size_t>(i)];
    if (!n.is_array() || n.size() != 5) throw std::runtime_error(fmt::format("{}: tree {}, node {}: expected [feature, threshold, left, right, value]", origin, index, i));
    TreeNode node{n[0].get<int>(), n[1].get<double>(), n[2].get<int>(), n[3].get<int>(), n[4].get<double>()};
    const bool split = node.feature >= 0;
    if (split && (node.feature >= static_cast<int>(kResidualFeatureNames.size()) || node.left <= i || node.right <= i || node.left >= size || node.right >= size))
      throw std::runtime_error(fmt::format("{}: tree {}, node {}: feature or children out of range", origin, index, i));
    model.nodes.push_back(node);
  }
}

}  // namespace

ResidualModel parse_residual_model(std::string_view text, std::string_view origin) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(fmt::format("{}: not JSON: {}", origin, error.what()));
  }
  try {
    const auto features = json.at("features").get<std::vector<std::string>>();
    if (!std::ranges::equal(features, kResidualFeatureNames))
      throw std::runtime_error(fmt::format("{}: its features are not this build's ({})", origin, fmt::join(kResidualFeatureNames, ", ")));
    ResidualModel model;
    model.baseline = json.at("baseline").get<double>();
    model.fitted_on = json.at("fitted_on").get<std::vector<std::string>>();
    const auto& trees = json.at("trees");
    for (std::size_t i = 0; i < trees.size(); ++i) append_tree(trees[i], model, origin, i);
    return model;
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(fmt::format("{}: {}", origin, error.what()));
  }
}

ResidualFeatures residual_features(const DeviceParameters& device, const KernelWork& work, const Prediction& p,
                                   const LaunchResources& launch) {
  if (launch.blocks < 1 || launch.blocks_per_sm < 1 || launch.threads_per_block < 1 || device.sm_count < 1 || device.sm_clock_hz <= 0 || device.dram_bandwidth <= 0 ||
      work.steps <= 0)
    throw std::invalid_argument(
        "residual features need a launch of at least one block, with at least one thread and one block per SM, the SMs' clock, the DRAM bandwidth and a walk of at "
        "least one step");
  // Every time as a share of the throughput-bound time, so the features carry no unit.
  const double throughput = std::max(throughput_bound(p), 1e-30);
  const auto share = [&](double term) { return std::log(term / throughput + 1e-6); };
  const double fill = waves(device, launch);
  return {share(p.dram),
          share(p.l2),
          share(p.l1),
          share(p.shared),
          share(p.issue),
          share(p.latency),
          share(p.staging),
          std::log2(double(launch.threads_per_block)),
          launch.blocks_per_sm * std::ceil(launch.threads_per_block / 32.0),
          std::log(fill),
          double(launch.spill_bytes),
          launch.l1_cache_bytes / 1024,
          std::log2(device.dram_bandwidth / (device.sm_count * device.sm_clock_hz)),
          std::log2(work.steps),
          std::log(std::ceil(fill - 1e-9) / fill)};
}

double log_residual(const ResidualModel& model, const ResidualFeatures& x) {
  double sum = model.baseline;
  for (const int start : model.tree_starts) {
    auto at = static_cast<std::size_t>(start);
    while (model.nodes[at].feature >= 0) {
      const TreeNode& split = model.nodes[at];
      at = static_cast<std::size_t>(start + (x[static_cast<std::size_t>(split.feature)] <= split.threshold ? split.left : split.right));
    }
    sum += model.nodes[at].value;
  }
  return sum;
}

Prediction corrected(const ResidualModel& model, const DeviceParameters& device, const KernelWork& work, Prediction prediction,
                     const LaunchResources& launch) {
  prediction.correction = std::exp(log_residual(model, residual_features(device, work, prediction, launch)));
  prediction.seconds *= prediction.correction;
  return prediction;
}

}  // namespace blocktune
