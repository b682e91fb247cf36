// Every spec mistake is one SpecError: "FILE: FIELD: what is wrong".
#include "spec_test_util.hpp"

#include <blocktune/detail/device.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <string>

using namespace blocktune;
using namespace blocktune::test;

namespace {

std::string message_of(std::string_view text) {
  try {
    parse_spec(text, kSpecData, "bad.json");
  } catch (const SpecError& error) {
    return error.what();
  }
  return "no error";
}

// The message for the minimal spec changed by `edit`.
std::string error_of(const std::function<void(Json&)>& edit) {
  Json spec = minimal_spec();
  edit(spec);
  return message_of(spec.dump());
}

std::string in_data(const std::string& name) { return (kSpecData / name).lexically_normal().string(); }

const std::string kDeviceVariables = "max_threads_per_block, max_shared_per_block, shared_per_sm, max_threads_per_sm, sm_count, warp_size, cc";
const std::string kProfiles = "sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120";

}  // namespace

TEST_CASE("the minimal spec of these tests is valid", "[spec][errors]") { CHECK(error_of([](Json&) {}) == "no error"); }

TEST_CASE("a missing field is named with what it should hold", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s.erase("entry"); }) ==
        R"(bad.json: entry: missing; required: the kernel's name expression, e.g. "matmul<{tile}>")");
  CHECK(error_of([](Json& s) { s["arguments"][0].erase("count"); }) ==
        "bad.json: arguments[0].count: missing; required: the number of elements, an expression over the problem dimensions");
  CHECK(error_of([](Json& s) { s["arguments"][2].erase("type"); }) ==
        "bad.json: arguments[2].type: missing; required: the element type: f32, f64, i32, i64, u32 or u64");
  CHECK(error_of([](Json& s) { s["objective"] = {{"metric", "GB/s"}}; }) ==
        "bad.json: objective.bytes_moved: missing; required by metric GB/s: the bytes one run reads and writes");
}

TEST_CASE("a field of the wrong type is named with the type expected and found", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["parameters"]["block_x"] = "32"; }) ==
        "bad.json: parameters.block_x: expected an array of integers or strings, got a string");
  CHECK(error_of([](Json& s) { s["parameters"]["block_x"] = Json::array({32, 1.5}); }) ==
        "bad.json: parameters.block_x[1]: expected an integer or a string, got a fractional number");
  CHECK(error_of([](Json& s) { s["verify"] = {{"tolerance", "small"}}; }) == "bad.json: verify.tolerance: expected a number, got a string");
  CHECK(error_of([](Json& s) { s["name"] = 7; }) == "bad.json: name: expected a string, got an integer");
  CHECK(error_of([](Json& s) { s["block"] = "block_x"; }) == "bad.json: block: expected an array of 1 to 3 expressions, got a string");
  CHECK(error_of([](Json& s) { s["arguments"][0]["output"] = "yes"; }) == "bad.json: arguments[0].output: expected true or false, got a string");
  CHECK(error_of([](Json& s) { s["arguments"][0]["type"] = "float"; }) ==
        "bad.json: arguments[0].type: 'float' is not an element type; use f32, f64, i32, i64, u32 or u64");
  CHECK(message_of("[1, 2]") == "bad.json: (top level): a spec is a JSON object, not an array");
}

TEST_CASE("an unknown variable in an expression is named with what is known", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["grid"]["divisors"] = Json::array({"block_y"}); }) ==
        "bad.json: grid.divisors[0]: 'ceil_div(n, block_y)' names 'block_y', which is not a parameter (block_x), a problem "
        "dimension (n), time_steps or a device variable (" + kDeviceVariables + ")");
  CHECK(error_of([](Json& s) { s["constraints"] = Json::array({"block_x <= max_thread_per_block"}); }) ==
        "bad.json: constraints[0]: 'block_x <= max_thread_per_block' names 'max_thread_per_block', which is not a parameter "
        "(block_x), a problem dimension (n), time_steps or a device variable (" + kDeviceVariables + ")");
  CHECK(error_of([](Json& s) { s["verify"] = {{"reference_key", "tile"}}; }) ==
        "bad.json: verify.reference_key: 'tile' names 'tile', which is not a parameter (block_x), a problem dimension (n), time_steps or "
        "a device variable (" + kDeviceVariables + ")");
  // A buffer sized by parameters needs a reference kernel: the default configuration's output has another size.
  CHECK(error_of([](Json& s) { s["arguments"][1]["count"] = "n * block_x"; }) ==
        "bad.json: arguments[1].count: 'n * block_x' names a parameter: the buffer's size changes with the configuration, so the "
        "expected outputs need a reference_kernel, computed for each size");
  CHECK(error_of([](Json& s) { s["entry"] = "scale_reference<{tile}>"; }) ==
        "bad.json: entry: placeholder '{tile}' names no parameter (parameters: block_x)");
  CHECK(error_of([](Json& s) { s["block"] = Json::array({"block_x *"}); }) ==
        "bad.json: block[0]: invalid expression 'block_x *': column 10: unexpected end of expression");
}

