// Tuning spec files: a KernelDescription written down as JSON, so that users
// tune their own kernels exactly as the built-in ones. The format is described
// in docs/specs.md and docs/spec-schema.json.
//
//   const blocktune::KernelDescription kernel = blocktune::load_spec("matmul/spec.json");
//
// Every mistake is one SpecError naming the file, the field and what is wrong:
//   matmul/spec.json: grid[1]: 'ceil_div(m, tile_q)' names 'tile_q', which is not a parameter (...)
#pragma once

#include <blocktune/detail/kernel.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

class SpecError : public std::runtime_error {
 public:
  // `origin` is the spec file (or "KernelBuilder 'name'"), `field` a path such
  // as "arguments[2].count", `problem` what is wrong with it.
  SpecError(std::string origin, std::string field, std::string problem);

  const std::string& origin() const { return origin_; }
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string origin_, field_, problem_;
};

// Reads and checks a spec file; paths inside it are relative to its folder.
// Throws SpecError.
KernelDescription load_spec(const std::filesystem::path& file);

// The same from text in memory: files the spec names are read relative to
// `base_dir`, and messages name `file_name` as the origin. Throws SpecError.
KernelDescription parse_spec(std::string_view json_text, const std::filesystem::path& base_dir, std::string_view file_name);

// The checks every description from a spec file or a KernelBuilder passes,
// all without a GPU: expressions parse and name only parameters, problem
// dimensions and device variables; the entry names a kernel of the source;
// files exist; some configuration satisfies the constraints with the limits
// of some architecture profile. Puts default_config in canonical form, and
// when it is empty makes it the first configuration that satisfies the
// constraints. Throws SpecError naming `origin` and the field in spec terms.
void validate(KernelDescription& kernel, std::string_view origin);

// Throws std::invalid_argument unless `problem` has one dimension per name in
// kernel.problem_names: "kernel transpose takes a problem of 2 dimensions (nx x ny), got 512x512x512".
void check_problem(const KernelDescription& kernel, const ProblemSize& problem);

// A kernel's source files joined in order. With several, each follows a
// `#line 1 "file"` directive so that compiler messages name the right file;
// `name` is the first file's name. Throws SpecError naming `origin` and
// "FIELD[i]" for a file that is missing or unreadable.
struct SourceText {
  std::string text, name;
};
SourceText read_sources(const std::vector<std::filesystem::path>& files, std::string_view origin, std::string_view field);

// Names an expression may use for the device it runs on (see environment()).
const std::vector<std::string>& device_variable_names();

// The longest expression a description may hold. The expression parser
// recurses once per nesting level; this bound keeps any input off the stack's end.
inline constexpr std::size_t kMaxExpressionLength = 2000;

}  // namespace blocktune
