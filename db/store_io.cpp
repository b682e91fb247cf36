// Moving tuning results between databases: JSON export and import, merge.
#include "store_impl.hpp"

#include "schema.hpp"

#include <nlohmann/json.hpp>

#include <concepts>
#include <istream>
#include <map>
#include <ostream>
#include <set>
#include <tuple>

namespace blocktune {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view export_format = "blocktune-tuning-db";
constexpr int export_format_version = 1;

ProblemSize stored_problem(std::string_view dims, const std::filesystem::path& file) {
  try {
    return ProblemSize::parse(dims);
  } catch (const std::invalid_argument& error) {
    throw StoreError(sqlite::quoted(file) + " holds an invalid " + error.what());
  }
}

// ---- JSON out ----

Json block_json(const LaunchShape& shape) { return Json::array({shape.block[0], shape.block[1], shape.block[2]}); }

Json to_json(const DeviceRecord& d) {
  return {{"uuid", d.uuid},
          {"name", d.name},
          {"cc_major", d.cc_major},
          {"cc_minor", d.cc_minor},
          {"sm_count", d.sm_count},
          {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes},
          {"sm_clock_mhz", d.sm_clock_mhz},
          {"memory_clock_mhz", d.memory_clock_mhz},
          {"memory_bus_bits", d.memory_bus_bits},
          {"driver_version", d.driver_version},
          {"cuda_version", d.cuda_version},
          {"ecc", d.ecc}};
}

Json to_json(const Dump::Metric& entry) {
  const DeviceMetric& m = entry.metric;
  return {{"device", entry.device_uuid}, {"name", m.name},
          {"value", m.value},           {"unit", m.unit},
          {"measured_at", m.measured_at}, {"blocktune_version", m.blocktune_version}};
}

Json to_json(const Dump::Kernel& k) {
  Json problems = Json::array();
  for (const auto& problem : k.problems) problems.push_back(problem.to_string());
  return {{"name", k.record.name},
          {"source_hash", k.record.source_hash},
          {"parameter_names", k.record.parameter_names},
          {"default_config", k.record.default_config},
          {"default_block", k.record.default_shape ? block_json(*k.record.default_shape) : Json()},
          {"default_carveout", k.record.default_shape ? Json(k.record.default_shape->carveout) : Json()},
          {"counts_work", k.record.counts_work ? Json(*k.record.counts_work) : Json()},
          {"created_at", k.created_at},
          {"problems", problems}};
}

Json to_json(const Dump::ArchDefault& a) {
  return {{"kernel", a.kernel_name}, {"cc_major", a.cc_major}, {"cc_minor", a.cc_minor},
          {"config", a.config},      {"block", block_json(a.shape)}, {"carveout", a.shape.carveout}};
}

Json to_json(const Dump::Trial& entry) {
  const TrialRecord& t = entry.record;
  return {{"device", entry.device_uuid},
          {"kernel", entry.kernel_name},
          {"source_hash", entry.source_hash},
          {"problem", entry.problem.to_string()},
          {"config", t.config},
          {"block", block_json(t.shape)},
          {"carveout", t.shape.carveout},
          {"outcome", to_string(t.outcome)},
          {"message", t.message},
          {"samples_ms", t.samples_ms},
          {"median_ms", t.median_ms},
          {"min_ms", t.min_ms},
          {"mean_ms", t.mean_ms},
          {"spread", t.spread},
          {"registers", t.registers},
          {"static_smem", t.static_smem},
          {"dynamic_smem", t.dynamic_smem},
          {"local_bytes", t.local_bytes},
          {"spill_stores", t.spill_stores},
          {"spill_loads", t.spill_loads},
          {"blocks_per_sm", t.blocks_per_sm},
          {"occupancy", t.occupancy},
          {"limiting_factor", t.limiting_factor},
          {"compile_s", t.compile_s},
          {"verify_s", t.verify_s},
          {"benchmark_s", t.benchmark_s},
          {"timestamp", t.timestamp},
          {"blocktune_version", t.blocktune_version},
          {"sm_clock_mhz", t.sm_clock_mhz},
          {"metric", t.metric},
          {"metric_unit", t.metric_unit},
          {"predicted_ms", t.predicted_ms ? Json(*t.predicted_ms) : Json()},
          {"steps_per_launch", t.steps_per_launch},
          {"l2_flushed", t.l2_flushed},
          {"resident_warps", t.resident_warps ? Json(*t.resident_warps) : Json()}};
}

Json to_json(const Dump::StepCount& entry) {
  return {{"device", entry.device_uuid},
          {"kernel", entry.kernel_name},
          {"source_hash", entry.source_hash},
          {"problem", entry.problem.to_string()},
          {"time_steps", entry.problem.time_steps}};
}

// One record per line: large exports stay readable and diff well.
template <class Items>
void write_section(std::ostream& out, std::string_view name, const Items& items, bool last) {
  out << "  \"" << name << "\": [";
  const char* separator = "\n    ";
  for (const auto& item : items) {
    // Compile logs may hold bytes that are not UTF-8: replace them, do not fail.
    out << separator << to_json(item).dump(-1, ' ', false, Json::error_handler_t::replace);
    separator = ",\n    ";
  }
  out << (items.empty() ? "]" : "\n  ]") << (last ? "\n" : ",\n");
}

// ---- JSON in ----

// Reads the fields of one JSON object; every message names the source and
// the place, like "JSON file 'a.json': trials[3].median_ms: expected a number".
class Fields {
 public:
  Fields(const Json& object, std::string where, std::string_view source)
      : object_(object), where_(std::move(where)), source_(source) {
    if (!object.is_object()) fail("", "expected a JSON object");
  }

