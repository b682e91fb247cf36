#include "db_test_util.hpp"

#include <blocktune/runtime.hpp>

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <latch>
#include <mutex>
#include <thread>

using namespace blocktune;
using namespace blocktune::test;

TEST_CASE("readers never see SQLITE_BUSY while a writer commits trials") {
  TempDir dir;
  const auto file = dir / "tuning.db";
  const DeviceKey key{"GPU-00000000-0000-0000-0000-000000000001", "NVIDIA H100 80GB HBM3", 9, 0, 132};
  const ProblemSize problem{{512, 512, 512}};
  {
    Store store = Store::open(file);
    const auto device = store.upsert_device(h100());
    const auto kernel = store.upsert_kernel(stencil());
    const auto problem_id = store.upsert_problem(kernel, problem);
    store.add_trial(device, kernel, problem_id, trial(1, 1, 1, 10.0));
    store.update_winner(device, kernel, problem_id);
  }

  constexpr int commits = 1000;
  std::atomic<bool> writing{true};
  std::latch start(5);  // the writer and four readers begin together
  std::mutex errors_mutex;
  std::vector<std::string> errors;
  const auto record = [&](const std::string& error) {
    const std::lock_guard lock(errors_mutex);
    errors.push_back(error);
  };

  // Every trial is faster than the last, so each commit changes the winner.
  std::thread writer([&] {
    start.arrive_and_wait();
    try {
      Store store = Store::open(file);
      const auto device = store.upsert_device(h100());
      const auto kernel = store.upsert_kernel(stencil());
      const auto problem_id = store.upsert_problem(kernel, problem);
      for (int i = 1; i <= commits; ++i) {
        store.add_trial(device, kernel, problem_id, trial(i, 2, 1, 10.0 - i * 0.005));
        store.update_winner(device, kernel, problem_id);
      }
    } catch (const std::exception& error) {
      record(std::string("writer: ") + error.what());
    }
    writing = false;
  });

  // Fresh opens, so every read goes to the file. Each reader checks that the
  // winner it sees never gets slower: snapshots are consistent and in order.
  std::atomic<int> reads{0};
  const auto reader = [&](int kind) {
    double last_ms = 1e9;
    std::int64_t last_trials = 0;
    start.arrive_and_wait();
    do {
      try {
        if (kind == 0) {
          const auto best = TuningDatabase::open(file).best("stencil3d", key, problem);
          if (best.match != MatchKind::exact || best.median_ms > last_ms) record("reader saw " + format_best(best));
          last_ms = best.median_ms;
        } else if (kind == 1) {
          const auto summary = summarize_database(file);
          if (summary.trials < last_trials) record("summary went backwards");
          last_trials = summary.trials;
        } else {
          const Store store = Store::open(file);  // a second read-write connection, reading
          const auto trials = store.trials(1, 1, 1);  // the ids the set-up created
          if (static_cast<std::int64_t>(trials.size()) < last_trials) record("store reader went backwards");
          last_trials = static_cast<std::int64_t>(trials.size());
        }
        ++reads;
      } catch (const std::exception& error) {
        record(std::string("reader: ") + error.what());
      }
    } while (writing);
  };
  std::vector<std::thread> readers;
  for (int kind : {0, 0, 1, 2}) readers.emplace_back(reader, kind);
  writer.join();
  for (auto& thread : readers) thread.join();

  INFO(errors.size() << " errors, the first: " << (errors.empty() ? "" : errors.front()));
  CHECK(errors.empty());
  CHECK(reads >= 4);  // each reader read at least once
  CHECK(TuningDatabase::open(file).best("stencil3d", key, problem).median_ms == Approx(10.0 - commits * 0.005));
  CHECK(summarize_database(file).trials == commits + 1);
}

// What `tune` does at its end: read the database (a second connection) while
// its Store is still open. Had that open read the file through a descriptor of
// its own, closing it would drop the process's locks on the file; a writer in
// another process would then close as if it were the last user, checkpoint and
// delete the WAL this process still writes to (the soak's "database disk image
// is malformed"; here: a committed trial no other process sees).
TEST_CASE("a process reading beside its open Store keeps its locks: other processes see its commits") {
  TempDir dir;
  const auto file = dir / "tuning.db";
  const ProblemSize problem{{512, 512, 512}};
  {
    Store store = Store::open(file);
    const auto device = store.upsert_device(h100());
    const auto kernel = store.upsert_kernel(stencil());
    store.add_trial(device, kernel, store.upsert_problem(kernel, problem), trial(1, 1, 1, 10.0));
  }
  int go[2], done[2];
  REQUIRE(::pipe(go) == 0);
  REQUIRE(::pipe(done) == 0);
  char byte = 0;
  // Forked before this process opens the database again: the child shares no SQLite state with it.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int status = 2;
    try {
      if (::read(go[0], &byte, 1) == 1) {
        { const Store other = Store::open(file); }  // a read-write connection closed: checkpoints if it is the last
        if (::write(done[1], &byte, 1) == 1 && ::read(go[0], &byte, 1) == 1)
          status = query_int(file, "SELECT count(*) FROM trials") == 2 ? 0 : 1;
      }
    } catch (...) {
    }
    ::_exit(status);  // never return into the test runner
  }

  Store store = Store::open(file);
  const auto device = store.upsert_device(h100());
  const auto kernel = store.upsert_kernel(stencil());
  const auto problem_id = store.upsert_problem(kernel, problem);
  CHECK(summarize_database(file).trials == 1);
  REQUIRE(::write(go[1], &byte, 1) == 1);
  REQUIRE(::read(done[0], &byte, 1) == 1);
  store.add_trial(device, kernel, problem_id, trial(2, 1, 1, 9.0));
  REQUIRE(::write(go[1], &byte, 1) == 1);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 1: the child did not see the second trial
  for (const int fd : {go[0], go[1], done[0], done[1]}) ::close(fd);
}
