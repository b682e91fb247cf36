// blocktune-worker: measures configurations for blocktune in a separate
// process, so that a kernel that faults or hangs cannot stop a tuning run.
#include <blocktune/kernels.hpp>
#include <blocktune/worker.hpp>

int main(int argc, char** argv) { return blocktune::run_measurement_worker(argc, argv, blocktune::load_kernel); }