  bool has(const char* key) const {  // present and not null
    const auto found = object_.find(key);
    return found != object_.end() && !found->is_null();
  }

  template <class T>
  T get(const char* key) const {
    const auto found = object_.find(key);
    if (found == object_.end()) fail(key, "is missing");
    return convert<T>(*found, key);
  }

  template <class T>
  T get(const char* key, T fallback) const {
    return has(key) ? convert<T>(object_[key], key) : fallback;
  }

  LaunchShape shape(const char* block_key, const char* carveout_key) const {
    const auto block = get<std::vector<int>>(block_key);
    if (block.size() != 3) fail(block_key, "expected three block dimensions");
    const LaunchShape shape{{block[0], block[1], block[2]}, get<int>(carveout_key, LaunchShape::driver_default_carveout)};
    if (const auto problem = find_problem(shape)) fail(block_key, *problem);
    return shape;
  }

  [[noreturn]] void fail(std::string_view key, std::string_view problem) const {
    std::string place = where_;
    if (!key.empty()) place += (place.empty() ? "" : ".") + std::string(key);
    throw StoreError("JSON file '" + std::string(source_) + "': " + place + ": " + std::string(problem));
  }

 private:
  template <class T>
  T convert(const Json& value, const char* key) const {
    if constexpr (std::same_as<T, std::string>) {
      if (!value.is_string()) fail(key, "expected a string");
      return value.get<std::string>();
    } else if constexpr (std::same_as<T, bool>) {
      if (!value.is_boolean()) fail(key, "expected true or false");
      return value.get<bool>();
    } else if constexpr (std::integral<T>) {
      if (!value.is_number_integer()) fail(key, "expected an integer");
      const auto number = value.get<std::int64_t>();
      if (!std::in_range<T>(number) || (value.is_number_unsigned() && value.get<std::uint64_t>() > INT64_MAX))
        fail(key, "integer out of range");
      return static_cast<T>(number);
    } else if constexpr (std::floating_point<T>) {
      if (!value.is_number()) fail(key, "expected a number");
      return value.get<T>();
    } else {  // a std::vector of one of the above
      if (!value.is_array()) fail(key, "expected an array");
      T items;
      for (const auto& item : value) items.push_back(convert<typename T::value_type>(item, key));
      return items;
    }
  }

