#include <blocktune/arch.hpp>
#include <blocktune/cli_db.hpp>

#include <blocktune/cli_action.hpp>
#include <blocktune/output_file.hpp>

#include <blocktune/store.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <charconv>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>

namespace blocktune {
namespace {

struct DbOptions {
  std::string database;
  std::string output = "-";
  std::vector<std::string> inputs;
};

std::string human_bytes(std::uintmax_t bytes) {
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
  if (bytes < 1024ull * 1024 * 1024) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024 * 1024));
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024 * 1024 * 1024));
}

std::string plural(std::int64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

void print_summary(std::ostream& out, const std::filesystem::path& file, const DatabaseSummary& s) {
  fmt::print(out, "{}: schema {}, {}, {}, {}, {}, {}\n", file.string(), s.schema_version, human_bytes(s.file_bytes),
             plural(static_cast<std::int64_t>(s.devices.size()), "device"),
             plural(static_cast<std::int64_t>(s.kernels.size()), "kernel"),
             plural(static_cast<std::int64_t>(s.sessions.size()), "session"), plural(s.trials, "trial"));
  if (!s.devices.empty()) fmt::print(out, "\ndevices\n");
  for (const auto& d : s.devices)
    fmt::print(out, "  {}  {}  sm_{}{}  {} SMs  {}  driver {}  CUDA {}.{}{}\n", d.uuid, d.name, d.cc_major,
               d.cc_minor, d.sm_count, human_bytes(static_cast<std::uintmax_t>(d.memory_bytes)), d.driver_version,
               d.cuda_version / 1000, d.cuda_version % 1000 / 10, d.ecc ? "  ECC" : "");
  if (!s.kernels.empty()) fmt::print(out, "\nkernels\n");
  for (const auto& k : s.kernels)
    fmt::print(out, "  {}  source {}  parameters {}  default {}\n", k.name, k.source_hash,
               fmt::join(k.parameter_names, ","), k.default_config.empty() ? "(none)" : k.default_config);
  if (!s.sessions.empty()) fmt::print(out, "\nsessions (ok/all trials, winner, its margins to the runner-up and default)\n");
  for (const auto& session : s.sessions) {
    fmt::print(out, "  {}  {}  {}  {}/{}", session.device_name, session.kernel, session.problem.to_string(),
               session.ok_trials, session.trials);
    if (const auto& w = session.winner) {
      fmt::print(out, "  {}  {:.4g} ms", w->config, w->median_ms);
      if (w->margin_runner_up > 0) fmt::print(out, "  x{:.3f} runner-up", w->margin_runner_up);
      if (w->margin_default > 0) fmt::print(out, "  x{:.3f} default", w->margin_default);
    } else {
      fmt::print(out, "  no winner");
    }
    fmt::print(out, "\n");
  }
}

void print_stats(std::ostream& out, std::string_view verb, std::string_view source, const ImportStats& s) {
  fmt::print(out, "{} {}: new {}, {}, {}; trials {} added, {} replaced by newer, {} kept; {} recomputed\n", verb,
             source, plural(s.devices, "device"), plural(s.kernels, "kernel"), plural(s.problems, "problem"),
             s.trials_added, s.trials_replaced, s.trials_kept, plural(s.winners, "winner"));
}

// Progress of an import or merge on `err`, once a second from a second after the start.
ImportProgress import_progress(std::ostream& err, std::string verb, std::string source) {
  auto last = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  return [&err, verb = std::move(verb), source = std::move(source), last](std::size_t done, std::size_t total) {
    if (std::chrono::steady_clock::now() - *last < std::chrono::seconds(1)) return;
    *last = std::chrono::steady_clock::now();
    fmt::print(err, "{} {}: {} of {} trials written\n", verb, source, done, total);
  };
}

void export_to_file(const std::filesystem::path& database, const std::filesystem::path& target) {
  OutputFile output(target);
  {
    std::ofstream file(output.path(), std::ios::binary | std::ios::trunc);
    if (!file) throw StoreError("cannot write '" + output.path().string() + "'");
    export_json(database, file);
  }
  output.commit();
}

}  // namespace

void add_db_commands(CLI::App& app, const std::filesystem::path& default_db, std::ostream& out, std::ostream& err) {
  auto options = std::make_shared<DbOptions>();
  options->database = default_db.string();
  CLI::App* db = app.add_subcommand("db", "list, export, import, merge and check tuning databases");
  db->add_option("--db", options->database, "tuning database")->capture_default_str();
  db->require_subcommand(1);

  // Every failure: one line on err naming the file and the problem, exit code 1.
  const auto add = [&](const char* name, const char* description, std::function<void()> action) {
    CLI::App* command = db->add_subcommand(name, description);
    command->fallthrough();  // `db list --db FILE` as well as `db --db FILE list`
    command->callback([name, action = std::move(action), &err] { run_command_action(err, std::string("db ") + name, action); });
    return command;
  };

  add("list", "show the devices, kernels and tuning sessions stored, with their winners", [options, &out] {
    print_summary(out, options->database, summarize_database(options->database));
  });

  add("export", "write every stored trial as JSON (winners are derived and recomputed on import)",
      [options, &out] {
        if (options->output == "-") {
          export_json(options->database, out);
        } else {
          export_to_file(options->database, options->output);
          fmt::print(out, "exported {} to {}\n", options->database, options->output);
        }
      })
      ->add_option("file", options->output, "JSON file to write; - for standard output")
      ->capture_default_str();

  add("import", "add the trials of JSON exports (each file all or nothing; newer measurements win)",
      [options, &out, &err] {
        Store store = Store::open(options->database);
        for (const auto& input : options->inputs) {
          std::ifstream file(input, std::ios::binary);
          if (!file || std::filesystem::is_directory(input))
            throw StoreError("cannot read JSON file '" + input + "': " +
                             (std::filesystem::exists(input) ? "not a readable file" : "it does not exist"));
          print_stats(out, "imported", input, store.import_json(file, input, import_progress(err, "import", input)));
        }
      })
      ->add_option("files", options->inputs, "JSON files written by `blocktune db export`")
      ->required();

  add("merge", "add the trials of databases tuned on other machines (each all or nothing; newer measurements win)",
      [options, &out, &err] {
        Store store = Store::open(options->database);
        for (const auto& input : options->inputs) print_stats(out, "merged", input, store.merge(input, import_progress(err, "merge", input)));
      })
      ->add_option("databases", options->inputs, "tuning databases to merge into --db")
      ->required();

  add("check", "verify storage integrity and that winners match the stored trials", [options, &out] {
    const CheckReport report = check_database(options->database);
    for (const auto& error : report.errors) fmt::print(out, "error: {}\n", error);
    for (const auto& warning : report.warnings) fmt::print(out, "warning: {}\n", warning);
    if (!report.ok())
      throw StoreError(fmt::format("tuning database '{}' has {}", options->database,
                                   plural(static_cast<std::int64_t>(report.errors.size()), "error")));
    fmt::print(out, "{}: ok{}\n", options->database,
               report.warnings.empty() ? "" : fmt::format(" ({})", plural(static_cast<std::int64_t>(report.warnings.size()), "warning")));
  });
}

DeviceKey device_key_for_arch(std::string_view arch) {
  const auto cc = parse_arch(arch);
  if (!cc) throw std::invalid_argument("architecture '" + std::string(arch) + "': expected sm_XY (like sm_90), XY or X.Y");
  DeviceKey key;
  key.cc_major = cc->first;
  key.cc_minor = cc->second;
  return key;
}

}  // namespace blocktune
