// Man pages generated from the command registry.
#pragma once
#include <string>

namespace ibtool {
// Write ibtool.8 and one page per command and alias to dir (an alias's page
// is its command's, whole, first line ".\" ibtool: alias of CMD").
// text_dir (the source tree's man/): a page's own text, <name>.man in troff,
// goes in before its SEE ALSO (ibtool.man at the end of ibtool.8).
int write_man_pages(const std::string& dir, const std::string& text_dir = {});
// The troff source of one command's page (exposed for tests).
std::string man_page_for(const std::string& command, const std::string& own_text = {});
std::string man_page_index(const std::string& own_text = {});
}  // namespace ibtool
