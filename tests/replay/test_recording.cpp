#include <catch2/catch.hpp>

#include <blocktune/recording.hpp>

#include <fmt/format.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <fstream>
#include <set>

#include "replay_test_util.hpp"
#include "temp_dir.hpp"

using namespace blocktune;
using blocktune::test::committed_space;
using blocktune::test::committed_spaces;
using blocktune::test::sized_recording;
using blocktune::test::TempDir;

namespace {

// Three configurations, one failed, one with a string that needs quoting in
// both the configuration text and the CSV.
Recording tricky_recording() {
  Recording recording{.kernel = "tiny", .problem = "64x64", .device = "Some GPU, rev. \"B\""};
  recording.space.configs = {Config::parse("block_x=64,variant=plain"),
                             Config::parse("block_x=64,variant=\"v,\\\"4\\\"\""),
                             Config::parse("block_x=128,variant=plain")};
  recording.space.time = {0.1 + 0.2, std::nullopt, 1.0 / 3};
  recording.space.cost_seconds = {0.7, 0.25, 1e-7};
  recording.outcome = {"ok", "compile_error", "ok"};
  recording.compile_seconds = {0.5, 0.25, 0.0};
  recording.occupancy = {1.0, 0.0, 2.0 / 3};
  recording.registers = {16, 0, 255};
  recording.resident_warps = {64, 0, 40};
  return recording;
}

void check_equal(const Recording& read, const Recording& written) {
  CHECK(read.kernel == written.kernel);
  CHECK(read.problem == written.problem);
  CHECK(read.device == written.device);
  CHECK(read.space.configs == written.space.configs);
  CHECK(read.space.time == written.space.time);  // exactly: numbers are written to round-trip
  CHECK(read.space.cost_seconds == written.space.cost_seconds);
  CHECK(read.outcome == written.outcome);
  CHECK(read.compile_seconds == written.compile_seconds);
  CHECK(read.occupancy == written.occupancy);
  CHECK(read.registers == written.registers);
  CHECK(read.default_config == written.default_config);
  CHECK(read.space.first == written.space.first);
  CHECK(read.space.start_up_seconds == written.space.start_up_seconds);
  CHECK(read.predictions_count_work == written.predictions_count_work);
  CHECK(read.l2_flushed == written.l2_flushed);
  CHECK(read.resident_warps == written.resident_warps);
}

void write_text(const std::filesystem::path& file, const std::string& text) { std::ofstream(file) << text; }

const std::string kHeader = "# blocktune recorded space 1\nconfig,outcome,time_s,cost_s\n";

}  // namespace

TEST_CASE("Every committed recorded space loads and is well-formed") {
  const auto files = committed_spaces();
  for (const auto& kernel : {"stencil3d_r1", "stencil3d_r2", "stencil3d_r4"})
    CHECK(std::find(files.begin(), files.end(), committed_space(kernel)) != files.end());
  std::set<std::string> kernels;

  for (const auto& file : files) {
    INFO(file.string());
    CHECK(std::filesystem::file_size(file) < 512 * 1024);
    const Recording recording = read_recording(file);
    CHECK_FALSE(recording.kernel.empty());
    CHECK(ProblemSize::parse(recording.problem).dims.size() >= 1);
    CHECK(recording.device == "NVIDIA H100 80GB HBM3");

    const RecordedSpace& space = recording.space;
    const std::size_t size = space.configs.size();
    CHECK(size > 100);  // complete spaces, not samples
    kernels.insert(recording.kernel.starts_with("stencil3d") ? "stencil3d" : recording.kernel);
    REQUIRE(space.time.size() == size);
    REQUIRE(space.cost_seconds.size() == size);
    REQUIRE(recording.outcome.size() == size);
    REQUIRE(recording.compile_seconds.size() == size);
    REQUIRE(recording.occupancy.size() == size);
    REQUIRE(recording.registers.size() == size);

    std::set<std::string> distinct;
    for (std::size_t i = 0; i < size; ++i) {
      distinct.insert(space.configs[i].to_string());
      CHECK(space.configs[i].entries().size() == space.configs[0].entries().size());
      CHECK(space.time[i].has_value() == (recording.outcome[i] == "ok"));
      if (space.time[i]) CHECK((std::isfinite(*space.time[i]) && *space.time[i] > 0));
      CHECK(recording.outcome[i] != "rejected_by_constraint");
      CHECK(space.cost_seconds[i] >= recording.compile_seconds[i]);
      CHECK((recording.occupancy[i] >= 0 && recording.occupancy[i] <= 1));
    }
    CHECK(distinct.size() == size);
    CHECK_NOTHROW(RandomBaseline(space));
  }
  CHECK(kernels.size() >= 3);  // the stencil family and at least two other kernels
}

