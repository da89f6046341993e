# Helpers for the scripts that install weft to a temporary prefix and build
# against it (tests/install, tests/sdk), run with `cmake -P`.

# Runs a command; fails the test, with its output, unless it exits 0.
# Its stdout is left in last_output.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

function(expect text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "expected output matching '${regex}', got:\n${text}")
  endif()
endfunction()

# For paths, which may hold characters a regular expression treats specially.
function(expect_contains text substring)
  string(FIND "${text}" "${substring}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected output containing '${substring}', got:\n${text}")
  endif()
endfunction()

# The machine's own plugin directories and cache must not leak into a test
# that runs installed programs: only the prefix's plugins count.
macro(isolate_from_machine work_dir)
  unset(ENV{WEFT_PLUGIN_PATH})
  unset(ENV{WEFT_PLUGIN_SYSTEM_PATH})
  set(ENV{XDG_DATA_HOME} ${work_dir}/xdg-data)
  set(ENV{WEFT_CACHE_DIR} ${work_dir}/cache)
endmacro()
