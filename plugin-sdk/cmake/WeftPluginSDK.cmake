# weft_add_plugin(<name> SOURCES <src>... MANIFEST <plugin.toml>
#                 [OUTPUT_DIRECTORY <dir>] [OUTPUT_NAME <base>]
#                 [INCLUDE_DIR <dir>]
#                 [INSTALL_DESTINATION <dir>] [COMPONENT <component>] [NO_INSTALL]
#                 [SIGN_KEY <private key .pem>])
#
# Builds lib<base>.so (<base> defaults to <name>) exporting only the two weft
# entry points and puts the manifest beside it as plugin.toml, in <dir>
# (default: <binary dir>/<name>). The manifest is configured with @ONLY:
# @WEFT_PLUGIN_LIBRARY@ expands to the library's file name.
#
# INCLUDE_DIR: the plugin's device-side headers (what its build options add to
# kernels' include path as <plugin directory>/include). They are copied to
# <dir>/include when the plugin is built, and again whenever one changes, so the
# built plugin directory is always complete and current.
#
# SIGN_KEY: whenever the library, the manifest or a header changes, `weft plugin
# sign --key <key> <dir>` signs the built directory (target <name>_signature) (plugin.toml.sig covers the manifest, the
# library and include/). The weft tool is WEFT_EXECUTABLE (a cache variable;
# found on PATH by default). Hosts with the `signed` trust policy load it.
#
# Unless NO_INSTALL is given, `cmake --install` puts the library, plugin.toml,
# include/ and plugin.toml.sig (when there is one: SIGN_KEY, or a
# `weft plugin sign` of the built directory) into INSTALL_DESTINATION (default
# ${CMAKE_INSTALL_LIBDIR}/weft/plugins/<name>, which a weft host installed under
# the same prefix searches by default), in COMPONENT (default: CMake's default
# component). The library is installed as built, byte for byte (no RPATH
# rewrite), so a signature of the built directory holds for the installed one.
include_guard(GLOBAL)
include(GNUInstallDirs)

set(_WEFT_SDK_DIR ${CMAKE_CURRENT_LIST_DIR})

function(weft_add_plugin name)
  cmake_parse_arguments(ARG "NO_INSTALL" "MANIFEST;OUTPUT_DIRECTORY;OUTPUT_NAME;INCLUDE_DIR;INSTALL_DESTINATION;COMPONENT;SIGN_KEY"
    "SOURCES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "weft_add_plugin(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "weft_add_plugin(${name}): SOURCES is required")
  endif()
  if(NOT ARG_MANIFEST)
    message(FATAL_ERROR "weft_add_plugin(${name}): MANIFEST is required")
  endif()
  if(NOT ARG_OUTPUT_NAME)
    set(ARG_OUTPUT_NAME ${name})
  endif()
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/${name})
  endif()
  if(NOT ARG_INSTALL_DESTINATION)
    set(ARG_INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/weft/plugins/${name})
  endif()

  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE WeftPluginSDK::sdk)
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    SUFFIX ".so"
    OUTPUT_NAME ${ARG_OUTPUT_NAME}
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)

  # Export the entry points and nothing else, whatever the sources' visibility.
  set(exports ${CMAKE_CURRENT_BINARY_DIR}/${name}.exports)
  file(WRITE ${exports} "{\n  global: weft_plugin_get_info; weft_plugin_init;\n  local: *;\n};\n")
  target_link_options(${name} PRIVATE "LINKER:--version-script=${exports}")
  set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS ${exports})

  set(WEFT_PLUGIN_LIBRARY lib${ARG_OUTPUT_NAME}.so)
  get_filename_component(manifest ${ARG_MANIFEST} ABSOLUTE)
  configure_file(${manifest} ${ARG_OUTPUT_DIRECTORY}/plugin.toml @ONLY)

  set(copies)
  if(ARG_INCLUDE_DIR)
    get_filename_component(include_dir ${ARG_INCLUDE_DIR} ABSOLUTE)
    target_include_directories(${name} PRIVATE ${include_dir})
    # One copy rule per header, built with the plugin: an edited header is
    # copied again by the next build (file(COPY) would run only at configure
    # time); CONFIGURE_DEPENDS re-globs when a header is added.
    file(GLOB_RECURSE headers RELATIVE ${include_dir} CONFIGURE_DEPENDS ${include_dir}/*)
    foreach(rel ${headers})
      set(out ${ARG_OUTPUT_DIRECTORY}/include/${rel})
      add_custom_command(OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -E copy_if_different ${include_dir}/${rel} ${out}
        DEPENDS ${include_dir}/${rel}
        COMMENT "weft plugin ${name}: include/${rel}" VERBATIM)
      list(APPEND copies ${out})
    endforeach()
    target_sources(${name} PRIVATE ${copies})
  endif()

  if(ARG_SIGN_KEY)
    get_filename_component(key ${ARG_SIGN_KEY} ABSOLUTE)
    find_program(WEFT_EXECUTABLE weft DOC "The weft tool, which signs plugins built with SIGN_KEY")
    if(NOT WEFT_EXECUTABLE)
      message(FATAL_ERROR "weft_add_plugin(${name}): SIGN_KEY needs the weft tool; set WEFT_EXECUTABLE")
    endif()
    # Signed again whenever the library, the manifest, a header copy or the
    # key changes (a POST_BUILD step would miss a header edit: no relink).
    add_custom_command(OUTPUT ${ARG_OUTPUT_DIRECTORY}/plugin.toml.sig
      COMMAND ${WEFT_EXECUTABLE} plugin sign --key ${key} ${ARG_OUTPUT_DIRECTORY}
      DEPENDS ${name} ${ARG_OUTPUT_DIRECTORY}/plugin.toml ${copies} ${key}
      COMMENT "weft plugin ${name}: signing ${ARG_OUTPUT_DIRECTORY}" VERBATIM)
    add_custom_target(${name}_signature ALL DEPENDS ${ARG_OUTPUT_DIRECTORY}/plugin.toml.sig)
  endif()

  if(NOT ARG_NO_INSTALL)
    set(component)
    if(ARG_COMPONENT)
      set(component COMPONENT ${ARG_COMPONENT})
    endif()
    # install(FILES), not install(TARGETS): the bytes that were built (and signed).
    install(FILES $<TARGET_FILE:${name}> DESTINATION ${ARG_INSTALL_DESTINATION} ${component}
      PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    install(FILES ${ARG_OUTPUT_DIRECTORY}/plugin.toml DESTINATION ${ARG_INSTALL_DESTINATION} ${component})
    install(FILES ${ARG_OUTPUT_DIRECTORY}/plugin.toml.sig DESTINATION ${ARG_INSTALL_DESTINATION} ${component} OPTIONAL)
    if(ARG_INCLUDE_DIR)
      install(DIRECTORY ${ARG_OUTPUT_DIRECTORY}/include/ DESTINATION ${ARG_INSTALL_DESTINATION}/include ${component})
    endif()
  endif()
endfunction()