TEST_CASE("The recording run's start-up, in its first row's cost, is charged to no replayed search") {
  Recording recording{.kernel = "tiny"};
  for (int i = 0; i < 5; ++i) recording.space.configs.push_back(Config::parse("block_x=" + std::to_string(32 * (i + 1))));
  recording.space.time = {2e-3, 1e-3, 1e-3, 1e-3, 1e-3};
  recording.space.cost_seconds = {1.2, 0.3, 0.25, 0.35, 0.3};
  recording.compile_seconds = {0.2, 0.2, 0.15, 0.2, 0.2};  // apart from compiling: 1.0, then 0.1, 0.1, 0.15, 0.1
  separate_start_up(recording);
  const RecordedSpace& space = recording.space;
  CHECK(space.start_up_seconds == Approx(0.9));

  // Whichever search measures the first row pays only its typical cost there, random search included.
  const std::uint64_t order[] = {0, 1};
  const SearchResult measured = replay_sequence(space, order);
  REQUIRE(measured.history.size() == 2);
  CHECK(measured.history[0].second.cost_seconds == Approx(0.3));
  CHECK(measured.history[1].second.cost_seconds == Approx(0.3));
  CHECK(RandomBaseline(space).mean_cost() == Approx((0.3 + 0.3 + 0.25 + 0.35 + 0.3) / 5));

  // Without compile times the rows are in no known order (Kernel Tuner caches): nothing is separated.
  Recording unordered = recording;
  unordered.compile_seconds.clear();
  separate_start_up(unordered);
  CHECK(unordered.space.start_up_seconds == 0);
  CHECK(replay_sequence(unordered.space, order).history[0].second.cost_seconds == Approx(1.2));

  // A first row that cost no more than the others has none.
  recording.space.cost_seconds[0] = 0.25;
  separate_start_up(recording);
  CHECK(recording.space.start_up_seconds == 0);

  // Every committed recording's run paid one (0.01 s to 1.3 s), read with it.
  for (const auto& file : committed_spaces()) {
    INFO(file.filename().string());
    const RecordedSpace committed = read_recording(file).space;
    CHECK(committed.start_up_seconds > 0.01);
    CHECK(committed.start_up_seconds < committed.cost_seconds[0]);
  }
}

