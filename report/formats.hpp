// The report formats, each rendering selected sessions to text.
#pragma once

#include "analysis.hpp"

#include <string>
#include <vector>

namespace blocktune::report {

std::string render_html(const std::vector<Session>& sessions);
std::string render_csv(const std::vector<Session>& sessions);
std::string render_t4(const std::vector<Session>& sessions);  // exactly one session
std::string render_markdown(const std::vector<Session>& sessions);

}  // namespace blocktune::report
