#include "db_test_util.hpp"

#include <blocktune/runtime.hpp>

#include <catch2/catch.hpp>

#include <thread>

using namespace blocktune;
using namespace blocktune::test;

namespace {

const DeviceRecord sxm = device("GPU-A", "NVIDIA H100 80GB HBM3", 9, 0, 132);
const DeviceRecord pcie = device("GPU-C", "NVIDIA H100 PCIe", 9, 0, 114);
const DeviceRecord a100 = device("GPU-D", "NVIDIA A100-SXM4-80GB", 8, 0, 108);

const ProblemSize cube256{{256, 256, 256}};
const ProblemSize cube512{{512, 512, 512}};

void add_winner(Store& store, const DeviceRecord& device, std::int64_t kernel, const ProblemSize& problem,
                const TrialRecord& winner) {
  const auto device_id = store.upsert_device(device);
  const auto problem_id = store.upsert_problem(kernel, problem);
  store.add_trial(device_id, kernel, problem_id, winner);
  store.add_trial(device_id, kernel, problem_id, trial(1, 1, 1, winner.median_ms * 3));  // a slower runner-up
  store.update_winner(device_id, kernel, problem_id);
}

// H100 SXM tuned for 256^3 and 512^3, H100 PCIe and A100 for 512^3, an
// occupancy default for sm_89, and a kernel default.
std::filesystem::path build_database(const TempDir& dir) {
  const auto file = dir / "tuning.db";
  Store store = Store::open(file);
  KernelRecord kernel = stencil();
  kernel.default_shape = LaunchShape{{32, 4, 1}, -1};
  const auto id = store.upsert_kernel(kernel);
  add_winner(store, sxm, id, cube256, trial(64, 2, 1, 0.2));
  add_winner(store, sxm, id, cube512, trial(128, 1, 1, 1.5));
  add_winner(store, pcie, id, cube512, trial(32, 8, 1, 2.0));
  add_winner(store, a100, id, cube512, trial(256, 1, 1, 3.0));
  store.set_arch_default("stencil3d", 8, 9, config(64, 4, 1), LaunchShape{{64, 4, 1}, 50});
  return file;
}

DeviceKey key(std::string uuid, std::string name, int cc_major, int cc_minor, int sm_count) {
  return {std::move(uuid), std::move(name), cc_major, cc_minor, sm_count};
}

const DeviceKey sxm_key = key("GPU-A", "NVIDIA H100 80GB HBM3", 9, 0, 132);

}  // namespace

