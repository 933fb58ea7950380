#pragma once
// `shardmeter report` as one self-contained HTML page: inline CSS and inline SVG only (no scripts, fonts,
// stylesheets or images from anywhere), written as well-formed XHTML-compatible markup so XML parsers read it.
// Contents: summary cards (cheapest, knee, fastest), the front plot, the front table, with a baseline the changes
// (cost at matched throughput, joined, left), the scenario text and the provenance.
#include <string>

#include "results/report/report_model.hpp"

namespace shardmeter::results {

std::string render_report_html(const ReportModel& model);

// The page's style sheet (shared with the nightly index so both pages look alike). Contains no '<' or '&'.
const std::string& report_css();

}  // namespace shardmeter::results
