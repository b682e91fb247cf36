// Measuring configurations on a GPU: buffers set up once per problem, every
// configuration checked against the reference on the GPU, then timed.
#include "measurement_session.hpp"

#include <blocktune/store.hpp>
#include <blocktune/tuner.hpp>
#include <blocktune/version.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

namespace blocktune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::int64_t unix_time() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Sums of squared differences and of squared reference values, and a count of
// non-finite outputs, in double precision on the GPU.
constexpr const char* kCompareSource = R"(
template <typename T>
__global__ void compare(const T* out, const T* ref, unsigned long long n, double* sums, unsigned long long* nonfinite) {
  double d2 = 0, r2 = 0;
  unsigned long long bad = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const double o = (double)out[i], r = (double)ref[i];
    if (!isfinite(o)) { ++bad; continue; }
    d2 += (o - r) * (o - r);
    r2 += r * r;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    d2 += __shfl_down_sync(0xffffffffu, d2, offset);
    r2 += __shfl_down_sync(0xffffffffu, r2, offset);
    bad += __shfl_down_sync(0xffffffffu, bad, offset);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&sums[0], d2);
    atomicAdd(&sums[1], r2);
    if (bad) atomicAdd(nonfinite, bad);
  }
}
)";

std::string_view cuda_type(ElementType type) {
  switch (type) {
    case ElementType::f32: return "float";
    case ElementType::f64: return "double";
    case ElementType::i32: return "int";
    case ElementType::i64: return "long long";
    case ElementType::u32: return "unsigned int";
    case ElementType::u64: return "unsigned long long";
  }
  return "float";
}

bool is_sticky(CUresult code) {
  return code == CUDA_ERROR_ILLEGAL_ADDRESS || code == CUDA_ERROR_MISALIGNED_ADDRESS || code == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
         code == CUDA_ERROR_HARDWARE_STACK_ERROR || code == CUDA_ERROR_INVALID_PC || code == CUDA_ERROR_LAUNCH_FAILED ||
         code == CUDA_ERROR_ASSERT || code == CUDA_ERROR_LAUNCH_TIMEOUT || code == CUDA_ERROR_INVALID_ADDRESS_SPACE;
}

}  // namespace

TrialRecord static_trial(const PlanEntry& entry) {
  TrialRecord t;
  t.config = entry.config.to_string();
  const auto& shape = entry.resolved.shape;
  t.shape.block = {static_cast<int>(shape.block[0]), static_cast<int>(shape.block[1]), static_cast<int>(shape.block[2])};
  t.shape.carveout = shape.carveout;
  t.outcome = entry.static_outcome();
  const bool compile_failed = t.outcome == Outcome::compile_error || t.outcome == Outcome::compile_timeout;
  t.message = compile_failed ? entry.variant.log : entry.reason();
  t.registers = entry.variant.usage.registers;
  t.static_smem = entry.variant.usage.static_smem;
  t.dynamic_smem = static_cast<int>(shape.dynamic_smem);
  t.local_bytes = entry.variant.usage.stack_bytes;
  t.spill_stores = entry.variant.usage.spill_stores;
  t.spill_loads = entry.variant.usage.spill_loads;
  t.blocks_per_sm = entry.occupancy.blocks_per_sm;
  t.occupancy = entry.occupancy.fraction;
  t.limiting_factor = entry.occupancy.limiting_factor();
  t.compile_s = entry.variant.compile_seconds;
  t.steps_per_launch = entry.resolved.steps_per_launch;
  t.timestamp = unix_time();
  t.blocktune_version = kVersion;
  return t;
}

// Reads a whole binary file that must hold exactly `bytes` bytes.
std::vector<std::byte> read_exact(const std::string& path, std::size_t bytes, std::string_view what) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot open '{}'", what, path));
  const auto size = static_cast<std::size_t>(in.tellg());
  if (size != bytes) throw std::invalid_argument(fmt::format("{}: '{}' holds {} bytes, expected {}", what, path, size, bytes));
  std::vector<std::byte> data(bytes);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes));
  return data;
}

