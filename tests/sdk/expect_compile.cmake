cmake_minimum_required(VERSION 3.20)
# Compiles SOURCE against the SDK headers (INCLUDE) alone, with COMPILER.
# EXPECT_ERROR set: the compile must fail and its diagnostics contain it
# (a misuse the SDK turns into a compile error). Otherwise it must succeed.
execute_process(COMMAND ${COMPILER} -std=c++17 -fsyntax-only -I${INCLUDE} ${SOURCE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(DEFINED EXPECT_ERROR)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${SOURCE} compiled, but must fail with: ${EXPECT_ERROR}")
  endif()
  string(FIND "${err}${out}" "${EXPECT_ERROR}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${SOURCE} failed without '${EXPECT_ERROR}':\n${err}${out}")
  endif()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} must compile:\n${err}${out}")
endif()
