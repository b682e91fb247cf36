// Spec files (JSON) and the validation every kernel description passes.
//
// A spec is read into a KernelBuilder, whose build() joins the sources and
// calls validate(): a spec file is the builder's calls written down, and a
// builder's description is what the built-in kernels are.
#include <blocktune/builder.hpp>
#include <blocktune/spec.hpp>
#include <blocktune/text.hpp>

#include "t1.hpp"
#include <blocktune/detail/resolve.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <iterator>
#include <numeric>
#include <optional>
#include <set>
#include <span>

namespace blocktune {

SpecError::SpecError(std::string origin, std::string field, std::string problem)
    : std::runtime_error(fmt::format("{}: {}: {}", origin, field, problem)),
      origin_(std::move(origin)),
      field_(std::move(field)),
      problem_(std::move(problem)) {}

const std::vector<std::string>& device_variable_names() {
  static const std::vector<std::string> names = {"max_threads_per_block", "max_shared_per_block", "shared_per_sm",
                                                 "max_threads_per_sm",    "sm_count",             "warp_size",
                                                 "cc"};
  return names;
}

namespace {

bool is_identifier(std::string_view text) {
  const auto head = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  const auto tail = [&](char c) { return head(c) || std::isdigit(static_cast<unsigned char>(c)); };
  return !text.empty() && head(text.front()) && std::all_of(text.begin() + 1, text.end(), tail);
}

// Whether `name` occurs in `source` as a whole identifier, outside the #line
// directives that name joined files.
bool mentions(std::string_view source, std::string_view name) {
  const auto identifier_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (auto at = source.find(name); at != std::string_view::npos; at = source.find(name, at + 1)) {
    const bool starts = at == 0 || !identifier_char(source[at - 1]);
    const bool ends = at + name.size() == source.size() || !identifier_char(source[at + name.size()]);
    const auto line = source.rfind('\n', at);
    const bool directive = source.substr(line == std::string_view::npos ? 0 : line + 1).starts_with("#line ");
    if (starts && ends && !directive) return true;
  }
  return false;
}

const std::string& argument_name(const Argument& argument) {
  return std::visit([](const auto& a) -> const std::string& { return a.name; }, argument);
}

std::string listing(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string file_problem(const std::filesystem::path& file, std::string_view kind) {
  std::error_code error;
  const auto status = std::filesystem::status(file, error);
  if (!std::filesystem::exists(status)) return fmt::format("{} '{}' does not exist", kind, file.string());
  return fmt::format("'{}' is not a {}", file.string(), kind);
}

std::string read_file(const std::filesystem::path& file, std::string_view origin, const std::string& field) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) throw SpecError(std::string(origin), field, file_problem(file, "file"));
  std::ifstream in(file, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad() || !in.is_open()) throw SpecError(std::string(origin), field, fmt::format("'{}' cannot be read", file.string()));
  return text;
}

// Thrown when the search for a valid configuration has used its budget.
struct SearchBudgetSpent {};

// Finds the first configuration, in enumeration order, that satisfies
// `constraints` with `device` supplying the other names. Parameters that share
// no constraint are searched separately, so an unsatisfiable group is found
// without walking the product of the others. Every constraint evaluation
// costs one unit of `budget`.
class FirstConfiguration {
 public:
  FirstConfiguration(const SearchSpace& space, std::vector<std::size_t> constraints, Lookup device, std::size_t& budget)
      : space_(space), constraints_(std::move(constraints)), device_(std::move(device)), budget_(budget) {}

  // The values' indices per parameter; nullopt when no configuration fits.
  // Throws SearchBudgetSpent, or ExpressionError from a constraint (with
  // `failed_constraint` naming it).
  std::optional<std::vector<std::size_t>> find() {
    const auto& parameters = space_.parameters();
    const std::size_t n = parameters.size();
    chosen_.assign(n, 0);
    bound_.assign(n, false);
    std::vector<std::size_t> group(n);
    std::iota(group.begin(), group.end(), std::size_t{0});
    const auto root = [&](std::size_t p) {
      while (group[p] != p) p = group[p] = group[group[p]];
      return p;
    };
    // Each constraint joins the groups of the parameters it names; one that
    // names none depends on the device only.
    std::vector<std::vector<std::size_t>> uses(constraints_.size());
    for (std::size_t c = 0; c < constraints_.size(); ++c) {
      for (const std::string& name : space_.constraints()[constraints_[c]].variables())
        if (auto p = index_of(name)) uses[c].push_back(*p);
      if (uses[c].empty() && !holds(c)) return std::nullopt;
      for (std::size_t p : uses[c]) group[root(p)] = root(uses[c].front());
    }
    for (std::size_t first = 0; first < n; ++first) {
      if (root(first) != first) continue;
      std::vector<std::size_t> members;
      for (std::size_t p = 0; p < n; ++p)
        if (root(p) == first) members.push_back(p);
      // A constraint is checked as soon as its last parameter (in search order) is bound.
      std::vector<std::vector<std::size_t>> ready(members.size());
      for (std::size_t c = 0; c < constraints_.size(); ++c) {
        if (uses[c].empty() || root(uses[c].front()) != first) continue;
        std::size_t last = 0;
        for (std::size_t p : uses[c]) last = std::max(last, static_cast<std::size_t>(std::ranges::find(members, p) - members.begin()));
        ready[last].push_back(c);
      }
      if (!search(members, ready, 0)) return std::nullopt;
    }
    return chosen_;
  }

  std::size_t failed_constraint() const { return failed_; }

 private:
  bool search(const std::vector<std::size_t>& members, const std::vector<std::vector<std::size_t>>& ready, std::size_t depth) {
    if (depth == members.size()) return true;
    const std::size_t p = members[depth];
    bound_[p] = true;
    for (std::size_t v = 0; v < space_.parameters()[p].values.size(); ++v) {
      chosen_[p] = v;
      if (std::ranges::all_of(ready[depth], [&](std::size_t c) { return holds(c); }) && search(members, ready, depth + 1))
        return true;
    }
    bound_[p] = false;
    return false;
  }

  bool holds(std::size_t c) {
    if (budget_ == 0) throw SearchBudgetSpent{};
    --budget_;
    failed_ = constraints_[c];
    const Lookup lookup = [this](std::string_view name) -> std::optional<Value> {
      if (auto p = index_of(name); p && bound_[*p]) return space_.parameters()[*p].values[chosen_[*p]];
      return device_(name);
    };
    return space_.constraints()[constraints_[c]].evaluate_bool(lookup);
  }

  std::optional<std::size_t> index_of(std::string_view name) const {
    const auto& parameters = space_.parameters();
    const auto it = std::ranges::find(parameters, name, &Parameter::name);
    if (it == parameters.end()) return std::nullopt;
    return static_cast<std::size_t>(it - parameters.begin());
  }

  const SearchSpace& space_;
  std::vector<std::size_t> constraints_;
  Lookup device_;
  std::size_t& budget_;
  std::vector<std::size_t> chosen_;
  std::vector<bool> bound_;
  std::size_t failed_ = 0;
};

// Evaluations allowed for finding a valid configuration at load time: enough
// for any realistic space, small enough that a load never takes long.
constexpr std::size_t kSearchBudget = 200'000;

// Included files read when looking for a parameter's macro.
constexpr std::size_t kMaxIncludedFiles = 256;

class Validator {
 public:
  Validator(KernelDescription& kernel, std::string_view origin) : kernel_(kernel), origin_(origin) {
    // sm_90 first: the profile most specs are written for, and the default's.
    profiles_.push_back(require_arch_profile("sm_90"));
    for (const std::string& arch : known_architectures())
      if (arch != "sm_90") profiles_.push_back(require_arch_profile(arch));
    included_ = included_sources();
  }