TEST_CASE("Recorded-space files round-trip exactly, compressed or not") {
  const TempDir dir;
  Recording written = tricky_recording();
  written.default_config = "block_x=128,variant=plain";
  start_from_default(written);
  CHECK(written.space.first == std::vector<std::uint64_t>{2});
  separate_start_up(written);

  write_recording(dir / "space.csv.gz", written);
  check_equal(read_recording(dir / "space.csv.gz"), written);
  std::ifstream compressed(dir / "space.csv.gz", std::ios::binary);
  CHECK(compressed.get() == 0x1f);  // the gzip magic
  CHECK(compressed.get() == 0x8b);

  written.l2_flushed = true;  // noted as "# l2: flushed"
  write_recording(dir / "space.csv", written);
  check_equal(read_recording(dir / "space.csv"), written);
  std::ifstream plain(dir / "space.csv");
  std::string first_line;
  std::getline(plain, first_line);
  CHECK(first_line == "# blocktune recorded space 1");
  CHECK_FALSE(std::filesystem::exists(dir / "space.csv.partial"));

  // Compile times and the occupancy model's inputs are optional.
  Recording bare = written;
  bare.compile_seconds.clear();
  bare.occupancy.clear();
  bare.registers.clear();
  bare.resident_warps.clear();
  separate_start_up(bare);  // without compile times, none
  write_recording(dir / "bare.csv.gz", bare);
  check_equal(read_recording(dir / "bare.csv.gz"), bare);

  // Predictions that count no work are noted, and replays get them as such.
  Recording thin = written;
  thin.predicted_seconds.assign(thin.space.configs.size(), 1e-3);
  thin.predictions_count_work = false;
  write_recording(dir / "thin.csv", thin);
  check_equal(read_recording(dir / "thin.csv"), thin);
  CHECK_FALSE(recorded_model_scores(read_recording(dir / "thin.csv"))->count_work);
  CHECK(recorded_model_scores(written)->count_work);

  // Replays get each launch's resident warps where the recording has them.
  const auto resident = recorded_model_scores(read_recording(dir / "space.csv"))->resident_warps;
  REQUIRE(resident);
  CHECK(resident(0) == 64);
  CHECK(resident(2) == 40);
  Recording unknown = thin;
  unknown.resident_warps.clear();
  CHECK_FALSE(recorded_model_scores(unknown)->resident_warps);

  Recording ragged = written;
  ragged.registers.pop_back();
  CHECK_THROWS_AS(write_recording(dir / "ragged.csv.gz", ragged), std::invalid_argument);
  ragged = written;
  ragged.resident_warps.pop_back();
  CHECK_THROWS_WITH(write_recording(dir / "ragged.csv.gz", ragged), Catch::Contains("2 counts of resident warps"));
  CHECK_THROWS_WITH(write_recording(dir / "missing/folder/space.csv.gz", written), Catch::Contains("cannot write"));
}

// A file size limit (RLIMIT_FSIZE) stands in for a full disk: writing past it
// fails (EFBIG) where a full disk fails with ENOSPC. In a child process, so as
// not to limit the test runner.
TEST_CASE("A recorded space that cannot be written says why and leaves the file it would replace") {
  const TempDir dir;
  for (const char* name : {"space.csv", "space.csv.gz"}) {
    INFO(name);
    const auto file = dir / name;
    std::ofstream(file) << "the previous recording\n";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      const rlimit limit{16, 16};
      std::signal(SIGXFSZ, SIG_IGN);
      int status = 2;
      try {
        if (::setrlimit(RLIMIT_FSIZE, &limit) == 0) write_recording(file, tricky_recording());
      } catch (const std::exception& error) {
        status = std::string(error.what()) == "cannot write '" + file.string() + "': File too large" ? 0 : 1;
      }
      ::_exit(status);  // never return into the test runner
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);  // 1: another message, 2: no error at all
    std::ifstream in(file);
    CHECK(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()) == "the previous recording\n");
    auto partial = file;
    partial += ".partial";
    CHECK_FALSE(std::filesystem::exists(partial));
  }
}

