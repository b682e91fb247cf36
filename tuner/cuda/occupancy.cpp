#include <blocktune/occupancy.hpp>

#include <cuda_occupancy.h>
#include <fmt/format.h>

#include <climits>

namespace blocktune {
namespace {

cudaOccDeviceProp to_occupancy_properties(const DeviceInfo& d) {
  cudaOccDeviceProp p;
  p.computeMajor = d.cc_major;
  p.computeMinor = d.cc_minor;
  p.maxThreadsPerBlock = d.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  p.regsPerBlock = d.registers_per_block;
  p.regsPerMultiprocessor = d.registers_per_sm;
  p.warpSize = d.warp_size;
  p.sharedMemPerBlock = static_cast<std::size_t>(d.shared_per_block);
  p.sharedMemPerMultiprocessor = static_cast<std::size_t>(d.shared_per_sm);
  p.numSms = d.sm_count;
  p.sharedMemPerBlockOptin = static_cast<std::size_t>(d.shared_per_block_optin);
  p.reservedSharedMemPerBlock = static_cast<std::size_t>(d.reserved_shared_per_block);
  return p;
}

cudaOccDeviceState to_state(int carveout) {
  cudaOccDeviceState state;
  state.carveoutConfig = carveout;
  return state;
}

}  // namespace

std::string Occupancy::limiting_factor() const {
  if (!invalid.empty()) return invalid;
  std::vector<std::string> words;
  if (limits & OCC_LIMIT_REGISTERS) words.emplace_back("registers");
  if (limits & OCC_LIMIT_SHARED_MEMORY) words.emplace_back("shared memory");
  if (limits & OCC_LIMIT_WARPS) words.emplace_back("warps");
  if (limits & OCC_LIMIT_BLOCKS) words.emplace_back("blocks");
  if (limits & OCC_LIMIT_BARRIERS) words.emplace_back("barriers");
  if (limits & OCC_LIMIT_VIRTUAL_RESOURCES) words.emplace_back("virtual resources");
  return words.empty() ? "none" : fmt::format("{}", fmt::join(words, " and "));
}

Occupancy compute_occupancy(const DeviceInfo& device, const OccupancyQuery& query) {
  Occupancy out;
  out.max_warps = device.max_threads_per_sm / device.warp_size;
  if (query.block_threads <= 0 || query.block_threads > device.max_threads_per_block) {
    out.invalid = fmt::format("block of {} threads (the limit is {})", query.block_threads, device.max_threads_per_block);
    return out;
  }
  if (query.registers > 255) {
    out.invalid = fmt::format("{} registers per thread (the limit is 255)", query.registers);
    return out;
  }
  if (static_cast<long long>(query.registers) * query.block_threads > device.registers_per_block) {
    out.invalid = fmt::format("{} registers x {} threads exceed {} registers per block", query.registers,
                              query.block_threads, device.registers_per_block);
    return out;
  }

  const cudaOccDeviceProp properties = to_occupancy_properties(device);
  cudaOccFuncAttributes attributes;
  attributes.maxThreadsPerBlock = device.max_threads_per_block;
  attributes.numRegs = query.registers;
  attributes.sharedSizeBytes = static_cast<std::size_t>(query.static_smem);
  attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
  // The launcher raises the function's dynamic limit only when a launch needs
  // more than the default (48 KiB less static); mirror that attribute here.
  const int default_dynamic_limit = device.shared_per_block - query.static_smem;
  attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attributes.maxDynamicSharedSizeBytes = static_cast<std::size_t>(
      query.max_dynamic_smem >= 0 ? query.max_dynamic_smem : std::max(query.dynamic_smem, std::max(default_dynamic_limit, 0)));
  attributes.numBlockBarriers = query.barriers;
  const cudaOccDeviceState state = to_state(query.carveout);

  cudaOccResult result{};
  const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
      &result, &properties, &attributes, &state, query.block_threads, static_cast<std::size_t>(query.dynamic_smem));
  if (status != CUDA_OCC_SUCCESS) {
    out.invalid = fmt::format("occupancy calculator rejected the input (error {})", static_cast<int>(status));
    return out;
  }
  out.blocks_per_sm = result.activeBlocksPerMultiprocessor;
  out.limits = result.limitingFactors;
  out.allocated_smem_per_block = static_cast<int>(result.allocatedSharedMemPerBlock);
  const int warps_per_block = (query.block_threads + device.warp_size - 1) / device.warp_size;
  out.active_warps = out.blocks_per_sm * warps_per_block;
  out.fraction = out.max_warps > 0 ? static_cast<double>(out.active_warps) / out.max_warps : 0.0;
  out.smem_per_sm = carveout_bytes(device, query.carveout);
  if (out.blocks_per_sm == 0) {
    const int requested = query.static_smem + query.dynamic_smem;
    out.invalid = requested > device.shared_per_block_optin
                      ? fmt::format("{} bytes of shared memory per block (the limit is {})", requested, device.shared_per_block_optin)
                      : fmt::format("no block fits on an SM (limited by {})", out.limiting_factor());
  }
  return out;
}

int carveout_bytes(const DeviceInfo& device, int carveout) {
  const cudaOccDeviceProp properties = to_occupancy_properties(device);
  const cudaOccDeviceState state = to_state(carveout);
  std::size_t bytes = 0;
  if (cudaOccSMemPerMultiprocessor(&bytes, &properties, &state) != CUDA_OCC_SUCCESS) return 0;
  return static_cast<int>(bytes);
}

std::vector<int> carveout_steps(const DeviceInfo& device) {
  std::vector<int> steps;
  int previous = -1;
  for (int percent = 0; percent <= 100; ++percent) {
    const int bytes = carveout_bytes(device, percent);
    if (bytes != previous) steps.push_back(percent);
    previous = bytes;
  }
  return steps;
}

}  // namespace blocktune
