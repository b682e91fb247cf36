#include <blocktune/recording.hpp>
#include <blocktune/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "gzip.hpp"

namespace blocktune {

namespace {

constexpr std::string_view kMagic = "# blocktune recorded space ";
constexpr int kFormatVersion = 1;
// The note of predictions that count no work (Recording::predictions_count_work).
constexpr std::string_view kWithoutWorkCounts = "without work counts";
// The note of times measured after an L2 flush (Recording::l2_flushed).
constexpr std::string_view kFlushed = "flushed";

// The columns in the order written; the optional ones only where known.
enum Column : std::size_t {
  kConfig, kOutcome, kTimeS, kCostS, kCompileS, kOccupancy, kRegisters, kPredictedS, kResidentWarps, kColumnCount
};
constexpr std::string_view kColumnNames[kColumnCount] = {"config",    "outcome",   "time_s",      "cost_s",        "compile_s",
                                                         "occupancy", "registers", "predicted_s", "resident_warps"};

void check_parallel(const Recording& recording) {
  const std::size_t size = recording.space.configs.size();
  const auto fits = [&](std::size_t other, bool optional) { return other == size || (optional && other == 0); };
  if (!fits(recording.space.time.size(), false) || !fits(recording.space.cost_seconds.size(), false) ||
      !fits(recording.outcome.size(), false) || !fits(recording.compile_seconds.size(), true) ||
      !fits(recording.occupancy.size(), true) || recording.registers.size() != recording.occupancy.size() ||
      !fits(recording.predicted_seconds.size(), true) || !fits(recording.resident_warps.size(), true))
    throw std::invalid_argument(fmt::format(
        "recording has {} configurations but {} times, {} costs, {} outcomes, {} compile times, {} occupancies, "
        "{} register counts, {} predicted times and {} counts of resident warps",
        size, recording.space.time.size(), recording.space.cost_seconds.size(), recording.outcome.size(),
        recording.compile_seconds.size(), recording.occupancy.size(), recording.registers.size(),
        recording.predicted_seconds.size(), recording.resident_warps.size()));
}

// RFC 4180 records, with the line each starts on.
class CsvReader {
 public:
  explicit CsvReader(std::string_view text) : text_(text) {}

  std::size_t line() const { return line_; }
  bool at_end() const { return position_ >= text_.size(); }

  // The rest of the current line, unparsed (for comments).
  std::string_view peek_line() const {
    const std::size_t end = text_.find('\n', position_);
    std::string_view rest =
        text_.substr(position_, end == std::string_view::npos ? std::string_view::npos : end - position_);
    if (rest.ends_with('\r')) rest.remove_suffix(1);
    return rest;
  }

  void skip_line() {
    const std::size_t end = text_.find('\n', position_);
    position_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++line_;
  }

