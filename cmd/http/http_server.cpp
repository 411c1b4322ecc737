// The HTTP side of `ibtool exporter --listen`, built as a module the
// exporter loads with dlopen (libibtool_http.so): Debian's cpp-httplib is a
// shared library that brings OpenSSL, zlib, brotli and a shared libstdc++,
// and linking it into ibtool would load all of them at the start of every
// command (bench/smpquery_bench.sh).  The interface is plain C, so no C++
// object or exception crosses between the two libstdc++ copies.
#include <httplib.h>

#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cmd/http/http_server.h"

namespace {
void to_sink(void* w, const char* data, size_t len) { static_cast<httplib::DataSink*>(w)->write(data, len); }
void to_string(void* w, const char* data, size_t len) { static_cast<std::string*>(w)->append(data, len); }
}  // namespace

extern "C" int ibtool_http_serve(const char* host, int port, ibtool_http_handler handler, void* ctx, char* err,
                                 size_t errlen) {
  try {
    httplib::Server svr;
    svr.Get(R"(/.*)", [&](const httplib::Request& req, httplib::Response& res) {
      double timeout = std::strtod(req.get_header_value("X-Prometheus-Scrape-Timeout-Seconds").c_str(), nullptr);
      if (!(timeout > 0)) timeout = 0;
      if (req.path == "/metrics") {
        // Chunked: the text goes out while the scrape formats it.
        std::string path = req.path;
        res.set_chunked_content_provider("text/plain; version=0.0.4; charset=utf-8",
                                         [handler, ctx, path, timeout](size_t, httplib::DataSink& sink) {
                                           handler(ctx, path.c_str(), timeout, &to_sink, &sink);
                                           sink.done();
                                           return true;
                                         });
        return;
      }
      std::string body;
      res.status = handler(ctx, req.path.c_str(), timeout, &to_string, &body);
      res.set_content(body, "text/plain");
    });
    // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, with
    // which a second exporter on a port another one serves binds too
    // and the kernel shares the connections between them.
    svr.set_socket_options([](int sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    errno = 0;
    if (!svr.bind_to_port(host, port)) {
      int e = errno;
      std::snprintf(err, errlen, "cannot listen on %s:%d: %s", host, port,
                    e == EADDRINUSE ? "address already in use" : e ? std::strerror(e) : "cannot bind");
      return 1;
    }
    handler(ctx, nullptr, 0, nullptr, nullptr);
    if (!svr.listen_after_bind()) {
      std::snprintf(err, errlen, "the HTTP server stopped");
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(err, errlen, "%s", e.what());
    return 1;
  }
}
