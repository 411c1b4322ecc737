# The files the packages install that the build makes from others (cmake -P,
# run by the `pkgfiles` target):
#   OUT/ibtool/ibtool.8.gz, OUT/ibtool/ibtool-CMD.8.gz   every command's page
#       under ibtool's name (its .TH and NAME say ibtool-CMD), compressed
#   OUT/names/man8/NAME.8.gz -> ibtool-CMD.8.gz          for each name of NAMES
#   OUT/names/sbin/NAME -> ibtool, OUT/names/completions/NAME -> ibtool
#   OUT/changelog.gz
# Inputs: MAN_DIR (the pages ibtool --gen-man wrote: CMD.8, and ALIAS.8 whose
# first line is '.\" ibtool: alias of CMD'), NAMES (packaging/diags-names.txt), GZIP, CHANGELOG.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT}/ibtool ${OUT}/names/man8 ${OUT}/names/sbin ${OUT}/names/completions)

function(gz src dst)
  execute_process(COMMAND ${GZIP} -9n -c ${src} OUTPUT_FILE ${dst} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "gzip ${src} failed")
  endif()
endfunction()

# The command a page is for: an alias page points at its command's.
function(page_command name out)
  file(READ ${MAN_DIR}/${name}.8 text)
  if(text MATCHES "^\\.\\\\\" ibtool: alias of ([^\n]+)\n")
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  else()
    set(${out} ${name} PARENT_SCOPE)
  endif()
endfunction()

file(GLOB pages RELATIVE ${MAN_DIR} ${MAN_DIR}/*.8)
foreach(p ${pages})
  string(REGEX REPLACE "\\.8$" "" name ${p})
  if(name STREQUAL "ibtool")
    gz(${MAN_DIR}/ibtool.8 ${OUT}/ibtool/ibtool.8.gz)
    continue()
  endif()
  page_command(${name} cmd)
  if(NOT cmd STREQUAL name)
    continue()  # an alias: its command's page covers it
  endif()
  file(READ ${MAN_DIR}/${p} text)
  string(TOUPPER "${name}" upper)
  # .TH "SMPQUERY" 8 ... -> .TH "IBTOOL-SMPQUERY" 8 ...; NAME: "ibtool-smpquery, smpquery \- ..."
  string(REGEX REPLACE "^\\.TH \"[^\"]*\"" ".TH \"IBTOOL-${upper}\"" text "${text}")
  string(FIND "${text}" ".SH NAME\n${name} \\-" at)
  if(at LESS 0)
    message(FATAL_ERROR "${p}: no NAME line '${name} \\- ...'")
  endif()
  string(REPLACE ".SH NAME\n${name} \\-" ".SH NAME\nibtool-${name}, ${name} \\-" text "${text}")
  file(WRITE ${OUT}/ibtool-${name}.8 "${text}")
  gz(${OUT}/ibtool-${name}.8 ${OUT}/ibtool/ibtool-${name}.8.gz)
  file(REMOVE ${OUT}/ibtool-${name}.8)
endforeach()

file(STRINGS ${NAMES} names REGEX "^[^#]")
foreach(n ${names})
  if(NOT EXISTS ${MAN_DIR}/${n}.8)
    message(FATAL_ERROR "${NAMES}: '${n}' is no ibtool command or alias (no man page ${n}.8)")
  endif()
  page_command(${n} cmd)
  file(CREATE_LINK ibtool-${cmd}.8.gz ${OUT}/names/man8/${n}.8.gz SYMBOLIC)
  file(CREATE_LINK ibtool ${OUT}/names/sbin/${n} SYMBOLIC)
  file(CREATE_LINK ibtool ${OUT}/names/completions/${n} SYMBOLIC)
endforeach()

gz(${CHANGELOG} ${OUT}/changelog.gz)
file(TOUCH ${OUT}/stamp)
