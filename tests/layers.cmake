# What include paths alone cannot say. The sim's private headers (server/sim/src/) are on no
# other library's include path, and the sim's on none of the layers above it, so most of the
# layering is enforced by the compiler; this fails, naming the file and the line, where a path
# could still slip through:
#   server/sim/include/herd/sim/  includes only its own siblings: the installed face is whole;
#   server/sim/                   no "../" include that climbs out to a layer above;
#   every layer but the sim's own tests and benchmarks: no "sim/src/" path into the private rest;
#   the sessions (net/*_session.*) the hub only through net/session_hub.hpp: never the hub, its
#                world sources or the server's wiring (a session never asks which source it has).
# Run as: cmake -DHERD_SOURCE_DIR=... -P tests/layers.cmake
set(failures "")
function(check_dir dir pattern why)
  file(GLOB_RECURSE files "${HERD_SOURCE_DIR}/${dir}/*.hpp" "${HERD_SOURCE_DIR}/${dir}/*.cpp")
  foreach(f IN LISTS files)
    file(STRINGS "${f}" lines REGEX "^#include \"")
    foreach(line IN LISTS lines)
      if(line MATCHES "${pattern}")
        file(RELATIVE_PATH rel "${HERD_SOURCE_DIR}" "${f}")
        list(APPEND failures "${rel}: ${line} (${why})")
      endif()
    endforeach()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

check_dir(server/sim "^#include \"\\.\\./" "the sim climbs out to no other layer")
foreach(dir IN ITEMS protocol server/net server/app server/publish server/scenarios server/exec clients)
  check_dir(${dir} "^#include \"([^\"]*/)?sim/src/" "the sim's private headers are for the sim, its tests and its benchmarks")
endforeach()
file(GLOB public_headers "${HERD_SOURCE_DIR}/server/sim/include/herd/sim/*.hpp")
foreach(f IN LISTS public_headers)
  file(STRINGS "${f}" lines REGEX "^#include \"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include \"([^\"]*)\".*" "\\1" name "${line}")
    if(NOT EXISTS "${HERD_SOURCE_DIR}/server/sim/include/herd/sim/${name}")
      file(RELATIVE_PATH rel "${HERD_SOURCE_DIR}" "${f}")
      list(APPEND failures "${rel}: ${line} (a public header includes only public headers, by their own name)")
    endif()
  endforeach()
endforeach()
file(GLOB session_files "${HERD_SOURCE_DIR}/server/net/*_session.hpp" "${HERD_SOURCE_DIR}/server/net/*_session.cpp")
foreach(f IN LISTS session_files)
  file(STRINGS "${f}" lines REGEX "^#include \"net/(hub|world_source|local_world|relay_world|server_impl)\\.hpp\"")
  foreach(line IN LISTS lines)
    file(RELATIVE_PATH rel "${HERD_SOURCE_DIR}" "${f}")
    list(APPEND failures "${rel}: ${line} (sessions reach the hub through SessionHub)")
  endforeach()
endforeach()

if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "layers: includes against the layering:\n  ${text}")
endif()
message(STATUS "layers: the sim's public headers are whole; its private ones and the hub stay where they belong")