  std::vector<std::string> record() {
    std::vector<std::string> fields(1);
    bool quoted = false;
    while (position_ < text_.size()) {
      const char c = text_[position_++];
      if (quoted) {
        if (c != '"') {
          if (c == '\n') ++line_;
          fields.back() += c;
        } else if (position_ < text_.size() && text_[position_] == '"') {
          fields.back() += '"';
          ++position_;
        } else {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.emplace_back();
      } else if (c == '\n') {
        ++line_;
        break;
      } else if (c != '\r') {
        fields.back() += c;
      }
    }
    if (quoted) throw std::runtime_error("a quoted field is not closed");
    return fields;
  }

 private:
  std::string_view text_;
  std::size_t position_ = 0;
  std::size_t line_ = 1;
};

// A count of resident warps: a whole number from 0 to kMaxResidentWarps.
int resident_warps(double count) {
  if (count < 0 || count > kMaxResidentWarps || count != std::floor(count))
    throw std::runtime_error(fmt::format("resident_warps '{}' is not a whole number from 0 to {}", count, kMaxResidentWarps));
  return static_cast<int>(count);
}

double parse_number(std::string_view text, std::string_view column) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    throw std::runtime_error(fmt::format("{} '{}' is not a number", column, text));
  return value;
}

std::string format_recording(const Recording& recording) {
  std::string text = fmt::format("{}{}\n", kMagic, kFormatVersion);
  for (const auto& [key, value] : {std::pair{"kernel", &recording.kernel}, {"problem", &recording.problem},
                                    {"device", &recording.device}, {"default", &recording.default_config}})
    if (!value->empty()) text += fmt::format("# {}: {}\n", key, *value);
  if (!recording.predictions_count_work) text += fmt::format("# predictions: {}\n", kWithoutWorkCounts);
  if (recording.l2_flushed) text += fmt::format("# l2: {}\n", kFlushed);

  const bool has_compile = !recording.compile_seconds.empty(), has_model = !recording.occupancy.empty(),
             has_prediction = !recording.predicted_seconds.empty(), has_resident = !recording.resident_warps.empty();
  std::vector<std::string_view> header(kColumnNames, kColumnNames + kCompileS);
  if (has_compile) header.push_back(kColumnNames[kCompileS]);
  if (has_model) header.insert(header.end(), {kColumnNames[kOccupancy], kColumnNames[kRegisters]});
  if (has_prediction) header.push_back(kColumnNames[kPredictedS]);
  if (has_resident) header.push_back(kColumnNames[kResidentWarps]);
  text += fmt::format("{}\n", fmt::join(header, ","));

  const RecordedSpace& space = recording.space;
  for (std::size_t i = 0; i < space.configs.size(); ++i) {
    append_csv_field(text, space.configs[i].to_string());
    text += ',';
    append_csv_field(text, recording.outcome[i]);
    text += fmt::format(",{},{}", space.time[i] ? exact_text(*space.time[i]) : "", exact_text(space.cost_seconds[i]));
    if (has_compile) text += fmt::format(",{}", exact_text(recording.compile_seconds[i]));
    if (has_model) text += fmt::format(",{},{}", exact_text(recording.occupancy[i]), recording.registers[i]);
    if (has_prediction) text += fmt::format(",{}", std::isfinite(recording.predicted_seconds[i]) ? exact_text(recording.predicted_seconds[i]) : "");
    if (has_resident) text += fmt::format(",{}", recording.resident_warps[i]);
    text += '\n';
  }
  return text;
}

namespace {

// The magic line and the notes ("# key: value") of a recorded-space file into
// `recording`, leaving `csv` at the first line after them.
void parse_notes(CsvReader& csv, Recording& recording) {
  const std::string_view first = csv.peek_line();
  if (!first.starts_with(kMagic)) throw std::runtime_error(fmt::format("it does not start with '{}'", kMagic));
  if (const auto version = first.substr(kMagic.size()); version != std::to_string(kFormatVersion))
    throw std::runtime_error(
        fmt::format("format version {} is not supported (this blocktune reads {})", version, kFormatVersion));

  std::string predictions, l2;
  const std::map<std::string_view, std::string*> notes = {{"kernel", &recording.kernel},
                                                           {"problem", &recording.problem},
                                                           {"device", &recording.device},
                                                           {"default", &recording.default_config},
                                                           {"predictions", &predictions},
                                                           {"l2", &l2}};
  for (; !csv.at_end() && csv.peek_line().starts_with('#'); csv.skip_line()) {
    const std::string_view note = csv.peek_line().substr(1);
    const std::size_t start = note.find_first_not_of(' '), colon = note.find(": ");
    if (colon == std::string_view::npos || start >= colon) continue;
    if (const auto found = notes.find(note.substr(start, colon - start)); found != notes.end())
      *found->second = note.substr(colon + 2);
  }
  if (!predictions.empty() && predictions != kWithoutWorkCounts)
    throw std::runtime_error(fmt::format("the note '# predictions: {}' is not known (known: '{}')", predictions, kWithoutWorkCounts));
  recording.predictions_count_work = predictions.empty();
  if (!l2.empty() && l2 != kFlushed) throw std::runtime_error(fmt::format("the note '# l2: {}' is not known (known: '{}')", l2, kFlushed));
  recording.l2_flushed = !l2.empty();
}

}  // namespace

Recording parse_recording(std::string_view text) {
  CsvReader csv(text);
  Recording recording;
  parse_notes(csv, recording);

  // Where each column is, by name: the optional ones may be missing.
  const auto header = csv.record();
  std::array<std::optional<std::size_t>, kColumnCount> where;
  for (std::size_t field = 0; field < header.size(); ++field) {
    const auto* name = std::find(std::begin(kColumnNames), std::end(kColumnNames), header[field]);
    if (name == std::end(kColumnNames) || where[static_cast<std::size_t>(name - kColumnNames)])
      throw std::runtime_error(fmt::format("the header has an unknown or repeated column '{}' (known: {})",
                                           header[field], fmt::join(kColumnNames, ", ")));
    where[static_cast<std::size_t>(name - kColumnNames)] = field;
  }
  for (const Column column : {kConfig, kOutcome, kTimeS, kCostS})
    if (!where[column]) throw std::runtime_error(fmt::format("the header has no column '{}'", kColumnNames[column]));
  if (where[kOccupancy].has_value() != where[kRegisters].has_value())
    throw std::runtime_error("the header must have both occupancy and registers, or neither");

  while (!csv.at_end()) {
    const std::size_t line = csv.line();
    const auto fields = csv.record();
    if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
    try {
      if (fields.size() != header.size())
        throw std::runtime_error(fmt::format("{} fields, expected {}", fields.size(), header.size()));
      const auto field = [&](Column column) -> const std::string& { return fields[*where[column]]; };
      const auto number = [&](Column column) { return parse_number(field(column), kColumnNames[column]); };
      recording.space.configs.push_back(Config::parse(field(kConfig)));
      recording.outcome.push_back(field(kOutcome));
      recording.space.time.push_back(field(kTimeS).empty() ? std::nullopt : std::optional(number(kTimeS)));
      recording.space.cost_seconds.push_back(number(kCostS));
      if (where[kCompileS]) recording.compile_seconds.push_back(number(kCompileS));
      if (where[kOccupancy]) {
        recording.occupancy.push_back(number(kOccupancy));
        recording.registers.push_back(static_cast<int>(number(kRegisters)));
      }
      if (where[kPredictedS])
        recording.predicted_seconds.push_back(field(kPredictedS).empty() ? std::numeric_limits<double>::quiet_NaN() : number(kPredictedS));
      if (where[kResidentWarps]) recording.resident_warps.push_back(resident_warps(number(kResidentWarps)));
    } catch (const std::exception& error) {
      throw std::runtime_error(fmt::format("line {}: {}", line, error.what()));
    }
  }
  separate_start_up(recording);
  try {
    start_from_default(recording);
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("the note 'default': {}", error.what()));
  }
  return recording;
}

}  // namespace

