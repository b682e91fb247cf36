#include <blocktune/detail/compiler.hpp>
#include <blocktune/detail/driver.hpp>
#include <blocktune/version.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace blocktune {
namespace {

std::uint64_t fnv1a(std::string_view text, std::uint64_t seed) {
  std::uint64_t hash = seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// The full identity is stored in the file and compared on load too.
std::string cache_file_name(std::string_view identity) { return content_hash(identity) + ".variant"; }

int to_int(std::string_view text) {
  int value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// Turns an NVRTC failure into text for the variant's log.
std::string nvrtc_problem(nvrtcResult code, std::string_view what) {
  return fmt::format("{} failed: {}", what, nvrtcGetErrorString(code));
}

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  nvrtcGetProgramLog(program, log.data());
  log.resize(size - 1);
  // ptxas's errors follow its info lines after a NUL (CUDA 13.0): a message
  // is text, and whatever reads it as a C string (the sqlite3 shell) stops there.
  std::erase(log, '\0');
  return log;
}

CompiledVariant compile_now(const CompileRequest& request) {
  CompiledVariant out;
  if (const auto known = nvrtc_architectures(); std::ranges::find(known, request.arch) == known.end()) {
    out.log = fmt::format("NVRTC {} cannot compile for '{}'; it knows {}", nvrtc_version(), request.arch, fmt::join(known, " "));
    return out;
  }
  const auto start = std::chrono::steady_clock::now();
  nvrtcProgram program = nullptr;
  if (auto code = nvrtcCreateProgram(&program, request.source.c_str(), request.source_name.c_str(), 0, nullptr, nullptr);
      code != NVRTC_SUCCESS) {
    out.log = nvrtc_problem(code, "nvrtcCreateProgram");
    return out;
  }
  struct Destroy {
    nvrtcProgram* program;
    ~Destroy() { nvrtcDestroyProgram(program); }
  } destroy{&program};

  if (auto code = nvrtcAddNameExpression(program, request.kernel.c_str()); code != NVRTC_SUCCESS) {
    out.log = nvrtc_problem(code, fmt::format("registering kernel '{}'", request.kernel));
    return out;
  }
  std::vector<std::string> options = {"-arch=" + request.arch, "--ptxas-options=-v"};
  // The kernel's own language standard wins over blocktune's default.
  const bool own_standard = std::ranges::any_of(request.options, [](const std::string& o) { return o.starts_with("-std=") || o.starts_with("--std="); });
  if (!own_standard) options.push_back("-std=c++17");
  for (const auto& [name, value] : request.defines) options.push_back(fmt::format("-D{}={}", name, value));
  options.insert(options.end(), request.options.begin(), request.options.end());
  std::vector<const char*> option_pointers;
  for (const std::string& option : options) option_pointers.push_back(option.c_str());

  const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(option_pointers.size()), option_pointers.data());
  out.log = program_log(program);
  out.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (compiled != NVRTC_SUCCESS) {
    // NVRTC's verdict ends the log: ptxas's own lines do not always say that
    // the compile failed.
    out.log += fmt::format("{}{}", out.log.empty() ? "" : "\n", nvrtc_problem(compiled, "nvrtcCompileProgram"));
    return out;
  }
  const char* lowered = nullptr;
  if (auto code = nvrtcGetLoweredName(program, request.kernel.c_str(), &lowered); code != NVRTC_SUCCESS) {
    out.log += nvrtc_problem(code, fmt::format("finding kernel '{}' in {}", request.kernel, request.source_name));
    return out;
  }
  // NVRTC has been seen to report success with no name (sources with stray 0xFF bytes).
  if (lowered == nullptr) {
    out.log += fmt::format("\nNVRTC found no kernel '{}' in {} (is the source text UTF-8?)", request.kernel, request.source_name);
    return out;
  }
  out.lowered_name = lowered;
  std::size_t size = 0;
  if (auto code = nvrtcGetCUBINSize(program, &size); code != NVRTC_SUCCESS || size == 0) {
    out.log += fmt::format("\nNVRTC produced no cubin for {}", request.arch);
    return out;
  }
  out.cubin.resize(size);
  nvrtcGetCUBIN(program, out.cubin.data());
  auto usage = parse_ptxas_info(out.log, out.lowered_name);
  if (!usage) {
    out.log += fmt::format("\nNVRTC returned no ptxas resource report for {} (was the driver's JIT cache "
                           "on when it was initialised? see disable_driver_jit_cache)", out.lowered_name);
    return out;
  }
  out.usage = *usage;
  out.ok = true;
  return out;
}

}  // namespace

std::string content_hash(std::string_view text) {
  return fmt::format("{:016x}{:016x}", fnv1a(text, 0xcbf29ce484222325ULL), fnv1a(text, 0x84222325cbf29ce4ULL));
}

std::string CompileRequest::identity() const {
  std::string text = fmt::format("blocktune {}\nnvrtc {}\narch {}\nkernel {}\n", kVersion, nvrtc_version(), arch, kernel);
  for (const auto& [name, value] : defines) text += fmt::format("-D{}={}\n", name, value);
  for (const auto& option : options) text += fmt::format("option {}\n", option);
  text += fmt::format("source {}\n{}", source_name, source);
  return text;
}

