// A flat output buffer for the big text outputs (ibnetdiscover's topology,
// iblinkinfo, dump_fts): text is appended with a few formatting helpers (no
// printf parsing, no per-line allocation) and written to the FILE in 64 kB
// pieces.
//
//   ibcore::TextOut o(stdout);
//   o.put("lid ").dec(lid).put(" guid 0x").hex0(guid, 16).put('\n');
//   o.flush();   // also done by the destructor
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace ibcore {

class TextOut {
public:
  explicit TextOut(FILE* f) : f_(f), b_(new char[CAP]) {}
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;
  ~TextOut() { flush(); }

  // Write what is buffered to the FILE (not fflush: the FILE keeps its own
  // buffering).
  void flush() {
    if (n_) std::fwrite(b_.get(), 1, n_, f_);
    n_ = 0;
  }
  FILE* file() const { return f_; }

  TextOut& put(char c) {
    room(1);
    b_[n_++] = c;
    return *this;
  }
  TextOut& put(std::string_view s) {
    if (s.size() > CAP - n_) {
      flush();
      if (s.size() > CAP) {
        std::fwrite(s.data(), 1, s.size(), f_);
        return *this;
      }
    }
    std::memcpy(b_.get() + n_, s.data(), s.size());
    n_ += s.size();
    return *this;
  }
  TextOut& put(const char* s) { return put(std::string_view(s)); }
  TextOut& put(const std::string& s) { return put(std::string_view(s)); }

  // Decimal (printf %u / %d).
  TextOut& dec(uint64_t v) {
    char t[24];
    int k = 0;
    do {
      t[k++] = char('0' + v % 10);
      v /= 10;
    } while (v);
    room(size_t(k));
    while (k) b_[n_++] = t[--k];
    return *this;
  }
  TextOut& sdec(int64_t v) {
    if (v < 0) {
      put('-');
      return dec(uint64_t(0) - uint64_t(v));
    }
    return dec(uint64_t(v));
  }
  // Right-aligned in a field of `width` (printf %<width>s / %<width>d).
  TextOut& rpad(std::string_view s, size_t width) {
    if (s.size() < width) spaces(width - s.size());
    return put(s);
  }
  TextOut& rdec(uint64_t v, size_t width) {
    size_t digits = 1;
    for (uint64_t x = v / 10; x; x /= 10) ++digits;
    if (digits < width) spaces(width - digits);
    return dec(v);
  }
  TextOut& spaces(size_t k) {
    while (k) {
      size_t m = k < 64 ? k : 64;
      put(std::string_view("                                                                ", m));
      k -= m;
    }
    return *this;
  }
  // Lower-case hex without padding (printf %x / PRIx64).
  TextOut& hex(uint64_t v) {
    int digits = 1;
    for (uint64_t x = v >> 4; x; x >>= 4) ++digits;
    return hex0(v, digits);
  }
  // Lower-case hex in exactly `digits` digits (printf %0<digits>x).
  TextOut& hex0(uint64_t v, int digits) {
    static const char x[] = "0123456789abcdef";
    room(size_t(digits));
    for (int i = digits - 1; i >= 0; --i, v >>= 4) b_[n_ + size_t(i)] = x[v & 15];
    n_ += size_t(digits);
    return *this;
  }
  // Room for k more bytes (k at most 64 kB) at the end of the buffer, to be
  // written in place and then kept with advance(k): for text patched after
  // it is copied (dump_fts rows: a cached line with its LID and port
  // written in).
  char* reserve(size_t k) {
    room(k);
    return b_.get() + n_;
  }
  void advance(size_t k) { n_ += k; }

  // Anything else (rare lines only).
  TextOut& printf(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    char t[512];
    va_list ap;
    va_start(ap, fmt);
    int k = std::vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    if (k < 0) return *this;
    if (size_t(k) < sizeof t) return put(std::string_view(t, size_t(k)));
    std::string big(size_t(k) + 1, '\0');
    va_start(ap, fmt);
    std::vsnprintf(big.data(), big.size(), fmt, ap);
    va_end(ap);
    big.resize(size_t(k));
    return put(big);
  }

private:
  static constexpr size_t CAP = size_t(1) << 16;
  void room(size_t k) {
    if (n_ + k > CAP) flush();
  }
  FILE* f_;
  std::unique_ptr<char[]> b_;
  size_t n_ = 0;
};

}  // namespace ibcore
