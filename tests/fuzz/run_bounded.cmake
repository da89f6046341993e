cmake_minimum_required(VERSION 3.20)
# A bounded libFuzzer run seeded with every kernel in the test suite.
file(MAKE_DIRECTORY ${WORK})
file(GLOB_RECURSE seeds ${SEEDS}/*.py)
foreach(seed ${seeds})
  get_filename_component(name ${seed} NAME)
  configure_file(${seed} ${WORK}/seed_${name} COPYONLY)
endforeach()
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048 -max_len=8192
  -print_final_stats=1 ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the front-end fuzzer found a problem (exit ${rc}); the crashing input is in the current directory")
endif()