  const Json& object_;
  std::string where_;
  std::string_view source_;
};

std::string place(std::string_view section, std::size_t index) {
  return std::string(section) + "[" + std::to_string(index) + "]";
}

const Json& section(const Json& root, const char* name, std::string_view source) {
  static const Json empty = Json::array();
  const auto found = root.find(name);
  if (found == root.end()) return empty;
  if (!found->is_array()) Fields(root, "", source).fail(name, "expected an array");
  return *found;
}

Dump dump_from_json(const Json& root, std::string_view source) {
  const Fields top(root, "", source);
  if (top.get<std::string>("format", "") != export_format)
    top.fail("format", "missing or not \"blocktune-tuning-db\": not a blocktune export");
  if (top.get<int>("format_version", 0) > export_format_version)
    top.fail("format_version", "written by a newer blocktune: update blocktune");

  Dump dump;
  std::set<std::string, std::less<>> device_uuids;
  std::set<std::pair<std::string, std::string>> kernel_keys;
  const auto check = [](const Fields& fields, const auto& record) {
    if (const auto problem = find_problem(record)) fields.fail("", *problem);
  };

  const Json& devices = section(root, "devices", source);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Fields f(devices[i], place("devices", i), source);
    DeviceRecord& d = dump.devices.emplace_back();
    d.uuid = f.get<std::string>("uuid");
    d.name = f.get<std::string>("name", "");
    d.cc_major = f.get<int>("cc_major", 0);
    d.cc_minor = f.get<int>("cc_minor", 0);
    d.sm_count = f.get<int>("sm_count", 0);
    d.memory_bytes = f.get<std::int64_t>("memory_bytes", 0);
    d.l2_bytes = f.get<std::int64_t>("l2_bytes", 0);
    d.sm_clock_mhz = f.get<int>("sm_clock_mhz", 0);
    d.memory_clock_mhz = f.get<int>("memory_clock_mhz", 0);
    d.memory_bus_bits = f.get<int>("memory_bus_bits", 0);
    d.driver_version = f.get<int>("driver_version", 0);
    d.cuda_version = f.get<int>("cuda_version", 0);
    d.ecc = f.get<bool>("ecc", false);
    check(f, d);
    device_uuids.insert(d.uuid);
  }

