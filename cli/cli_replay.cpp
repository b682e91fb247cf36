#include <blocktune/cli_replay.hpp>

#include <blocktune/cli_action.hpp>

#include <blocktune/recording.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>
#include <numeric>

namespace blocktune {
namespace {

struct RunOptions {
  std::vector<std::string> spaces, kernel_tuner_caches, t4_files;
  std::vector<std::string> sizes_from;  // recordings that correct the model as tune's other stored sizes do
  std::string database, kernel, problem, device;
  std::vector<std::string> strategies = strategy_names();
  std::uint64_t seeds = 20;
  double budget_fraction = kEvaluationFraction;
  bool no_model = false;
  std::string json;  // also write the results here
};

struct ScoreOptions {
  std::string space, kernel_tuner_cache, t4, sequences, output;
};

using Json = nlohmann::ordered_json;

struct ExportOptions {
  std::string database, kernel, problem, device, output, output_dir;
};

// A recorded space and where it came from, for the tables.
struct Source {
  std::string origin;  // the file, or the database session
  Recording recording;
};

SessionSelector selector(const std::string& kernel, const std::string& problem, const std::string& device) {
  return {kernel, problem.empty() ? std::nullopt : std::optional(ProblemSize::parse(problem)), device};
}

std::string title(const Recording& recording, std::string_view fallback) {
  if (recording.kernel.empty()) return std::string(fallback);
  std::string text = recording.kernel;
  if (!recording.problem.empty()) text += " " + recording.problem;
  if (!recording.device.empty()) text += " on " + recording.device;
  return text;
}

// "stencil3d_r1-512x512x512-h100-80gb-hbm3.csv.gz": the device name without
// its vendor, lower case, runs of other characters as one '-'.
std::string file_name(const Recording& recording) {
  std::string device = recording.device;
  if (device.starts_with("NVIDIA ")) device.erase(0, 7);
  std::string slug;
  for (const char c : device) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (slug.ends_with('-')) slug.pop_back();
  return fmt::format("{}-{}-{}.csv.gz", recording.kernel, recording.problem, slug);
}

std::vector<Source> load_sources(const RunOptions& options, bool use_database) {
  std::vector<Source> sources;
  for (const auto& file : options.spaces) sources.push_back({file, read_recording(file)});
  for (const auto& file : options.kernel_tuner_caches) sources.push_back({file, read_kernel_tuner_recording(file)});
  for (const auto& file : options.t4_files) sources.push_back({file, read_t4_recording(file)});
  if (use_database) {
    const auto chosen = selector(options.kernel, options.problem, options.device);
    for (auto& recording : recordings_from_database(read_database(options.database), chosen))
      sources.push_back({options.database, std::move(recording)});
  }
  if (sources.empty())
    throw std::runtime_error("nothing to replay: give --space, --kernel-tuner-cache, --t4, or --kernel with --db");
  return sources;
}

// What a long replay is doing, on err, about once a second (the first line
// after a second).
class Progress {
 public:
  explicit Progress(std::ostream& err) : err_(err), last_(Clock::now()) {}

