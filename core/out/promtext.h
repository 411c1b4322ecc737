// The Prometheus text exposition format (0.0.4), streamed: families
// (# HELP / # TYPE) and samples appended to a buffer that is handed to a
// writer 64 kB at a time, so that a large fabric's scrape (hundreds of MB
// of text) is never held whole.
//
//   ibcore::prom::Writer w([](const char* d, size_t n) { fwrite(d, 1, n, stdout); });
//   w.family("ib_port_symbol_error_total", "counter", "symbol errors ...");
//   w.sample("ib_port_symbol_error_total", labels, 7);
//   w.flush();
//
// Labels are passed preformatted (`a="x",b="y"`, see label()), because a
// port's labels are the same for its dozens of series.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ibcore::prom {

// Append `name="value"` (with a leading comma when out is not empty), the
// value escaped as the format wants (backslash, double quote, newline).
void label(std::string& out, std::string_view name, std::string_view value);
// A float as the format reads it: the shortest text that reads back as the
// same double ("0.25", "1e+21"), and +Inf, -Inf, NaN.
void append_double(std::string& out, double v);

class Writer {
public:
  using WriteFn = std::function<void(const char*, size_t)>;
  explicit Writer(WriteFn write) : write_(std::move(write)) {}
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer() { flush(); }

  // The HELP and TYPE lines of a metric family (type: counter, gauge, ...).
  // The HELP text is escaped (backslash, newline).
  void family(std::string_view name, std::string_view type, std::string_view help);
  // One sample: name{labels} value (no braces when labels is empty).
  void sample(std::string_view name, std::string_view labels, uint64_t v);
  void sample(std::string_view name, std::string_view labels, double v);
  void flush();

private:
  void head(std::string_view name, std::string_view labels);
  void maybe_flush() {
    if (buf_.size() >= (size_t(1) << 16)) flush();
  }
  std::string buf_;
  WriteFn write_;
};

}  // namespace ibcore::prom
