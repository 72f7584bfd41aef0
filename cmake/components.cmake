# The build's view of components.toml (the one list of SDK components). Reads only the subset of TOML that file
# uses: `[components.<name>]` tables with `key = "string"`, `key = true` and single-line `key = ["a", "b"]`.
#
#   executorch_read_components()             parse once: EXECUTORCH_COMPONENT_NAMES and _etc_<name>_<key>
#   executorch_add_component(NAME <n> ...)   a component's shared library, installed and exported
#   executorch_component_catalog(<header>)   the runtime's catalog of operator namespaces / backends
#   executorch_config_components(<var>)      the component tables of executorch-config.cmake

function(_executorch_toml_list value out)
  string(REGEX REPLACE "^\\[(.*)\\]$" "\\1" value "${value}")
  string(REGEX REPLACE "[\" ]" "" value "${value}")
  string(REPLACE "," ";" value "${value}")
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

macro(executorch_read_components)
  set(_etc_toml ${PROJECT_SOURCE_DIR}/components.toml)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_etc_toml})
  file(STRINGS ${_etc_toml} _etc_lines)
  set(EXECUTORCH_COMPONENT_NAMES "")
  set(_etc_cur "")
  foreach(_etc_line IN LISTS _etc_lines)
    string(REGEX REPLACE "[ ]*#.*$" "" _etc_line "${_etc_line}")
    if(_etc_line MATCHES "^\\[components\\.([a-z0-9_]+)\\]$")
      set(_etc_cur ${CMAKE_MATCH_1})
      list(APPEND EXECUTORCH_COMPONENT_NAMES ${_etc_cur})
      foreach(_etc_k IN ITEMS library conda wheel optional cmake_target operator_namespaces backends upstream_targets)
        set(_etc_${_etc_cur}_${_etc_k} "")
      endforeach()
    elseif(_etc_line MATCHES "^\\[")
      set(_etc_cur "")
    elseif(_etc_cur AND _etc_line MATCHES
           "^(library|conda|wheel|optional|cmake_target|operator_namespaces|backends|upstream_targets) = (.*)$")
      set(_etc_k ${CMAKE_MATCH_1})
      set(_etc_v "${CMAKE_MATCH_2}")
      if(_etc_v MATCHES "^\\[")
        _executorch_toml_list("${_etc_v}" _etc_${_etc_cur}_${_etc_k})
      else()
        string(REPLACE "\"" "" _etc_${_etc_cur}_${_etc_k} "${_etc_v}")
      endif()
    endif()
  endforeach()
endmacro()

# executorch_add_component(NAME <name> [TARGET <target>] SOURCES <src>... [VERSION_SCRIPT <file>])
# The shared library lib<target>.so.<SOVERSION> of component <name> (a [components.<name>] table of
# components.toml; <target> defaults to executorch_<name>): alias and export name executorch::<name>, the
# SOVERSION, an optional linker version script, and installation into the CMake install component <name> with
# its targets file executorch-<name>-targets.cmake. Compile options, includes and links stay with the caller.
function(executorch_add_component)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TARGET;VERSION_SCRIPT" "SOURCES")
  if(NOT arg_NAME IN_LIST EXECUTORCH_COMPONENT_NAMES)
    message(FATAL_ERROR "component '${arg_NAME}' is not in components.toml: add a [components.${arg_NAME}] table")
  endif()
  if(NOT arg_TARGET)
    set(arg_TARGET executorch_${arg_NAME})
  endif()
  add_library(${arg_TARGET} SHARED ${arg_SOURCES})
  add_library(executorch::${arg_NAME} ALIAS ${arg_TARGET})
  # The library file is lib<target>.so.<major>.<minor> itself (no further version suffix, so a wheel, which cannot
  # hold symlinks, ships exactly one file per library); the unversioned development link lib<target>.so is in
  # the install component "devlinks", left out of wheels.
  set_target_properties(${arg_TARGET} PROPERTIES EXPORT_NAME ${arg_NAME} SOVERSION ${EXECUTORCH_SOVERSION})
  if(arg_VERSION_SCRIPT)
    target_link_options(${arg_TARGET} PRIVATE "LINKER:--version-script=${arg_VERSION_SCRIPT}")
    set_property(TARGET ${arg_TARGET} APPEND PROPERTY LINK_DEPENDS ${arg_VERSION_SCRIPT})
  endif()
  install(TARGETS ${arg_TARGET} EXPORT executorch-${arg_NAME}-targets
    LIBRARY DESTINATION lib NAMELINK_COMPONENT devlinks COMPONENT ${arg_NAME})
  install(EXPORT executorch-${arg_NAME}-targets NAMESPACE executorch:: DESTINATION lib/cmake/executorch
    FILE executorch-${arg_NAME}-targets.cmake COMPONENT ${arg_NAME})
endfunction()

function(executorch_component_catalog header)
  set(_rows "")
  foreach(_n IN LISTS EXECUTORCH_COMPONENT_NAMES)
    if(_etc_${_n}_operator_namespaces OR _etc_${_n}_backends)
      string(REGEX REPLACE "^.*/(lib[a-z0-9_]+)\\.so\\.\\*$" "\\1" _lib "${_etc_${_n}_library}")
      string(REPLACE ";" "," _ns "${_etc_${_n}_operator_namespaces}")
      string(REPLACE ";" "," _be "${_etc_${_n}_backends}")
      string(APPEND _rows "    {\"${_n}\", \"${_lib}.so.${EXECUTORCH_SOVERSION}\", \"${_etc_${_n}_conda}\", "
                          "\"${_ns}\", \"${_be}\"},\n")
    endif()
  endforeach()
  file(CONFIGURE OUTPUT ${header} CONTENT [=[
#pragma once
// Generated from components.toml by cmake/components.cmake. The SDK's components that provide operators or
// backends: the runtime searches these first and names the package when a library is absent. What an installed
// component provides is what its own descriptor declares, never this table.
namespace executorch {
namespace runtime {
namespace {
struct CatalogEntry {
  const char* name;
  const char* library;
  const char* package;
  const char* operator_namespaces;  // comma-separated
  const char* backends;             // comma-separated
};
const CatalogEntry kCatalog[] = {
@_rows@};
}  // namespace
}  // namespace runtime
}  // namespace executorch
]=] @ONLY)
endfunction()

# The CMake code of executorch-config.cmake that lists the components with CMake targets, their conda packages,
# the names upstream ExecuTorch's packages give them and, for optional ones, their own wheels.
function(executorch_config_components out)
  set(_names "")
  set(_text "")
  foreach(_n IN LISTS EXECUTORCH_COMPONENT_NAMES)
    if(NOT _etc_${_n}_cmake_target)
      continue()
    endif()
    list(APPEND _names ${_n})
    string(APPEND _text "set(_executorch_package_of_${_n} \"${_etc_${_n}_conda}\")\n")
    if(_etc_${_n}_upstream_targets)
      string(APPEND _text "set(_executorch_upstream_targets_of_${_n} ${_etc_${_n}_upstream_targets})\n")
    endif()
    if(_etc_${_n}_optional STREQUAL "true")
      string(APPEND _text "set(_executorch_wheel_of_${_n} \"${_etc_${_n}_wheel}\")\n")
    endif()
  endforeach()
  list(JOIN _names " " _names)
  set(${out} "set(_executorch_all_components ${_names})\n${_text}" PARENT_SCOPE)
endfunction()