  void run() {
    check_name();
    check_problem();
    check_parameters();
    check_entry("entry", kernel_.entry, kernel_.source, kernel_.source_name);
    check_defines();
    for (std::size_t d = 0; d < 3; ++d) {
      check_expression(fmt::format("block[{}]", d), kernel_.block[d]);
      check_expression(fmt::format("grid[{}]", d), kernel_.grid[d]);
    }
    check_expression("dynamic_smem", kernel_.dynamic_smem);
    check_expression("carveout", kernel_.carveout);
    check_arguments();
    check_parameters_reach_kernel();
    if (!kernel_.bytes_moved.empty()) check_expression("objective.bytes_moved", kernel_.bytes_moved);
    if (!kernel_.flops.empty()) check_expression("objective.flops", kernel_.flops);
    for (const WorkField& field : kWorkFields)
      if (const std::string& text = kernel_.work_expressions.*field.expression; !text.empty())
        check_expression(fmt::format("work.{}", field.name), text);
    check_verification();
    check_time_steps();
    for (std::size_t c = 0; c < kernel_.space.constraints().size(); ++c)
      check_variables(fmt::format("constraints[{}]", c), kernel_.space.constraints()[c]);
    check_default();
  }

 private:

  [[noreturn]] void fail(std::string field, std::string problem) const { throw SpecError(origin_, std::move(field), std::move(problem)); }

  std::vector<std::string> parameter_names() const {
    std::vector<std::string> names;
    for (const Parameter& p : kernel_.space.parameters()) names.push_back(p.name);
    return names;
  }
  bool is_parameter(std::string_view name) const {
    return std::ranges::find(kernel_.space.parameters(), name, &Parameter::name) != kernel_.space.parameters().end();
  }
  bool is_problem_dimension(std::string_view name) const { return std::ranges::find(kernel_.problem_names, name) != kernel_.problem_names.end(); }
  // Asks environment() itself, so that the names accepted are exactly those the tuner provides.
  bool is_device_variable(std::string_view name) const {
    return environment(kernel_, profiles_.front(), ProblemSize{})(name).has_value();
  }

  void check_name() const {
    const auto allowed = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; };
    if (kernel_.name.empty()) fail("name", "missing; required: the kernel's key in the tuning database, e.g. \"matmul\"");
    if (!std::ranges::all_of(kernel_.name, allowed))
      fail("name", fmt::format("'{}' may hold only letters, digits, '_', '-' and '.'", kernel_.name));
  }

  void check_problem() const {
    if (kernel_.problem_names.empty()) fail("problem", "names no dimension; give at least one, e.g. [\"n\"]");
    if (kernel_.default_problem && kernel_.default_problem->dims.size() != kernel_.problem_names.size())
      fail("default_problem", fmt::format("has {} dimensions, but the problem has {} ({})", kernel_.default_problem->dims.size(),
                                          kernel_.problem_names.size(), listing(kernel_.problem_names)));
    for (std::size_t d = 0; d < kernel_.problem_names.size(); ++d) {
      const std::string& name = kernel_.problem_names[d];
      const std::string field = fmt::format("problem[{}]", d);
      if (!is_identifier(name)) fail(field, fmt::format("'{}' is not a name (letters, digits and '_', not starting with a digit)", name));
      if (std::count(kernel_.problem_names.begin(), kernel_.problem_names.end(), name) > 1) fail(field, fmt::format("'{}' names two dimensions", name));
      if (is_device_variable(name)) fail(field, fmt::format("'{}' is a device variable; choose another name", name));
    }
  }

  void check_parameters() const {
    if (kernel_.space.parameters().empty()) fail("parameters", "none given; a kernel needs at least one tunable parameter");
    for (const Parameter& p : kernel_.space.parameters()) {
      const std::string field = "parameters." + p.name;
      if (!is_identifier(p.name)) fail(field, fmt::format("'{}' is not a C identifier, which parameters must be to become defines", p.name));
      if (is_problem_dimension(p.name)) fail(field, fmt::format("'{}' is also a problem dimension", p.name));
      if (is_device_variable(p.name)) fail(field, fmt::format("'{}' is also a device variable", p.name));
    }
  }

  // The entry is a name expression: placeholders must name parameters and its
  // base name (before any '<') must occur in the source.
  void check_entry(const std::string& field, const std::string& entry, const std::string& source, const std::string& source_name) const {
    if (entry.empty()) fail(field, "missing; required: the kernel's name expression, e.g. \"matmul<{tile}>\"");
    for (auto open = entry.find('{'); open != std::string::npos; open = entry.find('{', open + 1)) {
      const auto close = entry.find('}', open);
      if (close == std::string::npos) fail(field, fmt::format("'{}' has a '{{' without a closing '}}'", entry));
      const std::string name = entry.substr(open + 1, close - open - 1);
      if (!is_parameter(name))
        fail(field, fmt::format("placeholder '{{{}}}' names no parameter (parameters: {})", name, listing(parameter_names())));
    }
    std::string_view base(entry);
    base = base.substr(0, base.find('<'));
    while (!base.empty() && (std::isspace(static_cast<unsigned char>(base.front())) || base.front() == '&')) base.remove_prefix(1);
    while (!base.empty() && std::isspace(static_cast<unsigned char>(base.back()))) base.remove_suffix(1);
    if (const auto scope = base.rfind("::"); scope != std::string_view::npos) base.remove_prefix(scope + 2);
    if (!is_identifier(base)) fail(field, fmt::format("'{}' is not a kernel name expression like \"matmul\" or \"matmul<{{tile}}>\"", entry));
    if (source.empty()) fail("sources", "no source given");
    if (!mentions(source, base)) fail(field, fmt::format("kernel '{}' does not appear in {}", base, source_name));
  }

  void check_defines() const {
    std::map<std::string, std::string> upper;
    for (std::size_t i = 0; i < kernel_.defines.size(); ++i)
      if (!is_parameter(kernel_.defines[i]))
        fail(fmt::format("defines[{}]", i), fmt::format("'{}' is not a parameter (parameters: {})", kernel_.defines[i], listing(parameter_names())));
    // Two parameters must not become the same macro.
    for (const Parameter& p : kernel_.space.parameters()) {
      const auto macro = macro_name(kernel_, p.name);
      if (!macro) continue;
      if (auto [it, added] = upper.emplace(*macro, p.name); !added)
        fail("parameters." + p.name, fmt::format("'{}' and '{}' both become the define {}", it->second, p.name, *macro));
    }
  }

