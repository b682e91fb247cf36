#include "child_process.hpp"

#include <blocktune/compile_pool.hpp>

#include <fmt/format.h>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>

namespace blocktune {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// A worker keeps the last source it was sent: requests of one kernel share it,
// so each is sent once per worker, not once per configuration.
Json request_json(const CompileRequest& request, bool with_source) {
  Json j = {{"kernel", request.kernel}, {"defines", request.defines}, {"options", request.options}, {"arch", request.arch},
            {"source_name", request.source_name}};
  if (with_source) j["source"] = request.source;
  return j;
}

Json reply_json(const CompiledVariant& v) {
  const ResourceUsage& u = v.usage;
  return {{"ok", v.ok},
          {"log", v.log},
          {"lowered_name", v.lowered_name},
          {"compile_seconds", v.compile_seconds},
          {"from_cache", v.from_cache},
          {"usage", {u.registers, u.static_smem, u.stack_bytes, u.spill_stores, u.spill_loads, u.barriers}}};
}

CompiledVariant variant_from(const Json& j) {
  CompiledVariant v;
  v.ok = j.at("ok").get<bool>();
  v.log = j.at("log").get<std::string>();
  v.lowered_name = j.at("lowered_name").get<std::string>();
  v.compile_seconds = j.at("compile_seconds").get<double>();
  v.from_cache = j.at("from_cache").get<bool>();
  const auto& u = j.at("usage");
  v.usage = {u.at(0).get<int>(), u.at(1).get<int>(), u.at(2).get<int>(), u.at(3).get<int>(), u.at(4).get<int>(), u.at(5).get<int>()};
  return v;
}

CompiledVariant failed(std::string log, bool timed_out = false) {
  CompiledVariant v;
  v.log = std::move(log);
  v.timed_out = timed_out;
  return v;
}

struct Job {
  CompileRequest request;
  std::promise<CompiledVariant> promise;
};

}  // namespace

class CompilePool::Impl {
 public:
  Impl(const VariantCompiler& compiler, CompilePoolOptions options) : options_(std::move(options)) {
    if (compiler.cache_dir()) {
      compiler_ = &compiler;
    } else {
      temporary_cache_ = std::filesystem::temp_directory_path() / fmt::format("blocktune-variants-{}", getpid());
      own_compiler_.emplace(temporary_cache_);
      compiler_ = &*own_compiler_;
    }
    if (options_.workers == 0) options_.workers = std::max(1u, std::thread::hardware_concurrency());
    if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("cannot create the compile pool's wake-up pipe");
    slots_.resize(options_.executable ? options_.workers : 0);
    if (options_.executable) {
      dispatcher_ = std::jthread([this] { dispatch_to_processes(); });
    } else {
      for (unsigned t = 0; t < options_.workers; ++t) threads_.emplace_back([this] { compile_in_thread(); });
    }
  }

