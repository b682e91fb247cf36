/// @file
/// Run-time query API: which configuration should this application launch?
///
///   auto db = blocktune::TuningDatabase::open(blocktune::default_database_path());
///   const auto& best = db.best("stencil3d", device_key, {{nx, ny, nz}});
///   dim3 block(best.shape.block[0], best.shape.block[1], best.shape.block[2]);
///
/// Links only against SQLite: querying needs neither NVRTC nor a GPU.
#pragma once

#include <blocktune/db_types.hpp>
#include <blocktune/time_steps.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blocktune {

/// What an application knows about its GPU from cudaGetDeviceProperties.
struct DeviceKey {
  std::string uuid;  ///< "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", see format_gpu_uuid
  std::string name;  ///< e.g. "NVIDIA H100 80GB HBM3"
  int cc_major = 0;  ///< compute capability, major: 9 for sm_90
  int cc_minor = 0;  ///< compute capability, minor: 0 for sm_90
  int sm_count = 0;  ///< multiprocessors (cudaDeviceProp::multiProcessorCount)

  friend bool operator==(const DeviceKey&, const DeviceKey&) = default;
};

/// How an answer was found, from the most to the least specific.
enum class MatchKind {
  exact,                   ///< this device, this problem size
  nearest_problem,         ///< this device, the nearest tuned size (log space)
  same_device_name,        ///< another device with the same name
  same_arch_and_sm_count,  ///< same compute capability and SM count
  same_arch,               ///< same compute capability
  arch_default,            ///< the occupancy-chosen default for the architecture
  kernel_default,          ///< the kernel's own default configuration
  none,                    ///< nothing stored for this kernel fits this device
};

/// The match for people: "exact match", "nearest tuned problem size", ...
std::string_view describe(MatchKind);

/// TuningDatabase::best's answer: the configuration to launch, how it was
/// found, and how to run the problem's time steps with it.
struct BestConfig {
  MatchKind match = MatchKind::none;  ///< how it was found; none: nothing to launch
  LaunchShape shape;                  ///< the configuration's block and carveout
  std::vector<std::pair<std::string, std::string>> parameters;  ///< parsed from config, in order
  std::string config;               ///< canonical "name=value,name=value"
  double median_ms = 0;             ///< measured where it was tuned; 0 for defaults
  std::string tuned_device;         ///< name of the device it was tuned on; empty for defaults
  std::string tuned_device_uuid;    ///< that device's uuid; empty for defaults
  ProblemSize tuned_problem;        ///< empty for defaults; its time_steps: the step count the winner was tuned for

  // Running problem.time_steps steps: `launches` launches of `config`, then
  // the launches of `remainder` in order (each from the same tuning session),
  // each launch's output the next one's input. Defaults advance one step per
  // launch.
  std::int64_t time_steps = 1;        ///< the time steps asked for
  std::int64_t steps_per_launch = 1;  ///< time steps one launch of `config` advances
  std::int64_t launches = 1;          ///< launches of `config` for the time steps
  std::vector<StepLaunch> remainder;  ///< launches after those, in order, for the steps left
  double total_ms = 0;                ///< the sum of all those launches' measured times; 0 for defaults

  /// False when the database has nothing to launch (match none).
  bool found() const { return match != MatchKind::none; }
  /// The value of parameter `name` as text; nullopt when the configuration has no such parameter.
  std::optional<std::string_view> get(std::string_view name) const;
  /// The value of parameter `name` as an int; `fallback` if absent or not an int. Never throws.
  int get_int(std::string_view name, int fallback) const;
};

/// A read-only snapshot of a tuning database, loaded at open: reopen to see
/// results committed later. Thread-safe; cheap to copy and move (shared state).
class TuningDatabase {
 public:
  /// Throws StoreError naming the file for a missing file, a file that is not
  /// SQLite, a truncated or corrupt database, or a newer schema version.
  static TuningDatabase open(const std::filesystem::path& file);
  /// A database with nothing in it: every query answers match none (an
  /// application then launches its own default). Never throws.
  static TuningDatabase empty();

  /// Never throws for a well-formed query; an unknown kernel gives match none.
  /// Of a tuning session, the winner for problem.time_steps is used when it
  /// was tuned for that many steps; otherwise the fastest plan composed from
  /// the launches the session measured (best_step_plan in time_steps.hpp:
  /// tuning for T steps measures every fusion depth up to T), credited to the
  /// smallest tuned step count that covers the steps asked, else the largest;
  /// the answer's tuned_problem.time_steps says which. match is exact only for
  /// the same dims and step count.
  /// A problem with another number of dimensions than the tuned ones matches
  /// no tuned problem and gets the kernel's defaults (arch_default or
  /// kernel_default), so that an application always has something to launch;
  /// problem_ranks() tells such a query apart (`blocktune best` refuses it).
  /// The first answer for a query is computed, later ones come from memory.
  /// The reference stays valid while this database (or a copy) lives; on a
  /// temporary database the answer is returned by value instead.
  const BestConfig& best(std::string_view kernel, const DeviceKey& device,
                         const ProblemSize& problem) const&;
  /// The same on a temporary database, returning the answer by value.
  BestConfig best(std::string_view kernel, const DeviceKey& device, const ProblemSize& problem) &&;

  /// The numbers of dimensions of the problems stored for `kernel` (tuned
  /// or being tuned), ascending: {3} for a 3-D stencil; empty for a kernel
  /// the database does not know.
  std::vector<std::size_t> problem_ranks(std::string_view kernel) const;

  /// The file it was read from; empty for empty().
  const std::filesystem::path& path() const;

 private:
  struct State;
  explicit TuningDatabase(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

/// $BLOCKTUNE_DB, else $XDG_DATA_HOME/blocktune/tuning.db, else
/// ~/.local/share/blocktune/tuning.db.
std::filesystem::path default_database_path();

/// Lines for people (no final newline): the configuration, its launch shape,
/// how it was found.
std::string format_best(const BestConfig&);

/// The 16 bytes of cudaDeviceProp::uuid in the form nvidia-smi prints:
/// "GPU-8f3c1a2b-0d4e-5f60-7182-93a4b5c6d7e8". The tuner stores devices so.
std::string format_gpu_uuid(const char (&bytes)[16]);

}  // namespace blocktune
