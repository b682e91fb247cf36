// Shared by the spec tests: where their files are, and a scratch folder.
#pragma once

#include "temp_dir.hpp"

#include <blocktune/detail/compiler.hpp>
#include <blocktune/spec.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

namespace blocktune::test {

inline const std::filesystem::path kSpecData = std::filesystem::path(BLOCKTUNE_TEST_DATA_DIR) / "spec";
inline const std::filesystem::path kExampleSpecs = std::filesystem::path(BLOCKTUNE_SOURCE_DIR) / "examples" / "specs";

using ScratchDir = TempDir;

using Json = nlohmann::ordered_json;

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The smallest valid spec: a kernel of tests/data/spec/extra.cu.
inline Json minimal_spec() {
  return Json::parse(R"({
    "name": "minimal",
    "sources": ["extra.cu"],
    "entry": "scale_reference",
    "problem": ["n"],
    "parameters": {"block_x": [32, 64]},
    "block": ["block_x"],
    "grid": {"divisors": ["block_x"]},
    "arguments": [
      {"buffer": "out", "type": "f32", "count": "n", "output": true},
      {"buffer": "in", "type": "f32", "count": "n"},
      {"scalar": "n", "type": "i64", "value": "n"}
    ]
  })");
}

template <typename Range>
std::string joined(const Range& range, std::string_view separator) {
  return fmt::format("{}", fmt::join(range, separator));
}

// Every field of a description as text, one per line, for comparing two
// descriptions with a readable difference. The host reference function is
// shown only as present or absent.
inline std::string dump(const KernelDescription& k) {
  std::string text;
  const auto line = [&](std::string_view field, const auto&... values) {
    text += std::string(field) + ":";
    ((text += " " + fmt::format("{}", values)), ...);
    text += "\n";
  };
  line("name", k.name);
  line("summary", k.summary);
  line("source", k.source_name, content_hash(k.source));
  line("entry", k.entry);
  line("options", joined(k.options, " | "));
  for (const Parameter& p : k.space.parameters()) {
    std::vector<std::string> values;
    for (const Value& v : p.values) values.push_back(to_string(v));
    line("parameter", p.name, joined(values, " "));
  }
  for (const Expression& c : k.space.constraints()) line("constraint", c.text());
  line("defines", joined(k.defines, " "));
  line("problem", joined(k.problem_names, " "));
  line("block", joined(k.block, " | "));
  line("grid", joined(k.grid, " | "));
  line("dynamic_smem", k.dynamic_smem);
  line("carveout", k.carveout);
  for (const Argument& argument : k.arguments) {
    if (const auto* b = std::get_if<BufferArgument>(&argument))
      line("buffer", b->name, to_string(b->type), b->count, static_cast<int>(b->init), b->value, joined(b->values, " "), b->file,
           b->seed, b->output);
    else
      line("scalar", std::get<ScalarArgument>(argument).name, to_string(std::get<ScalarArgument>(argument).type),
           std::get<ScalarArgument>(argument).value);
  }
  line("default", k.default_config);
  line("bytes_moved", k.bytes_moved);
  line("flops", k.flops);
  line("reference_function", static_cast<bool>(k.reference));
  if (const auto& r = k.reference_kernel)
    line("reference_kernel", r->source_name, content_hash(r->source), r->entry, joined(r->options, " | "), joined(r->block, " | "),
         joined(r->grid, " | "), r->dynamic_smem);
  for (const auto& [output, file] : k.reference_files) line("reference_file", output, file);
  line("reference_key", k.reference_key);
  line("time_steps", k.steps_per_launch, k.step_input, k.step_output);
  line("tolerance", k.tolerance);
  return text;
}

// A spec read from JSON in memory, its files relative to tests/data/spec.
inline KernelDescription from_json(const Json& spec) { return parse_spec(spec.dump(), kSpecData, "test.json"); }

}  // namespace blocktune::test
