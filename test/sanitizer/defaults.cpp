// The sanitized build's runtime options, built into every executable so a
// test, a fabric run by hand and ctest all use them without an environment
// variable: the suppressions of code that is not ours (asan.supp), and a
// stack for every UBSan report.  ASAN_OPTIONS / UBSAN_OPTIONS still add to
// or override these.
extern "C" {

// intercept_tls_get_addr=0: clang 14's runtime, intercepting glibc 2.36's
// __tls_get_addr, can record a dynamic TLS block at a bogus range (seen:
// "DTLS 3 at 0x1b6-0x20000012b8", with LSAN_OPTIONS=verbosity=1), which
// LeakSanitizer's exit check then scans and faults on ("Tracer caught
// signal 11: addr=0x1b8").  Whether it happens depends on the process's
// layout, not on what it does: the exporter that cannot get its port (one
// thread, nothing dlopened but the HTTP module and its libraries) failed
// cli.package when run from /tmp/tmp.XXXXXXXXXX/root/usr/sbin and passed
// from a shorter directory, and a change as innocent as looking the counter
// families up lazily moved it.  Dynamic TLS is only the dlopened modules'
// (the HTTP module's libraries, libibverbs); ours is static TLS, scanned.
const char* __asan_default_options() { return "suppressions=" IBTOOL_ASAN_SUPP ":intercept_tls_get_addr=0"; }

const char* __ubsan_default_options() { return "print_stacktrace=1"; }

}
