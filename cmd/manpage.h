// Man pages generated from the command registry.
#pragma once
#include <string>

namespace ibtool {
// Write ibtool.8 and one page per command (aliases get a .so page) to dir.
int write_man_pages(const std::string& dir);
// The troff source of one command's page (exposed for tests).
std::string man_page_for(const std::string& command);
std::string man_page_index();
}  // namespace ibtool
