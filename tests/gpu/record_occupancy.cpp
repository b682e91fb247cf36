// Records occupancy vectors on a real GPU: for generated kernels of varied
// register and static shared-memory use, the driver's
// cuOccupancyMaxActiveBlocksPerMultiprocessor over block sizes, dynamic shared
// memory and carveouts. The CPU test replays them through cuda_occupancy.h.
//
//   record_occupancy OUTPUT.csv [GPU]
#include <blocktune/detail/compiler.hpp>
#include <blocktune/detail/gpu.hpp>
#include <blocktune/occupancy.hpp>

#include <fmt/format.h>
#include <fstream>

#include <cstdio>
#include <string>
#include <vector>

using namespace blocktune;

namespace {

// Live accumulators drive register use; -maxrregcount caps it; SMEM_BYTES sets static shared memory.
constexpr const char* kSource = R"(
extern "C" __global__ void pressure(float* data, int n) {
#if SMEM_BYTES > 0
  __shared__ float tile[SMEM_BYTES / 4];
#endif
  float acc[ACC];
#pragma unroll
  for (int i = 0; i < ACC; ++i) acc[i] = data[(threadIdx.x + i * 97) % n];
  for (int step = 0; step < n; ++step) {
#pragma unroll
    for (int i = 0; i < ACC; ++i) acc[i] = acc[i] * acc[(i + 1) % ACC] + data[(i + step) % n];
  }
  float sum = 0;
#pragma unroll
  for (int i = 0; i < ACC; ++i) sum += acc[i];
#if SMEM_BYTES > 0
  tile[threadIdx.x % (SMEM_BYTES / 4)] = sum;
  __syncthreads();
  sum += tile[(threadIdx.x + 1) % (SMEM_BYTES / 4)];
#endif
  data[threadIdx.x] = sum;
}
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: record_occupancy OUTPUT.csv [GPU]\n");
    return 2;
  }
  const int ordinal = argc > 2 ? std::atoi(argv[2]) : 0;
  if (!Driver::available()) {
    std::printf("SKIPPED: no GPU (%s)\n", Driver::unavailable_reason().c_str());
    return 77;
  }
  try {
    GpuContext context(ordinal);
    const DeviceInfo& device = context.device();
    const VariantCompiler compiler(std::nullopt);
    std::ofstream out(argv[1]);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", argv[1]));
    out << fmt::format("# occupancy vectors recorded with cuOccupancyMaxActiveBlocksPerMultiprocessor on {} ({}), driver {}, {} SMs\n",
              device.name, device.arch(), device.driver_version, device.sm_count);
    out << fmt::format("# device: shared_per_sm={} shared_per_block={} shared_per_block_optin={} reserved_shared_per_block={} "
              "registers_per_sm={} registers_per_block={} max_threads_per_block={} max_threads_per_sm={} max_blocks_per_sm={}\n",
              device.shared_per_sm, device.shared_per_block, device.shared_per_block_optin, device.reserved_shared_per_block,
              device.registers_per_sm, device.registers_per_block, device.max_threads_per_block, device.max_threads_per_sm,
              device.max_blocks_per_sm);
    out << fmt::format("ptxas_registers,driver_registers,static_smem,barriers,block,dynamic_smem,carveout,max_dynamic_smem,driver_blocks\n");

    const std::vector<std::pair<int, int>> pressure = {{4, 16}, {8, 24}, {12, 32}, {16, 40}, {24, 48}, {32, 56}, {40, 64},
                                                       {56, 80}, {64, 96}, {96, 128}, {128, 168}, {160, 200}, {200, 255}};
    const std::vector<int> static_sizes = {0, 1024, 7 * 1024, 20 * 1024, 47 * 1024};
    const std::vector<int> blocks = {32, 64, 96, 128, 160, 192, 256, 288, 384, 512, 640, 768, 1024};
    const std::vector<int> dynamic_sizes = {0, 2048, 16 * 1024, 40 * 1024, 100 * 1024, 180 * 1024, 220 * 1024};
    std::vector<int> carveouts = {-1, 0, 10, 25, 33, 50, 66, 75, 90, 100};
    std::size_t rows = 0, mismatches = 0;
    for (const auto& [accumulators, max_registers] : pressure) {
      for (int static_smem : static_sizes) {
        CompileRequest request{kSource, "pressure.cu", "pressure",
                               {{"ACC", std::to_string(accumulators)}, {"SMEM_BYTES", std::to_string(static_smem)}},
                               {fmt::format("-maxrregcount={}", max_registers)}, device.arch()};
        const CompiledVariant variant = compiler.compile(request);
        if (!variant.ok) throw std::runtime_error("pressure kernel did not compile:\n" + variant.log);
        Kernel kernel(variant.cubin, variant.lowered_name);
        const int driver_registers = kernel.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
        for (int dynamic : dynamic_sizes) {
          // Raise the function's dynamic limit exactly as the launcher does.
          if (dynamic + static_smem > device.shared_per_block_optin) continue;
          kernel.prepare({.dynamic_smem = static_cast<unsigned>(dynamic)});
          const int max_dynamic = kernel.attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
          for (int carveout : carveouts) {
            check(Driver::get().cuFuncSetAttribute(kernel.function(), CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout),
                  "setting the carveout");
            for (int block : blocks) {
              int active = 0;
              const CUresult code = Driver::get().cuOccupancyMaxActiveBlocksPerMultiprocessor(&active, kernel.function(), block,
                                                                                               static_cast<std::size_t>(dynamic));
              if (code != CUDA_SUCCESS) active = -1;
              out << fmt::format("{},{},{},{},{},{},{},{},{}\n", variant.usage.registers, driver_registers, variant.usage.static_smem,
                        variant.usage.barriers, block, dynamic, carveout, max_dynamic, active);
              const Occupancy cpu = compute_occupancy(device, {.block_threads = block, .registers = variant.usage.registers,
                                                               .static_smem = variant.usage.static_smem, .dynamic_smem = dynamic,
                                                               .carveout = carveout, .barriers = variant.usage.barriers,
                                                               .max_dynamic_smem = max_dynamic});
              if (cpu.blocks_per_sm != std::max(active, 0)) ++mismatches;
              ++rows;
            }
          }
        }
      }
    }
    fmt::print("recorded {} occupancy vectors on {}; the CPU calculation disagrees on {}\n", rows, device.name, mismatches);
    return mismatches == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "record_occupancy: %s\n", error.what());
    return 1;
  }
}
