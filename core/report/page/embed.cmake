# Turns the report page's template (report.html, report.css, report.js in
# this folder) into C++ string constants (ibcore::reporting::PAGE_HTML, ...),
# compiled into ibcore: the page ibtool writes loads nothing, not even
# from ibtool's own files.  Run by CMake at build time:
#   cmake -DSRC=<this folder> -DOUT=<file.cpp> -P embed.cmake
set(body "// Generated from core/report/page/ by embed.cmake: do not edit.\n#include \"core/report/page.h\"\n\nnamespace ibcore::reporting {\n")
foreach(pair "HTML;report.html" "CSS;report.css" "JS;report.js")
  list(GET pair 0 name)
  list(GET pair 1 file)
  file(READ ${SRC}/${file} text)
  string(FIND "${text}" ")IBTOOLPAGE\"" bad)
  if(NOT bad EQUAL -1)
    message(FATAL_ERROR "${file} holds the raw string's delimiter")
  endif()
  string(APPEND body "const std::string_view PAGE_${name} = R\"IBTOOLPAGE(${text})IBTOOLPAGE\";\n")
endforeach()
string(APPEND body "}  // namespace ibcore::reporting\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