  // Absent from exports of blocktune versions before the section existed.
  const Json& metrics = section(root, "device_metrics", source);
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const Fields f(metrics[i], place("device_metrics", i), source);
    Dump::Metric& entry = dump.device_metrics.emplace_back();
    entry.device_uuid = f.get<std::string>("device");
    if (!device_uuids.contains(entry.device_uuid)) f.fail("device", "'" + entry.device_uuid + "' is not among the devices");
    DeviceMetric& m = entry.metric;
    m.name = f.get<std::string>("name");
    m.value = f.get<double>("value");
    m.unit = f.get<std::string>("unit", "");
    m.measured_at = f.get<std::int64_t>("measured_at", 0);
    m.blocktune_version = f.get<std::string>("blocktune_version", "");
    check(f, m);
  }

  const Json& kernels = section(root, "kernels", source);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const Fields f(kernels[i], place("kernels", i), source);
    Dump::Kernel& k = dump.kernels.emplace_back();
    k.record.name = f.get<std::string>("name");
    k.record.source_hash = f.get<std::string>("source_hash", "");
    k.record.parameter_names = f.get<std::vector<std::string>>("parameter_names", {});
    k.record.default_config = f.get<std::string>("default_config", "");
    if (f.has("default_block")) k.record.default_shape = f.shape("default_block", "default_carveout");
    if (f.has("counts_work")) k.record.counts_work = f.get<bool>("counts_work");
    k.created_at = f.get<std::int64_t>("created_at", 0);
    for (const auto& dims : f.get<std::vector<std::string>>("problems", {})) {
      try {
        k.problems.push_back(ProblemSize::parse(dims));
      } catch (const std::invalid_argument& error) {
        f.fail("problems", error.what());
      }
    }
    check(f, k.record);
    kernel_keys.emplace(k.record.name, k.record.source_hash);
  }

  const Json& arch_defaults = section(root, "arch_defaults", source);
  for (std::size_t i = 0; i < arch_defaults.size(); ++i) {
    const Fields f(arch_defaults[i], place("arch_defaults", i), source);
    dump.arch_defaults.push_back({f.get<std::string>("kernel"), f.get<int>("cc_major"), f.get<int>("cc_minor"),
                                  f.get<std::string>("config"), f.shape("block", "carveout")});
  }

  const Json& trials = section(root, "trials", source);
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const Fields f(trials[i], place("trials", i), source);
    Dump::Trial& entry = dump.trials.emplace_back();
    entry.device_uuid = f.get<std::string>("device");
    if (!device_uuids.contains(entry.device_uuid)) f.fail("device", "'" + entry.device_uuid + "' is not among the devices");
    entry.kernel_name = f.get<std::string>("kernel");
    entry.source_hash = f.get<std::string>("source_hash", "");
    if (!kernel_keys.contains({entry.kernel_name, entry.source_hash}))
      f.fail("kernel", "'" + entry.kernel_name + "' with this source_hash is not among the kernels");
    try {
      entry.problem = ProblemSize::parse(f.get<std::string>("problem"));
    } catch (const std::invalid_argument& error) {
      f.fail("problem", error.what());
    }
    TrialRecord& t = entry.record;
    t.config = f.get<std::string>("config");
    t.shape = f.shape("block", "carveout");
    const auto outcome = parse_outcome(f.get<std::string>("outcome"));
    if (!outcome) f.fail("outcome", "unknown outcome (expected ok, compile_error, ..., pruned_by_occupancy)");
    t.outcome = *outcome;
    t.message = f.get<std::string>("message", "");
    t.samples_ms = f.get<std::vector<double>>("samples_ms", {});
    t.median_ms = f.get<double>("median_ms", 0);
    t.min_ms = f.get<double>("min_ms", 0);
    t.mean_ms = f.get<double>("mean_ms", 0);
    t.spread = f.get<double>("spread", 0);
    t.registers = f.get<int>("registers", 0);
    t.static_smem = f.get<int>("static_smem", 0);
    t.dynamic_smem = f.get<int>("dynamic_smem", 0);
    t.local_bytes = f.get<int>("local_bytes", 0);
    t.spill_stores = f.get<int>("spill_stores", 0);
    t.spill_loads = f.get<int>("spill_loads", 0);
    t.blocks_per_sm = f.get<int>("blocks_per_sm", 0);
    t.occupancy = f.get<double>("occupancy", 0);
    t.limiting_factor = f.get<std::string>("limiting_factor", "");
    t.compile_s = f.get<double>("compile_s", 0);
    t.verify_s = f.get<double>("verify_s", 0);
    t.benchmark_s = f.get<double>("benchmark_s", 0);
    t.timestamp = f.get<std::int64_t>("timestamp", 0);
    t.blocktune_version = f.get<std::string>("blocktune_version", "");
    t.sm_clock_mhz = f.get<int>("sm_clock_mhz", 0);
    t.metric = f.get<double>("metric", 0);
    t.metric_unit = f.get<std::string>("metric_unit", "");
    // Absent from exports of blocktune versions before predictions were stored.
    if (f.has("predicted_ms")) t.predicted_ms = f.get<double>("predicted_ms");
    t.steps_per_launch = f.get<std::int64_t>("steps_per_launch", 1);
    t.l2_flushed = f.get<bool>("l2_flushed", false);  // absent from exports before it was stored
    if (f.has("resident_warps")) t.resident_warps = f.get<int>("resident_warps");  // likewise
    check(f, t);
  }
  const Json& step_winners = section(root, "step_winners", source);  // absent from exports before time steps
  for (std::size_t i = 0; i < step_winners.size(); ++i) {
    const Fields f(step_winners[i], place("step_winners", i), source);
    Dump::StepCount& entry = dump.step_counts.emplace_back();
    entry.device_uuid = f.get<std::string>("device");
    entry.kernel_name = f.get<std::string>("kernel");
    entry.source_hash = f.get<std::string>("source_hash");
    try {
      entry.problem = ProblemSize::parse(f.get<std::string>("problem"));
    } catch (const std::invalid_argument& error) {
      f.fail("problem", error.what());
    }
    entry.problem.time_steps = f.get<std::int64_t>("time_steps");
    if (entry.problem.time_steps < 1) f.fail("time_steps", "a problem runs at least one time step");
  }
  return dump;
}

std::int64_t count_rows(const sqlite::Connection& db, const char* sql) {
  auto statement = db.prepare(sql);
  auto row = statement.query();
  row.next();
  return row.int64(0);
}

}  // namespace

ReadSession::ReadSession(const std::filesystem::path& file)
    : db(sqlite::Connection::open(file, sqlite::Connection::Mode::read_only)),
      snapshot(db, sqlite::Transaction::Kind::read) {
  schema::require_tuning_database(db);
}

