// Compiling ahead of the GPU: variants are compiled on all cores while the
// tuner measures, each in a compile worker process (`blocktune-worker` in
// compile mode) so that one that runs past its time limit, or crashes the
// compiler, is stopped alone and recorded, and the run goes on.
//
//   CompilePool pool(compiler, {.workers = 8, .timeout_seconds = 60});
//   auto pending = pool.submit(request);   // returns at once
//   ...                                    // measure something else meanwhile
//   const CompiledVariant variant = pending.get();
#pragma once

#include <blocktune/detail/compiler.hpp>

#include <filesystem>
#include <future>
#include <memory>
#include <optional>

namespace blocktune {

struct CompilePoolOptions {
  unsigned workers = 0;                           // 0 = all cores
  std::optional<double> timeout_seconds;          // per compile; none = no limit
  // The compile worker program; nullopt compiles in threads of this process,
  // where a time limit cannot stop a compile (it is then not enforced).
  std::optional<std::filesystem::path> executable;
};

class CompilePool {
 public:
  // Variants go through `compiler`'s cache: workers store what they compile
  // there, and a cache hit costs no worker. Without a cache directory the
  // pool compiles into a temporary one of its own, removed at the end.
  CompilePool(const VariantCompiler& compiler, CompilePoolOptions options);
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Queues a compile (first in, first out). The variant's cubin is left
  // empty: `compiler().compile(request)` reads it from the cache when a
  // measurement in this process needs it. A compile that runs out of time has
  // ok = false and timed_out = true; one whose worker dies has ok = false and
  // a log saying how it died.
  std::shared_future<CompiledVariant> submit(CompileRequest request);

  const VariantCompiler& compiler() const;
  unsigned workers() const;
  std::size_t worker_restarts() const;  // workers replaced after a timeout or a crash

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// The compile worker's main (blocktune-worker with a job whose "mode" is
// "compile"): one JSON request per line on stdin, one JSON reply per line on
// stdout, variants stored in the job's cache directory.
int run_compile_worker(std::string_view job);

}  // namespace blocktune