TEST_CASE("constraints no configuration satisfies are named", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["constraints"] = Json::array({"block_x >= 32", "block_x > max_threads_per_block"}); }) ==
        "bad.json: constraints[1]: no configuration of the 2 in the space satisfies 'block_x > max_threads_per_block' "
        "with the limits of any architecture profile (" + kProfiles + ")");
  CHECK(error_of([](Json& s) { s["constraints"] = Json::array({"block_x == 32", "block_x == 64"}); }) ==
        "bad.json: constraints: no configuration of the 2 in the space satisfies all 2 constraints together with the limits "
        "of any architecture profile (" + kProfiles + ")");
  // With a default given, the constraints are still blamed first.
  CHECK(error_of([](Json& s) {
          s["constraints"] = Json::array({"block_x > 64"});
          s["default"] = {{"block_x", 64}};
        }) == "bad.json: constraints[0]: no configuration of the 2 in the space satisfies 'block_x > 64' with the limits of any "
              "architecture profile (" + kProfiles + ")");
  CHECK(error_of([](Json& s) { s["constraints"] = Json::array({"32 / (block_x - 32) >= 0"}); }) ==
        "bad.json: constraints[0]: cannot evaluate '32 / (block_x - 32) >= 0': division by zero (with the limits of sm_90)");
}

TEST_CASE("a source file that does not exist is named with where it was looked for", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["sources"] = Json::array({"extra.cu", "missing.cu"}); }) ==
        "bad.json: sources[1]: file '" + in_data("missing.cu") + "' does not exist");
  CHECK(error_of([](Json& s) { s["sources"] = "include"; }) == "bad.json: sources[0]: '" + in_data("include") + "' is not a file");
  CHECK(error_of([](Json& s) { s["include_paths"] = Json::array({"headers"}); }) ==
        "bad.json: include_paths[0]: directory '" + in_data("headers") + "' does not exist");
  CHECK(error_of([](Json& s) {
          s["arguments"][1]["init"] = "file";
          s["arguments"][1]["file"] = "in.bin";
        }) == "bad.json: arguments[1].file: file '" + in_data("in.bin") + "' does not exist");
  CHECK(error_of([](Json& s) { s["verify"] = {{"reference_files", {{"out", "expected.bin"}}}}; }) ==
        "bad.json: verify.reference_files.out: file '" + in_data("expected.bin") + "' does not exist");
  const auto missing = kSpecData / "missing.json";
  CHECK_THROWS_WITH(load_spec(missing), missing.string() + ": (file): file '" + missing.string() + "' does not exist");
}

TEST_CASE("a kernel name that is not in the source is named with the file", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["entry"] = "scale_referenc"; }) == "bad.json: entry: kernel 'scale_referenc' does not appear in extra.cu");
  CHECK(error_of([](Json& s) { s["entry"] = "ns::matmul<{block_x}, float>"; }) ==
        "bad.json: entry: kernel 'matmul' does not appear in extra.cu");
  // The #line directives that name joined files do not count.
  CHECK(error_of([](Json& s) {
          s["sources"] = Json::array({"extra.cu", "kernel.cu"});
          s["entry"] = "extra";
        }) == "bad.json: entry: kernel 'extra' does not appear in extra.cu");
  CHECK(error_of([](Json& s) {
          s["verify"] = {{"reference_kernel", {{"entry", "naive"}, {"block", {1}}, {"grid", {1}}}}};
        }) == "bad.json: verify.reference_kernel.entry: kernel 'naive' does not appear in extra.cu");
}

TEST_CASE("malformed JSON is named by line and column", "[spec][errors]") {
  CHECK(message_of("{\"name\": \"t\",\n}") ==
        "bad.json: line 2, column 1: invalid JSON: syntax error while parsing object key - unexpected '}'; expected string literal");
  CHECK(message_of("") == "bad.json: line 1, column 1: invalid JSON: syntax error while parsing value - unexpected end of input; "
                          "expected '[', '{', or a literal");
  CHECK(message_of(R"({"name": 1e999})") == "bad.json: (file): invalid JSON: number overflow parsing '1e999'");
  CHECK(message_of(R"({"parameters": {"block_x": [1], "block_x": [2]}})") ==
        "bad.json: parameters.block_x: appears twice in the same object");
  CHECK(message_of(R"({"arguments": [{"buffer": "a"}, {"buffer": "b", "type": "f32", "type": "f64"}]})") ==
        "bad.json: arguments[1].type: appears twice in the same object");
}

