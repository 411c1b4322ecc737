// The C interface between ibtool and its HTTP module (libibtool_http.so,
// cmd/http/http_server.cpp), loaded by `ibtool exporter --listen` only.
#pragma once

#include <stddef.h>

extern "C" {
// The response body's bytes, passed on as they come.
typedef void (*ibtool_http_write)(void* w, const char* data, size_t len);
// Called for every GET: writes the body with write(w, ...), returns the
// HTTP status.  /metrics is sent chunked as it is written (status 200).
// scrape_timeout: the request's X-Prometheus-Scrape-Timeout-Seconds (the
// time the Prometheus server waits for the answer), 0 when it has none.
// Called once with path NULL (and no writer) when the server listens: the
// module writes no diagnostics of its own (ibtool's go through core/out/log).
typedef int (*ibtool_http_handler)(void* ctx, const char* path, double scrape_timeout, ibtool_http_write write,
                                   void* w);
// Serve on host:port until the process ends; 0, or non-zero with a message
// in err.
typedef int (*ibtool_http_serve_fn)(const char* host, int port, ibtool_http_handler handler, void* ctx, char* err,
                                    size_t errlen);
int ibtool_http_serve(const char* host, int port, ibtool_http_handler handler, void* ctx, char* err, size_t errlen);
}
