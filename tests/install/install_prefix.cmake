cmake_minimum_required(VERSION 3.20)
# `cmake --install` of the whole build into a fresh prefix (not the configured
# CMAKE_INSTALL_PREFIX: the installation must be relocatable), then, with only
# that prefix:
#  - the installed `weft plugin list` lists the bundled plugins from
#    <prefix>/lib/weft/plugins without WEFT_PLUGIN_PATH or --plugin-path;
#  - the SDK's example plugin project builds out of tree with find_package,
#    keeps its copied header current after an edit, loads, compiles its kernel
#    with the installed `weft build`, and installs beside the bundled plugins,
#    where `weft build --plugin example_tint` finds it by name.
# Inputs: BUILD_DIR, WORK_DIR, GENERATOR, C_COMPILER, CXX_COMPILER.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
isolate_from_machine(${WORK_DIR})

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

include(GNUInstallDirs)
set(plugins ${prefix}/${CMAKE_INSTALL_LIBDIR}/weft/plugins)
foreach(f bin/weft
          ${CMAKE_INSTALL_LIBDIR}/libweft.so
          include/weft/plugin.h include/weft/plugin.hpp include/weft/callable.h include/weft/host/host.hpp
          ${CMAKE_INSTALL_LIBDIR}/cmake/WeftPluginSDK/WeftPluginSDKConfig.cmake
          share/weft/plugin-example/CMakeLists.txt share/weft/plugin-example/tint_kernel.py)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()
foreach(p bvh colors hash_grid mesh philox)
  foreach(f lib${p}.so plugin.toml include/weft_${p}.h)
    if(NOT EXISTS ${plugins}/${p}/${f})
      message(FATAL_ERROR "bundled plugin ${p}: the install lacks ${f}")
    endif()
  endforeach()
endforeach()
file(GLOB installed_plugins RELATIVE ${plugins} ${plugins}/*)
list(SORT installed_plugins)
if(NOT installed_plugins STREQUAL "bvh;colors;hash_grid;mesh;philox")
  message(FATAL_ERROR "only the bundled plugins are installed, not test or bench plugins; found: ${installed_plugins}")
endif()

# The application API only: each installed header compiles alone against the
# prefix (so the installed set is closed), none names the CUDA runtime layer's
# module types, and libweft's own headers stay out.
file(GLOB_RECURSE installed_headers RELATIVE ${prefix}/include ${prefix}/include/weft/*.hpp)
list(LENGTH installed_headers header_count)
if(header_count LESS 20 OR header_count GREATER 40)
  message(FATAL_ERROR "expected the application headers (weft/weft.hpp and what it includes), got ${header_count}: ${installed_headers}")
endif()
foreach(internal weft/pipeline/pipeline.hpp weft/backend/cuda.hpp weft/codegen/cpp_emitter.hpp weft/trust/ed25519.hpp
                 weft/kernel/ir.hpp weft/build/module_hash.hpp weft/support/sha256.hpp)
  if(EXISTS ${prefix}/include/${internal})
    message(FATAL_ERROR "libweft's own header ${internal} is installed")
  endif()
endforeach()
foreach(h ${installed_headers})
  file(READ ${prefix}/include/${h} text)
  if(text MATCHES "Cuda(Module|Kernel|Image|Arg|Entry)[^A-Za-z_]")
    message(FATAL_ERROR "${h} names a CUDA-only module type (${CMAKE_MATCH_0}): applications use CompiledModule and Kernel")
  endif()
  string(MAKE_C_IDENTIFIER ${h} stem)
  file(WRITE ${WORK_DIR}/headers/${stem}.cpp "#include <${h}>\n")
  run(${CXX_COMPILER} -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -I${prefix}/include
      ${WORK_DIR}/headers/${stem}.cpp)
endforeach()

set(weft ${prefix}/bin/weft)
run(${weft} plugin list)
expect("${last_output}" "bvh +1\\.0\\.0 .*colors +1\\.0\\.0 +1 +Linear RGB.*hash_grid +1\\.0\\.0 .*mesh +1\\.0\\.0 .*philox +1\\.0\\.0 .*5 plugins on the search path")
run(${weft} plugin check)
expect("${last_output}" "ok +bvh.*ok +colors.*ok +hash_grid.*ok +mesh.*ok +philox.*5 plugins: 5 ok, 0 failed, 0 conflicts")
# Object types are listed with their constructors and methods.
run(${weft} plugin inspect mesh)
expect("${last_output}" "object types \\(1\\):.*mesh\\(points: array\\(dtype=vec3.*method refit\\(\\)")
foreach(h weft_bvh_core.h weft_mesh_types.h)
  if(NOT EXISTS ${plugins}/mesh/include/${h})
    message(FATAL_ERROR "bundled plugin mesh: the install lacks include/${h}")
  endif()
endforeach()
# An installed plugin is named as `plugin list` shows it.
run(${weft} plugin inspect philox)
expect("${last_output}" "plugin philox 1\\.0\\.0.*philox_uniform\\(seed: uint64, counter: uint64\\) -> float32")

# The example, copied as a vendor would, built against the installed prefix only.
set(src ${WORK_DIR}/example)
set(bin ${WORK_DIR}/example-build)
file(COPY ${prefix}/share/weft/plugin-example/ DESTINATION ${src})
run(${CMAKE_COMMAND} -S ${src} -B ${bin} -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run(${CMAKE_COMMAND} --build ${bin})
run(${weft} plugin inspect ${bin}/example_tint)
expect("${last_output}" "plugin example_tint 1\\.0\\.0.*example_tint_mix\\(a: example_tint::Rgb, b: example_tint::Rgb, t: float32\\) -> example_tint::Rgb")
# The array builtin: registered with the SDK's mirror type, implemented in the kernel-only header.
expect("${last_output}" "example_tint_average\\(pixels: array\\(dtype=example_tint::Rgb\\)\\) -> example_tint::Rgb")
# A host object type, spelled with the installed SDK's ObjectType<T>.
expect("${last_output}" "object types \\(1\\):.*example_tint_palette\\(colors: array\\(dtype=example_tint::Rgb\\)\\).*method scale\\(factor: float32\\)")
run(${weft} build ${src}/tint_kernel.py --plugin ${bin}/example_tint --target cpu)
expect("${last_output}" "artifacts/cpu\\.[0-9a-f]+\\.bin")

# An edited header reaches the plugin directory on the next build.
file(READ ${src}/include/example_tint.h header)
file(WRITE ${src}/include/example_tint.h "${header}// edited after the first build\n")
run(${CMAKE_COMMAND} --build ${bin})
file(READ ${bin}/example_tint/include/example_tint.h copied)
if(NOT copied MATCHES "edited after the first build")
  message(FATAL_ERROR "the plugin's copied header was not updated by the rebuild")
endif()

# weft_add_plugin's install rules: beside the bundled plugins, found by default.
run(${CMAKE_COMMAND} --install ${bin} --prefix ${prefix})
foreach(f libexample_tint.so plugin.toml include/example_tint.h include/example_tint_arrays.h)
  if(NOT EXISTS ${plugins}/example_tint/${f})
    message(FATAL_ERROR "example_tint: the install lacks ${f}")
  endif()
endforeach()
run(${weft} plugin list)
expect("${last_output}" "colors .*example_tint +1\\.0\\.0 .*philox .*6 plugins on the search path")
run(${weft} build ${src}/tint_kernel.py --plugin example_tint --target cpu)
expect("${last_output}" "artifacts/cpu\\.[0-9a-f]+\\.bin")
message(STATUS "installed weft lists its plugins; the SDK example builds, loads and compiles its kernel")