TEST_CASE("an unknown field is named, with the field it probably meant", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["entyr"] = "x"; }) == "bad.json: entyr: unknown field; did you mean 'entry'?");
  CHECK(error_of([](Json& s) { s["arguments"][0]["ouput"] = true; }) == "bad.json: arguments[0].ouput: unknown field; did you mean 'output'?");
  CHECK(error_of([](Json& s) { s["grid"]["divisor"] = Json::array({"block_x"}); }) ==
        "bad.json: grid.divisor: unknown field; did you mean 'divisors'?");
  CHECK(error_of([](Json& s) { s["colour"] = "red"; }).starts_with("bad.json: colour: unknown field; known fields: $schema, name, summary"));
}

TEST_CASE("a default that is not a configuration of the space is refused", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["default"] = {{"block_x", 48}}; }) == "bad.json: default.block_x: 48 is not one of its values (32, 64)");
  CHECK(error_of([](Json& s) { s["default"] = {{"block_x", 32}, {"tile", 2}}; }) ==
        "bad.json: default.tile: 'tile' is not a parameter (parameters: block_x)");
  CHECK(error_of([](Json& s) {
          s["parameters"]["tile"] = Json::array({1, 2});
          s["grid"] = {{"divisors", Json::array({"block_x * tile"})}};
          s["default"] = {{"block_x", 32}};
        }) == "bad.json: default: gives no value for the parameter 'tile'");
  CHECK(error_of([](Json& s) {
          s["constraints"] = Json::array({"block_x >= 64"});
          s["default"] = {{"block_x", 32}};
        }) == "bad.json: default: block_x=32 violates constraints[0] 'block_x >= 64' (with the limits of every architecture profile)");
}

TEST_CASE("arguments must be consistent", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["arguments"][0]["output"] = false; }) ==
        R"(bad.json: arguments: no buffer is an output ("output": true); blocktune checks every configuration's outputs)");
  CHECK(error_of([](Json& s) {
          s["arguments"][1]["output"] = true;
          s["arguments"][1]["type"] = "f64";
        }) == "bad.json: arguments[1].output: outputs must share one element type: 'out' is f32 but 'in' is f64");
  CHECK(error_of([](Json& s) { s["arguments"][1]["buffer"] = "out"; }) == "bad.json: arguments[1]: the name 'out' is already arguments[0]'s");
  CHECK(error_of([](Json& s) { s["arguments"][0]["scalar"] = "n"; }) ==
        R"(bad.json: arguments[0]: give exactly one of "buffer" (a device buffer's name), "scalar" (a scalar's name) and "constant" (a __constant__ variable's name))");
  CHECK(error_of([](Json& s) {
          s["arguments"][0]["init"] = "constant";
          s["arguments"][0]["value"] = 1;
          s["arguments"][0]["seed"] = 3;
        }) == R"(bad.json: arguments[0].seed: is not used with "init": "constant")");
  CHECK(error_of([](Json& s) { s["arguments"][0]["init"] = "zeros"; }) ==
        "bad.json: arguments[0].init: 'zeros' is not random, uniform, normal, constant, values, iota or file");
  CHECK(error_of([](Json& s) {
          s["arguments"][1]["type"] = "i32";
          s["arguments"][1]["init"] = "constant";
          s["arguments"][1]["value"] = 3e9;
        }) == "bad.json: arguments[1].value: 3000000000 is not a value of type i32");
  CHECK(error_of([](Json& s) { s["arguments"] = Json::array(); }) == "bad.json: arguments: is empty");
  CHECK(error_of([](Json& s) { s["verify"] = {{"reference_files", {{"in", "values.bin"}}}}; }) ==
        "bad.json: verify.reference_files.in: 'in' is not an output buffer");
}

TEST_CASE("parameters, problem dimensions and device variables must not collide", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["parameters"]["n"] = Json::array({1}); }) == "bad.json: parameters.n: 'n' is also a problem dimension");
  CHECK(error_of([](Json& s) { s["parameters"]["warp_size"] = Json::array({32}); }) ==
        "bad.json: parameters.warp_size: 'warp_size' is also a device variable");
  CHECK(error_of([](Json& s) { s["parameters"]["BLOCK_X"] = Json::array({1}); }) ==
        "bad.json: parameters.BLOCK_X: 'block_x' and 'BLOCK_X' both become the define BLOCK_X");
  CHECK(error_of([](Json& s) { s["parameters"]["block_x"] = Json::array({32, 32}); }) ==
        "bad.json: parameters.block_x: parameter 'block_x' lists the value 32 twice");
  CHECK(error_of([](Json& s) { s["parameters"] = Json::object(); }) ==
        "bad.json: parameters: none given; a kernel needs at least one tunable parameter");
  CHECK(error_of([](Json& s) { s["problem"] = Json::array({"n", "sm_count"}); }) ==
        "bad.json: problem[1]: 'sm_count' is a device variable; choose another name");
  CHECK(error_of([](Json& s) { s["grid"]["divisors"] = Json::array({"block_x", "block_x"}); }) ==
        "bad.json: grid.divisors: has 2 entries, but the problem has only n");
}

