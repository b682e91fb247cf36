// Search sequences of other tools, as candidates of a recorded space (blocktune/recording.hpp).
#include <blocktune/recording.hpp>

#include <blocktune/json_value.hpp>

#include "gzip.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace blocktune {
namespace {

using Json = nlohmann::ordered_json;

// The space's configurations by canonical text, and its parameter names in order.
class ConfigIndex {
 public:
  explicit ConfigIndex(const RecordedSpace& space) {
    if (!space.configs.empty())
      for (const auto& [name, value] : space.configs.front().entries()) names_.push_back(name);
    for (std::size_t i = 0; i < space.configs.size(); ++i) index_.emplace(space.configs[i].to_string(), i);
  }

  // The candidate with these values; throws std::runtime_error saying what does not fit.
  std::uint64_t find(const std::map<std::string, Value>& values) const {
    std::vector<std::pair<std::string, Value>> entries;
    for (const std::string& name : names_) {
      const auto found = values.find(name);
      if (found == values.end()) throw std::runtime_error(fmt::format("it has no value for parameter '{}'", name));
      entries.emplace_back(name, found->second);
    }
    if (values.size() != names_.size())
      for (const auto& [name, value] : values)
        if (std::find(names_.begin(), names_.end(), name) == names_.end())
          throw std::runtime_error(fmt::format("the space has no parameter '{}'", name));
    const std::string text = Config(std::move(entries)).to_string();
    const auto found = index_.find(text);
    if (found == index_.end()) throw std::runtime_error(fmt::format("{} is not a configuration of the space", text));
    return found->second;
  }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint64_t> index_;
};

std::map<std::string, Value> values_of(const Json& config) {
  std::map<std::string, Value> values;
  if (config.is_string()) {
    const Config parsed = Config::parse(config.get<std::string>());
    for (const auto& [name, value] : parsed.entries()) values.emplace(name, value);
  } else if (config.is_object()) {
    for (const auto& [name, value] : config.items()) values.emplace(name, parameter_value_from_json(value, name));
  } else {
    throw std::runtime_error(fmt::format("{} is neither an object of parameter values nor a configuration's text",
                                         config.dump()));
  }
  return values;
}

}  // namespace

std::vector<SearchSequence> parse_search_sequences(std::string_view text, const RecordedSpace& space) {
  const Json json = Json::parse(text, nullptr, false);
  if (json.is_discarded()) throw std::runtime_error("it is not JSON");
  const auto runs = json.is_object() ? json.find("runs") : json.end();
  if (runs == json.end() || !runs->is_array())
    throw std::runtime_error("it is not a list of search sequences: it has no \"runs\" list");
  const ConfigIndex index(space);
  std::vector<SearchSequence> sequences;
  for (const Json& run : *runs) {
    SearchSequence sequence;
    sequence.name = fmt::format("run {}", sequences.size() + 1);
    if (!run.is_object()) throw std::runtime_error(fmt::format("{} is not an object", sequence.name));
    if (const auto name = run.find("name"); name != run.end())
      sequence.name = name->is_string() ? name->get<std::string>() : name->dump();
    const auto configs = run.find("configs");
    if (configs == run.end() || !configs->is_array())
      throw std::runtime_error(fmt::format("{} has no \"configs\" list", sequence.name));
    for (const Json& config : *configs) {
      try {
        sequence.candidates.push_back(index.find(values_of(config)));
      } catch (const std::exception& error) {
        throw std::runtime_error(fmt::format("{}, configuration {} of {}: {}", sequence.name,
                                             sequence.candidates.size() + 1, configs->size(), error.what()));
      }
    }
    sequences.push_back(std::move(sequence));
  }
  return sequences;
}

std::vector<SearchSequence> read_search_sequences(const std::filesystem::path& path, const RecordedSpace& space) {
  const std::string text = detail::read_text_file(path);
  try {
    return parse_search_sequences(text, space);
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("search sequences '{}': {}", path.string(), error.what()));
  }
}

}  // namespace blocktune