void separate_start_up(Recording& recording) {
  RecordedSpace& space = recording.space;
  space.start_up_seconds = 0;
  if (recording.compile_seconds.size() != space.cost_seconds.size() || space.cost_seconds.size() < 3) return;
  std::vector<double> others;  // the other rows' costs apart from compiling
  for (std::size_t i = 1; i < space.cost_seconds.size(); ++i) others.push_back(space.cost_seconds[i] - recording.compile_seconds[i]);
  const auto middle = others.begin() + static_cast<std::ptrdiff_t>(others.size() / 2);
  std::ranges::nth_element(others, middle);
  space.start_up_seconds = std::max(0.0, space.cost_seconds[0] - recording.compile_seconds[0] - *middle);
}

void start_from_default(Recording& recording) {
  recording.space.first.clear();
  if (recording.default_config.empty()) return;
  const Config wanted = Config::parse(recording.default_config);
  // The same values, whatever order the note names them in.
  const auto is_default = [&](const Config& config) {
    return config.entries().size() == wanted.entries().size() && std::ranges::all_of(config.entries(), [&](const auto& entry) {
             const Value* value = wanted.find(entry.first);
             return value && *value == entry.second;
           });
  };
  const auto& configs = recording.space.configs;
  const auto found = std::ranges::find_if(configs, is_default);
  if (found != configs.end()) recording.space.first = {static_cast<std::uint64_t>(found - configs.begin())};
}

