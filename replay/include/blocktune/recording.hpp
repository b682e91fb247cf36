#pragma once
// Recorded search spaces: completely measured tuning sessions, to replay
// search strategies on without a GPU. Read from the tuning database, from
// compact recorded-space files, from Kernel Tuner caches and from T4 results.
//
//   const auto contents = blocktune::read_database(file);
//   const auto recording = blocktune::recordings_from_database(contents, {.kernel = "stencil3d_r1"}).front();
//   blocktune::write_recording("stencil3d_r1.csv.gz", recording);  // read_recording reads it back
//   const auto scores = blocktune::recorded_model_scores(recording);
//   const auto summary = blocktune::summarize(recording.space, *blocktune::make_strategy("surrogate"), seeds,
//                                             scores ? &*scores : nullptr);

#include <blocktune/replay.hpp>
#include <blocktune/store.hpp>
#include <blocktune/transfer.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace blocktune {

// Reads the text of a Kernel Tuner cache (JSON). Its "cache" object maps "v1,v2,..."
// to entries holding the values of the parameters named by
// "tune_params_keys", "time" in ms or an error name, and "compile_time",
// "verification_time" and "benchmark_time" in ms (missing ones count as 0;
// Kernel Tuner's own simulation charges all three). Entries timed
// "InvalidConfig" violate the space's restrictions and are left out; other
// error names are failed configurations. Non-integral numeric parameter
// values become strings ("0.5"). Caches left open by an interrupted run are
// closed the way Kernel Tuner does. Throws std::runtime_error saying what is
// missing or wrong (read_kernel_tuner_recording adds the file).
RecordedSpace parse_kernel_tuner_cache(std::string_view text);

// A recorded space with what was known of each configuration before it ran.
struct Recording {
  std::string kernel, problem, device;  // where it was measured; empty where the source does not say
  RecordedSpace space;
  // Parallel to space.configs: blocktune's outcome names ("ok", "compile_error",
  // ...), or the source's error names for imports.
  std::vector<std::string> outcome;
  // Parallel to space.configs, or empty where the source does not say: the
  // part of cost_seconds spent compiling.
  std::vector<double> compile_seconds;
  // Parallel to space.configs, or both empty where the source has no compile
  // results (Kernel Tuner caches): the occupancy model's inputs, 0 for a
  // configuration that did not compile.
  std::vector<double> occupancy;
  std::vector<int> registers;
  // Parallel to space.configs, or empty where the source does not say: the
  // execution-time model's prediction in seconds, as the tuner had it.
  std::vector<double> predicted_seconds;
  // Parallel to space.configs, or empty where the source does not say: the
  // warps each launch kept resident on an SM (ModelScores::resident_warps),
  // 0 for one that could not run.
  std::vector<int> resident_warps;
  // Whether those predictions count the kernel's work (ModelScores::count_work);
  // false for a spec that counts none, noted as "# predictions: without work
  // counts". From a tuning database, as its kernel record says (true where it
  // does not: kernels registered before schema version 6).
  bool predictions_count_work = true;
  // Whether the times were measured after an L2 flush (TrialRecord::l2_flushed),
  // noted as "# l2: flushed"; false (warm) where the note is absent. Only a
  // recording timed the same way corrects another's predictions.
  bool l2_flushed = false;
  // The kernel's default configuration (Config::to_string()); empty where the
  // source does not say. Replays measure it first, as tune does: see
  // start_from_default.
  std::string default_config;
};

// Sets recording.space.first to the index of its default configuration (the
// same values, in any order), or clears it where there is none or it is not
// in the space (the constraints rejected it on that device, and tune then
// measures no default either).
// Throws std::runtime_error for a default that is not configuration text.
void start_from_default(Recording& recording);

// Sets recording.space.start_up_seconds: what the first row (the recording
// run's first measurement: rows are in measurement order) cost apart from
// compiling beyond the median of the other rows, which is the run's one-time
// start-up (its first launch, the reference output). A replay charged it to the
// searches that happen to measure that configuration, and only those: 0.15 s
// of a 3.5 s budget on blur, the default's row. 0 where the recording has no
// compile times (Kernel Tuner caches, whose rows are in no order) or fewer
// than 3 rows.
void separate_start_up(Recording& recording);

// The tuner's static ranking as model scores (lower = predicted faster):
// higher occupancy first, then fewer registers; equal facts score equal.
// Empty where the recording has no occupancy.
std::vector<double> occupancy_model_score(const Recording& recording);

// The model scores the tuner would have had: the predicted times where the
// recording has them, else the occupancy ranking, else none (empty).
std::vector<double> model_score(const Recording& recording);
// The same as a strategy takes them (times where they are predicted times,
// with each launch's resident warps where the recording has them);
// nullopt where there are none.
std::optional<ModelScores> recorded_model_scores(const Recording& recording);

// What `tune` does when its database holds other problem sizes of the kernel
// on the device (transfer.hpp): among `others`, the recordings of the same
// kernel and device at another problem size, the one nearest_size_transfer
// chooses from their measured and predicted times and this recording's
// predictions. `index` is its index in `others`; nullopt where none qualifies.
std::optional<NearestTransfer> nearest_size_transfer(const Recording& recording, std::span<const Recording> others);

