# `weft plugin check` on two plugins of one name (a copy of wt_color beside
# the original): each line names its path, and the summary line counts the
# combined failure that makes the exit status 1.
# -DWEFT=<weft> -DPLUGIN=<built wt_color dir> -DWORK=<scratch dir>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(COPY ${PLUGIN} DESTINATION ${WORK})
get_filename_component(name ${PLUGIN} NAME)
set(COPY ${WORK}/${name})
execute_process(COMMAND ${WEFT} plugin check ${PLUGIN} ${COPY}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "stdout:\n${out}\nstderr:\n${err}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "expected exit status 1, got ${rc}")
endif()
foreach(path ${PLUGIN} ${COPY})
  string(FIND "${out}" "ok      wt_color (${path}) 1.2.0\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no line 'ok      wt_color (${path}) 1.2.0'")
  endif()
endforeach()
if(NOT out MATCHES "FAILED \\(together\\)  plugin 'wt_color': given twice")
  message(FATAL_ERROR "the combined failure is not reported")
endif()
if(NOT out MATCHES "\n2 plugins: 2 ok, 0 failed, 0 conflicts, 1 failed when loaded together\n")
  message(FATAL_ERROR "the summary line does not count the combined failure")
endif()
file(REMOVE_RECURSE ${WORK})