std::vector<double> occupancy_model_score(const Recording& recording) {
  if (recording.occupancy.empty()) return {};
  // Rank the distinct (occupancy, registers) pairs: the best pair scores 0.
  using Facts = std::tuple<double, int>;  // (-occupancy, registers): smaller is better
  std::map<Facts, double> rank;
  for (std::size_t i = 0; i < recording.occupancy.size(); ++i)
    rank.emplace(Facts{-recording.occupancy[i], recording.registers[i]}, 0);
  double next = 0;
  for (auto& entry : rank) entry.second = next++;
  std::vector<double> scores;
  scores.reserve(recording.occupancy.size());
  for (std::size_t i = 0; i < recording.occupancy.size(); ++i)
    scores.push_back(rank.at(Facts{-recording.occupancy[i], recording.registers[i]}));
  return scores;
}

std::vector<double> model_score(const Recording& recording) {
  if (recording.predicted_seconds.empty()) return occupancy_model_score(recording);
  // A configuration the model could not predict ranks last.
  double slowest = 0;
  for (const double seconds : recording.predicted_seconds)
    if (std::isfinite(seconds)) slowest = std::max(slowest, seconds);
  std::vector<double> scores;
  scores.reserve(recording.predicted_seconds.size());
  for (const double seconds : recording.predicted_seconds) scores.push_back(std::isfinite(seconds) && seconds > 0 ? seconds : 2 * slowest);
  return scores;
}

std::optional<ModelScores> recorded_model_scores(const Recording& recording) {
  std::vector<double> scores = model_score(recording);
  if (scores.empty()) return std::nullopt;
  ModelScores model = listed_model_scores(std::move(scores), !recording.predicted_seconds.empty(), recording.predictions_count_work);
  if (!recording.resident_warps.empty())
    model.resident_warps = [resident = recording.resident_warps](std::uint64_t candidate) { return resident.at(candidate); };
  return model;
}