// One kernel's buffers on one GPU for one problem: every configuration is
// checked against the expected outputs, then timed.
class MeasurementSession::Impl {
 public:
  Impl(const KernelDescription& kernel, int ordinal, const ProblemSize& problem, const VariantCompiler& compiler,
                     const PlanEntry* default_entry)
      : kernel_(kernel), problem_(problem), compiler_(compiler), default_entry_(default_entry), context_(ordinal) {
    // Buffers start at the default configuration's sizes; those sized by
    // parameters are fitted to each configuration before it runs.
    const Config default_config = Config::parse(kernel.default_config);
    const Lookup lookup = default_config.lookup(environment(kernel, device(), problem));
    std::size_t bytes = 0;
    for (const Argument& argument : kernel.arguments)
      if (const auto* spec = std::get_if<BufferArgument>(&argument)) {
        slots_.push_back(make_slot(*spec, buffer_count(*spec, lookup)));
        bytes += slots_.back().initial.bytes.size();
      }
    std::size_t free = 0, total = 0;
    check(Driver::get().cuMemGetInfo(&free, &total), "cuMemGetInfo");
    if (bytes * 3 > free)
      throw std::invalid_argument(fmt::format("problem {} needs {:.1f} GiB of GPU memory with its reference; {} has {:.1f} GiB free",
                                              problem.to_string(), 3.0 * static_cast<double>(bytes) / (1 << 30), device().name,
                                              static_cast<double>(free) / (1 << 30)));
    for (Slot& slot : slots_) upload(slot);
    compare_ = compile_compare();
    sums_ = DeviceBuffer(3 * sizeof(double));
  }

  const DeviceInfo& device() const { return context_.device(); }
  const GpuContext& context() const { return context_; }

  TrialRecord measure(const PlanEntry& entry, const TimingOptions& timing) {
    TrialRecord trial = static_trial(entry);
    trial.l2_flushed = timing.flush_l2;
    try {
      auto start = Clock::now();
      fit_buffers(entry.config);
      const auto& expected = expected_for(entry.config);
      Kernel& k = load(entry.variant, entry.resolved.request.identity());
      run_once(k, entry.resolved.shape, entry.config);
      const std::string mismatch = verify(expected);
      trial.verify_s = seconds_since(start);
      if (!mismatch.empty()) {
        trial.outcome = Outcome::wrong_result;
        trial.message = mismatch;
        return trial;
      }
      start = Clock::now();
      std::vector<void*> arguments = argument_pointers(entry.config);
      const Timing t = time_kernel(context_, k, entry.resolved.shape, arguments.data(), timing);
      trial.benchmark_s = seconds_since(start);
      trial.samples_ms = t.samples_ms;
      trial.median_ms = t.median_ms;
      trial.min_ms = t.min_ms;
      trial.mean_ms = t.mean_ms;
      trial.spread = t.spread;
      trial.sm_clock_mhz = t.sm_clock_mhz;
      const Lookup lookup = entry.config.lookup(environment(kernel_, device(), problem_));
      if (!kernel_.bytes_moved.empty()) {
        trial.metric = static_cast<double>(Expression::parse(kernel_.bytes_moved).evaluate_int(lookup)) / (t.median_ms * 1e-3) / 1e9;
        trial.metric_unit = "GB/s";
      } else if (!kernel_.flops.empty()) {
        trial.metric = static_cast<double>(Expression::parse(kernel_.flops).evaluate_int(lookup)) / (t.median_ms * 1e-3) / 1e9;
        trial.metric_unit = "GFLOP/s";
      }
    } catch (const CudaError& error) {
      trial.outcome = error.code == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || error.code == CUDA_ERROR_INVALID_VALUE ? Outcome::launch_error
                                                                                                              : Outcome::runtime_fault;
      trial.message = error.what();
      // The list of sticky errors grows with each driver (an out-of-bounds
      // write may be CUDA_ERROR_INVALID_ADDRESS_SPACE): a context that no
      // longer synchronises is lost, whatever the error was.
      if (is_sticky(error.code) || Driver::get().cuCtxSynchronize() != CUDA_SUCCESS) lost_ = trial.message;
    }
    return trial;
  }

  // Set after a fault that leaves the context unusable.
  const std::string& lost() const { return lost_; }

