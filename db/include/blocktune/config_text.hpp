/// @file
/// The text of a configuration, as the database stores it and people type it:
/// `block_x=32,strategy=RING,label="a, b=c"`. The one reader and writer of it,
/// shared by the search layer's typed Config, the run-time query and the reports.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace blocktune {

/// One `name=value` of a configuration's text.
struct ConfigEntry {
  std::string name;   ///< a parameter name (is_parameter_name)
  std::string value;  ///< the value without its quotes and escapes
  /// The value is an integer: written bare as -?[0-9]+. A value in quotes is
  /// text even when it looks like a number ("12").
  bool integer = false;

  friend bool operator==(const ConfigEntry&, const ConfigEntry&) = default;
};

/// Whether `name` can name a parameter: a letter or '_', then letters,
/// digits, '_' or '.'.
bool is_parameter_name(std::string_view name);

/// Reads a configuration's text: `name=value` entries separated by commas,
/// spaces around names, values and commas ignored; empty text has no entries.
/// A value is bare (no spaces, commas, '=', quotes or backslashes) or in
/// double quotes, inside which a backslash escapes the next character.
/// Throws std::invalid_argument quoting the text and saying what is wrong at
/// which character (counted from 1). Names are not checked for repeats.
std::vector<ConfigEntry> parse_config_text(std::string_view text);

/// Writes entries so that parse_config_text reads them back equal: separated
/// by commas, no spaces; a value bare where it reads back as itself, else in
/// double quotes with '"' and '\\' escaped ("", "12" as text, "a, b=c").
/// The database stores configurations in this form.
std::string format_config_text(std::span<const ConfigEntry> entries);

}  // namespace blocktune
