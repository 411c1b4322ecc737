// Shell completion scripts generated from the command registry.
#pragma once
#include <string>

namespace ibtool {
// Write the completion script for shell ("bash" or "zsh") to stdout; 2 for
// another shell.
int write_completion(const std::string& shell);
}  // namespace ibtool
