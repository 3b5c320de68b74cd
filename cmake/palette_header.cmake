# Writes herd-view's palette header from the viewers' one palette, clients/web/palette.json:
#   cmake -DPALETTE=clients/web/palette.json -DOUT=build/generated/native/palette.hpp -P palette_header.cmake
# Each member becomes a constant in herd::view::colour, its name in camelCase made kPascalCase: a
# "#rrggbb" string an Rgb, an array of them an Rgb array. kAll lists them by their JSON names,
# so a test can hold the compiled palette against the file. Anything else in the file is an error
# here, so a palette herd-view cannot draw fails the build rather than the picture.
cmake_minimum_required(VERSION 3.25)

if(NOT PALETTE OR NOT OUT)
  message(FATAL_ERROR "palette_header.cmake: -DPALETTE=<palette.json> -DOUT=<header> are needed")
endif()
file(READ "${PALETTE}" json)

# "#rrggbb" -> "{0xrr, 0xgg, 0xbb}"
function(rgb_initialiser hex where out)
  if(NOT hex MATCHES "^#([0-9a-fA-F][0-9a-fA-F])([0-9a-fA-F][0-9a-fA-F])([0-9a-fA-F][0-9a-fA-F])$")
    message(FATAL_ERROR "${PALETTE}: ${where} is \"${hex}\", not a colour #rrggbb")
  endif()
  string(TOLOWER "{0x${CMAKE_MATCH_1}, 0x${CMAKE_MATCH_2}, 0x${CMAKE_MATCH_3}}" value)
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

string(JSON members LENGTH "${json}")
if(members EQUAL 0)
  message(FATAL_ERROR "${PALETTE}: no colours")
endif()
set(constants "")
set(table "")
math(EXPR last "${members} - 1")
foreach(i RANGE ${last})
  string(JSON key MEMBER "${json}" ${i})
  if(NOT key MATCHES "^[a-z][A-Za-z0-9]*$")
    message(FATAL_ERROR "${PALETTE}: the name \"${key}\" is not camelCase")
  endif()
  string(SUBSTRING "${key}" 0 1 first)
  string(SUBSTRING "${key}" 1 -1 rest)
  string(TOUPPER "${first}" first)
  set(name "k${first}${rest}")
  string(JSON type TYPE "${json}" "${key}")
  if(type STREQUAL "STRING")
    string(JSON hex GET "${json}" "${key}")
    rgb_initialiser("${hex}" "${key}" value)
    string(APPEND constants "inline constexpr Rgb ${name}${value};\n")
    string(APPEND table "    Named{\"${key}\", &${name}, 1},\n")
  elseif(type STREQUAL "ARRAY")
    string(JSON count LENGTH "${json}" "${key}")
    if(count EQUAL 0)
      message(FATAL_ERROR "${PALETTE}: ${key} is empty")
    endif()
    set(values "")
    math(EXPR end "${count} - 1")
    foreach(j RANGE ${end})
      string(JSON hex GET "${json}" "${key}" ${j})
      rgb_initialiser("${hex}" "${key}[${j}]" value)
      list(APPEND values "${value}")
    endforeach()
    list(JOIN values ", " values)
    string(APPEND constants "inline constexpr Rgb ${name}[${count}] = {${values}};\n")
    string(APPEND table "    Named{\"${key}\", ${name}, ${count}},\n")
  else()
    message(FATAL_ERROR "${PALETTE}: ${key} is a ${type}, not a colour or a list of colours")
  endif()
endforeach()

set(header "// Generated from ${PALETTE} by cmake/palette_header.cmake: edit the JSON, not this.
#pragma once

#include <cstddef>
#include <string_view>

#include \"native/rgb.hpp\"

namespace herd::view::colour {

${constants}
// Every constant above under its name in the palette file.
struct Named {
  std::string_view name;
  const Rgb* colours;
  std::size_t count;
};
inline constexpr Named kAll[] = {
${table}};

}  // namespace herd::view::colour
")

file(WRITE "${OUT}" "${header}")