  ~Impl() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    wake();
    dispatcher_ = {};
    threads_.clear();
    for (Job& job : queue_) job.promise.set_value(failed("the compile pool was stopped before compiling this"));
    close(wake_[0]);
    close(wake_[1]);
    if (!temporary_cache_.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(temporary_cache_, ignored);
    }
  }

  std::shared_future<CompiledVariant> submit(CompileRequest request) {
    Job job{std::move(request), {}};
    std::shared_future<CompiledVariant> result = job.promise.get_future().share();
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(job));
    }
    ready_.notify_one();
    wake();
    return result;
  }

  const VariantCompiler& compiler() const { return *compiler_; }
  unsigned workers() const { return options_.workers; }
  std::size_t restarts() const { return restarts_; }

 private:
  struct Slot {
    std::unique_ptr<detail::ChildProcess> process;
    std::optional<Job> job;
    Clock::time_point started;
    std::string source_key;  // the source this worker holds
  };

  void wake() {
    const char byte = 1;
    [[maybe_unused]] const auto ignored = write(wake_[1], &byte, 1);
  }

  std::optional<Job> next_job() {
    std::lock_guard lock(mutex_);
    if (queue_.empty() || stopping_) return std::nullopt;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    return job;
  }

  // Worker processes: one compile each at a time, so that its time limit is its own.
  void dispatch_to_processes() {
    for (;;) {
      for (Slot& slot : slots_) {
        while (!slot.job) {
          auto job = next_job();
          if (!job) break;
          start_job(slot, std::move(*job));  // a cache hit leaves the slot free for the next
        }
      }
      if (std::lock_guard lock(mutex_); stopping_) break;
      wait_for_workers();
    }
    for (Slot& slot : slots_) {
      if (slot.job) slot.job->promise.set_value(failed("the compile pool was stopped during this compile"));
      if (slot.process) slot.process->kill_now();
    }
  }

  void start_job(Slot& slot, Job job) {
    if (auto cached = compiler_->cached(job.request)) {  // a hit needs no worker
      cached->cubin.clear();
      job.promise.set_value(std::move(*cached));
      return;
    }
    try {
      if (!slot.process) {
        const Json worker_job = {{"mode", "compile"}, {"cache_dir", compiler_->cache_dir()->string()}};
        slot.process = std::make_unique<detail::ChildProcess>(*options_.executable, worker_job.dump());
        slot.source_key.clear();
      }
      const std::string source_key = job.request.source_name + '\n' + job.request.source;
      const bool send_source = source_key != slot.source_key;
      if (!slot.process->write_line(request_json(job.request, send_source).dump(-1, ' ', false, Json::error_handler_t::replace)))
        // Ended before reading it (a worker that fails at its start): how, as collect() says it.
        throw std::runtime_error(fmt::format("the compile worker {} before reading its request", detail::describe_exit(slot.process->stop())));
      slot.source_key = source_key;
      slot.started = Clock::now();
      slot.job = std::move(job);
    } catch (const std::exception& error) {
      slot.job = std::move(job);
      retire(slot, failed(fmt::format("cannot compile in a worker process: {}", error.what())));
    }
  }

  // Stops the slot's worker, then gives its job `outcome`: whoever waits for
  // the job sees the worker already replaced.
  void retire(Slot& slot, CompiledVariant outcome) {
    if (slot.process) {
      slot.process->kill_now();
      slot.process.reset();
      ++restarts_;
    }
    std::optional<Job> job = std::move(slot.job);
    slot.job.reset();
    if (job) job->promise.set_value(std::move(outcome));
  }

  void wait_for_workers() {
    std::vector<pollfd> fds{{wake_[0], POLLIN, 0}};
    std::vector<Slot*> polled;
    double wait_seconds = 1.0;
    for (Slot& slot : slots_) {
      if (!slot.job) continue;
      fds.push_back({slot.process->output_fd(), POLLIN, 0});
      polled.push_back(&slot);
      if (options_.timeout_seconds)
        wait_seconds = std::min(wait_seconds, *options_.timeout_seconds - std::chrono::duration<double>(Clock::now() - slot.started).count());
    }
    poll(fds.data(), fds.size(), std::max(0, static_cast<int>(wait_seconds * 1000) + 1));
    if (fds[0].revents & POLLIN) {
      char drain[256];
      while (read(wake_[0], drain, sizeof drain) > 0) {
      }
    }
    for (std::size_t i = 0; i < polled.size(); ++i) {
      if (fds[i + 1].revents != 0) collect(*polled[i]);
    }
    if (!options_.timeout_seconds) return;
    for (Slot& slot : slots_) {
      if (!slot.job || std::chrono::duration<double>(Clock::now() - slot.started).count() < *options_.timeout_seconds) continue;
      retire(slot, failed(fmt::format("did not compile within {:g} s (--compile-timeout); its compile worker was stopped",
                                      *options_.timeout_seconds),
                          true));
    }
  }

  void collect(Slot& slot) {
    const bool open = slot.process->read_available();
    if (auto line = slot.process->take_line()) {
      const Json reply = Json::parse(*line, nullptr, false);
      try {
        if (reply.is_discarded()) throw std::runtime_error(fmt::format("unexpected reply '{}'", *line));
        slot.job->promise.set_value(variant_from(reply));
        slot.job.reset();
      } catch (const std::exception& error) {
        retire(slot, failed(fmt::format("the compile worker said something unexpected: {}", error.what())));
      }
      return;
    }
    if (open) return;
    // The compiler itself crashed (NVRTC on some inputs, fuzz/nvrtc-crashes/): that configuration fails, the run goes on.
    const int status = slot.process->stop();
    retire(slot, failed(WIFSIGNALED(status) ? fmt::format("NVRTC crashed compiling this configuration (its worker process was {})",
                                                          detail::describe_exit(status))
                                            : fmt::format("the compiler's worker process {} while compiling this configuration",
                                                          detail::describe_exit(status))));
  }

  // Without the worker program: threads of this process, no time limit.
  void compile_in_thread() {
    for (;;) {
      Job job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      CompiledVariant variant = compiler_->compile(job.request);
      variant.cubin.clear();
      job.promise.set_value(std::move(variant));
    }
  }

  CompilePoolOptions options_;
  const VariantCompiler* compiler_ = nullptr;
  std::optional<VariantCompiler> own_compiler_;
  std::filesystem::path temporary_cache_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  int wake_[2] = {-1, -1};
  std::vector<Slot> slots_;
  std::atomic<std::size_t> restarts_ = 0;
  std::vector<std::jthread> threads_;
  std::jthread dispatcher_;
};

CompilePool::CompilePool(const VariantCompiler& compiler, CompilePoolOptions options)
    : impl_(std::make_unique<Impl>(compiler, std::move(options))) {}
CompilePool::~CompilePool() = default;
std::shared_future<CompiledVariant> CompilePool::submit(CompileRequest request) { return impl_->submit(std::move(request)); }
const VariantCompiler& CompilePool::compiler() const { return impl_->compiler(); }
unsigned CompilePool::workers() const { return impl_->workers(); }
std::size_t CompilePool::worker_restarts() const { return impl_->restarts(); }

int run_compile_worker(std::string_view job_text) {
  std::signal(SIGINT, SIG_IGN);  // Ctrl-C is for the tuner, which stops its workers itself
  const Json job = Json::parse(job_text);
  const VariantCompiler compiler(std::filesystem::path(job.at("cache_dir").get<std::string>()));
  std::string source;
  for (std::string line; std::getline(std::cin, line);) {
    const Json request = Json::parse(line);
    if (request.contains("source")) source = request["source"].get<std::string>();
    const CompileRequest compile_request{source,
                                         request.at("source_name").get<std::string>(),
                                         request.at("kernel").get<std::string>(),
                                         request.at("defines").get<std::vector<std::pair<std::string, std::string>>>(),
                                         request.at("options").get<std::vector<std::string>>(),
                                         request.at("arch").get<std::string>()};
    std::cout << reply_json(compiler.compile(compile_request)).dump(-1, ' ', false, Json::error_handler_t::replace) << '\n' << std::flush;
  }
  return 0;
}

}  // namespace blocktune
