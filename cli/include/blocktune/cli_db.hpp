// The `blocktune db` command line: list, export, import, merge, check.
#pragma once

#include <blocktune/runtime.hpp>

#include <filesystem>
#include <iostream>
#include <string_view>

namespace CLI {
class App;
}

namespace blocktune {

// Registers `db` and its subcommands on app. Each subcommand takes the
// database from `--db PATH` (default: default_db). A failure prints one line
// to err naming the file and what is wrong, then throws CLI::RuntimeError(1),
// which app.exit() turns into exit code 1.
void add_db_commands(CLI::App& app, const std::filesystem::path& default_db, std::ostream& out = std::cout,
                     std::ostream& err = std::cerr);

// For `blocktune best --arch`: "sm_90", "sm_90a", "90" or "9.0" to a device
// key with only the compute capability set. Throws std::invalid_argument.
DeviceKey device_key_for_arch(std::string_view arch);

}  // namespace blocktune
