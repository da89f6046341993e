cmake_minimum_required(VERSION 3.20)
# Installs the plugin SDK component alone, builds tests/sdk/consumer against
# that install, and loads the result with `weft plugin inspect`.
include(${CMAKE_CURRENT_LIST_DIR}/../install/common.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --component sdk --prefix ${prefix})
# The SDK is a C header, a C++ header and a CMake package: nothing of the host.
file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
list(SORT installed)
set(expected include/weft/callable.h include/weft/plugin.h include/weft/plugin.hpp)
foreach(f ${expected})
  if(NOT f IN_LIST installed)
    message(FATAL_ERROR "SDK install lacks ${f}; it has: ${installed}")
  endif()
endforeach()
foreach(f ${installed})
  if(f MATCHES "^include/" AND NOT f IN_LIST expected)
    message(FATAL_ERROR "SDK install leaks a host header: ${f}")
  endif()
endforeach()

run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WEFT} plugin inspect ${WORK_DIR}/build/vendor_gain)
if(NOT last_output MATCHES "plugin vendor_gain 2\\.1\\.0" OR NOT last_output MATCHES "vendor_gain_apply\\(x: float32, gain: float32\\) -> float32")
  message(FATAL_ERROR "unexpected inspect output:\n${last_output}")
endif()
message(STATUS "out-of-tree plugin built against the installed SDK and loaded")