  // Every parameter must change what runs: a macro the sources name, a
  // placeholder of the entry, or a variable of the launch geometry or of a
  // scalar argument. One that reaches nothing would tune noise.
  void check_parameters_reach_kernel() const {
    std::set<std::string> launch_variables;
    const auto collect = [&](const std::string& text) {
      if (scalar_literal(text)) return;
      const Expression expression = Expression::parse(text);
      launch_variables.insert(expression.variables().begin(), expression.variables().end());
    };
    for (std::size_t d = 0; d < 3; ++d) collect(kernel_.block[d]), collect(kernel_.grid[d]);
    collect(kernel_.dynamic_smem);
    collect(kernel_.carveout);
    for (const Argument& argument : kernel_.arguments)
      if (const auto* scalar = std::get_if<ScalarArgument>(&argument)) collect(scalar->value);
    for (const Parameter& p : kernel_.space.parameters()) {
      if (launch_variables.contains(p.name) || kernel_.entry.find("{" + p.name + "}") != std::string::npos) continue;
      const auto macro = macro_name(kernel_, p.name);
      if (macro && sources_name(*macro)) continue;
      std::string why = macro ? fmt::format("the sources never name its macro {}", *macro) : "it is not passed as a define (\"defines\")";
      if (macro && *macro != p.name && sources_name(p.name))
        why += fmt::format(", but they do name '{}': set \"define_names\": \"as-is\" to pass parameters as written", p.name);
      fail("parameters." + p.name, fmt::format("reaches nothing: {}; it is not a placeholder of the entry, nor used by the launch geometry, "
                                                 "shared memory, carveout or a scalar argument, so every value would compile and run the same kernel",
                                                 why));
    }
  }

  // Whether the sources, or the files they include, name `name`.
  bool sources_name(std::string_view name) const { return mentions(kernel_.source, name) || mentions(included_, name); }

