#include "t1.hpp"

#include <blocktune/detail/expression.hpp>
#include <blocktune/spec.hpp>

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <optional>
#include <stdexcept>

namespace blocktune::detail {
namespace {

using Json = nlohmann::ordered_json;

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Positions of `token` in `text` outside brackets and quotes; a word token
// (for, in, if) must stand as a whole word.
std::vector<std::size_t> top_level(std::string_view text, std::string_view token) {
  std::vector<std::size_t> found;
  int depth = 0;
  char quote = 0;
  const bool word = is_word_char(token.front());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if (depth == 0 && text.substr(i).starts_with(token) &&
             (!word || ((i == 0 || !is_word_char(text[i - 1])) && (i + token.size() == text.size() || !is_word_char(text[i + token.size()])))))
      found.push_back(i);
  }
  return found;
}

std::vector<std::string_view> split(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t at : top_level(text, separator)) {
    parts.push_back(trim(text.substr(start, at - start)));
    start = at + separator.size();
  }
  parts.push_back(trim(text.substr(start)));
  return parts;
}

// `text` is `open` ... `close` with the two brackets matching each other.
std::optional<std::string_view> enclosed(std::string_view text, std::string_view open, char close) {
  if (!text.starts_with(open) || text.empty() || text.back() != close) return std::nullopt;
  std::string_view inner = text.substr(open.size(), text.size() - open.size() - 1);
  int depth = 0;
  for (const char c : inner) {
    depth += (c == '(' || c == '[') - (c == ')' || c == ']');
    if (depth < 0) return std::nullopt;  // "[1] + [2]": the first ']' closes the first '['
  }
  return inner;
}

class ListEvaluator {
 public:
  std::vector<Json> list(std::string_view text, const Lookup& names) const {
    text = trim(text);
    const auto terms = split(text, "+");
    if (terms.size() > 1 && std::ranges::all_of(terms, [](std::string_view t) { return is_list_term(t); })) {
      std::vector<Json> joined;
      for (std::string_view term : terms)
        for (Json& value : list(term, names)) joined.push_back(std::move(value));
      return joined;
    }
    if (const auto inner = enclosed(text, "list(", ')')) return list(*inner, names);
    if (const auto inner = enclosed(text, "range(", ')')) return range(*inner, names);
    if (const auto inner = enclosed(text, "[", ']')) return brackets(*inner, names);
    throw std::invalid_argument(fmt::format("'{}' is not a list: expected [...], range(...), list(...) or a sum of them", text));
  }

 private:
  static bool is_list_term(std::string_view term) {
    return term.starts_with('[') || term.starts_with("range(") || term.starts_with("list(");
  }

  std::vector<Json> range(std::string_view arguments, const Lookup& names) const {
    std::vector<std::int64_t> a;
    for (std::string_view argument : split(arguments, ",")) a.push_back(Expression::parse(argument).evaluate_int(names));
    if (a.empty() || a.size() > 3) throw std::invalid_argument(fmt::format("range({}) takes 1 to 3 arguments", arguments));
    const std::int64_t start = a.size() == 1 ? 0 : a[0], stop = a.size() == 1 ? a[0] : a[1], step = a.size() == 3 ? a[2] : 1;
    if (step == 0) throw std::invalid_argument(fmt::format("range({}) has a step of 0", arguments));
    if ((stop - start) / step > kMaxValues) throw std::invalid_argument(fmt::format("range({}) has more than {} values", arguments, kMaxValues));
    std::vector<Json> values;
    for (std::int64_t v = start; step > 0 ? v < stop : v > stop; v += step) values.emplace_back(v);
    return values;
  }

  std::vector<Json> brackets(std::string_view inner, const Lookup& names) const {
    if (trim(inner).empty()) return {};
    const auto for_at = top_level(inner, "for");
    if (for_at.empty()) {
      std::vector<Json> values;
      for (std::string_view item : split(inner, ",")) values.push_back(scalar(item, names));
      return values;
    }
    // [expression for name in iterable (if condition)]
    const std::string_view expression = trim(inner.substr(0, for_at.front()));
    const std::string_view rest = inner.substr(for_at.front() + 3);
    const auto in_at = top_level(rest, "in");
    if (in_at.empty()) throw std::invalid_argument(fmt::format("'[{}]' has 'for' without 'in'", inner));
    const std::string name(trim(rest.substr(0, in_at.front())));
    std::string_view iterable = rest.substr(in_at.front() + 2);
    std::optional<std::string_view> condition;
    if (const auto if_at = top_level(iterable, "if"); !if_at.empty()) {
      condition = iterable.substr(if_at.front() + 2);
      iterable = iterable.substr(0, if_at.front());
    }
    std::vector<Json> values;
    for (const Json& element : list(iterable, names)) {
      const Value bound = element.is_string() ? Value{element.get<std::string>()} : Value{element.get<std::int64_t>()};
      const Lookup with_name = [&](std::string_view variable) -> std::optional<Value> {
        if (variable == name) return bound;
        return names ? names(variable) : std::nullopt;
      };
      if (condition && !Expression::parse(*condition).evaluate_bool(with_name)) continue;
      values.push_back(scalar(expression, with_name));
    }
    return values;
  }

