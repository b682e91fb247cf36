#include <blocktune/kernel.hpp>

namespace blocktune {

std::size_t size_of(ElementType type) {
  switch (type) {
    case ElementType::f32: case ElementType::i32: return 4;
    case ElementType::f64: case ElementType::i64: return 8;
  }
  return 4;
}

std::string_view to_string(ElementType type) {
  switch (type) {
    case ElementType::f32: return "f32";
    case ElementType::f64: return "f64";
    case ElementType::i32: return "i32";
    case ElementType::i64: return "i64";
  }
  return "f32";
}

}  // namespace blocktune