// Recorded-space files standing for a database's other problem sizes (what
// `replay run --sizes-from` gives): their notes are read at once, a file's
// rows only when a replay asks for its measurements, nearest size first, as
// tune reads its database's trials; many or large files cost the memory of
// one. An answer is kept for the kernel, device, problem and kind of timing
// it was asked for, so that replaying recordings of one size again (repeats,
// copies, whose predictions are the model's at that size alike) reads no file
// again. The constructor throws std::runtime_error naming a file it cannot read.
class OtherSizes {
 public:
  explicit OtherSizes(std::vector<std::filesystem::path> files);

  // As the function above, among the files; `index` is the file's.
  std::optional<NearestTransfer> nearest_size_transfer(const Recording& recording);

 private:
  std::vector<std::filesystem::path> files_;
  std::vector<Recording> notes_;  // per file: kernel, problem, device, no rows
  // By kernel, device, problem and how the L2 was left (a size timed both ways is answered apart).
  std::map<std::tuple<std::string, std::string, std::string, bool>, std::optional<NearestTransfer>> answers_;
};

// ---- Recorded-space files ----
//
// CSV (RFC 4180), gzip-compressed when the name ends in ".gz":
//
//   # blocktune recorded space 1
//   # kernel: stencil3d_r1
//   # problem: 512x512x512
//   # device: NVIDIA H100 80GB HBM3
//   # default: block_x=32,block_y=16,...,carveout=-1
//   config,outcome,time_s,cost_s,compile_s,occupancy,registers,predicted_s
//   "block_x=32,block_y=1,...,carveout=-1",ok,0.0012564799785614,0.962946178,0.152560156,1,24,0.00119
//
// One row per configuration of the space, in measurement order. config is
// Config::to_string(); time_s is the median kernel time, empty for a failed
// configuration; cost_s is what replay charges for measuring it (compile,
// verification and benchmark), compile_s the compile part of it; occupancy
// and registers are the occupancy model's inputs; predicted_s the
// execution-time model's prediction. compile_s, occupancy and registers, and
// predicted_s are left out where unknown (occupancy and registers together; a
// configuration the model could not predict has an empty predicted_s).
// Numbers are the shortest text that reads back as the same double. Lines
// starting with '#' before the header hold "key: value" notes; kernel,
// problem, device and default (the kernel's default configuration, measured
// first by replays) are read back, others are for people.

// Throws std::runtime_error naming the file (and the line, for bad content).
Recording read_recording(const std::filesystem::path& path);
// Only the file's notes (kernel, problem, device, default configuration,
// whether its predictions count work), without reading its rows. Throws as
// read_recording does.
Recording read_recording_notes(const std::filesystem::path& path);
// Throws std::runtime_error naming the file; std::invalid_argument for a
// recording whose vectors are not parallel.
void write_recording(const std::filesystem::path& path, const Recording& recording);

// ---- Database ----

// Which tuning sessions to take; empty fields select everything.
struct SessionSelector {
  std::string kernel;  // kernel name
  std::optional<ProblemSize> problem;
  std::string device;  // a uuid, or part of a device name ("H100"), case-insensitive
};

// One recording per selected session: its trials except those the
// constraints rejected, which are not part of the space a strategy searches.
// A kernel tuned in several source versions gives the newest one's. Throws
// std::runtime_error when nothing is selected, listing what is stored.
std::vector<Recording> recordings_from_database(const DatabaseContents& contents, const SessionSelector& selector);

// ---- Imports ----

// A Kernel Tuner cache, .json or gzip-compressed .json.gz (see
// parse_kernel_tuner_cache): outcomes "ok" or "failed", no compile times, no
// occupancy. Throws std::runtime_error naming the file and what is missing.
Recording read_kernel_tuner_recording(const std::filesystem::path& path);

// T4 autotuning results (JSON), as `blocktune report --format t4` and Kernel
// Tuner write them. Results invalid by "constraints" are left out; other
// invalid ones are failed configurations. The time is the measurement named
// by the first objective (ms unless its unit says "s" or "us"); the cost is
// the compilation, validation and benchmark times (ms; Kernel Tuner names the
// first "compilation", the schema "compilation_time"). Occupancy and
// registers come from blocktune's measurements of those names. Throws
// std::runtime_error naming the file.
Recording read_t4_recording(const std::filesystem::path& path);

// ---- Search sequences (searches made by other tools, to score) ----
//
// JSON, gzip-compressed when the name ends in ".gz":
//
//   {"runs": [{"name": "genetic_algorithm seed 1",
//              "configs": [{"block_size_x": 128, "tile_size": 4}, "block_size_x=64,tile_size=2", ...]},
//             ...]}
//
// Each run lists the configurations a search measured, in order. A
// configuration is an object of parameter values (every parameter of the
// space, no other; values as a Kernel Tuner cache holds them) or its
// canonical text (Config::to_string(), parameters in any order). Other keys
// of the file and of a run are ignored; a run without "name" is called
// "run N".

struct SearchSequence {
  std::string name;
  std::vector<std::uint64_t> candidates;  // indices into the space's configurations, in measurement order
};

// Throws std::runtime_error naming the run and the position (from 1) of a
// configuration that is not in the space or is malformed.
std::vector<SearchSequence> parse_search_sequences(std::string_view json, const RecordedSpace& space);
// The same, reading the file; errors also name it.
std::vector<SearchSequence> read_search_sequences(const std::filesystem::path& path, const RecordedSpace& space);

}  // namespace blocktune
