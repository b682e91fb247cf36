// kill -9 at any moment during tuning loses nothing committed and leaves a
// database that passes its integrity check: a writer process stores trials
// as the tuner does and is killed at 200 random points.
#include "db_test_util.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <csignal>
#include <cstdint>
#include <random>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

using namespace blocktune;
using namespace blocktune::test;

namespace {

// The child: store trials one at a time, reporting each committed count on
// `report`, until killed.
[[noreturn]] void write_until_killed(const std::filesystem::path& file, int report, int first) {
  Store store = Store::open(file);
  const auto device = store.upsert_device(h100());
  const auto kernel = store.upsert_kernel(stencil());
  const auto problem = store.upsert_problem(kernel, ProblemSize::parse("512x512x512"));
  for (int n = first;; ++n) {
    if (store.has_trial(device, kernel, problem, config(n, 1, 1))) continue;  // resume: measure nothing twice
    store.add_trial(device, kernel, problem, trial(n, 1, 1, 1.0 + n * 1e-3));
    const std::int32_t committed = n;
    if (write(report, &committed, sizeof committed) != sizeof committed) _exit(2);
  }
}

}  // namespace

TEST_CASE("kill -9 at 200 random points during trial writes loses no committed trial", "[db][kill]") {
  TempDir dir;
  const auto file = dir.path() / "tuning.db";
  std::mt19937_64 random(20261121);  // fixed: the same kill delays each run
  std::int32_t last_committed = 0;  // trials are numbered from 1
  for (int round = 0; round < 200; ++round) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      write_until_killed(file, fds[1], 1);
    }
    close(fds[1]);
    // Kill after 0 to 30 ms: during open, migration, a transaction or a commit.
    usleep(static_cast<useconds_t>(random() % 30000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    std::int32_t committed = 0;
    while (read(fds[0], &committed, sizeof committed) == sizeof committed) last_committed = std::max(last_committed, committed);
    close(fds[0]);

    INFO("round " << round << ", last reported commit " << last_committed);
    {
      // The next run opens whatever the kill left (a file killed while being
      // created is an empty SQLite database, which it initialises) ...
      Store store = Store::open(file);
      const auto device = store.upsert_device(h100());
      const auto kernel = store.upsert_kernel(stencil());
      const auto problem = store.upsert_problem(kernel, ProblemSize::parse("512x512x512"));
      // ... and finds every trial reported as committed, none stored twice.
      const auto trials = store.trials(device, kernel, problem);
      REQUIRE(static_cast<std::int64_t>(trials.size()) >= last_committed);
      std::set<std::string> distinct;
      for (const TrialRecord& t : trials) distinct.insert(t.config);
      REQUIRE(distinct.size() == trials.size());
      int missing = 0;
      for (int n = 1; n <= last_committed; ++n) missing += store.has_trial(device, kernel, problem, config(n, 1, 1)) ? 0 : 1;
      REQUIRE(missing == 0);
    }
    const CheckReport check = check_database(file);  // PRAGMA integrity_check and the schema's own rules
    REQUIRE(check.errors.empty());
  }
  CHECK(last_committed > 50);  // the rounds did store trials, and resumed past them
}
