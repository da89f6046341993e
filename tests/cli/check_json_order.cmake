# `weft check --json` with stdout and stderr captured into one stream: the
# JSON report is flushed whole before the first diagnostic reaches stderr.
execute_process(COMMAND ${WEFT} check ${FILE} --json RESULT_VARIABLE rc OUTPUT_VARIABLE both ERROR_VARIABLE both)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "exit status ${rc}, expected 1\n${both}")
endif()
string(FIND "${both}" "\"diagnostics\": [" report_at)
string(FIND "${both}" ": error: " diagnostic_at)
string(FIND "${both}" "\n}\n" report_end)
if(report_at LESS 0 OR diagnostic_at LESS 0 OR report_end LESS 0 OR NOT report_end LESS diagnostic_at)
  message(FATAL_ERROR "the JSON report is not complete before the first diagnostic:\n${both}")
endif()