  // The text of the files the sources #include that an include path (-I) holds, and of theirs.
  std::string included_sources() const {
    std::vector<std::filesystem::path> folders;
    for (const std::string& option : kernel_.options)
      if (option.starts_with("-I") && option.size() > 2) folders.emplace_back(option.substr(2));
    std::string text;
    std::set<std::filesystem::path> seen;
    std::vector<std::string> pending{kernel_.source};
    while (!pending.empty() && seen.size() < kMaxIncludedFiles) {
      const std::string source = std::move(pending.back());
      pending.pop_back();
      for (const std::string& name : included_names(source))
        for (const auto& folder : folders) {
          const auto file = (folder / name).lexically_normal();
          std::error_code error;
          if (seen.contains(file) || !std::filesystem::is_regular_file(file, error)) continue;
          seen.insert(file);
          std::ifstream in(file, std::ios::binary);
          std::string content{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
          text += content + "\n";
          pending.push_back(std::move(content));
          break;
        }
    }
    return text;
  }

  static std::vector<std::string> included_names(const std::string& source) {
    std::vector<std::string> names;
    for (std::size_t at = source.find("#include"); at != std::string::npos; at = source.find("#include", at + 1)) {
      const auto open = source.find_first_of("\"<", at + 8);
      const auto line_end = source.find('\n', at);
      if (open == std::string::npos || open > line_end) continue;
      const auto close = source.find(source[open] == '"' ? '"' : '>', open + 1);
      if (close != std::string::npos && close < line_end) names.push_back(source.substr(open + 1, close - open - 1));
    }
    return names;
  }

  void check_expression(const std::string& field, const std::string& text) const {
    if (text.size() > kMaxExpressionLength)
      fail(field, fmt::format("the expression is {} characters long, over the limit of {}", text.size(), kMaxExpressionLength));
    try {
      check_variables(field, Expression::parse(text));
    } catch (const ExpressionError& error) {
      fail(field, error.what());
    }
  }

  void check_variables(const std::string& field, const Expression& expression) const {
    for (const std::string& name : expression.variables()) {
      if (is_parameter(name) || is_problem_dimension(name) || is_device_variable(name)) continue;
      fail(field, fmt::format("'{}' names '{}', which is not a parameter ({}), a problem dimension ({}), time_steps or a device variable ({})",
                              expression.text(), name, listing(parameter_names()), listing(kernel_.problem_names),
                              listing(device_variable_names())));
    }
  }

  void check_arguments() const {
    std::optional<std::size_t> first_output;
    for (std::size_t a = 0; a < kernel_.arguments.size(); ++a) {
      const std::string field = fmt::format("arguments[{}]", a);
      const std::string& name = argument_name(kernel_.arguments[a]);
      if (name.empty()) fail(field, "has no name");
      for (std::size_t b = 0; b < a; ++b)
        if (argument_name(kernel_.arguments[b]) == name) fail(field, fmt::format("the name '{}' is already arguments[{}]'s", name, b));
      if (const auto* scalar = std::get_if<ScalarArgument>(&kernel_.arguments[a])) {
        if (const auto literal = scalar_literal(scalar->value))
          check_initial_value(field + ".value", scalar->type, *literal);
        else
          check_expression(field + ".value", scalar->value);
        continue;
      }
      const auto& buffer = std::get<BufferArgument>(kernel_.arguments[a]);
      check_expression(field + ".count", buffer.count);
      // Sized by parameters: the default configuration's output, or a file, has another size.
      if (sized_by_parameters(kernel_, buffer) && !kernel_.reference && !kernel_.reference_kernel)
        fail(field + ".count", fmt::format("'{}' names a parameter: the buffer's size changes with the configuration, so the expected "
                                           "outputs need a reference_kernel, computed for each size",
                                           buffer.count));
      if (buffer.constant && buffer.output) fail(field, "a constant cannot be an output: kernels cannot write __constant__ memory");
      if (buffer.constant && !sources_name(buffer.name))
        fail(field + ".constant", fmt::format("the sources declare no variable '{}' (a __constant__ array the kernel reads)", buffer.name));
      if (buffer.init == BufferArgument::Init::constant) check_initial_value(field + ".value", buffer.type, buffer.value);
      if (buffer.init == BufferArgument::Init::values) {
        if (buffer.values.empty()) fail(field + ".values", "is empty");
        for (std::size_t i = 0; i < buffer.values.size(); ++i)
          check_initial_value(fmt::format("{}.values[{}]", field, i), buffer.type, buffer.values[i]);
      }
      if (buffer.init == BufferArgument::Init::file) check_file(field + ".file", buffer.file);
      if (!buffer.output) continue;
      if (!first_output) {
        first_output = a;
        continue;
      }
      // The comparison kernel handles one element type.
      const auto& first = std::get<BufferArgument>(kernel_.arguments[*first_output]);
      if (first.type != buffer.type)
        fail(field + ".output", fmt::format("outputs must share one element type: '{}' is {} but '{}' is {}", first.name,
                                            to_string(first.type), buffer.name, to_string(buffer.type)));
    }
    if (!first_output)
      fail("arguments", "no buffer is an output (\"output\": true); blocktune checks every configuration's outputs");
  }

  // The value must convert to the element type exactly enough (no overflow, integers whole).
  void check_initial_value(const std::string& field, ElementType type, double value) const {
    const auto [lowest, highest] = [&]() -> std::pair<double, double> {
      switch (type) {
        case ElementType::f32: return {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
        case ElementType::f64: return {-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
        case ElementType::i32: return {-0x1p31, 0x1p31 - 1};
        case ElementType::i64: return {-0x1p63, 0x1p63 - 1024};  // the largest double below 2^63
        case ElementType::u32: return {0, 0x1p32 - 1};
        case ElementType::u64: return {0, 0x1p64 - 2048};  // the largest double below 2^64
      }
      return {0, 0};
    }();
    if (!std::isfinite(value) || value < lowest || value > highest || (is_integral(type) && value != std::trunc(value)))
      fail(field, fmt::format("{} is not a value of type {}", value, to_string(type)));
  }

  void check_file(const std::string& field, const std::string& file) const {
    std::error_code error;
    if (!std::filesystem::is_regular_file(file, error)) fail(field, file_problem(file, "file"));
  }

  bool is_output(std::string_view name) const {
    return std::ranges::any_of(kernel_.arguments, [&](const Argument& argument) {
      const auto* buffer = std::get_if<BufferArgument>(&argument);
      return buffer && buffer->output && buffer->name == name;
    });
  }

  void check_verification() const {
    if (!std::isfinite(kernel_.tolerance) || kernel_.tolerance < 0)
      fail("verify.tolerance", fmt::format("{} is not a finite number >= 0", kernel_.tolerance));
    if (kernel_.reference_kernel && !kernel_.reference_files.empty())
      fail("verify", "give one of reference_kernel and reference_files, not both");
    if (const auto& reference = kernel_.reference_kernel) {
      const std::string field = "verify.reference_kernel";
      check_entry(field + ".entry", reference->entry, reference->source, reference->source_name);
      for (std::size_t d = 0; d < 3; ++d) {
        check_expression(fmt::format("{}.block[{}]", field, d), reference->block[d]);
        check_expression(fmt::format("{}.grid[{}]", field, d), reference->grid[d]);
      }
      check_expression(field + ".dynamic_smem", reference->dynamic_smem);
      check_reference_placeholders(field, *reference);
    }
    for (const auto& [output, file] : kernel_.reference_files) {
      const std::string field = "verify.reference_files." + output;
      if (!is_output(output)) fail(field, fmt::format("'{}' is not an output buffer", output));
      check_file(field, file);
    }
    if (!kernel_.reference_files.empty())
      for (const Argument& argument : kernel_.arguments)
        if (const auto* buffer = std::get_if<BufferArgument>(&argument); buffer && buffer->output)
          if (std::ranges::find(kernel_.reference_files, buffer->name, &std::pair<std::string, std::string>::first) == kernel_.reference_files.end())
            fail("verify.reference_files", fmt::format("no file for the output '{}'", buffer->name));
    if (!kernel_.reference_key.empty()) {
      check_expression("verify.reference_key", kernel_.reference_key);
      // Against the default configuration's output every key would give the same expectation.
      if (!kernel_.reference && !kernel_.reference_kernel && kernel_.reference_files.empty())
        fail("verify.reference_key", "needs a reference_kernel (or a reference function) to compute the expected outputs per key; "
                                     "without one every configuration is compared with the default configuration's output");
    }
  }

  // An N-step run feeds each launch's step_output to the next as step_input:
  // two distinct buffers of the same type and size, the second an output.
  void check_time_steps() const {
    check_expression("time_steps.per_launch", kernel_.steps_per_launch);
    if (kernel_.step_input.empty() && kernel_.step_output.empty()) return;
    const auto buffer = [&](const std::string& name, std::string_view field) -> const BufferArgument& {
      for (const Argument& argument : kernel_.arguments)
        if (const auto* b = std::get_if<BufferArgument>(&argument); b && b->name == name && !b->constant) return *b;
      fail(std::string(field), fmt::format("'{}' names no buffer argument passed to the kernel", name));
    };
    const BufferArgument& input = buffer(kernel_.step_input, "time_steps.input");
    const BufferArgument& output = buffer(kernel_.step_output, "time_steps.output");
    if (&input == &output) fail("time_steps.output", "is the input buffer too; a step reads one buffer and writes another");
    if (!output.output) fail("time_steps.output", fmt::format("'{}' is not an output buffer", output.name));
    if (input.type != output.type || input.count != output.count)
      fail("time_steps.output", fmt::format("'{}' and '{}' differ in type or count; launches swap them", input.name, output.name));
  }

  // The reference is computed once per reference_key: the parameters its entry
  // and options take must be among the key's, or one configuration's values
  // would stand for all.
  void check_reference_placeholders(const std::string& field, const ReferenceKernel& reference) const {
    std::vector<std::string> keyed;
    if (!kernel_.reference_key.empty()) keyed = Expression::parse(kernel_.reference_key).variables();
    const auto check = [&](const std::string& where, const std::string& text) {
      for (auto open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
        const auto close = text.find('}', open);
        if (close == std::string::npos) fail(where, fmt::format("'{}' has a '{{' without a closing '}}'", text));
        const std::string name = text.substr(open + 1, close - open - 1);
        if (!is_parameter(name)) fail(where, fmt::format("placeholder '{{{}}}' names no parameter (parameters: {})", name, listing(parameter_names())));
        if (std::ranges::find(keyed, name) == keyed.end())
          fail(where, fmt::format("placeholder '{{{}}}' must be named by verify.reference_key, which decides when the reference runs again", name));
      }
    };
    check(field + ".entry", reference.entry);
    for (std::size_t i = 0; i < reference.options.size(); ++i) check(fmt::format("{}.options[{}]", field, i), reference.options[i]);
  }

  // Constraints that do not depend on the problem size, which is unknown at load.
  std::vector<std::size_t> size_free_constraints() const {
    std::vector<std::size_t> indices;
    const auto& constraints = kernel_.space.constraints();
    for (std::size_t c = 0; c < constraints.size(); ++c)
      if (std::ranges::none_of(constraints[c].variables(), [&](const std::string& name) { return is_problem_dimension(name); }))
        indices.push_back(c);
    return indices;
  }

  static std::string profile_list() { return fmt::format("{}", fmt::join(known_architectures(), " ")); }

  // The first configuration that satisfies `constraints` with the limits of
  // some profile, nullopt if none does. Throws SearchBudgetSpent.
  std::optional<Config> first_configuration(const std::vector<std::size_t>& constraints, std::size_t& budget) const {
    for (const DeviceInfo& profile : profiles_) {
      FirstConfiguration search(kernel_.space, constraints, environment(kernel_, profile, ProblemSize{}), budget);
      try {
        if (auto chosen = search.find()) {
          std::vector<std::pair<std::string, Value>> entries;
          for (std::size_t p = 0; p < chosen->size(); ++p)
            entries.emplace_back(kernel_.space.parameters()[p].name, kernel_.space.parameters()[p].values[(*chosen)[p]]);
          return Config(std::move(entries));
        }
      } catch (const ExpressionError& error) {
        fail(fmt::format("constraints[{}]", search.failed_constraint()), fmt::format("{} (with the limits of {})", error.what(), profile.arch()));
      }
    }
    return std::nullopt;
  }

  // Says which constraint no configuration satisfies, alone or together.
  [[noreturn]] void fail_unsatisfiable(const std::vector<std::size_t>& constraints, std::size_t& budget) const {
    const std::string where = fmt::format("with the limits of any architecture profile ({})", profile_list());
    try {
      for (std::size_t c : constraints)
        if (!first_configuration({c}, budget))
          fail(fmt::format("constraints[{}]", c), fmt::format("no configuration of the {:.0f} in the space satisfies '{}' {}",
                                                              kernel_.space.raw_size(), kernel_.space.constraints()[c].text(), where));
    } catch (const SearchBudgetSpent&) {
      // Too large to tell which one: say what is known.
    }
    fail("constraints", fmt::format("no configuration of the {:.0f} in the space satisfies all {} constraints together {}",
                                    kernel_.space.raw_size(), constraints.size(), where));
  }

  void check_default() {
    const std::vector<std::size_t> constraints = size_free_constraints();
    std::size_t budget = kSearchBudget;
    if (kernel_.default_config.empty()) {
      std::optional<Config> first;
      try {
        first = first_configuration(constraints, budget);
      } catch (const SearchBudgetSpent&) {
        fail("default", "none given, and the space is too large to search for a valid configuration at load; give one");
      }
      if (!first) fail_unsatisfiable(constraints, budget);
      kernel_.default_config = first->to_string();
      return;
    }
    const Config given = canonical_default();
    kernel_.default_config = given.to_string();
    // The default must satisfy the constraints with the limits of some profile.
    const auto violation = [&](const DeviceInfo& profile) -> std::optional<std::size_t> {
      const Lookup lookup = given.lookup(environment(kernel_, profile, ProblemSize{}));
      for (std::size_t c : constraints) {
        try {
          if (!kernel_.space.constraints()[c].evaluate_bool(lookup)) return c;
        } catch (const ExpressionError& error) {
          fail(fmt::format("constraints[{}]", c), fmt::format("{} (for the default, with the limits of {})", error.what(), profile.arch()));
        }
      }
      return std::nullopt;
    };
    if (std::ranges::any_of(profiles_, [&](const DeviceInfo& profile) { return !violation(profile); })) return;
    // Blame the constraints when nothing satisfies them, else the default.
    try {
      if (!first_configuration(constraints, budget)) fail_unsatisfiable(constraints, budget);
    } catch (const SearchBudgetSpent&) {
      // Some configuration may well fit: the default is at fault.
    }
    const std::size_t violated = *violation(profiles_.front());
    fail("default", fmt::format("{} violates constraints[{}] '{}' (with the limits of every architecture profile)",
                                kernel_.default_config, violated, kernel_.space.constraints()[violated].text()));
  }

  // The default with one listed value per parameter, in the space's order.
  Config canonical_default() const {
    Config given;
    try {
      given = Config::parse(kernel_.default_config);
    } catch (const std::invalid_argument& error) {
      fail("default", error.what());
    }
    for (const auto& [name, value] : given.entries())
      if (!is_parameter(name)) fail("default." + name, fmt::format("'{}' is not a parameter (parameters: {})", name, listing(parameter_names())));
    std::vector<std::pair<std::string, Value>> entries;
    for (const Parameter& p : kernel_.space.parameters()) {
      const Value* value = given.find(p.name);
      if (!value) fail("default", fmt::format("gives no value for the parameter '{}'", p.name));
      if (std::ranges::find(p.values, *value) == p.values.end()) {
        std::vector<std::string> listed;
        for (const Value& v : p.values) listed.push_back(to_string(v));
        fail("default." + p.name, fmt::format("{} is not one of its values ({})", to_string(*value), listing(listed)));
      }
      entries.emplace_back(p.name, *value);
    }
    return Config(std::move(entries));
  }

  KernelDescription& kernel_;
  std::string origin_;
  std::vector<DeviceInfo> profiles_;
  std::string included_;  // included_sources(), read once
};

}  // namespace

void validate(KernelDescription& kernel, std::string_view origin) { Validator(kernel, origin).run(); }

void check_problem(const KernelDescription& kernel, const ProblemSize& problem) {
  if (problem.dims.size() == kernel.problem_names.size()) return;
  throw std::invalid_argument(fmt::format("kernel {} takes a problem of {} dimension{} ({}), got {}", kernel.name,
                                          kernel.problem_names.size(), kernel.problem_names.size() == 1 ? "" : "s",
                                          fmt::join(kernel.problem_names, " x "), problem.to_string()));
}

namespace {

// The offset of the first byte that does not belong to a well-formed UTF-8
// sequence (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF), if there is one.
std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) length = 2;
    else if (lead == 0xE0) length = 3, low = 0xA0;
    else if (lead == 0xED) length = 3, high = 0x9F;
    else if (lead >= 0xE1 && lead <= 0xEF) length = 3;
    else if (lead == 0xF0) length = 4, low = 0x90;
    else if (lead == 0xF4) length = 4, high = 0x8F;
    else if (lead >= 0xF1 && lead <= 0xF3) length = 4;
    else return i;
    for (std::size_t k = 1; k < length; ++k) {
      if (i + k >= text.size()) return i;
      const unsigned char c = byte(i + k);
      if (k == 1 ? (c < low || c > high) : (c < 0x80 || c > 0xBF)) return i;
    }
    i += length;
  }
  return std::nullopt;
}

