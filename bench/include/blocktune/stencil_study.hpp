// The stencil study (docs/stencil-study.md), as `blocktune bench stencil` runs
// it: tune the 3D stencil over every configuration (resuming from the
// database), then time again the best configuration of each coding beside the
// naive baseline, against the device-to-device copy of the same run.
#pragma once

#include <blocktune/db_types.hpp>
#include <blocktune/tuner.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace blocktune {

struct StencilStudyOptions {
  int radius = 1;
  bool f64 = false;  // FP64 instead of FP32
  // Its time_steps: the objective, so the codings fusing up to that many steps take part.
  ProblemSize problem;
  int device = 0;                   // GPU ordinal
  std::filesystem::path database;   // the tuning database, created (with its folder) where missing
  std::filesystem::path csv;        // empty, or a CSV file to append one row per coding to
  std::vector<std::string> where;   // constraints that restrict the tuned space; the baseline is timed whatever they say
  std::function<void(const TuneProgress&)> progress;  // during the tuning
};

// Runs the study and prints its table to standard output: per coding (strategy
// + z handling, and fused steps) the time per launch and per step, GB/s and
// GFLOP/s per step, the share of the copy bandwidth, the speed-up over the
// baseline and the configuration; then what temporal blocking gains. Throws
// what tuning throws (no GPU, a bad constraint, a database it cannot write),
// and std::runtime_error when the CSV file cannot be appended to.
void run_stencil_study(const StencilStudyOptions& options);

}  // namespace blocktune
