// The C interface between ibtool and its HTTP module (libibtool_http.so,
// cmd/http/http_server.cpp), loaded by `ibtool exporter --listen` only.
#pragma once

#include <stddef.h>

extern "C" {
// Called for every GET: returns a malloc'ed body (freed by the module) of
// *len bytes, sets *type (a static string) and *status.
typedef char* (*ibtool_http_handler)(void* ctx, const char* path, size_t* len, const char** type, int* status);
// Serve on host:port until the process ends; 0, or non-zero with a message
// in err.
typedef int (*ibtool_http_serve_fn)(const char* host, int port, ibtool_http_handler handler, void* ctx, char* err,
                                    size_t errlen);
int ibtool_http_serve(const char* host, int port, ibtool_http_handler handler, void* ctx, char* err, size_t errlen);
}
