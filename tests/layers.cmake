# The include graph points one way: net/app -> publish -> protocol -> sim/api <- sim. Fails,
# naming the file and the line, when a layer includes one it must not:
#   protocol/       only the sim's vocabulary (sim/api/), none of its machinery;
#   server/sim/     nothing of the wire or the server (protocol/, net/, app/, publish/);
#   server/sim/api/ only itself and sim/vec2.hpp;
#   the sessions   (net/*_session.*) the hub only through net/session_hub.hpp: never the hub, its
#                  world sources or the server's wiring (a session never asks which source it has).
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

check_dir(protocol "^#include \"sim/([^a]|a[^p]|ap[^i]|api[^/])" "protocol sees only sim/api/")
check_dir(server/sim "^#include \"(protocol|net|app|publish|scenarios|exec)/" "the sim knows nothing of the layers above it")
file(GLOB session_files "${HERD_SOURCE_DIR}/server/net/*_session.hpp" "${HERD_SOURCE_DIR}/server/net/*_session.cpp")
foreach(f IN LISTS session_files)
  file(STRINGS "${f}" lines REGEX "^#include \"net/(hub|world_source|local_world|relay_upstream|server_impl)\\.hpp\"")
  foreach(line IN LISTS lines)
    file(RELATIVE_PATH rel "${HERD_SOURCE_DIR}" "${f}")
    list(APPEND failures "${rel}: ${line} (sessions reach the hub through SessionHub)")
  endforeach()
endforeach()
check_dir(server/sim/api "^#include \"([^.t]|t[^y]|\\.\\./[^v])" "sim/api/ includes only itself and ../vec2.hpp")

if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "layers: includes against the layering:\n  ${text}")
endif()
message(STATUS "layers: protocol -> sim/api only; sim includes no upper layer")
