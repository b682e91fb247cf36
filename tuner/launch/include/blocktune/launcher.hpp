/// @file
/// @brief Launching a tuned kernel from an application: the configuration comes from
/// the tuning database (or the kernel's default when it has none), is compiled
/// once with NVRTC (and cached on disk), and launched with the geometry the
/// description computes for the problem.
///
/// The compile runs in the calling process, by design (no worker program to
/// ship beside the application): NVRTC 13 crashes the process (SIGSEGV) on
/// some sources (fuzz/nvrtc-crashes/), where `blocktune plan` and `tune`,
/// compiling in worker processes, only fail the configuration. Check a spec's
/// sources with `blocktune plan --spec` before shipping them.
///
/// @code
///   blocktune::TunedKernel matmul("matmul/spec.json", blocktune::TuningDatabase::open(db_path), 0);
///   matmul.launch(blocktune::ProblemSize{{m, n, k}}, {&a, &b, &c, &m, &n, &k}, stream);
/// @endcode
///
/// Installed as `blocktune::launch` (find_package(blocktune COMPONENTS launch));
/// examples/launch is a complete application.
#pragma once

#include <blocktune/detail/compiler.hpp>
#include <blocktune/detail/gpu.hpp>
#include <blocktune/detail/kernel.hpp>
#include <blocktune/detail/resolve.hpp>
#include <blocktune/errors.hpp>
#include <blocktune/runtime.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace blocktune {

/// A configuration with its compile request and launch geometry.
struct ResolvedLaunch {
  Config config;            ///< the parameters' values
  ResolvedConfig resolved;  ///< compile request and launch geometry for the problem
};

/// What to launch for one problem size, and why.
struct Selection {
  Config config;  ///< the configuration launched: the database's, or the description's default
  /// How the database found it; none when it had nothing for this kernel and
  /// device, and `config` is the description's default.
  MatchKind match = MatchKind::none;
  std::string note;          ///< why a stored configuration was not used; empty if it was
  ResolvedConfig resolved;   ///< compile request and launch geometry
  /// Running problem.time_steps steps: `launches` launches of config, then one
  /// launch of each of `remainder` (the database's plan, runtime.hpp).
  std::int64_t launches = 1;
  std::vector<ResolvedLaunch> remainder;  ///< launched once each after `launches` launches of `config`, in order

  /// True when the configuration came from the database (a match, and no note).
  bool tuned() const { return match != MatchKind::none && note.empty(); }
};

/// The database's key for a device, as the tuner stores it.
DeviceKey device_key(const DeviceInfo& device);

/// Asks `database` for the kernel's best configuration on `device` for
/// `problem` (and its time steps) and resolves it; falls back to the default
/// configuration when the database has none, or one that no longer fits the
/// description (changed parameters or constraints), saying so in `note`.
/// Needs no GPU. Throws std::invalid_argument for a problem with the wrong
/// number of dimensions, or time steps the default cannot run when it is
/// the fallback (a default that advances k steps runs multiples of k only).
Selection select_configuration(const KernelDescription& kernel, const TuningDatabase& database, const DeviceInfo& device,
                               const ProblemSize& problem);

/// A kernel launched with its tuned configuration on one GPU. Construction
/// makes the device's primary context current on the calling thread (the
/// context the CUDA runtime uses too); launch from a thread where it is
/// current. select() and launch() are thread-safe.
class TunedKernel {
 public:
  /// The kernel `kernel` on GPU `ordinal`, its configurations chosen by
  /// `database` and compiled by `compiler` (NVRTC, with blocktune's on-disk
  /// cache by default). Makes the device's primary context current. Throws
  /// GpuUnavailable where there is no driver or GPU, std::out_of_range for an
  /// ordinal with no device, CudaError when the driver fails.
  TunedKernel(KernelDescription kernel, TuningDatabase database, int ordinal, VariantCompiler compiler = VariantCompiler());
  /// The same with the description read from a spec file (load_spec); throws
  /// SpecError (a std::runtime_error naming the file and field) for a spec
  /// that cannot be read or is invalid, then what the other constructor throws.
  TunedKernel(const std::filesystem::path& spec, TuningDatabase database, int ordinal, VariantCompiler compiler = VariantCompiler());
  TunedKernel(const TunedKernel&) = delete;
  TunedKernel& operator=(const TunedKernel&) = delete;

  /// The configuration for `problem`, chosen on first use and then kept.
  const Selection& select(const ProblemSize& problem);

  /// Launches on `stream` with `arguments` as for cuLaunchKernel: one pointer
  /// per kernel parameter, in the description's argument order (constant
  /// arguments are not kernel parameters: see set_constant). The first
  /// launch of a configuration compiles and loads it; throws std::runtime_error
  /// with the compiler's log if it does not compile, std::invalid_argument for
  /// a wrong argument count, CudaError for a failed launch.
  void launch(const ProblemSize& problem, std::vector<void*> arguments, CUstream stream = nullptr);
  /// Runs problem.time_steps steps of an iterative kernel (the description's
  /// steps_per_launch, step_input and step_output): the selection's launches,
  /// each reading the buffer the one before wrote. `arguments` as for
  /// launch(), the step input and output buffers as pointers to the caller's
  /// CUdeviceptr variables: on return the output's variable holds the buffer
  /// with the last step, the input's the other one (their values are swapped
  /// when the number of launches is even). Returns the number of launches.
  /// Throws std::invalid_argument for a kernel without time steps, and what
  /// launch() throws.
  std::int64_t run_steps(const ProblemSize& problem, std::vector<void*> arguments, CUstream stream = nullptr);
  /// Fills the constant argument `name` (a __constant__ variable of the kernel,
  /// not passed in `arguments`) in every variant loaded now or later. Throws
  /// std::invalid_argument when the description has no such constant argument
  /// or the variable is smaller than `bytes`.
  void set_constant(const std::string& name, const void* data, std::size_t bytes);

  /// The kernel's description (parameters, arguments, launch geometry).
  const KernelDescription& description() const { return kernel_; }
  /// The GPU it launches on, as the driver describes it.
  const DeviceInfo& device() const { return context_.device(); }
  /// Configurations compiled and loaded so far.
  std::size_t loaded_variants() const;

 private:
  struct Loaded {
    std::unique_ptr<Kernel> kernel;
    std::optional<LaunchShape3> prepared_for;  ///< the shape whose carveout and shared-memory limit are set
  };
  struct Prepared {
    Selection selection;
    Loaded* loaded = nullptr;
    std::vector<Loaded*> remainder;  ///< selection.remainder's, in order
  };
  /// The selection and its loaded kernels for `problem`; call with mutex_ held.
  Prepared& prepare(const ProblemSize& problem);
  /// The configuration's kernel, compiled and loaded on first use; call with mutex_ held.
  Loaded& load(const ResolvedLaunch& launch);
  void check_argument_count(const std::vector<void*>& arguments) const;
  /// Sets the function's carveout and shared-memory limit for `shape` if they differ, then launches.
  static void launch_loaded(Loaded& loaded, const LaunchShape3& shape, void** arguments, CUstream stream);

  KernelDescription kernel_;
  TuningDatabase database_;
  VariantCompiler compiler_;
  GpuContext context_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::vector<std::int64_t>, std::int64_t>, Prepared> prepared_;  ///< by problem dims and time steps
  std::map<std::string, Loaded> kernels_;                   ///< by configuration text
  std::map<std::string, std::vector<std::byte>> constants_; ///< set_constant's contents, by name
};

}  // namespace blocktune
