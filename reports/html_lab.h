// The lab page: one offline HTML file (html_page.h) with, per scenario, tonight's gate of
// every host and every host's nightly series per cell side by side (svg_history_chart.h),
// with the change points and whose each is.
#pragma once

#include <string>

#include "reports/lab_view.h"

namespace storbed {

// <!DOCTYPE html> to </html>. Each host's chart sits in an element with data-host="HOST".
std::string LabPageHtml(const LabView& view);

}  // namespace storbed