TEST_CASE("Malformed recorded-space files are reported with the file and line") {
  const TempDir dir;
  const auto check = [&](const std::string& text, const std::string& message) {
    INFO(text);
    write_text(dir / "bad.csv", text);
    CHECK_THROWS_WITH(read_recording(dir / "bad.csv"), Catch::Contains("bad.csv") && Catch::Contains(message));
  };
  check("config,outcome,time_s,cost_s\n", "does not start with '# blocktune recorded space '");
  check("# blocktune recorded space 2\n", "format version 2 is not supported");
  check("# blocktune recorded space 1\nconfig,outcome,time_s\n", "no column 'cost_s'");
  check("# blocktune recorded space 1\nconfig,outcome,time_s,cost_s,speed\n", "unknown or repeated column 'speed'");
  check("# blocktune recorded space 1\nconfig,outcome,time_s,cost_s,occupancy\n", "both occupancy and registers");
  check(kHeader + "\"a=1\",ok,0.5,1\n\"a=2\",ok,fast,1\n", "line 4: time_s 'fast' is not a number");
  check(kHeader + "\"a=1\",ok,0.5\n", "line 3: 3 fields, expected 4");
  check(kHeader + "\"a=1,ok,0.5,1\n", "quoted field is not closed");
  check(kHeader + "\"a=\"\"x\",ok,0.5,1\n", "line 3: ");
  check("# blocktune recorded space 1\n# default: a\n" + kHeader.substr(29) + "\"a=1\",ok,0.5,1\n", "the note 'default': ");
  check("# blocktune recorded space 1\n# predictions: rough\n" + kHeader.substr(29) + "\"a=1\",ok,0.5,1\n",
        "the note '# predictions: rough' is not known (known: 'without work counts')");
  for (const char* count : {"-1", "65", "1.5"})
    check("# blocktune recorded space 1\nconfig,outcome,time_s,cost_s,resident_warps\n\"a=1\",ok,0.5,1," + std::string(count) + "\n",
          "line 3: resident_warps '" + std::string(count) + "' is not a whole number from 0 to 64");
  check("# blocktune recorded space 1\n# l2: lukewarm\n" + kHeader.substr(29) + "\"a=1\",ok,0.5,1\n",
        "the note '# l2: lukewarm' is not known (known: 'flushed')");
  CHECK_THROWS_WITH(read_recording(dir / "missing.csv.gz"),
                    Catch::Contains("cannot open") && Catch::Contains("missing.csv.gz"));

  // Notes that are not known keys, blank lines and CRLF line ends are fine.
  write_text(dir / "good.csv", "# blocktune recorded space 1\r\n# kernel: k\r\n# measured by: hand\r\n" +
                                   kHeader.substr(29) + "\"a=1,b=x\",ok,0.5,1\r\n\r\n\"a=2,b=x\",timeout,,2\r\n");
  const Recording good = read_recording(dir / "good.csv");
  CHECK(good.kernel == "k");
  REQUIRE(good.space.configs.size() == 2);
  CHECK(good.space.time[0] == 0.5);
  CHECK_FALSE(good.space.time[1].has_value());
  CHECK(good.outcome[1] == "timeout");
  CHECK(good.occupancy.empty());
}

TEST_CASE("The occupancy model ranks higher occupancy first, then fewer registers") {
  Recording recording;
  recording.occupancy = {0.5, 1.0, 1.0, 0.5, 1.0, 0.0};
  recording.registers = {32, 40, 32, 32, 32, 0};
  CHECK(occupancy_model_score(recording) == std::vector<double>{2, 1, 0, 2, 0, 3});
  CHECK(occupancy_model_score(Recording{}).empty());
}

// Replays measure the kernel's default configuration first, as tune does; a
// default the constraints rejected on that device is not in the recording,
// and then nothing is measured first.
TEST_CASE("A recording's default configuration is where its replays start") {
  const TempDir dir;
  Recording recording = tricky_recording();
  for (const char* missing : {"", "block_x=256,variant=plain"}) {
    recording.default_config = missing;
    start_from_default(recording);
    CHECK(recording.space.first.empty());
  }
  // Found whatever the order the note names the parameters in.
  write_text(dir / "ordered.csv", "# blocktune recorded space 1\n# default: b=x,a=2\n" + kHeader.substr(29) +
                                      "\"a=1,b=x\",ok,0.5,1\n\"a=2,b=x\",ok,0.25,1\n");
  const Recording read = read_recording(dir / "ordered.csv");
  CHECK(read.space.first == std::vector<std::uint64_t>{1});
  const SearchResult replayed = replay(read.space, *make_strategy("random"), {.evaluations = 1}, 1);
  REQUIRE(replayed.history.size() == 1);
  CHECK(replayed.history.front().first == 1);

  // Every committed recording made by blocktune names its kernel's default, which is in its space.
  for (const auto& file : committed_spaces()) {
    INFO(file.string());
    const Recording committed = read_recording(file);
    CHECK_FALSE(committed.default_config.empty());
    CHECK(committed.space.first.size() == 1);
  }
}