TEST_CASE("every fallback level of the query") {
  TempDir dir;
  const auto db = TuningDatabase::open(build_database(dir));

  SECTION("exact match") {
    const BestConfig& best = db.best("stencil3d", sxm_key, cube512);
    CHECK(best.match == MatchKind::exact);
    CHECK(best.config == config(128, 1, 1));
    CHECK(best.shape == LaunchShape{{128, 1, 1}, -1});
    CHECK(best.median_ms == 1.5);
    CHECK(best.tuned_device == "NVIDIA H100 80GB HBM3");
    CHECK(best.tuned_device_uuid == "GPU-A");
    CHECK(best.tuned_problem == cube512);
    REQUIRE(best.parameters.size() == 3);
    CHECK(best.parameters[0] == std::pair<std::string, std::string>{"block_x", "128"});
    CHECK(best.get_int("block_x", 0) == 128);
    CHECK(best.get_int("tile", 7) == 7);
    CHECK(format_best(best).find("exact match") != std::string::npos);
  }
  SECTION("nearest tuned problem size, per dimension in log space") {
    CHECK(db.best("stencil3d", sxm_key, ProblemSize{{300, 300, 300}}).tuned_problem == cube256);
    CHECK(db.best("stencil3d", sxm_key, ProblemSize{{400, 400, 400}}).tuned_problem == cube512);
    // 512x512x200 is nearer 512^3 than 256^3 in log space, although a
    // linear distance on the last dimension alone would pick 256^3.
    const BestConfig& best = db.best("stencil3d", sxm_key, ProblemSize{{512, 512, 200}});
    CHECK(best.match == MatchKind::nearest_problem);
    CHECK(best.tuned_problem == cube512);
    CHECK(best.config == config(128, 1, 1));
  }
  SECTION("another device of the same name") {
    for (const auto& uuid : {"GPU-never-seen", ""}) {
      const BestConfig& best = db.best("stencil3d", key(uuid, "NVIDIA H100 80GB HBM3", 9, 0, 132), cube512);
      CHECK(best.match == MatchKind::same_device_name);
      CHECK(best.tuned_device_uuid == "GPU-A");
      CHECK(best.config == config(128, 1, 1));
    }
  }
  SECTION("same compute capability and SM count") {
    const BestConfig& best = db.best("stencil3d", key("GPU-new", "NVIDIA H100 NVL", 9, 0, 114), cube512);
    CHECK(best.match == MatchKind::same_arch_and_sm_count);
    CHECK(best.tuned_device_uuid == "GPU-C");
    CHECK(best.config == config(32, 8, 1));
  }
  SECTION("same compute capability: nearest problem first, then nearest SM count") {
    const auto other = key("GPU-new", "Some Hopper", 9, 0, 120);
    const BestConfig& by_sm = db.best("stencil3d", other, cube512);
    CHECK(by_sm.match == MatchKind::same_arch);
    CHECK(by_sm.tuned_device_uuid == "GPU-C");  // 114 SMs is nearer 120 than 132
    const BestConfig& by_problem = db.best("stencil3d", other, cube256);
    CHECK(by_problem.tuned_device_uuid == "GPU-A");  // only GPU-A was tuned for 256^3
  }
  SECTION("occupancy default for the architecture") {
    const BestConfig& best = db.best("stencil3d", key("GPU-new", "NVIDIA GeForce RTX 4090", 8, 9, 128), cube512);
    CHECK(best.match == MatchKind::arch_default);
    CHECK(best.shape == LaunchShape{{64, 4, 1}, 50});
    CHECK(best.config == config(64, 4, 1));
    CHECK(best.median_ms == 0);
    CHECK(best.tuned_device.empty());
  }
  SECTION("the kernel's default configuration") {
    const BestConfig& best = db.best("stencil3d", key("GPU-new", "Tesla T4", 7, 5, 40), cube512);
    CHECK(best.match == MatchKind::kernel_default);
    CHECK(best.config == "block_x=32,block_y=4,block_z=1");
    CHECK(best.shape.block == std::array{32, 4, 1});
    // A problem of another rank never matches tuned sizes: the application
    // still gets something to launch; problem_ranks() tells it apart.
    CHECK(db.best("stencil3d", sxm_key, ProblemSize{{512, 512}}).match == MatchKind::kernel_default);
    CHECK(db.problem_ranks("stencil3d") == std::vector<std::size_t>{3});
    CHECK(db.problem_ranks("no_such_kernel").empty());
  }
  SECTION("nothing known") {
    const BestConfig& best = db.best("no_such_kernel", sxm_key, cube512);
    CHECK(best.match == MatchKind::none);
    CHECK_FALSE(best.found());
    CHECK(best.get_int("block_x", 256) == 256);
    CHECK(format_best(best) == "no configuration: nothing stored for this kernel fits this device");
  }
}

TEST_CASE("the newest source version of a kernel answers") {
  TempDir dir;
  const auto file = dir / "tuning.db";
  {
    Store store = Store::open(file);
    add_winner(store, sxm, store.upsert_kernel(stencil("old")), cube512, trial(128, 1, 1, 1.0));
    add_winner(store, sxm, store.upsert_kernel(stencil("new")), cube512, trial(32, 2, 1, 1.2));
  }
  CHECK(TuningDatabase::open(file).best("stencil3d", sxm_key, cube512).config == config(32, 2, 1));
}

TEST_CASE("the kernel default shape is learned from its measured trial") {
  TempDir dir;
  const auto file = dir / "tuning.db";
  {
    Store store = Store::open(file);
    const auto kernel = store.upsert_kernel(stencil());  // default shape unknown
    add_winner(store, sxm, kernel, cube512, trial(32, 4, 1, 1.0));  // the default config itself
    store.upsert_kernel(stencil());  // registering again keeps what was learned
  }
  const auto best = TuningDatabase::open(file).best("stencil3d", key("", "", 7, 5, 40), cube512);
  CHECK(best.match == MatchKind::kernel_default);
  CHECK(best.shape.block == std::array{32, 4, 1});
}

TEST_CASE("answers come from memory and are shared by copies") {
  TempDir dir;
  const auto db = TuningDatabase::open(build_database(dir));
  const BestConfig& first = db.best("stencil3d", sxm_key, cube512);
  const BestConfig& again = db.best("stencil3d", sxm_key, cube512);
  CHECK(&first == &again);
  const TuningDatabase copy = db;
  CHECK(&copy.best("stencil3d", sxm_key, cube512) == &first);
  // On a temporary database the answer is a value, never a dangling reference.
  STATIC_REQUIRE(std::is_same_v<decltype(TuningDatabase::open("").best("", {}, {})), BestConfig>);
  CHECK(db.path() == dir / "tuning.db");
}

TEST_CASE("a database is a snapshot taken at open") {
  TempDir dir;
  const auto file = build_database(dir);
  const auto before = TuningDatabase::open(file);
  {
    Store store = Store::open(file);
    add_winner(store, sxm, store.upsert_kernel(stencil()), ProblemSize{{1024, 1024, 1024}}, trial(512, 1, 1, 9.0));
  }
  const ProblemSize cube1024{{1024, 1024, 1024}};
  CHECK(before.best("stencil3d", sxm_key, cube1024).match == MatchKind::nearest_problem);
  CHECK(TuningDatabase::open(file).best("stencil3d", sxm_key, cube1024).match == MatchKind::exact);
}

