#include <blocktune/stencil_study.hpp>

#include <blocktune/detail/device_query.hpp>
#include <blocktune/kernels.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

namespace blocktune {
namespace {

std::int64_t fused_steps(const Config& config) { return config.find("fused_steps") ? config.get_int("fused_steps") : 1; }

// The codings to time again, each with its configuration: the naive baseline
// (the kernel's default) first, then the fastest tuned trial of each coding
// (load path x z handling x fused steps), by name.
struct Codings {
  std::vector<std::string> names;
  std::vector<Config> configs;
};

Codings best_of_each_coding(const KernelDescription& kernel, const std::vector<TrialRecord>& trials) {
  Codings codings{{"baseline BASE 32x16x1"}, {Config::parse(kernel.default_config)}};
  std::map<std::string, const TrialRecord*> best;
  for (const TrialRecord& t : trials) {
    if (t.outcome != Outcome::ok) continue;
    const Config c = Config::parse(t.config);
    std::string coding = fmt::format("{}+{}", to_string(c.at("strategy")), to_string(c.at("zloop")));
    if (fused_steps(c) > 1) coding += fmt::format(" {} steps", fused_steps(c));
    if (!best.contains(coding) || t.median_ms < best[coding]->median_ms) best[coding] = &t;
  }
  for (const auto& [coding, trial] : best) {
    codings.names.push_back(coding);
    codings.configs.push_back(Config::parse(trial->config));
  }
  return codings;
}

struct CloseFile {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, CloseFile>;

// The CSV file rows are appended to, with its header when it is new.
File open_csv(const std::filesystem::path& file) {
  const bool fresh = !std::filesystem::exists(file);
  File csv(std::fopen(file.c_str(), "a"));
  if (!csv) throw std::runtime_error(fmt::format("cannot append to {}", file.string()));
  if (fresh)
    fmt::print(csv.get(), "device,kernel,radius,problem,coding,config,median_ms,gbs,gflops,copy_gbs,fraction_of_copy,speedup_vs_naive,"
                          "fused_steps,ms_per_step\n");
  return csv;
}

}  // namespace

void run_stencil_study(const StencilStudyOptions& options) {
  const KernelDescription kernel = stencil3d(options.radius, options.f64 ? ElementType::f64 : ElementType::f32);
  // `where` restricts what is tuned; the baseline is timed whatever it says.
  KernelDescription tuned_kernel = kernel;
  for (const std::string& constraint : options.where) tuned_kernel.space.add_constraint(constraint);
  const ProblemSize& problem = options.problem;
  std::filesystem::create_directories(std::filesystem::absolute(options.database).parent_path());
  Store store = Store::open(options.database);
  const VariantCompiler compiler;
  const DeviceInfo device = query_device(options.device);
  fmt::print("stencil benchmark: {} on GPU {} ({}), problem {}\n", kernel.name, options.device, device.name, problem.describe());
  std::fflush(stdout);

  TuneOptions tune_options;
  tune_options.strategy = "exhaustive";  // the best of every coding needs every configuration
  tune_options.default_budget_seconds = std::numeric_limits<double>::infinity();
  tune_options.progress = options.progress;
  const TuneResult tuned = tune(tuned_kernel, options.device, problem, store, compiler, tune_options);

  const Codings codings = best_of_each_coding(kernel, tuned.trials);
  const Remeasured again = measure_many(kernel, options.device, problem, codings.configs, compiler, {.min_repeats = 50, .max_repeats = 500});

  // A configuration that fuses k time steps does k steps per launch: its
  // figures are per step (time / k; bytes and flops of k steps over the time).
  const double baseline_ms = again.trials.front().median_ms;
  const Lookup env = environment(kernel, device, problem);
  fmt::print("\ndevice-to-device copy in this run: {:.0f} GB/s (bytes read + written)\n", again.copy_bandwidth_gbs);
  fmt::print("GB/s and GFLOP/s are effective per time step ({} bytes per cell per step); a configuration fusing k steps\n"
             "is timed per launch (ms) and counted as k steps (ms/step = ms / k)\n",
             2 * (options.f64 ? 8 : 4));
  fmt::print("{:<22} {:>9} {:>9} {:>9} {:>8} {:>7} {:>9}  {}\n", "coding", "ms", "ms/step", "GB/s", "GFLOP/s", "% copy", "vs naive",
             "best configuration");
  const File csv = options.csv.empty() ? nullptr : open_csv(options.csv);
  double best_single = 0, best_fused = 0;  // GB/s per step
  std::string best_fused_coding;
  for (std::size_t i = 0; i < again.trials.size(); ++i) {
    const TrialRecord& t = again.trials[i];
    const std::string& coding = codings.names[i];
    if (t.outcome != Outcome::ok) {
      fmt::print("{:<22} {}: {}\n", coding, to_string(t.outcome), t.message);
      continue;
    }
    const Config config = Config::parse(t.config);
    const std::int64_t steps = fused_steps(config);
    const double per_step_ms = t.median_ms / static_cast<double>(steps);
    const double gflops = static_cast<double>(Expression::parse(kernel.flops).evaluate_int(config.lookup(env))) / (t.median_ms * 1e-3) / 1e9;
    const double fraction = t.metric / again.copy_bandwidth_gbs;
    fmt::print("{:<22} {:>9.4f} {:>9.4f} {:>9.0f} {:>8.0f} {:>6.1f}% {:>8.2f}x  {}\n", coding, t.median_ms, per_step_ms, t.metric, gflops,
               100 * fraction, baseline_ms / per_step_ms, t.config);
    if (steps == 1) best_single = std::max(best_single, t.metric);
    if (steps > 1 && t.metric > best_fused) best_fused = t.metric, best_fused_coding = coding;
    if (csv)
      fmt::print(csv.get(), "\"{}\",{},{},{},{},\"{}\",{:.5f},{:.1f},{:.1f},{:.1f},{:.4f},{:.3f},{},{:.5f}\n", device.name, kernel.name,
                 options.radius, problem.to_string(), coding, t.config, t.median_ms, t.metric, gflops, again.copy_bandwidth_gbs, fraction,
                 baseline_ms / per_step_ms, steps, per_step_ms);
  }
  if (best_single > 0 && best_fused > 0)
    fmt::print("\ntemporal blocking: {} {:.0f} GB/s per step = {:.2f}x the best single-step configuration ({:.0f} GB/s)\n",
               best_fused_coding, best_fused, best_fused / best_single, best_single);
}

}  // namespace blocktune