TEST_CASE("objectives and verification are checked", "[spec][errors]") {
  CHECK(error_of([](Json& s) { s["objective"] = {{"metric", "GFLOP/s"}, {"flops", "n"}, {"bytes_moved", "n"}}; }) ==
        "bad.json: objective.bytes_moved: not allowed with metric GFLOP/s, which it would override");
  CHECK(error_of([](Json& s) { s["objective"] = {{"metric", "TB/s"}}; }) == "bad.json: objective.metric: 'TB/s' is not time, GB/s or GFLOP/s");
  CHECK(error_of([](Json& s) { s["verify"] = {{"tolerance", -1}}; }) == "bad.json: verify.tolerance: -1 is not a finite number >= 0");
  CHECK(error_of([](Json& s) { s["work"] = {{"l2_byte", "n"}}; }) == "bad.json: work.l2_byte: unknown field; did you mean 'l2_bytes'?");
  CHECK(error_of([](Json& s) { s["work"] = "n"; }) ==
        "bad.json: work: expected an object of counts for the execution-time model, e.g. {\"l2_bytes\": \"...\"}, got a string");
  CHECK_THAT(error_of([](Json& s) { s["work"] = {{"steps", "n / tile"}}; }), Catch::StartsWith("bad.json: work.steps: ") && Catch::Contains("tile"));
  CHECK(error_of([](Json& s) {
          s["verify"] = {{"reference_files", {{"out", "values.bin"}}},
                         {"reference_kernel", {{"entry", "scale_reference"}, {"block", {1}}, {"grid", {1}}}}};
        }) == "bad.json: verify: give one of reference_kernel and reference_files, not both");
}

TEST_CASE("an expression too long for the parser's recursion is refused", "[spec][errors]") {
  const std::string deep = std::string(3000, '(') + "1" + std::string(3000, ')');
  CHECK(error_of([&](Json& s) { s["dynamic_smem"] = deep; }) ==
        "bad.json: dynamic_smem: the expression is 6001 characters long, over the limit of 2000");
  CHECK(error_of([&](Json& s) { s["constraints"] = Json::array({deep}); }) ==
        "bad.json: constraints[0]: the expression is 6001 characters long, over the limit of 2000");
}

TEST_CASE("a source file that is not valid UTF-8 is named with the byte and its offset", "[spec][errors]") {
  TempDir dir;
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
  };
  const std::string kernel = R"(extern "C" __global__ void scale_reference(float* out, const float* in, long long n) {})";
  const auto message = [&](const std::string& text, const Json& sources = Json::array({"kernel.cu"})) {
    write("kernel.cu", text);
    Json spec = minimal_spec();
    spec["sources"] = sources;
    try {
      parse_spec(spec.dump(), dir.path(), "bad.json");
    } catch (const SpecError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const std::string file = (dir / "kernel.cu").string();
  // The byte of the NVRTC failure that VariantCompiler guards against (success with a null lowered name).
  CHECK(message("// \xFF\n" + kernel) == "bad.json: sources[0]: '" + file + "' is not valid UTF-8: byte 0xFF at offset 3");
  CHECK(message(kernel + "\n// \xC3") == "bad.json: sources[0]: '" + file + "' is not valid UTF-8: byte 0xC3 at offset " +
                                              std::to_string(kernel.size() + 4));                   // cut short
  CHECK(message("\xC0\x80" + kernel) == "bad.json: sources[0]: '" + file + "' is not valid UTF-8: byte 0xC0 at offset 0");  // overlong
  CHECK(message("//\xED\xA0\x80\n" + kernel) == "bad.json: sources[0]: '" + file + "' is not valid UTF-8: byte 0xED at offset 2");  // surrogate
  CHECK(message("//\xF4\x90\x80\x80\n" + kernel) ==
        "bad.json: sources[0]: '" + file + "' is not valid UTF-8: byte 0xF4 at offset 2");  // above U+10FFFF
  CHECK(message("//\xE2\x82\n" + kernel) == "bad.json: sources[0]: '" + file + "' is not valid UTF-8: byte 0xE2 at offset 2");
  // Well-formed UTF-8 of every length is fine.
  CHECK(message("// caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xEF\xBF\xBF\n" + kernel) == "no error");
  // Among several files, the one at fault is named with its place in "sources".
  write("first.cu", "// fine\n");
  CHECK(message("\x80" + kernel, Json::array({"first.cu", "kernel.cu"})) ==
        "bad.json: sources[1]: '" + file + "' is not valid UTF-8: byte 0x80 at offset 0");
}