// A source file's text; NVRTC takes UTF-8 (and has crashed on stray bytes).
std::string read_source_file(const std::filesystem::path& file, std::string_view origin, const std::string& field) {
  std::string text = read_file(file, origin, field);
  if (const auto at = invalid_utf8_at(text))
    throw SpecError(std::string(origin), field,
                    fmt::format("'{}' is not valid UTF-8: byte 0x{:02X} at offset {}", file.string(), static_cast<unsigned char>(text[*at]), *at));
  return text;
}

}  // namespace

SourceText read_sources(const std::vector<std::filesystem::path>& files, std::string_view origin, std::string_view field) {
  if (files.empty()) throw SpecError(std::string(origin), std::string(field), "no source file given");
  SourceText source{{}, files.front().filename().string()};
  if (files.size() == 1) {
    source.text = read_source_file(files.front(), origin, fmt::format("{}[0]", field));
    return source;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::string name = files[i].string();
    for (auto at = name.find_first_of("\\\""); at != std::string::npos; at = name.find_first_of("\\\"", at + 2)) name.insert(at, 1, '\\');
    source.text += fmt::format("#line 1 \"{}\"\n", name);
    source.text += read_source_file(files[i], origin, fmt::format("{}[{}]", field, i));
    if (!source.text.empty() && source.text.back() != '\n') source.text += '\n';
  }
  return source;
}

// ---- Spec files --------------------------------------------------------------

namespace {

using Json = nlohmann::ordered_json;

// Object keys, for finding the one a misspelt key meant.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
    }
  }
  return row[b.size()];
}

std::string json_type(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_float: return "a fractional number";
    default: return "an integer";
  }
}

// Finds the first key that an object holds twice, which the JSON library
// would silently collapse, and where: "parameters.block_x".
class DuplicateKeys {
 public:
  bool operator()(int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        frames_.push_back({event == Json::parse_event_t::object_start, {}, {}, 0});
        break;
      case Json::parse_event_t::key: {
        Frame& frame = frames_.back();
        frame.key = parsed.get<std::string>();
        if (!frame.keys.insert(frame.key).second && !duplicate_) duplicate_ = path();
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case Json::parse_event_t::value: element_done(); break;
    }
    return true;
  }

  const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    std::size_t index;
  };

  void element_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }

  std::string path() const {
    std::string text;
    for (const Frame& frame : frames_) {
      if (frame.object)
        text += (text.empty() ? "" : ".") + frame.key;
      else
        text += fmt::format("[{}]", frame.index);
    }
    return text;
  }

  std::vector<Frame> frames_;
  std::optional<std::string> duplicate_;
};

// Reads one spec's JSON into a KernelBuilder, checking shapes and types;
// the builder's validate() checks the meaning.
class SpecReader {
 public:
  SpecReader(std::string origin, std::filesystem::path base_dir) : origin_(std::move(origin)), base_dir_(std::move(base_dir)) {}

  KernelDescription read(std::string_view text) {
    Json spec = parse_json(text);
    if (detail::is_t1(spec))
      spec = detail::t1_to_spec(spec, base_dir_, origin_);
    else if (const Json* t1 = find(spec, "t1"))
      spec = extend_t1(*t1, spec);
    check_keys(spec, "", {"$schema", "name", "summary", "sources", "include_paths", "entry", "options", "problem", "parameters",
                          "constraints", "defines", "define_names", "default", "default_problem", "block", "grid", "dynamic_smem", "carveout", "arguments",
                          "objective", "work", "verify", "time_steps"});
    return build(spec);
  }

