/// @file
/// @brief blocktune's installed C++ API, in one include.
///
/// An application built against an installed blocktune
/// (`find_package(blocktune REQUIRED COMPONENTS launch)`, then
/// `target_link_libraries(app PRIVATE blocktune::launch)`) includes this header
/// and gets:
///
/// - the run-time query (runtime.hpp): TuningDatabase, BestConfig, DeviceKey,
///   ProblemSize, the time-step plans of time_steps.hpp; SQLite only, no CUDA
///   (`blocktune::runtime` alone gives just this part);
/// - the launch API (launcher.hpp): TunedKernel, which asks the database,
///   compiles the chosen configuration once with NVRTC and launches it;
/// - the errors it throws (errors.hpp): GpuUnavailable and CudaError, besides
///   StoreError (db_types.hpp) and the standard exceptions.
///
/// Headers under `blocktune/detail/` are installed because these need them;
/// they are not part of the API and may change in any version.
#pragma once

#include <blocktune/db_types.hpp>
#include <blocktune/errors.hpp>
#include <blocktune/launcher.hpp>
#include <blocktune/runtime.hpp>
#include <blocktune/time_steps.hpp>

/// @brief Everything blocktune declares.
namespace blocktune {}