Dump read_dump(const sqlite::Connection& db) {
  Dump dump;
  auto devices = db.prepare(
      "SELECT uuid, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, sm_clock_mhz, memory_clock_mhz, "
      "memory_bus_bits, driver_version, cuda_version, ecc FROM devices ORDER BY id");
  for (auto row = devices.query(); row.next();)
    dump.devices.push_back({row.text(0), row.text(1), row.integer(2), row.integer(3), row.integer(4), row.int64(5),
                            row.int64(6), row.integer(7), row.integer(8), row.integer(9), row.integer(10),
                            row.integer(11), row.integer(12) != 0});

  const int version = schema::check(db);
  if (version >= schema::device_metrics_version) {
    auto metrics = db.prepare(
        "SELECT (SELECT uuid FROM devices WHERE id = device_id), name, value, unit, measured_at, blocktune_version "
        "FROM device_metrics ORDER BY device_id, name");
    for (auto row = metrics.query(); row.next();)
      dump.device_metrics.push_back({row.text(0), {row.text(1), row.real(2), row.text(3), row.int64(4), row.text(5)}});
  }

  std::map<std::int64_t, std::size_t> kernel_index;
  auto kernels = db.prepare(
      std::string("SELECT id, name, source_hash, parameter_names, default_config, default_block_x, default_block_y, "
                  "default_block_z, default_carveout, created_at, ") +
      (version >= schema::counts_work_version ? "counts_work" : "NULL") + " FROM kernels ORDER BY id");
  for (auto row = kernels.query(); row.next();) {
    kernel_index[row.int64(0)] = dump.kernels.size();
    std::optional<LaunchShape> shape;
    if (!row.is_null(5)) shape = LaunchShape{{row.integer(5), row.integer(6), row.integer(7)}, row.integer(8)};
    const std::optional<bool> counts_work = row.is_null(10) ? std::nullopt : std::optional(row.integer(10) != 0);
    dump.kernels.push_back(
        {{row.text(1), row.text(2), split_names(row.text_view(3)), row.text(4), shape, counts_work}, row.int64(9), {}});
  }
  auto problems = db.prepare("SELECT kernel_id, dims FROM problems ORDER BY id");
  for (auto row = problems.query(); row.next();)
    dump.kernels.at(kernel_index.at(row.int64(0))).problems.push_back(stored_problem(row.text_view(1), db.path()));

  auto arch_defaults = db.prepare(
      "SELECT kernel_name, cc_major, cc_minor, config, block_x, block_y, block_z, carveout FROM arch_defaults "
      "ORDER BY kernel_name, cc_major, cc_minor");
  for (auto row = arch_defaults.query(); row.next();)
    dump.arch_defaults.push_back({row.text(0), row.integer(1), row.integer(2), row.text(3),
                                  LaunchShape{{row.integer(4), row.integer(5), row.integer(6)}, row.integer(7)}});

  // Correlated sub-queries keep the trial columns unqualified.
  auto trials = db.prepare(
      "SELECT (SELECT uuid FROM devices WHERE id = device_id), (SELECT name FROM kernels WHERE id = kernel_id), "
      "(SELECT source_hash FROM kernels WHERE id = kernel_id), (SELECT dims FROM problems WHERE id = problem_id), " +
      trial_select_list(version) + " FROM trials ORDER BY id");
  for (auto row = trials.query(); row.next();)
    dump.trials.push_back(
        {row.text(0), row.text(1), row.text(2), stored_problem(row.text_view(3), db.path()), read_trial(row, 4, db.path())});

  if (version >= schema::time_steps_version) {
    auto step_counts = db.prepare(
        "SELECT d.uuid, k.name, k.source_hash, p.dims, w.time_steps FROM winners w JOIN devices d ON d.id = w.device_id "
        "JOIN kernels k ON k.id = w.kernel_id JOIN problems p ON p.id = w.problem_id WHERE w.time_steps > 1 "
        "ORDER BY w.device_id, w.kernel_id, w.problem_id, w.time_steps");
    for (auto row = step_counts.query(); row.next();) {
      ProblemSize problem = stored_problem(row.text_view(3), db.path());
      problem.time_steps = row.int64(4);
      dump.step_counts.push_back({row.text(0), row.text(1), row.text(2), std::move(problem)});
    }
  }
  return dump;
}