  Json parse_json(std::string_view text) const {
    DuplicateKeys duplicates;
    Json spec;
    try {
      spec = Json::parse(text, std::ref(duplicates));
    } catch (const Json::parse_error& error) {
      // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..."
      const std::string what = error.what();
      const auto at = what.find(" at line ");
      const auto colon = what.find(": ", at == std::string::npos ? 0 : at);
      if (at == std::string::npos || colon == std::string::npos) fail("(file)", "invalid JSON: " + what);
      fail(what.substr(at + 4, colon - at - 4), "invalid JSON: " + what.substr(colon + 2));
    } catch (const Json::exception& error) {
      // "[json.exception.out_of_range.406] number overflow parsing '1e999'"
      const std::string what = error.what();
      fail("(file)", "invalid JSON: " + what.substr(what.find(']') + 2));
    }
    if (duplicates.duplicate()) fail(*duplicates.duplicate(), "appears twice in the same object");
    if (!spec.is_object()) fail("(top level)", fmt::format("a spec is a JSON object, not {}", json_type(spec)));
    return spec;
  }

  // A spec that extends a T1 file (what T1 cannot say: a reference kernel, the
  // objective, work counts): the T1 file's description with the spec's fields
  // in place of the same fields of the T1 file.
  Json extend_t1(const Json& t1_field, const Json& extension) const {
    const std::filesystem::path file = resolve(string(t1_field, "t1"));
    const SpecReader t1_reader(file.string(), file.parent_path());
    const Json t1 = t1_reader.parse_json(read_file(file, origin_, "t1"));
    if (!detail::is_t1(t1)) fail("t1", fmt::format("'{}' is not a T1 file: it has no KernelSpecification", file.string()));
    Json spec = detail::t1_to_spec(t1, file.parent_path(), file.string());
    for (const auto& [key, value] : extension.items())
      if (key != "t1") spec[key] = value;
    return spec;
  }

 private:
  KernelDescription build(const Json& spec) const {
    KernelBuilder builder(string(required(spec, "name", "", "the kernel's key in the tuning database"), "name"));
    if (const Json* summary = find(spec, "summary")) builder.summary(string(*summary, "summary"));
    const std::vector<std::string> sources = string_list(required(spec, "sources", "", "the kernel's source files"), "sources", true);
    for (const std::string& file : sources) builder.source_file(resolve(file));
    if (const Json* includes = find(spec, "include_paths"))
      for (const std::string& directory : string_list(*includes, "include_paths", false)) builder.include_path(resolve(directory));
    builder.entry(string(required(spec, "entry", "", "the kernel's name expression, e.g. \"matmul<{tile}>\""), "entry"));
    if (const Json* options = find(spec, "options"))
      for (const std::string& option : string_list(*options, "options", false)) builder.option(option);
    if (const Json* problem = find(spec, "problem")) builder.problem(string_list(*problem, "problem", false));
    if (const Json* problem = find(spec, "default_problem")) builder.default_problem(read_problem(*problem));
    read_parameters(required(spec, "parameters", "", "the tunable parameters and their values"), builder);
    if (const Json* constraints = find(spec, "constraints"))
      for (const std::string& constraint : string_list(*constraints, "constraints", false)) builder.constraint(constraint);
    if (const Json* defines = find(spec, "defines")) builder.defines(string_list(*defines, "defines", false));
    if (const Json* names = find(spec, "define_names")) {
      const std::string chosen = string(*names, "define_names");
      if (chosen != "upper" && chosen != "as-is") fail("define_names", fmt::format("'{}' is not \"upper\" (block_x becomes BLOCK_X) or \"as-is\"", chosen));
      builder.define_names(chosen == "upper" ? DefineNames::upper : DefineNames::as_is);
    }
    if (const Json* default_config = find(spec, "default")) builder.default_config(read_default(*default_config));
    builder.block(expression_list(required(spec, "block", "", "the block's dimensions, e.g. [\"block_x\", \"block_y\"]"), "block"));
    read_grid(required(spec, "grid", "", "the grid, e.g. {\"divisors\": [\"block_x\", \"block_y\"]}"), builder);
    if (const Json* smem = find(spec, "dynamic_smem")) builder.dynamic_smem(expression(*smem, "dynamic_smem"));
    if (const Json* carveout = find(spec, "carveout")) builder.carveout(expression(*carveout, "carveout"));
    read_arguments(required(spec, "arguments", "", "the kernel's arguments in order"), builder);
    if (const Json* objective = find(spec, "objective")) read_objective(*objective, builder);
    if (const Json* work = find(spec, "work")) read_work(*work, builder);
    if (const Json* verify = find(spec, "verify")) read_verify(*verify, builder);
    if (const Json* steps = find(spec, "time_steps")) read_time_steps(*steps, builder);
    try {
      return builder.build();
    } catch (const SpecError& error) {
      throw SpecError(origin_, error.field(), error.problem());
    }
  }

 private:
  [[noreturn]] void fail(std::string field, std::string problem) const { throw SpecError(origin_, std::move(field), std::move(problem)); }