  static Json scalar(std::string_view text, const Lookup& names) {
    const Value value = Expression::parse(text).evaluate(names);
    if (const auto* number = std::get_if<std::int64_t>(&value)) return *number;
    return std::get<std::string>(value);
  }

  static constexpr std::int64_t kMaxValues = 1'000'000;
};

// T1's type names and blocktune's element types.
std::optional<std::string> element_type(std::string_view t1_type) {
  static const std::map<std::string_view, std::string_view> types = {
      {"float", "f32"},   {"float32", "f32"}, {"double", "f64"},         {"float64", "f64"},
      {"int", "i32"},     {"int32", "i32"},   {"int64", "i64"},          {"long", "i64"},
      {"uint", "u32"},    {"uint32", "u32"},  {"unsigned int", "u32"},   {"uint64", "u64"},
  };
  const auto found = types.find(t1_type);
  return found == types.end() ? std::nullopt : std::optional<std::string>(found->second);
}

class Translator {
 public:
  Translator(const Json& t1, std::filesystem::path dir, std::string origin) : t1_(t1), dir_(std::move(dir)), origin_(std::move(origin)) {}

  Json spec() const {
    const Json& kernel = required(t1_, "KernelSpecification", "");
    const Json& space = required(t1_, "ConfigurationSpace", "");
    if (const Json* language = find(kernel, "Language"); language && text(*language, "KernelSpecification.Language") != "CUDA")
      fail("KernelSpecification.Language", fmt::format("'{}': blocktune tunes CUDA kernels", language->get<std::string>()));

    Json spec;
    spec["name"] = name();
    spec["summary"] = fmt::format("from the T1 file {}", std::filesystem::path(origin_).filename().string());
    const std::string file = text(required(kernel, "KernelFile", "KernelSpecification"), "KernelSpecification.KernelFile");
    spec["sources"] = Json::array({(dir_ / file).lexically_normal().string()});
    spec["entry"] = text(required(kernel, "KernelName", "KernelSpecification"), "KernelSpecification.KernelName");
    const Json problem = problem_size(kernel);
    std::vector<std::string> dims = {"nx", "ny", "nz"};
    dims.resize(problem.size());
    spec["problem"] = dims;
    spec["default_problem"] = problem;
    spec["define_names"] = "as-is";
    spec["parameters"] = parameters(space);
    // The problem a T1 file describes: --problem may not change it.
    Json constraints = Json::array();
    for (std::size_t d = 0; d < dims.size(); ++d) constraints.push_back(fmt::format("{} == {}", dims[d], problem[d].get<std::int64_t>()));
    if (const Json* conditions = find(space, "Conditions")) {
      expect_array(*conditions, "ConfigurationSpace.Conditions");
      for (std::size_t c = 0; c < conditions->size(); ++c) {
        const std::string field = fmt::format("ConfigurationSpace.Conditions[{}]", c);
        constraints.push_back(text(required((*conditions)[c], "Expression", field), field + ".Expression"));
      }
    }
    spec["constraints"] = constraints;
    if (Json defaults = default_values(space, spec["parameters"]); !defaults.empty()) spec["default"] = defaults;
    launch(kernel, spec);
    spec["arguments"] = arguments(kernel);
    return spec;
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const { throw SpecError(origin_, field, problem); }

  static const Json* find(const Json& object, std::string_view key) {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  const Json& required(const Json& object, std::string_view key, const std::string& path) const {
    if (!object.is_object()) fail(path.empty() ? "(top level)" : path, "expected an object");
    if (const Json* value = find(object, key)) return *value;
    fail(path.empty() ? std::string(key) : path + "." + std::string(key), "missing; a T1 file gives it");
  }

  std::string text(const Json& value, const std::string& field) const {
    if (!value.is_string()) fail(field, "expected a string");
    return value.get<std::string>();
  }

  void expect_array(const Json& value, const std::string& field) const {
    if (!value.is_array()) fail(field, "expected an array");
  }

  std::string name() const {
    const Json* general = find(t1_, "General");
    const Json* named = general ? find(*general, "BenchmarkName") : nullptr;
    if (!named) named = find(required(t1_, "KernelSpecification", ""), "BenchmarkName");
    std::string name = named && named->is_string() ? named->get<std::string>() : std::filesystem::path(origin_).stem().string();
    for (char& c : name)
      if (!is_word_char(c) && c != '-' && c != '.') c = '_';
    return name;
  }

  Json problem_size(const Json& kernel) const {
    const Json& problem = required(kernel, "ProblemSize", "KernelSpecification");
    if (!problem.is_array() || problem.empty() || problem.size() > 3 ||
        !std::ranges::all_of(problem, [](const Json& d) { return d.is_number_integer() && d.get<std::int64_t>() > 0; }))
      fail("KernelSpecification.ProblemSize", "expected 1 to 3 positive integers");
    return problem;
  }

  Json parameters(const Json& space) const {
    const Json& list = required(space, "TuningParameters", "ConfigurationSpace");
    expect_array(list, "ConfigurationSpace.TuningParameters");
    Json parameters = Json::object();
    for (std::size_t p = 0; p < list.size(); ++p) {
      const std::string field = fmt::format("ConfigurationSpace.TuningParameters[{}]", p);
      const std::string name = text(required(list[p], "Name", field), field + ".Name");
      if (const Json* type = find(list[p], "Type"); type && type->is_string() && type->get<std::string>() != "int" &&
                                                    type->get<std::string>() != "string")
        fail(field + ".Type", fmt::format("'{}': blocktune's parameters are integers or strings", type->get<std::string>()));
      const Json& values = required(list[p], "Values", field);
      try {
        parameters[name] = values.is_string() ? Json(ListEvaluator().list(values.get<std::string>(), {})) : values;
      } catch (const std::exception& error) {
        fail(field + ".Values", error.what());
      }
    }
    return parameters;
  }

  // Every parameter's Default, where each is one of its values; otherwise
  // none (blocktune then takes the first valid configuration).
  Json default_values(const Json& space, const Json& parameters) const {
    Json defaults = Json::object();
    for (const Json& parameter : space["TuningParameters"]) {
      const Json* value = find(parameter, "Default");
      const auto& values = parameters[parameter["Name"].get<std::string>()];
      if (!value || std::ranges::find(values, *value) == values.end()) return Json::object();
      defaults[parameter["Name"].get<std::string>()] = *value;
    }
    return defaults;
  }

  // Block, grid and shared memory as Kernel Tuner computes them: the grid is
  // the global size divided by the product of GridDiv's parameters, or, with
  // none given, by the block ("OpenCL" global sizes count threads).
  void launch(const Json& kernel, Json& spec) const {
    const Json& local = required(kernel, "LocalSize", "KernelSpecification");
    const Json& global = required(kernel, "GlobalSize", "KernelSpecification");
    const std::string type = find(kernel, "GlobalSizeType") ? text(kernel["GlobalSizeType"], "KernelSpecification.GlobalSizeType") : "OpenCL";
    if (type != "OpenCL" && type != "CUDA")
      fail("KernelSpecification.GlobalSizeType", fmt::format("'{}' is not OpenCL or CUDA", type));
    Json block = Json::array(), grid = Json::array();
    const std::vector<std::string> parameter_names = [&] {
      std::vector<std::string> names;
      for (const auto& [name, values] : spec["parameters"].items()) names.push_back(name);
      return names;
    }();
    for (const char* axis : {"X", "Y", "Z"}) {
      const std::string local_size = dimension(local, axis, "KernelSpecification.LocalSize");
      const std::string global_size = dimension(global, axis, "KernelSpecification.GlobalSize");
      block.push_back(local_size);
      const std::string div_field = fmt::format("GridDiv{}", axis);
      if (const Json* divisors = find(kernel, div_field)) {
        expect_array(*divisors, "KernelSpecification." + div_field);
        std::string product;
        for (const Json& d : *divisors) product += (product.empty() ? "" : " * ") + text(d, "KernelSpecification." + div_field);
        grid.push_back(product.empty() ? global_size : fmt::format("ceil_div({}, {})", global_size, product));
      } else {
        grid.push_back(type == "CUDA" ? global_size : fmt::format("ceil_div({}, {})", global_size, local_size));
      }
      // Kernel Tuner defines block_size_x/y/z for every kernel; a constant block dimension still reaches the source.
      const std::string macro = fmt::format("block_size_{}", static_cast<char>(std::tolower(axis[0])));
      if (std::ranges::find(parameter_names, macro) == parameter_names.end() && local_size != macro)
        spec["options"].push_back(fmt::format("-D{}={}", macro, local_size));
    }
    spec["options"].push_back("-Dkernel_tuner=1");  // as Kernel Tuner compiles: kernels use it to skip their own defaults
    if (const Json* options = find(kernel, "CompilerOptions")) {
      expect_array(*options, "KernelSpecification.CompilerOptions");
      for (const Json& option : *options) spec["options"].push_back(text(option, "KernelSpecification.CompilerOptions"));
    }
    spec["block"] = block;
    spec["grid"] = grid;
    if (const Json* shared = find(kernel, "SharedMemory"); shared && !(shared->is_number() && shared->get<double>() == 0))
      spec["dynamic_smem"] = shared->is_string() ? *shared : Json(shared->get<std::int64_t>());
  }

  std::string dimension(const Json& size, const char* axis, const std::string& field) const {
    if (!size.is_object()) fail(field, "expected an object with X, Y and Z");
    const Json* value = find(size, axis);
    if (!value) return "1";
    if (value->is_number_integer()) return std::to_string(value->get<std::int64_t>());
    return text(*value, field + "." + axis);
  }

  Json arguments(const Json& kernel) const {
    const Json& list = required(kernel, "Arguments", "KernelSpecification");
    expect_array(list, "KernelSpecification.Arguments");
    Json arguments = Json::array();
    bool any_output = false;
    for (std::size_t a = 0; a < list.size(); ++a) {
      const std::string field = fmt::format("KernelSpecification.Arguments[{}]", a);
      const Json& t1 = list[a];
      const std::string name = text(required(t1, "Name", field), field + ".Name");
      const std::string t1_type = text(required(t1, "Type", field), field + ".Type");
      const auto type = element_type(t1_type);
      if (!type) fail(field + ".Type", fmt::format("'{}' is not a type blocktune passes (float, double, int32, int64, uint32, uint64)", t1_type));
      const std::string memory = find(t1, "MemoryType") ? text(t1["MemoryType"], field + ".MemoryType") : "Vector";
      const Json* fill = find(t1, "FillValue");
      if (memory == "Scalar") {
        if (!fill || !fill->is_number()) fail(field + ".FillValue", "a scalar needs a numeric FillValue");
        arguments.push_back({{"scalar", name}, {"type", *type}, {"value", *fill}});
        continue;
      }
      if (memory != "Vector") fail(field + ".MemoryType", fmt::format("'{}' is not Vector or Scalar", memory));
      Json buffer = {{"buffer", name}, {"type", *type}, {"count", required(t1, "Size", field)}};
      const std::string fill_type = find(t1, "FillType") ? text(t1["FillType"], field + ".FillType") : "Random";
      const double fill_value = fill && fill->is_number() ? fill->get<double>() : 0;
      if (fill_type == "Random") {
        // Uniform in [0, FillValue), [0, 1) without one.
        buffer["init"] = "uniform";
        buffer["low"] = 0;
        buffer["high"] = fill_value > 0 ? fill_value : 1.0;
      } else if (fill_type == "Constant") {
        buffer["init"] = "constant";
        buffer["value"] = fill_value;
      } else if (fill_type == "BinaryRaw" || fill_type == "File") {
        const Json* path = find(t1, "DataSource");
        if (!path) path = find(t1, "FillValue");
        if (!path || !path->is_string()) fail(field + ".DataSource", "a file fill needs the file's path");
        buffer["init"] = "file";
        buffer["file"] = (dir_ / path->get<std::string>()).lexically_normal().string();
      } else {
        fail(field + ".FillType", fmt::format("'{}' is not Random, Constant or BinaryRaw", fill_type));
      }
      if (const Json* output = find(t1, "Output"); output && (output->is_boolean() ? output->get<bool>() : output->is_number() && output->get<int>() != 0)) {
        buffer["output"] = true;
        any_output = true;
      }
      arguments.push_back(buffer);
    }
    if (!any_output) fail("KernelSpecification.Arguments", "no argument has \"Output\": 1; blocktune checks every configuration's outputs");
    return arguments;
  }

  const Json& t1_;
  std::filesystem::path dir_;
  std::string origin_;
};

}  // namespace

bool is_t1(const Json& document) { return document.is_object() && document.contains("KernelSpecification"); }

Json t1_to_spec(const Json& t1, const std::filesystem::path& t1_dir, const std::string& origin) {
  return Translator(t1, t1_dir, origin).spec();
}

std::vector<Json> python_list(std::string_view text) { return ListEvaluator().list(text, {}); }

}  // namespace blocktune::detail
