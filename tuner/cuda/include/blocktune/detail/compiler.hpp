// One kernel source compiled per configuration with NVRTC, straight to a cubin
// for the target architecture. Works without a GPU; results are cached on disk.
#pragma once

#include <blocktune/detail/compile_request.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace blocktune {

// What ptxas reports for one entry function (--ptxas-options=-v).
struct ResourceUsage {
  int registers = 0;
  int static_smem = 0;    // bytes
  int stack_bytes = 0;    // local memory: stack frame
  int spill_stores = 0;   // bytes
  int spill_loads = 0;    // bytes
  int barriers = 0;
};

// Resources of `entry` (its mangled name) in an NVRTC program log; nullopt
// when the log holds no ptxas report for it.
std::optional<ResourceUsage> parse_ptxas_info(std::string_view log, std::string_view entry);

struct CompiledVariant {
  bool ok = false;
  std::string log;           // compiler messages; the error text when !ok
  std::string cubin;         // machine code for the architecture
  std::string lowered_name;  // the entry's mangled name, for cuModuleGetFunction
  ResourceUsage usage;
  double compile_seconds = 0;  // of the original compile, also when read from the cache
  bool from_cache = false;
  bool timed_out = false;      // stopped at its time limit (CompilePool); log says so
};

// "13.0"
std::string nvrtc_version();
// A 128-bit content hash as 32 hex digits (two FNV-1a passes), for cache keys and source identity.
std::string content_hash(std::string_view text);
// Architectures this NVRTC can compile for, e.g. {"sm_75", ..., "sm_120"}.
std::vector<std::string> nvrtc_architectures();

class VariantCompiler {
 public:
  // With no cache directory every call compiles.
  explicit VariantCompiler(std::optional<std::filesystem::path> cache_dir = default_cache_dir());

  // Never throws for a bad kernel: a compile error is a result with its log.
  CompiledVariant compile(const CompileRequest& request) const;
  // The cached variant for this request, if there is one; never compiles.
  std::optional<CompiledVariant> cached(const CompileRequest& request) const { return load_cached(request.identity()); }

  // Compiles on `threads` threads (0 = all cores), results in request order.
  std::vector<CompiledVariant> compile_all(const std::vector<CompileRequest>& requests, unsigned threads = 0,
                                           const std::function<void(std::size_t done, std::size_t total)>& progress = {}) const;

  const std::optional<std::filesystem::path>& cache_dir() const { return cache_dir_; }

  // $BLOCKTUNE_CACHE_DIR, else $XDG_CACHE_HOME/blocktune/variants, else ~/.cache/blocktune/variants.
  static std::filesystem::path default_cache_dir();

 private:
  std::optional<CompiledVariant> load_cached(const std::string& identity) const;
  void store_cached(const std::string& identity, const CompiledVariant& variant) const;
  std::optional<std::filesystem::path> cache_dir_;
};

}  // namespace blocktune