  static std::string join(std::string_view path, std::string_view key) { return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key); }

  std::filesystem::path resolve(const std::string& path) const { return (base_dir_ / path).lexically_normal(); }

  const Json* find(const Json& object, std::string_view key) const {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  const Json& required(const Json& object, std::string_view key, std::string_view path, std::string_view what) const {
    if (const Json* value = find(object, key)) return *value;
    fail(join(path, key), fmt::format("missing; required: {}", what));
  }

  void check_keys(const Json& object, std::string_view path, std::initializer_list<std::string_view> known) const {
    check_keys(object, path, std::span(known.begin(), known.size()));
  }
  void check_keys(const Json& object, std::string_view path, std::span<const std::string_view> known) const {
    for (const auto& [key, value] : object.items()) {
      if (std::ranges::find(known, key) != known.end()) continue;
      std::string_view closest;
      std::size_t best = 3;  // suggest only near misses
      for (std::string_view candidate : known)
        if (const std::size_t distance = edit_distance(key, candidate); distance < best) {
          best = distance;
          closest = candidate;
        }
      const std::string hint = closest.empty() ? fmt::format("known fields: {}", fmt::join(known, ", ")) : fmt::format("did you mean '{}'?", closest);
      fail(join(path, key), fmt::format("unknown field; {}", hint));
    }
  }

  void expect(const Json& value, Json::value_t type, std::string_view field, std::string_view what) const {
    if (value.type() != type) fail(std::string(field), fmt::format("expected {}, got {}", what, json_type(value)));
  }

  std::string string(const Json& value, std::string_view field) const {
    expect(value, Json::value_t::string, field, "a string");
    return value.get<std::string>();
  }

  // An integer as its text, for fields that take expressions or values.
  static std::optional<std::int64_t> integer(const Json& value) {
    if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<std::int64_t>();
    if (value.is_number_unsigned() && value.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX))
      return static_cast<std::int64_t>(value.get<std::uint64_t>());
    return std::nullopt;
  }

  std::string expression(const Json& value, std::string_view field) const {
    if (value.is_string()) return value.get<std::string>();
    if (auto number = integer(value)) return std::to_string(*number);
    fail(std::string(field), fmt::format("expected an expression (a string) or an integer, got {}", json_type(value)));
  }

  double number(const Json& value, std::string_view field) const {
    if (!value.is_number()) fail(std::string(field), fmt::format("expected a number, got {}", json_type(value)));
    return value.get<double>();
  }

  // A list of strings; `single_allowed` also takes one string alone.
  std::vector<std::string> string_list(const Json& value, std::string_view field, bool single_allowed) const {
    if (single_allowed && value.is_string()) return {value.get<std::string>()};
    expect(value, Json::value_t::array, field, single_allowed ? "a string or an array of strings" : "an array of strings");
    if (value.empty()) fail(std::string(field), "is empty");
    std::vector<std::string> strings;
    for (std::size_t i = 0; i < value.size(); ++i) strings.push_back(string(value[i], fmt::format("{}[{}]", field, i)));
    return strings;
  }

  std::vector<std::string> expression_list(const Json& value, std::string_view field) const {
    expect(value, Json::value_t::array, field, "an array of 1 to 3 expressions");
    if (value.empty() || value.size() > 3) fail(std::string(field), fmt::format("has {} entries; give 1 to 3", value.size()));
    std::vector<std::string> expressions;
    for (std::size_t i = 0; i < value.size(); ++i) expressions.push_back(expression(value[i], fmt::format("{}[{}]", field, i)));
    return expressions;
  }

  Value parameter_value(const Json& value, std::string_view field) const {
    if (value.is_string()) return value.get<std::string>();
    if (auto number = integer(value)) return *number;
    fail(std::string(field), fmt::format("expected an integer or a string, got {}", json_type(value)));
  }

  void read_parameters(const Json& parameters, KernelBuilder& builder) const {
    expect(parameters, Json::value_t::object, "parameters", "an object of parameter names and their values, e.g. {\"block_x\": [32, 64]}");
    for (const auto& [name, values] : parameters.items()) {
      const std::string field = "parameters." + name;
      expect(values, Json::value_t::array, field, "an array of integers or strings");
      std::vector<Value> listed;
      for (std::size_t i = 0; i < values.size(); ++i) listed.push_back(parameter_value(values[i], fmt::format("{}[{}]", field, i)));
      builder.parameter(name, std::move(listed));
    }
  }

  ProblemSize read_problem(const Json& value) const {
    expect(value, Json::value_t::array, "default_problem", "an array of the problem's dimensions, e.g. [4096, 4096]");
    ProblemSize problem;
    for (std::size_t d = 0; d < value.size(); ++d) {
      const auto dimension = integer(value[d]);
      if (!dimension || *dimension < 1) fail(fmt::format("default_problem[{}]", d), "expected a positive integer");
      problem.dims.push_back(*dimension);
    }
    return problem;
  }

  std::string read_default(const Json& value) const {
    expect(value, Json::value_t::object, "default", "an object of parameter values, e.g. {\"block_x\": 32}");
    std::vector<std::pair<std::string, Value>> entries;
    for (const auto& [name, v] : value.items()) entries.emplace_back(name, parameter_value(v, "default." + name));
    return Config(std::move(entries)).to_string();
  }

  void read_grid(const Json& grid, KernelBuilder& builder) const {
    if (grid.is_array()) {
      builder.grid(expression_list(grid, "grid"));
      return;
    }
    expect(grid, Json::value_t::object, "grid", "an array of 1 to 3 expressions or {\"divisors\": [...]}");
    check_keys(grid, "grid", {"divisors"});
    builder.grid_divisors(expression_list(required(grid, "divisors", "grid", "per problem dimension, what one block covers"), "grid.divisors"));
  }

  std::optional<ElementType> element_type(std::string_view name) const {
    for (ElementType type : kElementTypes)
      if (to_string(type) == name) return type;
    return std::nullopt;
  }

  ElementType read_type(const Json& argument, const std::string& path) const {
    const std::string name = string(required(argument, "type", path, "the element type: f32, f64, i32, i64, u32 or u64"), path + ".type");
    if (auto type = element_type(name)) return *type;
    fail(path + ".type", fmt::format("'{}' is not an element type; use f32, f64, i32, i64, u32 or u64", name));
  }

  void read_arguments(const Json& arguments, KernelBuilder& builder) const {
    expect(arguments, Json::value_t::array, "arguments", "an array of buffers and scalars");
    if (arguments.empty()) fail("arguments", "is empty");
    for (std::size_t a = 0; a < arguments.size(); ++a) {
      const std::string path = fmt::format("arguments[{}]", a);
      const Json& argument = arguments[a];
      expect(argument, Json::value_t::object, path, "an object like {\"buffer\": \"a\", ...} or {\"scalar\": \"n\", ...}");
      const int kinds = argument.contains("buffer") + argument.contains("scalar") + argument.contains("constant");
      if (kinds != 1)
        fail(path, "give exactly one of \"buffer\" (a device buffer's name), \"scalar\" (a scalar's name) and \"constant\" "
                   "(a __constant__ variable's name)");
      const bool is_scalar = argument.contains("scalar");
      if (is_scalar) {
        check_keys(argument, path, {"scalar", "type", "value"});
        const Json& value = required(argument, "value", path, "a number or an integer expression for the value, e.g. 0.5 or \"n\"");
        builder.scalar(string(argument["scalar"], path + ".scalar"), read_type(argument, path),
                       value.is_number_float() ? exact_text(value.get<double>()) : expression(value, path + ".value"));
        continue;
      }
      if (argument.contains("constant")) {
        check_keys(argument, path, {"constant", "type", "count", "init", "seed", "value", "values", "file", "low", "high", "mean", "stddev"});
        BufferArgument constant = read_buffer(argument, path, a, "constant");
        constant.constant = true;
        builder.buffer(std::move(constant));
        continue;
      }
      check_keys(argument, path, {"buffer", "type", "count", "init", "seed", "value", "values", "file", "low", "high", "mean", "stddev", "output"});
      builder.buffer(read_buffer(argument, path, a, "buffer"));
    }
  }

  // A buffer, or a constant: `name_key` says which.
  BufferArgument read_buffer(const Json& argument, const std::string& path, std::size_t position, const std::string& name_key) const {
    BufferArgument buffer;
    buffer.name = string(argument[name_key], path + "." + name_key);
    buffer.type = read_type(argument, path);
    buffer.count = expression(required(argument, "count", path, "the number of elements, an expression over the problem dimensions"), path + ".count");
    const std::string init = argument.contains("init") ? string(argument["init"], path + ".init") : "random";
    // Each initialisation takes its own fields and no other's.
    struct Kind {
      BufferArgument::Init init;
      std::vector<std::string> fields;
    };
    const std::map<std::string, Kind> kinds = {{"random", {BufferArgument::Init::random, {"seed"}}},
                                               {"uniform", {BufferArgument::Init::uniform, {"low", "high", "seed"}}},
                                               {"normal", {BufferArgument::Init::normal, {"mean", "stddev", "seed"}}},
                                               {"constant", {BufferArgument::Init::constant, {"value"}}},
                                               {"values", {BufferArgument::Init::values, {"values"}}},
                                               {"iota", {BufferArgument::Init::iota, {}}},
                                               {"file", {BufferArgument::Init::file, {"file"}}}};
    const auto kind = kinds.find(init);
    if (kind == kinds.end()) fail(path + ".init", fmt::format("'{}' is not random, uniform, normal, constant, values, iota or file", init));
    buffer.init = kind->second.init;
    for (const auto& [name, other] : kinds)
      for (const std::string& field : other.fields)
        if (argument.contains(field) && std::ranges::find(kind->second.fields, field) == kind->second.fields.end())
          fail(path + "." + field, fmt::format("is not used with \"init\": \"{}\"", init));
    // Distinct random contents per buffer unless a seed is given.
    if (std::ranges::find(kind->second.fields, "seed") != kind->second.fields.end()) buffer.seed = position + 1;
    if (argument.contains("seed")) {
      const Json& seed = argument["seed"];
      if (!seed.is_number_integer() || (!seed.is_number_unsigned() && seed.get<std::int64_t>() < 0))
        fail(path + ".seed", fmt::format("expected a non-negative integer, got {}", json_type(seed)));
      buffer.seed = seed.get<std::uint64_t>();
    }
    const auto optional_number = [&](const char* name, double fallback) {
      return argument.contains(name) ? number(argument[name], path + "." + name) : fallback;
    };
    switch (buffer.init) {
      case BufferArgument::Init::random: case BufferArgument::Init::iota: break;
      case BufferArgument::Init::uniform:
        buffer.low = optional_number("low", 0), buffer.high = optional_number("high", 1);
        if (!(buffer.low < buffer.high)) fail(path + ".high", fmt::format("{} is not above low ({})", buffer.high, buffer.low));
        break;
      case BufferArgument::Init::normal:
        buffer.mean = optional_number("mean", 0), buffer.stddev = optional_number("stddev", 1);
        if (!(buffer.stddev >= 0)) fail(path + ".stddev", fmt::format("{} is negative", buffer.stddev));
        break;
      case BufferArgument::Init::constant:
        buffer.value = number(required(argument, "value", path, "the value of every element"), path + ".value");
        break;
      case BufferArgument::Init::values: {
        const Json& values = required(argument, "values", path, "the elements' values");
        expect(values, Json::value_t::array, path + ".values", "an array of numbers");
        for (std::size_t i = 0; i < values.size(); ++i) buffer.values.push_back(number(values[i], fmt::format("{}.values[{}]", path, i)));
        break;
      }
      case BufferArgument::Init::file:
        buffer.file = resolve(string(required(argument, "file", path, "a file of raw elements"), path + ".file")).string();
        break;
    }
    if (argument.contains("output")) {
      expect(argument["output"], Json::value_t::boolean, path + ".output", "true or false");
      buffer.output = argument["output"].get<bool>();
    }
    return buffer;
  }

  void read_objective(const Json& objective, KernelBuilder& builder) const {
    if (objective.is_string()) {
      if (objective.get<std::string>() != "time") fail("objective", "a string objective must be \"time\"; derived metrics are objects like {\"metric\": \"GB/s\", \"bytes_moved\": \"...\"}");
      return;
    }
    expect(objective, Json::value_t::object, "objective", "\"time\" or an object like {\"metric\": \"GFLOP/s\", \"flops\": \"2 * m * n * k\"}");
    check_keys(objective, "objective", {"metric", "bytes_moved", "flops"});
    const std::string metric = string(required(objective, "metric", "objective", "time, GB/s or GFLOP/s"), "objective.metric");
    const Json* bytes = find(objective, "bytes_moved");
    const Json* flops = find(objective, "flops");
    if (metric == "time") {
      if (bytes || flops) fail("objective", "metric time takes neither bytes_moved nor flops");
    } else if (metric == "GB/s") {
      if (!bytes) fail("objective.bytes_moved", "missing; required by metric GB/s: the bytes one run reads and writes");
    } else if (metric == "GFLOP/s") {
      if (!flops) fail("objective.flops", "missing; required by metric GFLOP/s: the floating-point operations of one run");
      // The tuner reports GB/s whenever bytes_moved is set.
      if (bytes) fail("objective.bytes_moved", "not allowed with metric GFLOP/s, which it would override");
    } else {
      fail("objective.metric", fmt::format("'{}' is not time, GB/s or GFLOP/s", metric));
    }
    if (bytes) builder.bytes_moved(expression(*bytes, "objective.bytes_moved"));
    if (flops) builder.flops(expression(*flops, "objective.flops"));
  }

  void read_work(const Json& work, KernelBuilder& builder) const {
    expect(work, Json::value_t::object, "work", "an object of counts for the execution-time model, e.g. {\"l2_bytes\": \"...\"}");
    std::vector<std::string_view> names;
    for (const WorkField& field : kWorkFields) names.push_back(field.name);
    check_keys(work, "work", names);
    WorkExpressions expressions;
    for (const WorkField& field : kWorkFields)
      if (const Json* value = find(work, field.name)) expressions.*field.expression = expression(*value, fmt::format("work.{}", field.name));
    builder.work(std::move(expressions));
  }

  void read_time_steps(const Json& steps, KernelBuilder& builder) const {
    expect(steps, Json::value_t::object, "time_steps",
           "an object like {\"per_launch\": \"fused_steps\", \"input\": \"in\", \"output\": \"out\"}");
    check_keys(steps, "time_steps", {"per_launch", "input", "output"});
    const std::string per_launch =
        find(steps, "per_launch") ? expression(*find(steps, "per_launch"), "time_steps.per_launch") : std::string("1");
    builder.time_steps(per_launch,
                       string(required(steps, "input", "time_steps", "the buffer each launch reads the last step from"), "time_steps.input"),
                       string(required(steps, "output", "time_steps", "the buffer each launch writes its last step to"), "time_steps.output"));
  }

  void read_verify(const Json& verify, KernelBuilder& builder) const {
    expect(verify, Json::value_t::object, "verify", "an object");
    check_keys(verify, "verify", {"tolerance", "reference_kernel", "reference_files", "reference_key"});
    if (const Json* tolerance = find(verify, "tolerance")) builder.tolerance(number(*tolerance, "verify.tolerance"));
    if (const Json* key = find(verify, "reference_key")) builder.reference_key(expression(*key, "verify.reference_key"));
    if (const Json* files = find(verify, "reference_files")) {
      expect(*files, Json::value_t::object, "verify.reference_files", "an object of output buffer names and files");
      if (files->empty()) fail("verify.reference_files", "is empty");
      for (const auto& [output, file] : files->items())
        builder.reference_file(output, resolve(string(file, "verify.reference_files." + output)));
    }
    if (const Json* reference = find(verify, "reference_kernel")) {
      const std::string path = "verify.reference_kernel";
      expect(*reference, Json::value_t::object, path, "an object");
      check_keys(*reference, path, {"entry", "sources", "block", "grid", "dynamic_smem", "options"});
      ReferenceLaunch launch;
      launch.entry = string(required(*reference, "entry", path, "the reference kernel's name expression"), path + ".entry");
      launch.block = expression_list(required(*reference, "block", path, "the reference kernel's block"), path + ".block");
      launch.grid = expression_list(required(*reference, "grid", path, "the reference kernel's grid"), path + ".grid");
      if (const Json* smem = find(*reference, "dynamic_smem")) launch.dynamic_smem = expression(*smem, path + ".dynamic_smem");
      if (const Json* sources = find(*reference, "sources"))
        for (const std::string& file : string_list(*sources, path + ".sources", true)) launch.source_files.push_back(resolve(file));
      if (const Json* options = find(*reference, "options")) launch.options = string_list(*options, path + ".options", false);
      builder.reference_kernel(std::move(launch));
    }
  }

  std::string origin_;
  std::filesystem::path base_dir_;
};

}  // namespace

KernelDescription parse_spec(std::string_view json_text, const std::filesystem::path& base_dir, std::string_view file_name) {
  return SpecReader(std::string(file_name), base_dir).read(json_text);
}

KernelDescription load_spec(const std::filesystem::path& file) {
  return parse_spec(read_file(file, file.string(), "(file)"), file.parent_path(), file.string());
}

}  // namespace blocktune