ImportStats Store::Impl::apply(const Dump& dump, const ImportProgress& progress) {
  sqlite::Transaction transaction(db);
  const auto count = [&] {
    return std::tuple{count_rows(db, "SELECT count(*) FROM devices"), count_rows(db, "SELECT count(*) FROM kernels"),
                      count_rows(db, "SELECT count(*) FROM problems")};
  };
  const auto [devices_before, kernels_before, problems_before] = count();

  // What is stored already wins for devices, kernels and architecture
  // defaults: the same uuid or source hash describes the same thing.
  auto insert_device = db.prepare(R"sql(
    INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, sm_clock_mhz,
                         memory_clock_mhz, memory_bus_bits, driver_version, cuda_version, ecc)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) ON CONFLICT (uuid) DO NOTHING)sql");
  auto device_id = db.prepare("SELECT id FROM devices WHERE uuid = ?1");
  std::map<std::string, std::int64_t, std::less<>> device_ids;
  for (const auto& d : dump.devices) {
    insert_device.run(d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.memory_bytes, d.l2_bytes,
                      d.sm_clock_mhz, d.memory_clock_mhz, d.memory_bus_bits, d.driver_version, d.cuda_version, d.ecc);
    auto row = device_id.query(d.uuid);
    row.next();
    device_ids[d.uuid] = row.int64(0);
  }

  // A kernel version is as old as its earliest registration anywhere.
  auto merge_kernel = db.prepare(R"sql(
    INSERT INTO kernels (name, source_hash, parameter_names, default_config, default_block_x, default_block_y,
                         default_block_z, default_carveout, created_at, counts_work)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
    ON CONFLICT (name, source_hash) DO UPDATE SET created_at = min(created_at, excluded.created_at),
      counts_work = coalesce(counts_work, excluded.counts_work)
    RETURNING id)sql");
  std::map<std::pair<std::string, std::string>, std::int64_t> kernel_ids;
  std::map<std::pair<std::int64_t, std::string>, std::int64_t> problem_ids;
  const auto problem_id = [&](std::int64_t kernel, const ProblemSize& problem) {
    const auto [slot, added] = problem_ids.try_emplace({kernel, problem.to_string()}, 0);
    if (added) slot->second = find_or_add_problem(kernel, slot->first.second);
    return slot->second;
  };
  for (const auto& k : dump.kernels) {
    const auto shape = shape_columns(k.record.default_shape);
    auto row = merge_kernel.query(k.record.name, k.record.source_hash, join_names(k.record.parameter_names),
                                  k.record.default_config, shape.x,
                                  shape.y, shape.z, shape.carveout, k.created_at, k.record.counts_work);
    row.next();
    const auto id = kernel_ids[{k.record.name, k.record.source_hash}] = row.int64(0);
    for (const auto& problem : k.problems) problem_id(id, problem);
  }

  auto insert_arch_default = db.prepare(R"sql(
    INSERT INTO arch_defaults (kernel_name, cc_major, cc_minor, config, block_x, block_y, block_z, carveout)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING)sql");
  for (const auto& a : dump.arch_defaults)
    insert_arch_default.run(a.kernel_name, a.cc_major, a.cc_minor, a.config, a.shape.block[0], a.shape.block[1],
                            a.shape.block[2], a.shape.carveout);

  const auto lookup = [&](const auto& ids, const auto& key, std::string_view what) {
    const auto found = ids.find(key);
    if (found == ids.end()) throw StoreError("a record to import refers to a " + std::string(what) + " it does not list");
    return found->second;
  };

  // A metric or trial measured on both sides: the later measurement wins.
  auto merge_metric = db.prepare(R"sql(
    INSERT INTO device_metrics (device_id, name, value, unit, measured_at, blocktune_version)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
    ON CONFLICT (device_id, name) DO UPDATE SET
      value = excluded.value, unit = excluded.unit, measured_at = excluded.measured_at,
      blocktune_version = excluded.blocktune_version
    WHERE excluded.measured_at > device_metrics.measured_at)sql");
  for (const auto& [uuid, m] : dump.device_metrics)
    merge_metric.run(lookup(device_ids, uuid, "device"), m.name, m.value, m.unit, m.measured_at, m.blocktune_version);

  ImportStats stats;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> sessions;
  for (std::size_t done = 0; const auto& entry : dump.trials) {
    if (progress && done++ % 4096 == 0) progress(done - 1, dump.trials.size());
    const auto device = lookup(device_ids, entry.device_uuid, "device");
    const auto kernel = lookup(kernel_ids, std::pair{entry.kernel_name, entry.source_hash}, "kernel");
    const auto problem = problem_id(kernel, entry.problem);
    std::optional<std::int64_t> stored_timestamp;
    if (auto row = trial_timestamp.query(device, kernel, problem, entry.record.config); row.next())
      stored_timestamp = row.int64(0);
    if (!stored_timestamp) {
      ++stats.trials_added;
    } else if (entry.record.timestamp > *stored_timestamp) {
      ++stats.trials_replaced;
    } else {
      ++stats.trials_kept;
      continue;
    }
    write_trial(device, kernel, problem, entry.record);
    sessions.emplace(device, kernel, problem);
  }
  // The winners for one step, and for every step count the session was tuned
  // for here or in the input.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::set<std::int64_t>> step_counts;
  for (const auto& session : sessions) step_counts[session].insert(1);
  for (const auto& entry : dump.step_counts) {
    const auto kernel = lookup(kernel_ids, std::pair{entry.kernel_name, entry.source_hash}, "kernel");
    step_counts[{lookup(device_ids, entry.device_uuid, "device"), kernel, problem_id(kernel, entry.problem)}].insert(entry.problem.time_steps);
  }
  for (auto& [session, counts] : step_counts) {
    const auto& [device, kernel, problem] = session;
    for (auto row = winner_time_steps.query(device, kernel, problem); row.next();) counts.insert(row.int64(0));
    for (const std::int64_t time_steps : counts)
      if (recompute_winner(device, kernel, problem, {}, time_steps)) ++stats.winners;
  }

  const auto [devices_after, kernels_after, problems_after] = count();
  stats.devices = devices_after - devices_before;
  stats.kernels = kernels_after - kernels_before;
  stats.problems = problems_after - problems_before;
  transaction.commit();
  return stats;
}

