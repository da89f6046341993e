cmake_minimum_required(VERSION 3.20)
# The Debian packages (packaging/packaging.cmake), as a Debian user gets them:
#  - `cpack -G DEB` writes weft and weft-dev;
#  - each one's dependencies are Debian package names this machine's dpkg
#    knows (the first of each alternative);
#  - dpkg installs both into a clean root (--root, maintainer scripts run
#    against it: the postinst precompiles the runtime header there);
#  - examples/embedding builds against <root>/usr with find_package(weft) and
#    runs, finding the bundled plugins beside the packaged libweft.so.
# Inputs: BUILD_DIR, WORK_DIR, EXAMPLE_DIR, GENERATOR, CXX_COMPILER, CXX_FLAGS, VERSION, CPACK.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
isolate_from_machine(${WORK_DIR})
separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS}")

run(${CPACK} -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK_DIR}/packages)
file(GLOB debs ${WORK_DIR}/packages/*.deb)
list(SORT debs)
list(LENGTH debs count)
if(NOT count EQUAL 2)
  message(FATAL_ERROR "expected the packages weft and weft-dev, got: ${debs}")
endif()
set(runtime_deb "")
set(dev_deb "")
foreach(deb ${debs})
  run(dpkg-deb -f ${deb} Package Version Depends)
  set(fields "${last_output}")
  message(STATUS "${deb}:\n${fields}")
  expect("${fields}" "Version: ${VERSION}\n")
  if(fields MATCHES "Package: weft-dev\n")
    set(dev_deb ${deb})
    expect("${fields}" "Depends: [^\n]*weft \\(= ${VERSION}\\)")
  elseif(fields MATCHES "Package: weft\n")
    set(runtime_deb ${deb})
    foreach(needed clang-19 libllvm19 libclang-cpp19 libssl3)
      expect("${fields}" "Depends: [^\n]*${needed}")
    endforeach()
    # The remote cache speaks the Redis protocol itself: no client library.
    if(fields MATCHES "hiredis")
      message(FATAL_ERROR "libweft depends on hiredis again:\n${fields}")
    endif()
  endif()
  # Every dependency is a package dpkg knows here: the first name of each alternative.
  string(REGEX MATCH "Depends: ([^\n]*)" _ "${fields}")
  string(REPLACE "," ";" depends "${CMAKE_MATCH_1}")
  foreach(d ${depends})
    string(REGEX MATCH "[a-z0-9][a-z0-9.+-]+" name "${d}")
    if(name STREQUAL "weft")
      continue()
    endif()
    execute_process(COMMAND dpkg-query -W -f=\${Status} ${name} RESULT_VARIABLE rc OUTPUT_VARIABLE status ERROR_QUIET)
    if(NOT rc EQUAL 0 OR NOT status MATCHES "installed")
      message(FATAL_ERROR "${deb} depends on '${name}', which is not an installed Debian package here (${status})")
    endif()
  endforeach()
endforeach()
if(NOT runtime_deb OR NOT dev_deb)
  message(FATAL_ERROR "the packages are not weft and weft-dev: ${debs}")
endif()

# A clean root with an empty dpkg database; the dependencies are this
# machine's, so they are not installed into it (--force-depends).
set(root ${WORK_DIR}/root)
file(MAKE_DIRECTORY ${root}/var/lib/dpkg/info ${root}/var/lib/dpkg/updates ${root}/var/lib/dpkg/triggers)
file(WRITE ${root}/var/lib/dpkg/status "")
file(WRITE ${root}/var/lib/dpkg/available "")
run(dpkg --root=${root} --force-not-root --force-script-chrootless --force-depends --log=${WORK_DIR}/dpkg.log
    -i ${runtime_deb} ${dev_deb})
run(dpkg --root=${root} -L weft)
set(runtime_files "${last_output}")
run(dpkg --root=${root} -L weft-dev)
set(dev_files "${last_output}")
string(REGEX MATCH "^[0-9]+\\.[0-9]+" soversion "${VERSION}")
foreach(f /usr/bin/weft /usr/lib/libweft.so.${soversion} /usr/lib/weft/plugins/colors/plugin.toml /usr/lib/weft/plugins/philox/libphilox.so)
  expect("${runtime_files}" "${f}\n")
endforeach()
foreach(f /usr/include/weft/weft.hpp /usr/lib/libweft.so\n /usr/lib/cmake/weft/weftConfig.cmake /usr/lib/pkgconfig/weft.pc
          /usr/include/weft/plugin.h /usr/lib/cmake/WeftPluginSDK/WeftPluginSDKConfig.cmake)
  expect("${dev_files}" "${f}")
endforeach()
# The plugins' headers are run-time files (kernels compile against them); weft's own are weft-dev's.
if(runtime_files MATCHES "/usr/include/")
  message(FATAL_ERROR "the weft package holds application headers (they are weft-dev's)")
endif()
# The postinst ran against the root: the runtime header is precompiled there.
file(GLOB_RECURSE pch ${root}/usr/lib/weft/prebuilt/pch/*)
if(NOT pch)
  message(FATAL_ERROR "the postinst left no precompiled runtime header under ${root}/usr/lib/weft/prebuilt")
endif()

run(${root}/usr/bin/weft plugin list)
expect("${last_output}" "bvh .*colors .*hash_grid .*mesh .*philox .*5 plugins on the search path")

set(app ${WORK_DIR}/app)
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${app} -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${root}/usr
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
run(${CMAKE_COMMAND} --build ${app})
run(${app}/embedding)
expect_contains("${last_output}" "loaded colors 1.0.0 from ${root}/usr/lib/weft/plugins/colors/plugin.toml")
expect_contains("${last_output}" "points[1] = (1.5, 2, 2.5): ok")
message(STATUS "weft and weft-dev install with dpkg into a clean root, and the embedding example builds against them and runs")
