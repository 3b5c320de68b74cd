# scripts/run's preset builds and serves herd without any test or benchmark tool: configured into a
# scratch tree with GoogleTest and Google Benchmark made unfindable, it must succeed and look for
# neither Node nor docker-compose. Run as: cmake -DHERD_SOURCE_DIR=... -DHERD_SCRATCH=... -P tests/run_preset.cmake
file(REMOVE_RECURSE "${HERD_SCRATCH}")
execute_process(
  COMMAND ${CMAKE_COMMAND} --preset release -B "${HERD_SCRATCH}" -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
          -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
  WORKING_DIRECTORY "${HERD_SOURCE_DIR}" RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the release preset needs a test tool to configure:\n${out}\n${err}")
endif()
file(STRINGS "${HERD_SCRATCH}/CMakeCache.txt" cache)
foreach(line IN LISTS cache)
  if(line MATCHES "^(HERD_NODE|HERD_DOCKER_COMPOSE|GTest_DIR|benchmark_DIR|HERD_BUILD_TESTS:BOOL=ON|HERD_BUILD_BENCH:BOOL=ON)")
    list(APPEND found "${line}")
  endif()
endforeach()
file(REMOVE_RECURSE "${HERD_SCRATCH}")
if(found)
  list(JOIN found "\n  " text)
  message(FATAL_ERROR "the release preset looks for test tools:\n  ${text}")
endif()
message(STATUS "run preset: configures with no test or benchmark tool")
