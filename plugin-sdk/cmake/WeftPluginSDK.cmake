# weft_add_plugin(<name> SOURCES <src>... MANIFEST <plugin.toml>
#                 [OUTPUT_DIRECTORY <dir>] [OUTPUT_NAME <base>])
#
# Builds lib<base>.so (<base> defaults to <name>) exporting only the two weft entry points and puts the
# manifest beside it as plugin.toml, in <dir> (default: <binary dir>/<name>).
# The manifest is configured with @ONLY: @WEFT_PLUGIN_LIBRARY@ expands to the
# library's file name.
include_guard(GLOBAL)

set(_WEFT_SDK_DIR ${CMAKE_CURRENT_LIST_DIR})

function(weft_add_plugin name)
  cmake_parse_arguments(ARG "" "MANIFEST;OUTPUT_DIRECTORY;OUTPUT_NAME" "SOURCES" ${ARGN})
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
endfunction()
