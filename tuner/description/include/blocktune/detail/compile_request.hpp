// What NVRTC is asked to compile for one configuration: the output of
// resolving it (resolve.hpp). CUDA-free; the compiler is compiler.hpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace blocktune {

// One kernel source with one configuration's defines, for one architecture.
struct CompileRequest {
  std::string source;       // CUDA C++ source text
  std::string source_name;  // shown in compiler messages, e.g. "stencil3d.cu"
  std::string kernel;       // name expression: "stencil<4, float>" or an extern "C" name
  std::vector<std::pair<std::string, std::string>> defines;  // passed as -DNAME=VALUE
  std::vector<std::string> options;                          // further NVRTC options
  std::string arch;         // "sm_90"

  // Everything that determines the compiler's output, as one text (the cache
  // key): NVRTC's version too, so it is defined by the CUDA layer (compiler.cpp).
  std::string identity() const;
};

}  // namespace blocktune