std::optional<ResourceUsage> parse_ptxas_info(std::string_view log, std::string_view entry) {
  // The report for one entry starts at "Compiling entry function '<entry>'" and
  // runs until the next entry's report.
  const std::string start_marker = fmt::format("Compiling entry function '{}'", entry);
  const auto start = log.find(start_marker);
  if (start == std::string_view::npos) return std::nullopt;
  auto end = log.find("Compiling entry function '", start + start_marker.size());
  const std::string section(log.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));

  ResourceUsage usage;
  std::smatch match;
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex barriers(R"(used (\d+) barriers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  if (!std::regex_search(section, match, used)) return std::nullopt;
  usage.registers = to_int(match[1].str());
  if (std::regex_search(section, match, frame)) {
    usage.stack_bytes = to_int(match[1].str());
    usage.spill_stores = to_int(match[2].str());
    usage.spill_loads = to_int(match[3].str());
  }
  if (std::regex_search(section, match, barriers)) usage.barriers = to_int(match[1].str());
  if (std::regex_search(section, match, smem)) usage.static_smem = to_int(match[1].str());
  return usage;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::vector<std::string> nvrtc_architectures() {
  int count = 0;
  nvrtcGetNumSupportedArchs(&count);
  std::vector<int> numbers(static_cast<std::size_t>(count));
  if (count > 0) nvrtcGetSupportedArchs(numbers.data());
  std::vector<std::string> names;
  for (int n : numbers) names.push_back(fmt::format("sm_{}", n));
  return names;
}

VariantCompiler::VariantCompiler(std::optional<std::filesystem::path> cache_dir) : cache_dir_(std::move(cache_dir)) {
  disable_driver_jit_cache();  // or ptxas may not run, leaving no resource report
}

std::filesystem::path VariantCompiler::default_cache_dir() {
  if (const char* dir = std::getenv("BLOCKTUNE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "blocktune" / "variants";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "blocktune" / "variants";
  return std::filesystem::temp_directory_path() / "blocktune-variants";
}

// A cache file is one JSON line (the identity, log and resources) followed by
// the cubin bytes. Anything unreadable or mismatched is a miss, never an error.
std::optional<CompiledVariant> VariantCompiler::load_cached(const std::string& identity) const {
  if (!cache_dir_) return std::nullopt;
  std::ifstream in(*cache_dir_ / cache_file_name(identity), std::ios::binary);
  if (!in) return std::nullopt;
  std::string header;
  if (!std::getline(in, header)) return std::nullopt;
  const auto meta = nlohmann::json::parse(header, nullptr, false);
  if (meta.is_discarded() || !meta.is_object() || meta.value("identity", "") != identity) return std::nullopt;
  try {
    CompiledVariant variant;
    variant.ok = meta.at("ok").get<bool>();
    variant.log = meta.at("log").get<std::string>();
    std::erase(variant.log, '\0');  // as program_log(); caches written before it kept them
    variant.lowered_name = meta.at("lowered_name").get<std::string>();
    variant.compile_seconds = meta.at("compile_seconds").get<double>();
    const auto& usage = meta.at("usage");
    variant.usage = {usage.at(0).get<int>(), usage.at(1).get<int>(), usage.at(2).get<int>(),
                     usage.at(3).get<int>(), usage.at(4).get<int>(), usage.at(5).get<int>()};
    variant.cubin.resize(meta.at("cubin_bytes").get<std::size_t>());
    in.read(variant.cubin.data(), static_cast<std::streamsize>(variant.cubin.size()));
    if (in.gcount() != static_cast<std::streamsize>(variant.cubin.size())) return std::nullopt;
    variant.from_cache = true;
    return variant;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

void VariantCompiler::store_cached(const std::string& identity, const CompiledVariant& variant) const {
  if (!cache_dir_) return;
  std::error_code error;
  std::filesystem::create_directories(*cache_dir_, error);
  if (error) return;  // an unwritable cache only costs compile time
  const nlohmann::json meta = {
      {"identity", identity}, {"ok", variant.ok}, {"log", variant.log}, {"lowered_name", variant.lowered_name},
      {"compile_seconds", variant.compile_seconds}, {"cubin_bytes", variant.cubin.size()},
      {"usage", {variant.usage.registers, variant.usage.static_smem, variant.usage.stack_bytes, variant.usage.spill_stores,
                 variant.usage.spill_loads, variant.usage.barriers}}};
  const auto final_path = *cache_dir_ / cache_file_name(identity);
  // Several processes (compile workers, other tuners) share the cache: the
  // temporary name must be unique across them.
  const auto temporary = final_path.string() + fmt::format(".{}.{}.tmp", getpid(), std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    out.write(variant.cubin.data(), static_cast<std::streamsize>(variant.cubin.size()));
    if (!out) return;
  }
  // Rename is atomic: a reader sees the old file or the whole new one.
  std::filesystem::rename(temporary, final_path, error);
}

CompiledVariant VariantCompiler::compile(const CompileRequest& request) const {
  const std::string identity = request.identity();
  if (auto cached = load_cached(identity)) return *cached;
  CompiledVariant variant = compile_now(request);
  store_cached(identity, variant);
  return variant;
}

std::vector<CompiledVariant> VariantCompiler::compile_all(const std::vector<CompileRequest>& requests, unsigned threads,
                                                          const std::function<void(std::size_t, std::size_t)>& progress) const {
  std::vector<CompiledVariant> results(requests.size());
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(requests.size(), 1)));
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::mutex progress_mutex;
  auto work = [&] {
    for (std::size_t i = next++; i < requests.size(); i = next++) {
      results[i] = compile(requests[i]);
      const std::size_t finished = ++done;
      if (progress) {
        std::lock_guard lock(progress_mutex);
        progress(finished, requests.size());
      }
    }
  };
  std::vector<std::jthread> workers;
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  return results;
}

}  // namespace blocktune
