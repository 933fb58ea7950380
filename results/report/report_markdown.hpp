#pragma once
// The Markdown variant of a report, for chat and e-mail: the same summary, front table, baseline changes and
// provenance as the HTML page (results/report/report_html.hpp), without the plot. Every cell is escaped.
#include <string>

#include "results/report/report_model.hpp"

namespace shardmeter::results {

std::string render_report_markdown(const ReportModel& model);

}  // namespace shardmeter::results
