// `ibtool --install-links DIR`: a link per command name, pointing at this
// very binary, that never takes another program's name.
#pragma once
#include <string>

namespace ibtool {
// Link every command name and legacy alias in dir (made if missing) to
// this binary: "ibtool" when the binary is in dir, else its absolute path
// (so that the link works wherever dir is).  A name another program has
// (an executable by that name on PATH or in the system's bin and sbin
// directories that is not this binary, e.g. ibverbs-utils' ibv_devices),
// or a file in dir that is not a link to ibtool, is left alone with a
// warning; so is a dir that is not on PATH.  0, or 1 when a link could
// not be made.
int install_links(const std::string& dir);
}  // namespace ibtool
