// libFuzzer target for the spec parser and validator: every input must give
// a description or a SpecError; anything else (another exception, a crash,
// undefined behaviour, a leak) is a bug. Paths in the input are read relative
// to fuzz/data, whose files let well-formed specs reach the deeper checks.
#include <blocktune/spec.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)blocktune::parse_spec(text, BLOCKTUNE_FUZZ_DATA_DIR, "fuzz.json");
  } catch (const blocktune::SpecError&) {
    // The expected answer to a mistake.
  }
  return 0;
}
