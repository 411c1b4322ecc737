// The sanitized build's runtime options, built into every executable so a
// test, a fabric run by hand and ctest all use them without an environment
// variable: the suppressions of code that is not ours (asan.supp), and a
// stack for every UBSan report.  ASAN_OPTIONS / UBSAN_OPTIONS still add to
// or override these.
extern "C" {

const char* __asan_default_options() { return "suppressions=" IBTOOL_ASAN_SUPP; }

const char* __ubsan_default_options() { return "print_stacktrace=1"; }

}
