// The `blocktune report` and `blocktune explain` command lines.
#pragma once

#include <filesystem>
#include <iostream>

namespace CLI {
class App;
}

namespace blocktune {

// Registers `report` (--db, --kernel, --device (repeatable), --problem,
// --format html|csv|t4|markdown, --output FILE) and `explain` (KERNEL
// --problem P [--config TEXT] [--device D] [--db]) on app. Like the db
// commands, a failure prints one line to err and throws CLI::RuntimeError(1).
void add_report_commands(CLI::App& app, const std::filesystem::path& default_db, std::ostream& out = std::cout,
                         std::ostream& err = std::cerr);

}  // namespace blocktune
