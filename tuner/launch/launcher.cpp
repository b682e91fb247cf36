#include <blocktune/launcher.hpp>
#include <blocktune/spec.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <variant>

namespace blocktune {
namespace {

// The stored configuration in the description's parameter order, or why it
// does not fit the description any more.
std::variant<Config, std::string> fit(const KernelDescription& kernel, std::string_view text, const DeviceInfo& device,
                                      const ProblemSize& problem) {
  Config stored;
  try {
    stored = Config::parse(text);
  } catch (const std::invalid_argument& error) {
    return std::string(error.what());
  }
  std::vector<std::pair<std::string, Value>> entries;
  for (const Parameter& parameter : kernel.space.parameters()) {
    const Value* value = stored.find(parameter.name);
    if (!value) return fmt::format("it has no value for the parameter {}", parameter.name);
    if (std::ranges::find(parameter.values, *value) == parameter.values.end())
      return fmt::format("{}={} is no longer one of the parameter's values", parameter.name, to_string(*value));
    entries.emplace_back(parameter.name, *value);
  }
  if (entries.size() != stored.entries().size()) return "it names parameters the kernel no longer has";
  Config config(std::move(entries));
  try {
    if (auto violation = kernel.space.check(config, environment(kernel, device, problem)))
      return fmt::format("it violates {}", violation->constraint);
  } catch (const ExpressionError& error) {
    return std::string(error.what());
  }
  return config;
}

}  // namespace

DeviceKey device_key(const DeviceInfo& device) {
  return {stored_uuid(device), device.name, device.cc_major, device.cc_minor, device.sm_count};
}

Selection select_configuration(const KernelDescription& kernel, const TuningDatabase& database, const DeviceInfo& device,
                               const ProblemSize& problem) {
  check_problem(kernel, problem);
  Selection selection;
  const BestConfig& best = database.best(kernel.name, device_key(device), problem);
  selection.match = best.match;
  const auto resolved = [&](const std::string& text) -> std::variant<ResolvedLaunch, std::string> {
    auto stored = fit(kernel, text, device, problem);
    if (auto* why = std::get_if<std::string>(&stored)) return fmt::format("the database's configuration {} is not used: {}", text, *why);
    Config config = std::move(std::get<Config>(stored));
    ResolvedConfig r = resolve(kernel, config, device, problem);
    return ResolvedLaunch{std::move(config), std::move(r)};
  };
  if (best.found()) {
    // The database's plan, every launch of it still fitting the description
    // and adding up to the steps asked.
    std::vector<ResolvedLaunch> launches;
    auto main = resolved(best.config);
    if (auto* why = std::get_if<std::string>(&main)) selection.note = *why;
    for (std::size_t i = 0; selection.note.empty() && i < best.remainder.size(); ++i) {
      auto part = resolved(best.remainder[i].config);
      if (auto* why = std::get_if<std::string>(&part))
        selection.note = *why;
      else
        launches.push_back(std::move(std::get<ResolvedLaunch>(part)));
    }
    if (selection.note.empty()) {
      auto& chosen = std::get<ResolvedLaunch>(main);
      const std::int64_t per_launch = chosen.resolved.steps_per_launch;
      std::int64_t steps = problem.time_steps / per_launch * per_launch;
      for (const ResolvedLaunch& launch : launches) steps += launch.resolved.steps_per_launch;
      if (steps != problem.time_steps) {
        selection.note = fmt::format("the database's plan for {} time steps no longer adds up to them with this description", problem.time_steps);
      } else {
        selection.config = std::move(chosen.config);
        selection.resolved = std::move(chosen.resolved);
        selection.launches = problem.time_steps / per_launch;
        selection.remainder = std::move(launches);
      }
    }
    if (!selection.note.empty()) selection.note += "; launching the default";
  }
  if (!selection.tuned()) {
    selection.config = Config::parse(kernel.default_config);
    selection.resolved = resolve(kernel, selection.config, device, problem);
    const std::int64_t per_launch = selection.resolved.steps_per_launch;
    if (problem.time_steps % per_launch != 0)
      throw std::invalid_argument(fmt::format("kernel {}: its default configuration advances {} time steps per launch, and {} is not a "
                                              "multiple of that; tune it for this problem",
                                              kernel.name, per_launch, problem.time_steps));
    selection.launches = problem.time_steps / per_launch;
  }
  return selection;
}

TunedKernel::TunedKernel(KernelDescription kernel, TuningDatabase database, int ordinal, VariantCompiler compiler)
    : kernel_(std::move(kernel)), database_(std::move(database)), compiler_(std::move(compiler)), context_(ordinal) {}

TunedKernel::TunedKernel(const std::filesystem::path& spec, TuningDatabase database, int ordinal, VariantCompiler compiler)
    : TunedKernel(load_spec(spec), std::move(database), ordinal, std::move(compiler)) {}

const Selection& TunedKernel::select(const ProblemSize& problem) {
  const std::scoped_lock lock(mutex_);
  return prepare(problem).selection;
}

TunedKernel::Prepared& TunedKernel::prepare(const ProblemSize& problem) {
  auto [it, added] = prepared_.try_emplace({problem.dims, problem.time_steps});
  Prepared& prepared = it->second;
  if (!added) return prepared;
  try {
    prepared.selection = select_configuration(kernel_, database_, device(), problem);
    const Selection& selection = prepared.selection;
    prepared.loaded = &load({selection.config, selection.resolved});
    for (const ResolvedLaunch& launch : selection.remainder) prepared.remainder.push_back(&load(launch));
  } catch (...) {
    prepared_.erase(it);  // a later call tries again
    std::erase_if(kernels_, [](const auto& entry) { return entry.second.kernel == nullptr; });
    throw;
  }
  return prepared;
}

TunedKernel::Loaded& TunedKernel::load(const ResolvedLaunch& launch) {
  Loaded& loaded = kernels_[launch.config.to_string()];
  if (!loaded.kernel) {
    const CompiledVariant variant = compiler_.compile(launch.resolved.request);
    if (!variant.ok)
      throw std::runtime_error(fmt::format("kernel {}, configuration {} does not compile:\n{}", kernel_.name, launch.config.to_string(), variant.log));
    loaded.kernel = std::make_unique<Kernel>(variant.cubin, variant.lowered_name);
    for (const auto& [name, bytes] : constants_) loaded.kernel->fill_symbol(name, bytes.data(), bytes.size());
  }
  return loaded;
}

void TunedKernel::set_constant(const std::string& name, const void* data, std::size_t bytes) {
  const bool declared = std::ranges::any_of(kernel_.arguments, [&](const Argument& argument) {
    const auto* buffer = std::get_if<BufferArgument>(&argument);
    return buffer && buffer->constant && buffer->name == name;
  });
  if (!declared) throw std::invalid_argument(fmt::format("kernel {} has no constant argument '{}'", kernel_.name, name));
  const std::scoped_lock lock(mutex_);
  const auto* first = static_cast<const std::byte*>(data);
  constants_[name].assign(first, first + bytes);
  for (auto& [config, loaded] : kernels_) loaded.kernel->fill_symbol(name, data, bytes);
}

void TunedKernel::check_argument_count(const std::vector<void*>& arguments) const {
  if (arguments.size() == kernel_parameter_count(kernel_)) return;
  std::vector<std::string> names;
  for (const Argument& argument : kernel_.arguments)
    if (const auto* buffer = std::get_if<BufferArgument>(&argument); !buffer || !buffer->constant)
      names.push_back(std::visit([](const auto& a) { return a.name; }, argument));
  throw std::invalid_argument(fmt::format("kernel {} takes {} arguments ({}), got {}", kernel_.name, names.size(), fmt::join(names, ", "),
                                          arguments.size()));
}

void TunedKernel::launch_loaded(Loaded& loaded, const LaunchShape3& shape, void** arguments, CUstream stream) {
  // The carveout and shared-memory limit are attributes of the function,
  // which problems sharing a configuration may set differently.
  if (!loaded.prepared_for || loaded.prepared_for->carveout != shape.carveout || loaded.prepared_for->dynamic_smem != shape.dynamic_smem) {
    loaded.kernel->prepare(shape);
    loaded.prepared_for = shape;
  }
  loaded.kernel->launch(shape, arguments, stream);
}

void TunedKernel::launch(const ProblemSize& problem, std::vector<void*> arguments, CUstream stream) {
  check_argument_count(arguments);
  const std::scoped_lock lock(mutex_);
  Prepared& prepared = prepare(problem);
  launch_loaded(*prepared.loaded, prepared.selection.resolved.shape, arguments.data(), stream);
}

std::int64_t TunedKernel::run_steps(const ProblemSize& problem, std::vector<void*> arguments, CUstream stream) {
  check_argument_count(arguments);
  if (kernel_.step_input.empty())
    throw std::invalid_argument(fmt::format("kernel {} is not iterated: its description names no time-step input and output buffers", kernel_.name));
  // The step buffers' positions among the kernel's parameters (constant buffers are not parameters).
  std::size_t input = 0, output = 0;
  for (std::size_t position = 0; const Argument& argument : kernel_.arguments) {
    const auto* buffer = std::get_if<BufferArgument>(&argument);
    if (buffer && buffer->constant) continue;
    if (buffer && buffer->name == kernel_.step_input) input = position;
    if (buffer && buffer->name == kernel_.step_output) output = position;
    ++position;
  }
  const std::scoped_lock lock(mutex_);
  Prepared& prepared = prepare(problem);
  std::vector<void*> current = arguments;
  std::int64_t launches = 0;
  const auto step = [&](Loaded& loaded, const LaunchShape3& shape) {
    launch_loaded(loaded, shape, current.data(), stream);  // the driver copies the argument values now
    std::swap(current[input], current[output]);
    ++launches;
  };
  for (std::int64_t i = 0; i < prepared.selection.launches; ++i) step(*prepared.loaded, prepared.selection.resolved.shape);
  for (std::size_t i = 0; i < prepared.remainder.size(); ++i) step(*prepared.remainder[i], prepared.selection.remainder[i].resolved.shape);
  if (launches % 2 == 0) std::swap(*static_cast<CUdeviceptr*>(arguments[input]), *static_cast<CUdeviceptr*>(arguments[output]));
  return launches;
}

std::size_t TunedKernel::loaded_variants() const {
  const std::scoped_lock lock(mutex_);
  return kernels_.size();
}

}  // namespace blocktune