 private:
  struct Slot {
    BufferArgument spec;
    HostBuffer initial;
    DeviceBuffer device;
    DeviceBuffer initial_copy;  // outputs only
    bool sized_by_parameters = false;
  };

  std::int64_t buffer_count(const BufferArgument& spec, const Lookup& lookup) const {
    const std::int64_t count = Expression::parse(spec.count).evaluate_int(lookup);
    if (count < 1) throw std::invalid_argument(fmt::format("kernel {}: buffer {} has {} elements", kernel_.name, spec.name, count));
    return count;
  }

  // A buffer's host contents; its device copies come from upload().
  Slot make_slot(const BufferArgument& spec, std::int64_t count) const {
    Slot slot{spec, initial_buffer(spec, count), {}, {}, false};
    if (spec.init == BufferArgument::Init::file)
      slot.initial.bytes = read_exact(spec.file, slot.initial.bytes.size(), fmt::format("kernel {}, buffer {}", kernel_.name, spec.name));
    slot.sized_by_parameters = sized_by_parameters(kernel_, spec);
    return slot;
  }

  static void upload(Slot& slot) {
    if (slot.spec.constant) return;  // filled into each module as it loads
    slot.device = DeviceBuffer(slot.initial.bytes.size());
    slot.device.upload(slot.initial.bytes.data(), slot.initial.bytes.size());
    // A device copy of each output's initial contents restores it between runs.
    if (slot.spec.output) {
      slot.initial_copy = DeviceBuffer(slot.initial.bytes.size());
      slot.initial_copy.upload(slot.initial.bytes.data(), slot.initial.bytes.size());
    }
  }