namespace {

// A recording's problem dimensions; nullopt where it names none, or none that reads as a size (an import's own text).
std::optional<std::vector<std::int64_t>> dimensions_of(const Recording& recording) {
  if (recording.problem.empty()) return std::nullopt;
  try {
    return ProblemSize::parse(recording.problem).dims;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The recording's predicted times by configuration text.
std::map<std::string, double, std::less<>> predictions_of(const Recording& recording) {
  std::map<std::string, double, std::less<>> predicted;
  for (std::size_t c = 0; c < recording.space.configs.size() && c < recording.predicted_seconds.size(); ++c)
    predicted.emplace(recording.space.configs[c].to_string(), recording.predicted_seconds[c]);
  return predicted;
}

// What `other` measured, with its predictions and those recorded `here`.
std::vector<MeasuredAndPredicted> measured_and_predicted(const Recording& other, const std::map<std::string, double, std::less<>>& here) {
  std::vector<MeasuredAndPredicted> measured;
  const RecordedSpace& space = other.space;
  for (std::size_t c = 0; c < space.configs.size() && c < other.predicted_seconds.size(); ++c) {
    if (!space.time[c]) continue;
    std::string config = space.configs[c].to_string();
    const auto predicted_here = here.find(config);
    measured.push_back({std::move(config), *space.time[c], other.predicted_seconds[c], predicted_here != here.end() ? predicted_here->second : 0});
  }
  return measured;
}

// nearest_size_transfer among `count` others, known by their notes (kernel,
// device, problem) until one's measurements are asked for.
std::optional<NearestTransfer> nearest_among(const Recording& recording, std::size_t count,
                                             const std::function<const Recording&(std::size_t)>& notes_of,
                                             const std::function<std::vector<MeasuredAndPredicted>(std::size_t)>& measured_at) {
  const auto dims = count == 0 ? std::nullopt : dimensions_of(recording);
  if (!dims) return std::nullopt;
  std::vector<std::size_t> candidates;  // their indices among the others
  std::vector<std::vector<std::int64_t>> sizes;
  for (std::size_t i = 0; i < count; ++i) {
    const Recording& other = notes_of(i);
    if (other.kernel != recording.kernel || other.device != recording.device || other.problem == recording.problem ||
        other.l2_flushed != recording.l2_flushed)
      continue;
    if (auto other_dims = dimensions_of(other)) {
      candidates.push_back(i);
      sizes.push_back(std::move(*other_dims));
    }
  }
  auto nearest = nearest_size_transfer(sizes, *dims, [&](std::size_t i) { return measured_at(candidates[i]); });
  if (nearest) {
    nearest->index = candidates[nearest->index];
    for (std::size_t& index : nearest->averaged_with) index = candidates[index];
  }
  return nearest;
}

}  // namespace

std::optional<NearestTransfer> nearest_size_transfer(const Recording& recording, std::span<const Recording> others) {
  const auto here = predictions_of(recording);
  return nearest_among(
      recording, others.size(), [&](std::size_t i) -> const Recording& { return others[i]; },
      [&](std::size_t i) { return measured_and_predicted(others[i], here); });
}

OtherSizes::OtherSizes(std::vector<std::filesystem::path> files) : files_(std::move(files)) {
  for (const auto& file : files_) notes_.push_back(read_recording_notes(file));
}

std::optional<NearestTransfer> OtherSizes::nearest_size_transfer(const Recording& recording) {
  const auto key = std::tuple(recording.kernel, recording.device, recording.problem, recording.l2_flushed);
  if (const auto known = answers_.find(key); known != answers_.end()) return known->second;
  const auto here = predictions_of(recording);
  return answers_[key] = nearest_among(
             recording, files_.size(), [&](std::size_t i) -> const Recording& { return notes_[i]; },
             [&](std::size_t i) { return measured_and_predicted(read_recording(files_[i]), here); });
}

Recording read_recording(const std::filesystem::path& path) {
  const std::string text = detail::read_text_file(path);
  try {
    return parse_recording(text);
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("cannot read recorded space '{}': {}", path.string(), error.what()));
  }
}

Recording read_recording_notes(const std::filesystem::path& path) {
  const std::string text = detail::read_leading_lines(path, '#');
  try {
    CsvReader csv(text);
    Recording recording;
    parse_notes(csv, recording);
    return recording;
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("cannot read recorded space '{}': {}", path.string(), error.what()));
  }
}

void write_recording(const std::filesystem::path& path, const Recording& recording) {
  check_parallel(recording);
  detail::write_text_file(path, format_recording(recording), path.extension() == ".gz");
}

Recording read_kernel_tuner_recording(const std::filesystem::path& path) {
  const std::string text = detail::read_text_file(path);  // .json or .json.gz
  Recording recording;
  try {
    recording.space = parse_kernel_tuner_cache(text);
  } catch (const std::exception& error) {
    throw std::runtime_error(fmt::format("cannot read Kernel Tuner cache '{}': {}", path.string(), error.what()));
  }
  for (const auto& time : recording.space.time) recording.outcome.emplace_back(time ? "ok" : "failed");
  return recording;
}

}  // namespace blocktune
