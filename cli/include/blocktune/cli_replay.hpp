// The `blocktune replay` command line: compare search strategies on recorded
// spaces without a GPU, score the searches of other tools on them, and export
// recorded spaces from the tuning database.
#pragma once

#include <filesystem>
#include <iostream>

namespace CLI {
class App;
}

namespace blocktune {

// Registers `replay run`, `replay score` and `replay export-space` on app; the database
// defaults to default_db. A failure prints one line to err saying what is
// wrong, then throws CLI::RuntimeError(1), which app.exit() turns into exit
// code 1.
void add_replay_commands(CLI::App& app, const std::filesystem::path& default_db, std::ostream& out = std::cout,
                         std::ostream& err = std::cerr);

}  // namespace blocktune