TEST_CASE("many threads query one database") {
  TempDir dir;
  const auto db = TuningDatabase::open(build_database(dir));
  const std::vector<DeviceKey> devices{sxm_key, key("GPU-x", "NVIDIA H100 PCIe", 9, 0, 114),
                                       key("GPU-y", "RTX", 8, 9, 128), key("GPU-z", "T4", 7, 5, 40)};
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const auto& device = devices[static_cast<std::size_t>((i + t) % 4)];
        const ProblemSize problem{{64 + (i % 50) * 16, 512, 512}};
        const BestConfig expected = TuningDatabase(db).best("stencil3d", device, problem);
        const BestConfig& got = db.best("stencil3d", device, problem);
        if (got.config != expected.config || got.match != expected.match) ++mismatches;
      }
    });
  for (auto& thread : threads) thread.join();
  CHECK(mismatches == 0);
}

TEST_CASE("problem sizes parse and print") {
  CHECK(ProblemSize::parse("512x512x512").dims == std::vector<std::int64_t>{512, 512, 512});
  CHECK(ProblemSize::parse("7").dims == std::vector<std::int64_t>{7});
  CHECK(ProblemSize::parse("1x2x3x4").to_string() == "1x2x3x4");
  CHECK(ProblemSize{{4096, 1}}.to_string() == "4096x1");
  CHECK_THROWS_WITH(ProblemSize::parse(""), Catch::Contains("empty problem size"));
  CHECK_THROWS_WITH(ProblemSize::parse("0x5"), Catch::Contains("dimension 1 is 0, not positive"));
  CHECK_THROWS_WITH(ProblemSize::parse("-3"), Catch::Contains("'-3'") && Catch::Contains("not positive"));
  CHECK_THROWS_WITH(ProblemSize::parse("axb"), Catch::Contains("('a') is not an integer"));
  CHECK_THROWS_WITH(ProblemSize::parse("512x"), Catch::Contains("dimension 2 is empty"));
  CHECK_THROWS_WITH(ProblemSize::parse("99999999999999999999"), Catch::Contains("too large"));
  CHECK_THROWS_AS(ProblemSize::parse("512 x 512"), std::invalid_argument);
  CHECK_THROWS_AS(ProblemSize::parse("+5"), std::invalid_argument);
}

TEST_CASE("helpers for applications") {
  const char bytes[16] = {'\x8f', '\x3c', 0x1a, 0x2b, 0x0d, 0x4e, 0x5f, 0x60,
                          0x71,   '\x82', '\x93', '\xa4', '\xb5', '\xc6', '\xd7', '\xe8'};
  CHECK(format_gpu_uuid(bytes) == "GPU-8f3c1a2b-0d4e-5f60-7182-93a4b5c6d7e8");
  CHECK(describe(MatchKind::nearest_problem) == "nearest tuned problem size");
  CHECK(describe(MatchKind::same_arch_and_sm_count) == "same compute capability and SM count");

  const auto with_env = [](const char* db, const char* xdg, const char* home) {
    const auto set = [](const char* name, const char* value) {
      value ? ::setenv(name, value, 1) : ::unsetenv(name);
    };
    set("BLOCKTUNE_DB", db);
    set("XDG_DATA_HOME", xdg);
    set("HOME", home);
    return default_database_path();
  };
  const std::string saved_home = std::getenv("HOME") ? std::getenv("HOME") : "";
  CHECK(with_env("/x/my.db", "/xdg", "/home/u") == "/x/my.db");
  CHECK(with_env(nullptr, "/xdg", "/home/u") == "/xdg/blocktune/tuning.db");
  CHECK(with_env("", "relative/ignored", "/home/u") == "/home/u/.local/share/blocktune/tuning.db");
  CHECK(with_env(nullptr, nullptr, nullptr) == "tuning.db");
  with_env(nullptr, nullptr, saved_home.empty() ? nullptr : saved_home.c_str());
}

TEST_CASE("an empty database answers nothing, for any kernel") {
  const TuningDatabase db = TuningDatabase::empty();
  const DeviceKey device{"GPU-00000000-0000-0000-0000-000000000000", "NVIDIA H100 80GB HBM3", 9, 0, 132};
  const BestConfig& best = db.best("stencil3d", device, ProblemSize{{512, 512, 512}, 100});
  CHECK(best.match == MatchKind::none);
  CHECK_FALSE(best.found());
  CHECK(best.config.empty());
  CHECK(db.problem_ranks("stencil3d").empty());
  CHECK(db.path().empty());
  CHECK_FALSE(TuningDatabase::empty().best("stencil3d", device, ProblemSize{{8}}).found());
}
