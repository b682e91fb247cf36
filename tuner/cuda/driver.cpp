#include <blocktune/detail/driver.hpp>

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <optional>

namespace blocktune {
namespace {

#define BLOCKTUNE_SYMBOL_NAME(name) BLOCKTUNE_STRINGIZE(name)
#define BLOCKTUNE_STRINGIZE(name) #name

struct LoadResult {
  std::optional<Driver> driver;
  std::string error;
};

}  // namespace

// Resolves every entry point once; Driver's constructor is private to it.
struct DriverLoader {
  static LoadResult load() {
    LoadResult result;
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      result.error = fmt::format("no NVIDIA driver: cannot load libcuda.so.1 ({})", why ? why : "unknown reason");
      return result;
    }
    Driver driver;
#define BLOCKTUNE_RESOLVE(name)                                                                     \
  driver.name = reinterpret_cast<decltype(driver.name)>(dlsym(library, BLOCKTUNE_SYMBOL_NAME(name))); \
  if (driver.name == nullptr) {                                                                     \
    result.error = fmt::format("the NVIDIA driver is too old: libcuda.so.1 lacks {}",               \
                               BLOCKTUNE_SYMBOL_NAME(name));                                        \
    return result;                                                                                  \
  }
    BLOCKTUNE_DRIVER_FUNCTIONS(BLOCKTUNE_RESOLVE)
#undef BLOCKTUNE_RESOLVE

    disable_driver_jit_cache();
    if (CUresult code = driver.cuInit(0); code != CUDA_SUCCESS) {
      const char* name = nullptr;
      driver.cuGetErrorName(code, &name);
      result.error = fmt::format("the NVIDIA driver did not initialise: cuInit returned {}", name ? name : "an unknown error");
      return result;
    }
    int count = 0;
    if (driver.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
      result.error = "the NVIDIA driver reports no GPU";
      return result;
    }
    driver.cuDriverGetVersion(&driver.version);
    result.driver = driver;
    return result;
  }
};

void disable_driver_jit_cache() {
  static std::once_flag once;
  std::call_once(once, [] { setenv("CUDA_CACHE_DISABLE", "1", 1); });
}

static const LoadResult& loaded() {
  static const LoadResult result = DriverLoader::load();
  return result;
}

const Driver& Driver::get() {
  const LoadResult& result = loaded();
  if (!result.driver) throw GpuUnavailable(result.error);
  return *result.driver;
}

bool Driver::available() { return loaded().driver.has_value(); }

std::string Driver::unavailable_reason() { return loaded().error; }

std::string describe(CUresult code) {
  const LoadResult& result = loaded();
  if (!result.driver) return fmt::format("CUDA error {}", static_cast<int>(code));
  const char* name = nullptr;
  const char* text = nullptr;
  result.driver->cuGetErrorName(code, &name);
  result.driver->cuGetErrorString(code, &text);
  return fmt::format("{}: {}", name ? name : "CUDA_ERROR_UNKNOWN", text ? text : "no description");
}

void check(CUresult code, std::string_view what) {
  if (code != CUDA_SUCCESS) throw CudaError(code, fmt::format("{} failed: {}", what, describe(code)));
}

}  // namespace blocktune