TEST_CASE("A recording's predictions are corrected by the nearest other size of its kernel and device, as tune's") {
  const Recording tuned = sized_recording("GPU A", "1024", 12, 1e-3);
  const std::vector<Recording> others = {
      sized_recording("GPU B", "2048", 12, 1e-3),   // another device
      sized_recording("GPU A", "1024", 12, 1e-3),   // the same size
      sized_recording("GPU A", "4096", 5, 1e-3),    // the nearest other size, with too few configurations
      sized_recording("GPU A", "65536", 12, 5e-3),  // farther
      sized_recording("GPU A", "16x512", 12, 2e-3),  // 8192 elements: the nearest that qualifies
  };
  const auto transfer = nearest_size_transfer(tuned, others);
  REQUIRE(transfer);
  CHECK(transfer->index == 4);
  CHECK(transfer->transfer.configurations() == 12);
  CHECK(transfer->transfer.factor("block=3") == Approx(6.0));  // measured 6 ms where 1 ms was predicted
  CHECK(transfer->transfer.factor("block=99") > 1);            // not measured there: the typical ratio

  CHECK_FALSE(nearest_size_transfer(tuned, std::span(others).first(3)));  // none qualifies
  Recording unnamed = tuned;
  unnamed.problem.clear();  // an import that names no size
  CHECK_FALSE(nearest_size_transfer(unnamed, others));
  unnamed.problem = "a problem of its own";  // nor one that reads as a size
  CHECK_FALSE(nearest_size_transfer(unnamed, others));
  std::vector<Recording> odd = others;
  odd[4].problem = "n=8192";  // passed over, not an error
  CHECK(nearest_size_transfer(tuned, odd)->index == 3);
  std::vector<Recording> timed_otherwise = others;
  timed_otherwise[4].l2_flushed = true;  // times after an L2 flush do not correct warm ones
  CHECK(nearest_size_transfer(tuned, timed_otherwise)->index == 3);
  // The nearest whose predictions rank the configurations otherwise than this recording's yields to a farther one.
  std::vector<Recording> unlike = others;
  for (std::size_t c = 0; c < unlike[4].predicted_seconds.size(); ++c) unlike[4].predicted_seconds[c] *= c % 2 ? 1.5 : 1.0;
  CHECK(nearest_size_transfer(tuned, unlike)->index == 3);
  Recording flushed = tuned;
  flushed.l2_flushed = true;
  CHECK(nearest_size_transfer(flushed, timed_otherwise)->index == 4);
}

TEST_CASE("A recording's notes are read without its rows") {
  TempDir dir;
  Recording recording = sized_recording("GPU A", "1024", 12, 1e-3);
  recording.default_config = "block=3";
  for (const std::string name : {"plain.csv", "packed.csv.gz"}) {
    INFO(name);
    write_recording(dir / name, recording);
    const Recording notes = read_recording_notes(dir / name);
    CHECK(notes.kernel == "k");
    CHECK(notes.problem == "1024");
    CHECK(notes.device == "GPU A");
    CHECK(notes.default_config == "block=3");
    CHECK(notes.space.configs.empty());
  }
  // Rows that would not parse are not read.
  std::ofstream(dir / "bad-rows.csv") << "# blocktune recorded space 1\n# kernel: k\n# problem: 64\nconfig,outcome\nnot,a,row,at,all\n";
  CHECK(read_recording_notes(dir / "bad-rows.csv").problem == "64");
  CHECK_THROWS_WITH(read_recording(dir / "bad-rows.csv"), Catch::Contains("bad-rows.csv"));
  // A file that is not a recording, or not there, is named.
  std::ofstream(dir / "other.csv") << "a,b\n1,2\n";
  CHECK_THROWS_WITH(read_recording_notes(dir / "other.csv"), Catch::Contains("other.csv") && Catch::Contains("does not start with"));
  CHECK_THROWS_WITH(read_recording_notes(dir / "missing.csv"), Catch::Contains("missing.csv"));
}

