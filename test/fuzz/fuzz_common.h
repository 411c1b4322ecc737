// Shared bits of the libFuzzer targets (test/fuzz/*.cpp).  Each target
// feeds one reader of outside data (MADs off the wire, files, command-line
// addresses) whatever bytes libFuzzer makes; the library may reject them
// with its own exceptions (ibcore::Error and friends), never crash, read
// out of bounds or hit undefined behaviour (ASan + UBSan, which abort).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string_view>

#include "core/base/error.h"

namespace fuzz {

inline std::span<const uint8_t> bytes(const uint8_t* d, size_t n) { return {d, n}; }
inline std::string_view text(const uint8_t* d, size_t n) { return {reinterpret_cast<const char*>(d), n}; }

// Run f; the library's own errors are an answer to bad input, anything else
// escaping (std::out_of_range, a bad_alloc from a length read off the
// input, ...) is a bug: let it terminate the run so libFuzzer reports it.
template <class F>
void guarded(F&& f) {
  try {
    f();
  } catch (const ibcore::Error&) {
  }
}

}  // namespace fuzz
