// blocktune: the command-line tool. Everything is in run() (cli/run.cpp), which
// the command-line fuzzer calls too.
#include "run.hpp"

int main(int argc, char** argv) { return blocktune::cli::run(argc, argv); }