  // Resizes the buffers whose counts name parameters to `config`'s values,
  // keeping the sizes set aside (a search goes back and forth between a few).
  // Loaded modules keep constants of the old size: they are filled again.
  void fit_buffers(const Config& config) {
    const Lookup lookup = config.lookup(environment(kernel_, device(), problem_));
    bool constants_changed = false;
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      Slot& slot = slots_[s];
      if (!slot.sized_by_parameters) continue;
      const std::int64_t count = buffer_count(slot.spec, lookup);
      if (static_cast<std::size_t>(count) == slot.initial.count()) continue;
      const auto kept = set_aside_.find({s, count});
      Slot fitted = kept != set_aside_.end() ? std::move(kept->second) : make_slot(slot.spec, count);
      if (kept != set_aside_.end()) set_aside_.erase(kept);
      else upload(fitted);
      if (set_aside_.size() >= kMaxSetAside) set_aside_.erase(set_aside_.begin());
      set_aside_.emplace(std::pair{s, static_cast<std::int64_t>(slot.initial.count())}, std::move(slot));
      slot = std::move(fitted);
      constants_changed = constants_changed || slot.spec.constant;
    }
    if (constants_changed) modules_.clear();
  }
  using Expected = std::vector<DeviceBuffer>;  // per slot; empty for inputs

  // The expected outputs for a configuration, computed once per reference key
  // and buffer sizes.
  const Expected& expected_for(const Config& config) {
    std::string key = kernel_.reference_key.empty()
                          ? std::string()
                          : to_string(Expression::parse(kernel_.reference_key).evaluate(config.lookup(environment(kernel_, device(), problem_))));
    for (const Slot& slot : slots_)
      if (slot.sized_by_parameters) key += fmt::format(" {}={}", slot.spec.name, slot.initial.count());
    auto it = expected_.find(key);
    if (it == expected_.end()) it = expected_.emplace(key, compute_expected(config)).first;
    return it->second;
  }

  Expected compute_expected(const Config& config) {
    Expected expected(slots_.size());
    if (kernel_.reference) {
      std::vector<HostBuffer> host;
      for (const Slot& slot : slots_) host.push_back(slot.initial);
      kernel_.reference(problem_, config, host);
      for (std::size_t b = 0; b < slots_.size(); ++b) {
        if (!slots_[b].spec.output) continue;
        expected[b] = DeviceBuffer(host[b].bytes.size());
        expected[b].upload(host[b].bytes.data(), host[b].bytes.size());
      }
      return expected;
    }
    if (!kernel_.reference_files.empty()) {
      for (std::size_t b = 0; b < slots_.size(); ++b) {
        if (!slots_[b].spec.output) continue;
        const auto file = std::ranges::find(kernel_.reference_files, slots_[b].spec.name, &std::pair<std::string, std::string>::first);
        if (file == kernel_.reference_files.end())
          throw std::invalid_argument(fmt::format("kernel {}: no reference file for output {}", kernel_.name, slots_[b].spec.name));
        const auto data = read_exact(file->second, slots_[b].initial.bytes.size(),
                                     fmt::format("kernel {}, reference for {}", kernel_.name, slots_[b].spec.name));
        expected[b] = DeviceBuffer(data.size());
        expected[b].upload(data.data(), data.size());
      }
      return expected;
    }
    if (kernel_.reference_kernel) {
      const ReferenceKernel& ref = *kernel_.reference_kernel;
      const Lookup lookup = config.lookup(environment(kernel_, device(), problem_));
      std::vector<std::string> options;
      for (const std::string& option : ref.options) options.push_back(substitute(option, config));
      CompileRequest request{ref.source, ref.source_name, substitute(ref.entry, config), {}, std::move(options), device().arch()};
      const CompiledVariant variant = compiler_.compile(request);
      if (!variant.ok) throw std::invalid_argument(fmt::format("kernel {}: the reference kernel does not compile:\n{}", kernel_.name, variant.log));
      LaunchShape3 shape;
      for (int d = 0; d < 3; ++d) {
        shape.block[d] = static_cast<unsigned>(Expression::parse(ref.block[d]).evaluate_int(lookup));
        shape.grid[d] = static_cast<unsigned>(Expression::parse(ref.grid[d]).evaluate_int(lookup));
      }
      shape.dynamic_smem = static_cast<unsigned>(Expression::parse(ref.dynamic_smem).evaluate_int(lookup));
      run_once(load(variant, request.identity()), shape, config);
    } else {
      if (default_entry_ == nullptr || !default_entry_->launchable())
        throw std::invalid_argument(fmt::format("kernel {} has no reference and its default configuration cannot run", kernel_.name));
      run_once(load(default_entry_->variant, default_entry_->resolved.request.identity()), default_entry_->resolved.shape, default_entry_->config);
    }
    for (std::size_t b = 0; b < slots_.size(); ++b) {
      if (!slots_[b].spec.output) continue;
      expected[b] = DeviceBuffer(slots_[b].device.bytes());
      check(Driver::get().cuMemcpyDtoD(expected[b].get(), slots_[b].device.get(), slots_[b].device.bytes()), "keeping the reference output");
    }
    return expected;
  }

  std::unique_ptr<Kernel> compile_compare() {
    std::optional<ElementType> type;
    for (const Slot& slot : slots_)
      if (slot.spec.output) {
        if (type && *type != slot.spec.type) throw std::invalid_argument(fmt::format("kernel {}: outputs of different element types are not supported", kernel_.name));
        type = slot.spec.type;
      }
    if (!type) throw std::invalid_argument(fmt::format("kernel {} has no output buffer to check", kernel_.name));
    CompileRequest request{kCompareSource, "blocktune_compare.cu", fmt::format("compare<{}>", cuda_type(*type)), {}, {}, device().arch()};
    const CompiledVariant compiled = compiler_.compile(request);
    if (!compiled.ok) throw std::runtime_error("blocktune's own comparison kernel did not compile:\n" + compiled.log);
    return std::make_unique<Kernel>(compiled.cubin, compiled.lowered_name);
  }

  Kernel& load(const CompiledVariant& variant, const std::string& identity) {
    auto& slot = modules_[identity];
    if (!slot) {
      slot = std::make_unique<Kernel>(variant.cubin, variant.lowered_name);
      for (const Slot& buffer : slots_)
        if (buffer.spec.constant) slot->fill_symbol(buffer.spec.name, buffer.initial.bytes.data(), buffer.initial.bytes.size());
    }
    return *slot;
  }

  // Scalars live in `scalars_` so their addresses stay valid for the launch.
  std::vector<void*> argument_pointers(const Config& config) {
    const Lookup lookup = config.lookup(environment(kernel_, device(), problem_));
    scalars_.assign(kernel_.arguments.size(), {});
    pointers_.clear();
    for (const Slot& slot : slots_) pointers_.push_back(slot.device.get());
    std::vector<void*> arguments;
    std::size_t buffer = 0;
    for (std::size_t a = 0; a < kernel_.arguments.size(); ++a) {
      if (const auto* spec = std::get_if<BufferArgument>(&kernel_.arguments[a])) {
        const std::size_t slot = buffer++;
        if (!spec->constant) arguments.push_back(&pointers_[slot]);
        continue;
      }
      auto& storage = scalars_[a];
      storage = scalar_bytes(std::get<ScalarArgument>(kernel_.arguments[a]), lookup);
      arguments.push_back(storage.data());
    }
    return arguments;
  }

  // Restores the outputs' initial contents, launches once and waits.
  void run_once(const Kernel& kernel, const LaunchShape3& shape, const Config& config) {
    for (Slot& slot : slots_)
      if (slot.spec.output) check(Driver::get().cuMemcpyDtoD(slot.device.get(), slot.initial_copy.get(), slot.device.bytes()), "restoring an output");
    kernel.prepare(shape);
    std::vector<void*> arguments = argument_pointers(config);
    kernel.launch(shape, arguments.data());
    context_.synchronize();
  }

  // Empty when every output is within tolerance of the expected values.
  std::string verify(const Expected& expected) {
    for (std::size_t b = 0; b < slots_.size(); ++b) {
      if (!slots_[b].spec.output) continue;
      check(Driver::get().cuMemsetD32(sums_.get(), 0, 6), "clearing the comparison sums");
      unsigned long long n = slots_[b].initial.count();
      CUdeviceptr out = slots_[b].device.get(), ref = expected[b].get(), sums = sums_.get(), bad = sums_.get() + 2 * sizeof(double);
      void* arguments[] = {&out, &ref, &n, &sums, &bad};
      const LaunchShape3 shape{.grid = {static_cast<unsigned>(std::min<unsigned long long>((n + 255) / 256, 4096)), 1, 1}, .block = {256, 1, 1}};
      compare_->launch(shape, arguments);
      double host[3] = {};
      sums_.download(host, sizeof host);
      unsigned long long nonfinite = 0;
      std::memcpy(&nonfinite, &host[2], sizeof nonfinite);
      const double error = host[1] > 0 ? std::sqrt(host[0] / host[1]) : std::sqrt(host[0]);
      if (nonfinite > 0) return fmt::format("output {}: {} of {} values are not finite", slots_[b].spec.name, nonfinite, n);
      if (!(error <= kernel_.tolerance))
        return fmt::format("output {}: relative error {:.3g} exceeds {:.3g}", slots_[b].spec.name, error, kernel_.tolerance);
    }
    return {};
  }

  const KernelDescription& kernel_;
  ProblemSize problem_;
  const VariantCompiler& compiler_;
  const PlanEntry* default_entry_;
  GpuContext context_;
  std::vector<Slot> slots_;
  std::map<std::string, Expected> expected_;
  // Buffers of other sizes, by slot and element count (fit_buffers).
  static constexpr std::size_t kMaxSetAside = 8;
  std::map<std::pair<std::size_t, std::int64_t>, Slot> set_aside_;
  std::vector<CUdeviceptr> pointers_;
  std::vector<std::array<std::byte, 8>> scalars_;
  std::map<std::string, std::unique_ptr<Kernel>> modules_;
  std::unique_ptr<Kernel> compare_;
  DeviceBuffer sums_;
  std::string lost_;
};

MeasurementSession::MeasurementSession(const KernelDescription& kernel, int ordinal, const ProblemSize& problem,
                                       const VariantCompiler& compiler, const PlanEntry* default_entry)
    : impl_(std::make_unique<Impl>(kernel, ordinal, problem, compiler, default_entry)) {}
MeasurementSession::~MeasurementSession() = default;
const GpuContext& MeasurementSession::context() const { return impl_->context(); }
TrialRecord MeasurementSession::measure(const PlanEntry& entry, const TimingOptions& timing) { return impl_->measure(entry, timing); }
const std::string& MeasurementSession::lost() const { return impl_->lost(); }

}  // namespace blocktune
