#include <blocktune/detail/device_query.hpp>
#include <blocktune/detail/gpu.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace blocktune {

GpuContext::GpuContext(int ordinal) : device_(query_device(ordinal)) {
  const Driver& driver = Driver::get();
  check(driver.cuDeviceGet(&handle_, ordinal), "cuDeviceGet");
  check(driver.cuDevicePrimaryCtxRetain(&context_, handle_), "cuDevicePrimaryCtxRetain");
  check(driver.cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

GpuContext::~GpuContext() {
  const Driver& driver = Driver::get();
  driver.cuCtxSetCurrent(nullptr);
  driver.cuDevicePrimaryCtxRelease(handle_);
}

void GpuContext::synchronize() const { check(Driver::get().cuCtxSynchronize(), "cuCtxSynchronize"); }

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  check(Driver::get().cuMemAlloc(&pointer_, std::max<std::size_t>(bytes, 1)), fmt::format("allocating {} bytes on the GPU", bytes));
}

DeviceBuffer::~DeviceBuffer() {
  if (pointer_ != 0) Driver::get().cuMemFree(pointer_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : pointer_(std::exchange(other.pointer_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (pointer_ != 0) Driver::get().cuMemFree(pointer_);
    pointer_ = std::exchange(other.pointer_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  check(Driver::get().cuMemcpyHtoD(pointer_, host, bytes), "copying to the GPU");
}

void DeviceBuffer::download(void* host, std::size_t bytes) const {
  check(Driver::get().cuMemcpyDtoH(host, pointer_, bytes), "copying from the GPU");
}

Kernel::Kernel(const std::string& cubin, const std::string& entry) {
  const Driver& driver = Driver::get();
  check(driver.cuModuleLoadData(&module_, cubin.data()), "loading the compiled kernel (cuModuleLoadData)");
  if (CUresult code = driver.cuModuleGetFunction(&function_, module_, entry.c_str()); code != CUDA_SUCCESS) {
    driver.cuModuleUnload(module_);
    check(code, fmt::format("finding kernel {} in its module", entry));
  }
}

Kernel::~Kernel() { Driver::get().cuModuleUnload(module_); }

void Kernel::fill_symbol(const std::string& name, const void* data, std::size_t bytes) const {
  CUdeviceptr address = 0;
  std::size_t size = 0;
  const CUresult found = Driver::get().cuModuleGetGlobal(&address, &size, module_, name.c_str());
  if (found == CUDA_ERROR_NOT_FOUND)
    throw std::invalid_argument(fmt::format("the kernel's module has no __constant__ or __device__ variable '{}' (is it static, or unused?)", name));
  check(found, fmt::format("finding the symbol {} (cuModuleGetGlobal)", name));
  if (size < bytes) throw std::invalid_argument(fmt::format("the kernel's variable '{}' holds {} bytes, the argument {}", name, size, bytes));
  check(Driver::get().cuMemcpyHtoD(address, data, bytes), fmt::format("filling the symbol {}", name));
}

int Kernel::attribute(CUfunction_attribute which) const {
  int value = 0;
  check(Driver::get().cuFuncGetAttribute(&value, which, function_), "cuFuncGetAttribute");
  return value;
}

void Kernel::prepare(const LaunchShape3& shape) const {
  const Driver& driver = Driver::get();
  if (shape.carveout >= 0) {
    check(driver.cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, shape.carveout),
          "setting the shared-memory carveout");
  }
  const int limit = attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  if (static_cast<int>(shape.dynamic_smem) > limit) {
    check(driver.cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(shape.dynamic_smem)),
          fmt::format("allowing {} bytes of dynamic shared memory", shape.dynamic_smem));
  }
}

void Kernel::launch(const LaunchShape3& shape, void** arguments, CUstream stream) const {
  check(Driver::get().cuLaunchKernel(function_, shape.grid[0], shape.grid[1], shape.grid[2], shape.block[0], shape.block[1],
                                     shape.block[2], shape.dynamic_smem, stream, arguments, nullptr),
        "cuLaunchKernel");
}

Timing summarize(std::vector<double> samples_ms) {
  Timing t;
  if (samples_ms.empty()) return t;
  t.samples_ms = samples_ms;
  std::sort(samples_ms.begin(), samples_ms.end());
  auto quantile = [&](double q) {
    const double position = q * static_cast<double>(samples_ms.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const auto above = std::min(below + 1, samples_ms.size() - 1);
    return samples_ms[below] + (position - static_cast<double>(below)) * (samples_ms[above] - samples_ms[below]);
  };
  t.median_ms = quantile(0.5);
  t.min_ms = samples_ms.front();
  t.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(samples_ms.size());
  t.spread = t.median_ms > 0 ? (quantile(0.75) - quantile(0.25)) / t.median_ms : 0.0;
  return t;
}

namespace {

class Event {
 public:
  Event() { check(Driver::get().cuEventCreate(&event_, CU_EVENT_DEFAULT), "cuEventCreate"); }
  ~Event() { Driver::get().cuEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record() { check(Driver::get().cuEventRecord(event_, nullptr), "cuEventRecord"); }
  float since(const Event& start) const {
    check(Driver::get().cuEventSynchronize(event_), "waiting for the kernel (cuEventSynchronize)");
    float ms = 0;
    check(Driver::get().cuEventElapsedTime(&ms, start.event_, event_), "cuEventElapsedTime");
    return ms;
  }

 private:
  CUevent event_{};
};

}  // namespace

Timing time_kernel(const GpuContext& context, const Kernel& kernel, const LaunchShape3& shape, void** arguments,
                   const TimingOptions& options) {
  kernel.prepare(shape);
  for (int i = 0; i < options.warmup; ++i) kernel.launch(shape, arguments);
  context.synchronize();

  DeviceBuffer flush;
  if (options.flush_l2) flush = DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(context.device().l2_bytes, 1 << 20)) * 2);

  Event start, stop;
  std::vector<double> samples;
  double total_ms = 0;
  for (int repeat = 0; repeat < options.max_repeats; ++repeat) {
    if (options.flush_l2) {
      check(Driver::get().cuMemsetD32(flush.get(), static_cast<unsigned>(repeat), flush.bytes() / 4), "flushing L2");
    }
    start.record();
    kernel.launch(shape, arguments);
    stop.record();
    samples.push_back(stop.since(start));
    total_ms += samples.back();
    if (static_cast<int>(samples.size()) >= options.min_repeats &&
        (summarize(samples).spread < options.target_spread || total_ms > options.max_seconds * 1000.0))
      break;
  }
  Timing timing = summarize(std::move(samples));
  timing.sm_clock_mhz = current_sm_clock_mhz(context.device());
  return timing;
}

double copy_bandwidth_gbs(const GpuContext& context, std::size_t bytes, int repeats) {
  DeviceBuffer source(bytes), target(bytes);
  check(Driver::get().cuMemsetD32(source.get(), 0x3f800000u, bytes / 4), "filling the copy source");
  for (int i = 0; i < 3; ++i) check(Driver::get().cuMemcpyDtoD(target.get(), source.get(), bytes), "cuMemcpyDtoD");
  context.synchronize();
  Event start, stop;
  std::vector<double> samples;
  for (int i = 0; i < repeats; ++i) {
    start.record();
    check(Driver::get().cuMemcpyDtoD(target.get(), source.get(), bytes), "cuMemcpyDtoD");
    stop.record();
    samples.push_back(stop.since(start));
  }
  const double median_ms = summarize(std::move(samples)).median_ms;
  return 2.0 * static_cast<double>(bytes) / (median_ms * 1e-3) / 1e9;
}

}  // namespace blocktune