TEST_CASE("Other sizes given as files choose as the recordings do and read only the rows they use") {
  TempDir dir;
  const Recording tuned = sized_recording("GPU A", "1024", 12, 1e-3);
  std::vector<Recording> others = {
      sized_recording("GPU B", "2048", 12, 1e-3),   // another device
      sized_recording("GPU A", "4096", 5, 1e-3),    // the nearest other size, with too few configurations
      sized_recording("GPU A", "16x512", 12, 2e-3),  // 8192 elements: the nearest that qualifies
  };
  // Seven more that qualify, 2^14 to 2^20 elements: with 16x512, the kSizesCompared compared.
  for (int n = 14; n <= 20; ++n) others.push_back(sized_recording("GPU A", std::to_string(1 << n), 12, 3e-3));
  static_assert(kSizesCompared == 8);
  others.push_back(sized_recording("GPU A", "4194304", 12, 5e-3));  // farther: never read
  std::vector<std::filesystem::path> files;
  for (std::size_t i = 0; i < others.size(); ++i) {
    files.push_back(dir / fmt::format("other-{}.csv.gz", i));
    write_recording(files.back(), others[i]);
  }
  const auto expected = nearest_size_transfer(tuned, others);
  REQUIRE(expected);
  // The other device's and the farthest size's rows made unreadable: neither is needed.
  for (const std::size_t unused : {std::size_t{0}, others.size() - 1})
    std::ofstream(files[unused]) << fmt::format("# blocktune recorded space 1\n# kernel: k\n# problem: {}\n# device: {}\nconfig\n\"\n",
                                                 others[unused].problem, others[unused].device);
  OtherSizes other_sizes(files);
  const auto transfer = other_sizes.nearest_size_transfer(tuned);
  REQUIRE(transfer);
  CHECK(transfer->index == expected->index);
  CHECK(transfer->index == 2);
  CHECK(transfer->transfer.configurations() == expected->transfer.configurations());
  CHECK(transfer->transfer.factor("block=1") == Approx(expected->transfer.factor("block=1")));
  // Asked again for the same kernel, device and problem (a repeat), it answers without reading the file again.
  std::filesystem::remove(files[2]);
  const auto again = other_sizes.nearest_size_transfer(tuned);
  REQUIRE(again);
  CHECK(again->index == 2);
  CHECK(again->transfer.factor("block=1") == Approx(transfer->transfer.factor("block=1")));
  // Another size of the tuned kernel needs the rows again: the file's absence is named.
  Recording other_size = tuned;
  other_size.problem = "2048";
  CHECK_THROWS_WITH(other_sizes.nearest_size_transfer(other_size), Catch::Contains("other-2.csv.gz"));
  OtherSizes none({});
  CHECK_FALSE(none.nearest_size_transfer(tuned));
  CHECK_THROWS_WITH(OtherSizes({dir / "missing.csv"}), Catch::Contains("missing.csv"));
}

// The same size timed warm and with the L2 flushed is two questions: the
// answer kept for the one must not answer the other.
TEST_CASE("Other sizes answer a size timed with the L2 flushed apart from the same size timed warm") {
  TempDir dir;
  Recording flushed_other = sized_recording("GPU A", "4096", 12, 4e-3);
  flushed_other.l2_flushed = true;
  const std::vector<Recording> others = {sized_recording("GPU A", "2048", 12, 2e-3), flushed_other};
  std::vector<std::filesystem::path> files;
  for (std::size_t i = 0; i < others.size(); ++i) {
    files.push_back(dir / fmt::format("other-{}.csv.gz", i));
    write_recording(files.back(), others[i]);
  }
  OtherSizes other_sizes(files);
  const Recording warm = sized_recording("GPU A", "1024", 12, 1e-3);
  Recording flushed = warm;
  flushed.l2_flushed = true;
  REQUIRE(other_sizes.nearest_size_transfer(warm));
  CHECK(other_sizes.nearest_size_transfer(warm)->index == 0);
  REQUIRE(other_sizes.nearest_size_transfer(flushed));
  CHECK(other_sizes.nearest_size_transfer(flushed)->index == 1);
}

