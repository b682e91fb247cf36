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
  return {to_record(device).uuid, device.name, device.cc_major, device.cc_minor, device.sm_count};
}

Selection select_configuration(const KernelDescription& kernel, const TuningDatabase& database, const DeviceInfo& device,
                               const ProblemSize& problem) {
  check_problem(kernel, problem);
  Selection selection;
  const BestConfig& best = database.best(kernel.name, device_key(device), problem);
  selection.match = best.match;
  if (best.found()) {
    auto stored = fit(kernel, best.config, device, problem);
    if (auto* config = std::get_if<Config>(&stored))
      selection.config = std::move(*config);
    else
      selection.note = fmt::format("the database's configuration {} is not used: {}; launching the default", best.config,
                                   std::get<std::string>(stored));
  }
  if (!selection.tuned()) selection.config = Config::parse(kernel.default_config);
  selection.resolved = resolve(kernel, selection.config, device, problem);
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
  auto [it, added] = prepared_.try_emplace(problem.dims);
  Prepared& prepared = it->second;
  if (!added) return prepared;
  try {
    prepared.selection = select_configuration(kernel_, database_, device(), problem);
    Loaded& loaded = kernels_[prepared.selection.config.to_string()];
    if (!loaded.kernel) {
      const CompiledVariant variant = compiler_.compile(prepared.selection.resolved.request);
      if (!variant.ok)
        throw std::runtime_error(fmt::format("kernel {}, configuration {} does not compile:\n{}", kernel_.name,
                                             prepared.selection.config.to_string(), variant.log));
      loaded.kernel = std::make_unique<Kernel>(variant.cubin, variant.lowered_name);
      for (const auto& [name, bytes] : constants_) loaded.kernel->fill_symbol(name, bytes.data(), bytes.size());
    }
    prepared.loaded = &loaded;
  } catch (...) {
    prepared_.erase(it);  // a later call tries again
    std::erase_if(kernels_, [](const auto& entry) { return entry.second.kernel == nullptr; });
    throw;
  }
  return prepared;
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

void TunedKernel::launch(const ProblemSize& problem, std::vector<void*> arguments, CUstream stream) {
  if (arguments.size() != kernel_parameter_count(kernel_)) {
    std::vector<std::string> names;
    for (const Argument& argument : kernel_.arguments)
      if (const auto* buffer = std::get_if<BufferArgument>(&argument); !buffer || !buffer->constant)
        names.push_back(std::visit([](const auto& a) { return a.name; }, argument));
    throw std::invalid_argument(fmt::format("kernel {} takes {} arguments ({}), got {}", kernel_.name, names.size(),
                                            fmt::join(names, ", "), arguments.size()));
  }
  // Under the lock: the carveout and shared-memory limit are attributes of
  // the function, which problems sharing a configuration may set differently.
  const std::scoped_lock lock(mutex_);
  Prepared& prepared = prepare(problem);
  const LaunchShape3& shape = prepared.selection.resolved.shape;
  Loaded& loaded = *prepared.loaded;
  if (!loaded.prepared_for || loaded.prepared_for->carveout != shape.carveout || loaded.prepared_for->dynamic_smem != shape.dynamic_smem) {
    loaded.kernel->prepare(shape);
    loaded.prepared_for = shape;
  }
  loaded.kernel->launch(shape, arguments.data(), stream);
}

std::size_t TunedKernel::loaded_variants() const {
  const std::scoped_lock lock(mutex_);
  return kernels_.size();
}

}  // namespace blocktune
