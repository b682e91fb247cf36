// Querying the GPUs through the driver (device.hpp's CUDA part; the
// architecture profiles, CUDA-free, are in device.cpp).
#include <blocktune/detail/device_query.hpp>
#include <blocktune/detail/device.hpp>
#include <blocktune/detail/driver.hpp>

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace blocktune {
namespace {

int attribute(const Driver& driver, CUdevice device, CUdevice_attribute which) {
  int value = 0;
  // A driver that no longer reports an attribute (clock rates in newer ones) leaves it 0.
  if (driver.cuDeviceGetAttribute(&value, which, device) != CUDA_SUCCESS) return 0;
  return value;
}

std::string format_uuid(const CUuuid& uuid) {
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", static_cast<unsigned char>(uuid.bytes[i]));
  }
  return "GPU-" + hex;
}

}  // namespace

int device_count() {
  const Driver& driver = Driver::get();
  int count = 0;
  check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount");
  return count;
}

DeviceInfo query_device(int ordinal) {
  const Driver& driver = Driver::get();
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw std::out_of_range(fmt::format("no GPU {}: this machine has {} (0 to {})", ordinal, count, count - 1));
  CUdevice device{};
  check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet");

  DeviceInfo d;
  d.ordinal = ordinal;
  std::array<char, 256> name{};
  check(driver.cuDeviceGetName(name.data(), static_cast<int>(name.size()), device), "cuDeviceGetName");
  d.name = name.data();
  CUuuid uuid{};
  check(driver.cuDeviceGetUuid(&uuid, device), "cuDeviceGetUuid");
  d.uuid = format_uuid(uuid);
  std::size_t memory = 0;
  check(driver.cuDeviceTotalMem(&memory, device), "cuDeviceTotalMem");
  d.memory_bytes = static_cast<std::int64_t>(memory);

  d.cc_major = attribute(driver, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d.cc_minor = attribute(driver, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d.sm_count = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  d.l2_bytes = attribute(driver, device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  d.shared_per_sm = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  d.shared_per_block = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  d.shared_per_block_optin = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  d.reserved_shared_per_block = attribute(driver, device, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  d.registers_per_sm = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  d.registers_per_block = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  d.max_threads_per_block = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  d.max_threads_per_sm = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  d.max_blocks_per_sm = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  d.warp_size = attribute(driver, device, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  d.sm_clock_mhz = attribute(driver, device, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
  d.memory_clock_mhz = attribute(driver, device, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000;
  d.memory_bus_bits = attribute(driver, device, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  d.ecc = attribute(driver, device, CU_DEVICE_ATTRIBUTE_ECC_ENABLED) != 0;
  d.driver_version = driver.version;
  d.driver_release = driver_release();
  return d;
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> devices;
  for (int i = 0, n = device_count(); i < n; ++i) devices.push_back(query_device(i));
  return devices;
}

namespace {

// The few NVML entry points needed to read the current SM clock; NVML is
// loaded like the driver, so its absence only means "clock unknown".
struct Nvml {
  using Init = int (*)();
  using HandleByUuid = int (*)(const char*, void**);
  using ClockInfo = int (*)(void*, int, unsigned*);
  using DriverVersion = int (*)(char*, unsigned);
  HandleByUuid handle_by_uuid = nullptr;
  ClockInfo clock_info = nullptr;
  DriverVersion driver_version = nullptr;

  static const Nvml* get() {
    static const Nvml* nvml = [] () -> const Nvml* {
      void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
      if (library == nullptr) return nullptr;
      auto init = reinterpret_cast<Init>(dlsym(library, "nvmlInit_v2"));
      static Nvml loaded;
      loaded.handle_by_uuid = reinterpret_cast<HandleByUuid>(dlsym(library, "nvmlDeviceGetHandleByUUID"));
      loaded.clock_info = reinterpret_cast<ClockInfo>(dlsym(library, "nvmlDeviceGetClockInfo"));
      loaded.driver_version = reinterpret_cast<DriverVersion>(dlsym(library, "nvmlSystemGetDriverVersion"));
      if (init == nullptr || loaded.handle_by_uuid == nullptr || loaded.clock_info == nullptr || loaded.driver_version == nullptr ||
          init() != 0)
        return nullptr;
      return &loaded;
    }();
    return nvml;
  }
};

constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

}  // namespace

std::string driver_release() {
  const Nvml* nvml = Nvml::get();
  std::array<char, 96> text{};
  if (nvml == nullptr || nvml->driver_version(text.data(), static_cast<unsigned>(text.size())) != 0) return {};
  return text.data();
}

int current_sm_clock_mhz(const DeviceInfo& device) {
  const Nvml* nvml = Nvml::get();
  if (nvml == nullptr || device.uuid.empty()) return 0;
  void* handle = nullptr;
  unsigned mhz = 0;
  if (nvml->handle_by_uuid(device.uuid.c_str(), &handle) != 0 || nvml->clock_info(handle, kNvmlClockSm, &mhz) != 0) return 0;
  return static_cast<int>(mhz);
}

}  // namespace blocktune
