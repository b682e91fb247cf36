// Registers and shared memory of configurations not compiled yet, learned
// from the variants compiled so far: what the execution-time model ranks
// with before a compile (blocktune tune compiles only what its strategy
// proposes, so most of a large space is never compiled).
#pragma once

#include <blocktune/detail/compiler.hpp>
#include <blocktune/detail/kernel.hpp>

#include <string>
#include <utility>
#include <vector>

namespace blocktune {

class ResourceEstimator {
 public:
  // The parameters that reach the compiler (as defines or in the entry's
  // name) decide a variant's resources; the others (launch settings) do not.
  explicit ResourceEstimator(const KernelDescription& kernel);

  void learn(const Config& config, const ResourceUsage& usage);
  // The resources of the compiled configurations nearest to `config` (fewest
  // differing compile parameters; the mean where several are as near), or,
  // before any compile, those of a typical small kernel: 32 registers, no
  // static shared memory, no spills.
  ResourceUsage estimate(const Config& config) const;
  std::size_t learned() const { return known_.size(); }

 private:
  std::vector<Value> key(const Config& config) const;

  std::vector<std::string> compile_parameters_;
  std::vector<std::pair<std::vector<Value>, ResourceUsage>> known_;
};

}  // namespace blocktune
