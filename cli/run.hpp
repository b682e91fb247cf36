// The blocktune command line as a function: main() is `return run(argc, argv);`.
// It writes to std::cout and std::cerr and returns the exit code (README: Exit codes).
#pragma once

namespace blocktune::cli {

int run(int argc, char** argv);

}  // namespace blocktune::cli
