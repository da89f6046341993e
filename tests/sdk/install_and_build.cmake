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
if(NOT last_output MATCHES "vendor_gain::Phasor  code nd[0-9a-f]+ [^\n]*\n[^\n]*gradient differentiable, adjoints added field by field"
   OR NOT last_output MATCHES "vendor_gain_power\\(p: vendor_gain::Phasor\\) -> float32[^\n]*\n[^\n]*\n[^\n]*gradient contract vendor_gain::adj_power")
  message(FATAL_ERROR "inspect does not show the differentiable type and its contract:\n${last_output}")
endif()
# Its smoke module (every builtin called, the type built from its fields)
# compiles forward and backward: the gradient flows through the vendor's type.
run(${WEFT} plugin check --compile --no-cuda ${WORK_DIR}/build/vendor_gain)
if(NOT last_output MATCHES "ok +vendor_gain 2\\.1\\.0")
  message(FATAL_ERROR "plugin check --compile of the out-of-tree plugin:\n${last_output}")
endif()
message(STATUS "out-of-tree plugin built against the installed SDK and loaded")

# A vendor signs at build time (SIGN_KEY) and installs: the installed copy
# carries its signature, and a host with the signed policy loads it.
run(openssl genpkey -algorithm ed25519 -out ${WORK_DIR}/vendor.pem)
file(MAKE_DIRECTORY ${WORK_DIR}/keys)
run(openssl pkey -in ${WORK_DIR}/vendor.pem -pubout -out ${WORK_DIR}/keys/vendor.pem)
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${WORK_DIR}/signed -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DVENDOR_SIGN_KEY=${WORK_DIR}/vendor.pem -DWEFT_EXECUTABLE=${WEFT})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/signed)
run(${CMAKE_COMMAND} --install ${WORK_DIR}/signed --prefix ${WORK_DIR}/vendor_prefix)
file(GLOB_RECURSE installed_sig ${WORK_DIR}/vendor_prefix/*/plugin.toml.sig)
if(NOT installed_sig)
  message(FATAL_ERROR "cmake --install did not install plugin.toml.sig")
endif()
get_filename_component(installed_dir ${installed_sig} DIRECTORY)
run(${WEFT} plugin verify --trusted-keys ${WORK_DIR}/keys ${installed_dir})
if(NOT last_output MATCHES "ok +vendor_gain 2\\.1\\.0 \\(signed by vendor\\.pem\\)")
  message(FATAL_ERROR "the installed, signed plugin does not verify:\n${last_output}")
endif()
run(${WEFT} plugin inspect --trusted-keys ${WORK_DIR}/keys ${installed_dir})
message(STATUS "signed at build time, installed with its signature, loaded under the signed policy")