  // `describe` is called only when a line is due.
  template <typename Describe>
  void report(const Describe& describe) {
    const auto now = Clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    fmt::print(err_, "replay: {}\n", describe());
    err_.flush();
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream& err_;
  Clock::time_point last_;
};

struct SpaceResult {
  std::string label;
  std::vector<std::optional<ReplaySummary>> summaries;  // per strategy; empty where it could not run
  Json facts;                                           // space_facts(); null where nothing succeeded
};

// What the methodology makes of a space: its size, optimum, the score's time
// budget and how many random evaluations fit in it.
Json space_facts(const Source& source, const RandomBaseline& random) {
  const RecordedSpace& space = source.recording.space;
  const double budget = random.budget_seconds();
  return Json{{"origin", source.origin},
              {"kernel", source.recording.kernel},
              {"problem", source.recording.problem},
              {"device", source.recording.device},
              {"configurations", space.configs.size()},
              {"failed", std::count_if(space.time.begin(), space.time.end(), [](const auto& t) { return !t; })},
              {"optimum_s", random.optimum()},
              {"mean_cost_s", random.mean_cost()},
              {"budget_s", budget},
              {"random_evaluations_in_budget", random.draws_by(budget)}};
}

SpaceResult replay_space(std::ostream& out, Progress& progress, const Source& source, const RunOptions& options,
                         OtherSizes& other_sizes, const std::vector<std::uint64_t>& seeds) {
  const Recording& recording = source.recording;
  const RecordedSpace& space = recording.space;
  const std::string label = title(recording, source.origin);
  fmt::print(out, "{}\n", label == source.origin ? label : fmt::format("{} ({})", label, source.origin));
  const auto failed = std::count_if(space.time.begin(), space.time.end(), [](const auto& t) { return !t; });
  if (static_cast<std::size_t>(failed) == space.configs.size()) {
    fmt::print(out, "  {} configurations, none succeeded: nothing to compare\n\n", space.configs.size());
    return {label, std::vector<std::optional<ReplaySummary>>(options.strategies.size()), Json()};
  }
  const RandomBaseline random(space);
  const auto near_optimal = std::count_if(space.time.begin(), space.time.end(), [&](const auto& t) {
    return t && random.optimum() / *t >= kNearOptimalSpeed;
  });
  const double budget = random.budget_seconds();
  const auto evaluations =
      static_cast<std::size_t>(std::ceil(options.budget_fraction * static_cast<double>(space.configs.size()) - 1e-9));
  std::optional<ModelScores> model = options.no_model ? std::nullopt : recorded_model_scores(recording);
  // As tune corrects its predictions by another problem size its database holds.
  std::optional<std::string> corrected_by;
  std::vector<std::string> averaged_with;
  if (model && model->are_times) {
    if (auto transfer = other_sizes.nearest_size_transfer(recording)) {
      model = transferred_scores(std::move(*model), std::move(transfer->transfer),
                                 [&space](std::uint64_t candidate) { return space.configs[candidate].to_string(); }, space.configs.size());
      corrected_by = options.sizes_from[transfer->index];  // OtherSizes keeps the files' order
      for (const std::size_t i : transfer->averaged_with) averaged_with.push_back(options.sizes_from[i]);
    }
  }

  fmt::print(out, "  {} configurations ({} failed), optimum {:.4g} ms, {} of them within {:.0f}% of its speed\n",
             space.configs.size(), failed, random.optimum() * 1e3, near_optimal, kNearOptimalSpeed * 100);
  fmt::print(out, "  measuring one costs {:.3f} s on average; the score's budget is {:.1f} s ({} random evaluations)\n",
             random.mean_cost(), budget, random.draws_by(budget));
  fmt::print(out, "  model scores: {}{}\n",
             !recording.predicted_seconds.empty() && !options.no_model ? "the execution-time model's recorded predictions"
             : model                                                   ? "recorded occupancy, then registers"
             : options.no_model                                        ? "none (--no-model)"
                                                                       : "none (no prediction or occupancy recorded)",
             corrected_by ? fmt::format(", corrected by the other problem size of {}{}", *corrected_by,
                                        averaged_with.empty() ? "" : fmt::format(" (averaged with {})", fmt::join(averaged_with, ", ")))
                          : "");
  fmt::print(out, "  {} seeds; near-optimal: {:.0f}% of the optimum's speed within {} evaluations ({:g}%)\n\n",
             seeds.size(), kNearOptimalSpeed * 100, evaluations, options.budget_fraction * 100);
  fmt::print(out, "  {:<20} {:>15}  {:>14}  {:>18}\n", "strategy", "score +- s.e.", "near-optimal", "evaluations to 97%");

  SpaceResult result{label, {}, space_facts(source, random)};
  result.facts["corrected_by"] = corrected_by ? Json(*corrected_by) : Json();
  result.facts["averaged_with"] = Json(averaged_with);
  for (const auto& name : options.strategies) {
    const auto strategy = make_strategy(name);
    const std::string shown = name == kDefaultStrategy ? name + " (default)" : name;
    try {
      const auto report = [&](std::size_t seeds_done) {
        progress.report([&] { return fmt::format("{}: {}, seed {} of {}", label, name, seeds_done + 1, seeds.size()); });
      };
      const ReplaySummary summary =
          summarize(space, *strategy, seeds, model ? &*model : nullptr, options.budget_fraction, report);
      const auto reached =
          static_cast<std::size_t>(std::lround(summary.near_optimal_fraction * static_cast<double>(seeds.size())));
      fmt::print(out, "  {:<20} {:>7.3f} {:>7}  {:>4.0f}% {:>3}/{:<3}  {:>18.1f}\n", shown, summary.mean_score,
                 seeds.size() > 1 ? fmt::format("+-{:.3f}", summary.score_standard_error) : "",
                 summary.near_optimal_fraction * 100, reached, seeds.size(), summary.mean_evaluations_to_near_optimal);
      result.summaries.push_back(summary);
    } catch (const std::invalid_argument& error) {
      fmt::print(out, "  {:<20} not run: {}\n", shown, error.what());
      result.summaries.emplace_back();
    }
  }
  fmt::print(out, "\n");
  return result;
}

// One line per strategy, one column per space: score and near-optimal seeds.
void print_overview(std::ostream& out, const RunOptions& options, const std::vector<SpaceResult>& results) {
  fmt::print(out, "overview: methodology score / % of seeds near-optimal\n");
  for (std::size_t s = 0; s < results.size(); ++s) fmt::print(out, "  [{}] {}\n", s + 1, results[s].label);
  fmt::print(out, "  {:<20}", "strategy");
  for (std::size_t s = 0; s < results.size(); ++s) fmt::print(out, " {:>12}", fmt::format("[{}]", s + 1));
  fmt::print(out, "\n");
  for (std::size_t i = 0; i < options.strategies.size(); ++i) {
    fmt::print(out, "  {:<20}", options.strategies[i]);
    for (const SpaceResult& result : results) {
      const auto& summary = result.summaries[i];
      fmt::print(
          out, " {:>12}",
          summary ? fmt::format("{:.2f} / {:.0f}%", summary->mean_score, summary->near_optimal_fraction * 100) : "-");
    }
    fmt::print(out, "\n");
  }
}

void write_json(const std::string& file, const Json& json) {
  std::ofstream stream(file);
  stream << json.dump(1) << '\n';
  if (!stream.flush()) throw std::runtime_error(fmt::format("cannot write '{}'", file));
}

// replay run's results as JSON: per space its facts and, per strategy, the summary (null where it could not run).
Json run_json(const RunOptions& options, const std::vector<SpaceResult>& results) {
  Json spaces = Json::array();
  for (const SpaceResult& result : results) {
    Json strategies = Json::object();
    for (std::size_t i = 0; i < options.strategies.size(); ++i) {
      const auto& summary = result.summaries[i];
      strategies[options.strategies[i]] =
          summary ? Json{{"score", summary->mean_score},
                         {"score_standard_error", summary->score_standard_error},
                         {"near_optimal_fraction", summary->near_optimal_fraction},
                         {"evaluations_to_near_optimal", summary->mean_evaluations_to_near_optimal}}
                  : Json();
    }
    spaces.push_back(Json{{"title", result.label}, {"space", result.facts}, {"strategies", std::move(strategies)}});
  }
  return Json{{"seeds", options.seeds},
              {"no_model", options.no_model},
              {"budget_fraction", options.budget_fraction},
              {"default_strategy", kDefaultStrategy},
              {"spaces", std::move(spaces)}};
}

void run(std::ostream& out, std::ostream& err, const RunOptions& options, bool use_database) {
  for (const auto& name : options.strategies) make_strategy(name);  // unknown names fail before any work
  std::vector<std::uint64_t> seeds(options.seeds);
  std::iota(seeds.begin(), seeds.end(), std::uint64_t{1});

  std::vector<SpaceResult> results;
  Progress progress(err);
  const std::vector<Source> sources = load_sources(options, use_database);
  OtherSizes other_sizes(std::vector<std::filesystem::path>(options.sizes_from.begin(), options.sizes_from.end()));
  for (const Source& source : sources) results.push_back(replay_space(out, progress, source, options, other_sizes, seeds));
  if (results.size() > 1) print_overview(out, options, results);
  if (!options.json.empty()) write_json(options.json, run_json(options, results));
}

// Scores the search sequences of another tool on one recorded space, with the
// methodology replay run uses; without sequences, the space's facts alone.
void score(std::ostream& out, const ScoreOptions& options) {
  const Source source = !options.space.empty()                ? Source{options.space, read_recording(options.space)}
                        : !options.kernel_tuner_cache.empty() ? Source{options.kernel_tuner_cache,
                                                                       read_kernel_tuner_recording(options.kernel_tuner_cache)}
                                                              : Source{options.t4, read_t4_recording(options.t4)};
  const RecordedSpace& space = source.recording.space;
  if (std::none_of(space.time.begin(), space.time.end(), [](const auto& t) { return t.has_value(); }))
    throw std::runtime_error(fmt::format("no configuration of '{}' succeeded: nothing to score against", source.origin));
  const RandomBaseline random(space);
  const double budget = random.budget_seconds();
  Json json = space_facts(source, random);
  if (!options.sequences.empty()) {
    Json runs = Json::array();
    double total = 0;
    const auto sequences = read_search_sequences(options.sequences, space);
    for (const SearchSequence& sequence : sequences) {
      const SearchResult result = replay_sequence(space, sequence.candidates);
      double seconds = 0;
      std::size_t in_budget = 0;
      for (const auto& [candidate, evaluation] : result.history)
        if ((seconds += evaluation.cost_seconds) <= budget) ++in_budget;
      const double value = methodology_score(BestSoFar(result), random, budget);
      total += value;
      runs.push_back(Json{{"name", sequence.name},
                          {"score", value},
                          {"evaluations", result.history.size()},
                          {"repeats", sequence.candidates.size() - result.history.size()},
                          {"evaluations_in_budget", in_budget},
                          {"seconds", seconds},
                          {"covers_budget", seconds >= budget},
                          {"best_s", result.best ? Json(*space.time[*result.best]) : Json()}});
    }
    json["sequences"] = options.sequences;
    json["runs"] = std::move(runs);
    json["mean_score"] = sequences.empty() ? Json() : Json(total / static_cast<double>(sequences.size()));
  }
  if (options.output.empty())
    fmt::print(out, "{}\n", json.dump(1));
  else
    write_json(options.output, json);
}

void export_spaces(std::ostream& out, const ExportOptions& options) {
  const auto recordings = recordings_from_database(read_database(options.database),
                                                   selector(options.kernel, options.problem, options.device));
  if (!options.output.empty() && recordings.size() != 1) {
    std::vector<std::string> titles;
    for (const Recording& recording : recordings) titles.push_back(title(recording, ""));
    throw std::runtime_error(
        fmt::format("--output takes one session, the selection has {} ({}): narrow it with "
                    "--kernel, --problem and --device, or use --output-dir",
                    recordings.size(), fmt::join(titles, "; ")));
  }
  if (!options.output_dir.empty()) std::filesystem::create_directories(options.output_dir);
  for (const Recording& recording : recordings) {
    const std::filesystem::path file = options.output.empty()
                                           ? std::filesystem::path(options.output_dir) / file_name(recording)
                                           : std::filesystem::path(options.output);
    write_recording(file, recording);
    const auto failed =
        std::count_if(recording.space.time.begin(), recording.space.time.end(), [](const auto& t) { return !t; });
    fmt::print(out, "wrote {}: {}, {} configurations ({} failed){}\n", file.string(), title(recording, ""),
               recording.space.configs.size(), failed,
               std::filesystem::is_regular_file(file)  // not a pipe or device
                   ? fmt::format(", {:.0f} KiB", static_cast<double>(std::filesystem::file_size(file)) / 1024)
                   : "");
  }
}

}  // namespace

void add_replay_commands(CLI::App& app, const std::filesystem::path& default_db, std::ostream& out, std::ostream& err) {
  CLI::App* replay =
      app.add_subcommand("replay", "compare search strategies on completely measured spaces, without a GPU");
  replay->require_subcommand(1);

  // Every failure: one line on err, exit code 1.
  const auto guarded = [&err](std::string name, std::function<void()> action) {
    return [name = "replay " + std::move(name), action = std::move(action), &err] { run_command_action(err, name, action); };
  };

  auto run_options = std::make_shared<RunOptions>();
  run_options->database = default_db.string();
  CLI::App* run_command = replay->add_subcommand(
      "run",
      "replay strategies on recorded spaces with a simulated clock (each configuration costs its recorded "
      "compile and benchmark time) and compare them: the methodology score of Willemsen et al. (FGCS 2024) "
      "against random search, and how often each gets near the optimum");
  run_command->add_option("--space", run_options->spaces, "recorded-space file (.csv or .csv.gz); repeatable")
      ->check(CLI::ExistingFile);
  auto* database = run_command->add_option("--db", run_options->database, "tuning database to take sessions from")
                       ->capture_default_str();
  auto* kernel = run_command->add_option("--kernel", run_options->kernel, "replay this kernel's sessions from --db");
  auto* problem =
      run_command->add_option("--problem,-p", run_options->problem, "only this problem size, e.g. 512x512x512");
  auto* device =
      run_command->add_option("--device,-d", run_options->device, "only this device: uuid or part of its name");
  run_command
      ->add_option("--kernel-tuner-cache", run_options->kernel_tuner_caches,
                   "Kernel Tuner cache file (.json or .json.gz); repeatable")
      ->check(CLI::ExistingFile);
  run_command->add_option("--t4", run_options->t4_files, "T4 results file (JSON); repeatable")
      ->check(CLI::ExistingFile);
  run_command->add_option("--strategies", run_options->strategies, "strategies to compare, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  run_command->add_option("--seeds", run_options->seeds, "seeds per strategy (1..N)")
      ->check(at_least(1))
      ->capture_default_str();
  run_command
      ->add_option("--budget-fraction", run_options->budget_fraction,
                   "fraction of the evaluations within which a run must get near the optimum")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  auto* no_model = run_command->add_flag("--no-model", run_options->no_model,
                                         "ignore the recorded predictions and occupancy: replay without model scores");
  run_command
      ->add_option("--sizes-from", run_options->sizes_from,
                   "recorded-space files standing for a database's other problem sizes: each space's predictions are "
                   "corrected by the nearest of them of its kernel and device, as tune does; repeatable")
      ->check(CLI::ExistingFile)
      ->excludes(no_model);
  run_command->add_option("--json", run_options->json,
                          "also write the results as JSON to this file: per space its size, optimum and the "
                          "score's budget, per strategy its score");
  run_command->callback(guarded("run", [&out, &err, run_options, database, kernel, problem, device] {
    const bool use_database = database->count() + kernel->count() + problem->count() + device->count() > 0;
    run(out, err, *run_options, use_database);
  }));

  auto score_options = std::make_shared<ScoreOptions>();
  CLI::App* score_command = replay->add_subcommand(
      "score",
      "score searches made by another tool on one recorded space, with the methodology of replay run: each "
      "configuration costs its recorded cost once (a repeat costs nothing); prints JSON: the space's optimum, "
      "mean cost and the score's time budget, and per run its score");
  auto* score_space = score_command->add_option("--space", score_options->space, "recorded-space file (.csv or .csv.gz)")
                          ->check(CLI::ExistingFile);
  auto* score_cache = score_command
                          ->add_option("--kernel-tuner-cache", score_options->kernel_tuner_cache,
                                       "Kernel Tuner cache file (.json or .json.gz)")
                          ->check(CLI::ExistingFile);
  auto* score_t4 = score_command->add_option("--t4", score_options->t4, "T4 results file (JSON)")->check(CLI::ExistingFile);
  score_space->excludes(score_cache, score_t4);
  score_cache->excludes(score_t4);
  score_command->add_option("--sequences", score_options->sequences,
                            "search sequences to score (JSON or .json.gz: {\"runs\": [{\"name\": ..., \"configs\": "
                            "[...]}]}); without it, only the space's facts")
      ->check(CLI::ExistingFile);
  score_command->add_option("--output,-o", score_options->output, "write the JSON here instead of printing it");
  score_command->callback(guarded("score", [&out, score_options] {
    if (score_options->space.empty() && score_options->kernel_tuner_cache.empty() && score_options->t4.empty())
      throw CLI::RequiredError("give --space, --kernel-tuner-cache or --t4", CLI::ExitCodes::RequiredError);
    score(out, *score_options);
  }));

  auto export_options = std::make_shared<ExportOptions>();
  export_options->database = default_db.string();
  CLI::App* export_command = replay->add_subcommand(
      "export-space", "write tuning sessions of the database as recorded-space files (gzip CSV) for replay and tests");
  export_command->add_option("--db", export_options->database, "tuning database")->capture_default_str();
  export_command->add_option("--kernel", export_options->kernel, "only this kernel");
  export_command->add_option("--problem,-p", export_options->problem, "only this problem size");
  export_command->add_option("--device,-d", export_options->device, "only this device: uuid or part of its name");
  auto* output = export_command->add_option("--output,-o", export_options->output, "file to write (one session)");
  export_command
      ->add_option("--output-dir", export_options->output_dir,
                   "folder to write every selected session to, as KERNEL-PROBLEM-DEVICE.csv.gz")
      ->excludes(output);
  export_command->callback(guarded("export-space", [&out, export_options] {
    if (export_options->output.empty() && export_options->output_dir.empty())
      throw CLI::RequiredError("give --output FILE or --output-dir DIR", CLI::ExitCodes::RequiredError);
    export_spaces(out, *export_options);
  }));
}

}  // namespace blocktune
