// The HTTP side of `ibtool exporter --listen`, built as a module the
// exporter loads with dlopen (libibtool_http.so): Debian's cpp-httplib is a
// shared library that brings OpenSSL, zlib, brotli and a shared libstdc++,
// and linking it into ibtool would load all of them at the start of every
// command (bench/smpquery_bench.sh).  The interface is plain C, so no C++
// object or exception crosses between the two libstdc++ copies.
#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cmd/http/http_server.h"

extern "C" int ibtool_http_serve(const char* host, int port, ibtool_http_handler handler, void* ctx, char* err,
                                 size_t errlen) {
  try {
    httplib::Server svr;
    svr.Get(R"(/.*)", [&](const httplib::Request& req, httplib::Response& res) {
      size_t len = 0;
      const char* type = "text/plain";
      int status = 200;
      char* body = handler(ctx, req.path.c_str(), &len, &type, &status);
      res.status = status;
      if (body) {
        res.set_content(std::string(body, len), type);
        std::free(body);
      }
    });
    if (!svr.bind_to_port(host, port)) {
      std::snprintf(err, errlen, "cannot listen on %s port %d", host, port);
      return 1;
    }
    std::fprintf(stderr, "exporter: serving http://%s:%d/metrics\n", host, port);
    std::fflush(stderr);
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