ImportStats Store::import_json(std::istream& in, std::string_view source_name, const ImportProgress& progress) {
  Json root;
  try {
    root = Json::parse(in);
  } catch (const Json::parse_error& error) {
    std::string what = error.what();  // "[json.exception.parse_error.101] parse error at line 1, ..."
    if (const auto bracket = what.find("] "); bracket != what.npos) what.erase(0, bracket + 2);
    throw StoreError("JSON file '" + std::string(source_name) + "' is not valid JSON: " + what);
  }
  return impl_->apply(dump_from_json(root, source_name), progress);
}

ImportStats Store::merge(const std::filesystem::path& other_database, const ImportProgress& progress) {
  std::error_code error;
  if (std::filesystem::equivalent(other_database, path(), error))
    throw StoreError(sqlite::quoted(path()) + " cannot be merged into itself");
  Dump dump;
  {
    const ReadSession source(other_database);
    dump = read_dump(source.db);
  }
  return impl_->apply(dump, progress);
}

void export_json(const std::filesystem::path& file, std::ostream& out) {
  Dump dump;
  {
    const ReadSession session(file);
    dump = read_dump(session.db);
  }
  out << "{\n  \"format\": \"" << export_format << "\",\n  \"format_version\": " << export_format_version
      << ",\n  \"exported_by\": \"blocktune " << BLOCKTUNE_VERSION << "\",\n";
  write_section(out, "devices", dump.devices, false);
  write_section(out, "device_metrics", dump.device_metrics, false);
  write_section(out, "kernels", dump.kernels, false);
  write_section(out, "arch_defaults", dump.arch_defaults, false);
  write_section(out, "trials", dump.trials, false);
  write_section(out, "step_winners", dump.step_counts, true);
  out << "}\n";
  if (!out) throw StoreError("exporting " + sqlite::quoted(file) + ": the output could not be written");
}

}  // namespace blocktune
