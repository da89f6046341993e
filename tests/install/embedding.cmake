cmake_minimum_required(VERSION 3.20)
# The README's "Embedding weft in an application", as an application would do it:
# weft installed to a fresh prefix, then examples/embedding configured, built
# and run out of tree against that prefix alone.
#  - find_package(weft): the CMake build; installed elsewhere, it runs again;
#  - weft.pc: the same main.cpp built with the flags pkg-config gives;
#  - the prefix moved: the plugins are still found beside libweft.so.
# The program loads the plugins by name with no search path set, so it finds
# them only through libweft.so's location; it exits non-zero on a wrong value.
# (weft_tests checks that the README shows the example's files as they are.)
# Inputs: BUILD_DIR, WORK_DIR, EXAMPLE_DIR, LIBDIR, GENERATOR, CXX_COMPILER, CXX_FLAGS.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
isolate_from_machine(${WORK_DIR})
separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS}")

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f ${LIBDIR}/libweft.so ${LIBDIR}/cmake/weft/weftConfig.cmake ${LIBDIR}/cmake/weft/weftConfigVersion.cmake
          ${LIBDIR}/cmake/weft/weftTargets.cmake ${LIBDIR}/pkgconfig/weft.pc include/weft/host/host.hpp)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()
file(GLOB_RECURSE archives RELATIVE ${prefix} ${prefix}/*.a)
if(archives)
  message(FATAL_ERROR "applications link libweft.so; the install has static archives: ${archives}")
endif()

function(expect_ran_ok output)
  expect_contains("${output}" "loaded colors 1.0.0 from ${ARGN}/colors/plugin.toml")
  expect_contains("${output}" "loaded philox 1.0.0 from ${ARGN}/philox/plugin.toml")
  expect("${output}" "luminance\\[0\\] = [0-9.]+ = 2\\.0 \\* [0-9.]+; mean level 0\\.[0-9]+: ok")
  expect_contains("${output}" "points[1] = (1.5, 2, 2.5): ok")
endfunction()
set(plugins ${prefix}/${LIBDIR}/weft/plugins)

# CMake: find_package(weft) with the prefix alone.
set(cmake_build ${WORK_DIR}/cmake-build)
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${cmake_build} -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
run(${CMAKE_COMMAND} --build ${cmake_build})
run(${cmake_build}/embedding)
message(STATUS "find_package(weft) build:\n${last_output}")
expect_ran_ok("${last_output}" ${plugins})
run(${CMAKE_COMMAND} --install ${cmake_build} --prefix ${WORK_DIR}/app)
run(${WORK_DIR}/app/bin/embedding)
expect_ran_ok("${last_output}" ${plugins})

# pkg-config: weft.pc from the prefix only, not the machine's.
find_program(pkg_config NAMES pkg-config pkgconf REQUIRED)
set(ENV{PKG_CONFIG_LIBDIR} ${prefix}/${LIBDIR}/pkgconfig)
unset(ENV{PKG_CONFIG_PATH})
run(${pkg_config} --modversion weft)
expect("${last_output}" "^[0-9]+\\.[0-9]+\\.[0-9]+\n$")
run(${pkg_config} --cflags --libs weft)
separate_arguments(pc_flags UNIX_COMMAND "${last_output}")
# The headers need C++20: weft.pc's flags say so.
expect_contains("${last_output}" "-std=c++20")
run(${CXX_COMPILER} ${cxx_flags} ${EXAMPLE_DIR}/main.cpp ${pc_flags} -o ${WORK_DIR}/embedding-pc)
run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/${LIBDIR} ${WORK_DIR}/embedding-pc)
expect_ran_ok("${last_output}" ${plugins})

# A moved installation: libweft.so finds the plugins where it now is.
file(RENAME ${prefix} ${WORK_DIR}/moved)
run(${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${WORK_DIR}/moved/${LIBDIR} ${WORK_DIR}/embedding-pc)
expect_ran_ok("${last_output}" ${WORK_DIR}/moved/${LIBDIR}/weft/plugins)
message(STATUS "the embedding example builds against the installed weft (CMake and pkg-config) and runs")
