#include <blocktune/kernels.hpp>

namespace blocktune {

extern const char* const kMicrobenchSource;  // microbench.cu, embedded at build time

std::string_view microbenchmark_source() { return kMicrobenchSource; }

}  // namespace blocktune
