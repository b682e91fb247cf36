#include <blocktune/kernels.hpp>

#include <fmt/format.h>

namespace blocktune {

extern const char* const kFaultsSource;  // faults.cu, embedded at build time

KernelDescription faults() {
  KernelDescription k;
  k.name = "faults";
  k.origin = "builtin:faults";
  k.summary = "test kernel: out = 2 * in, with variants that fault, hang, mis-compute or do not compile";
  k.source = kFaultsSource;
  k.source_name = "faults.cu";
  k.entry = "faults";
  k.problem_names = {"n"};
  std::vector<Value> modes;
  for (const char* mode : {"GOOD", "SLOW", "OOB_WRITE", "MISALIGNED", "TRAP", "SPIN", "WRONG", "NO_COMPILE", "BIG_SMEM"})
    modes.emplace_back(std::string(mode));
  k.space.add_parameter({"mode", modes});
  k.space.add_parameter({"block_x", {64, 256}});
  k.block = {"block_x", "1", "1"};
  k.grid = {"ceil_div(n, block_x)", "1", "1"};
  k.dynamic_smem = R"(mode == "BIG_SMEM" ? 1048576 : 0)";
  k.arguments = {BufferArgument{.name = "in", .count = "n", .seed = 7},
                 BufferArgument{.name = "out", .count = "n", .seed = 8, .output = true},
                 ScalarArgument{"n", ElementType::i32, "n"}};
  k.default_config = "mode=GOOD,block_x=256";
  k.bytes_moved = "8 * n";
  k.reference = [](const ProblemSize&, const Config&, std::vector<HostBuffer>& buffers) {
    const auto in = buffers[0].as<const float>();
    auto out = buffers[1].as<float>();
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = 2.0f * in[i];
  };
  return k;
}

}  // namespace blocktune
