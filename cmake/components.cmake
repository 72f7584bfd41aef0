# Reads components.toml (the one list of SDK components) for the build. Only the subset of TOML that file uses:
# `[components.<name>]` tables with `key = "string"` and single-line `key = ["a", "b"]` entries.
#
# executorch_component_catalog(<header>) writes the runtime's catalog: for each component declaring
# operator_namespaces or backends, its name, library file, package and those lists.
function(_executorch_toml_list value out)
  string(REGEX REPLACE "^\\[(.*)\\]$" "\\1" value "${value}")
  string(REGEX REPLACE "[\" ]" "" value "${value}")
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

function(executorch_component_catalog header)
  set(_toml ${PROJECT_SOURCE_DIR}/components.toml)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_toml})
  file(STRINGS ${_toml} _lines)
  set(_names "")
  set(_cur "")
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "[ ]*#.*$" "" _line "${_line}")
    if(_line MATCHES "^\\[components\\.([a-z0-9_]+)\\]$")
      set(_cur ${CMAKE_MATCH_1})
      list(APPEND _names ${_cur})
      set(_ns_${_cur} "")
      set(_be_${_cur} "")
    elseif(_line MATCHES "^\\[")
      set(_cur "")
    elseif(_cur AND _line MATCHES "^(library|conda|operator_namespaces|backends) = (.*)$")
      set(_key ${CMAKE_MATCH_1})
      set(_val "${CMAKE_MATCH_2}")
      if(_key STREQUAL "library")
        string(REGEX REPLACE "^\".*/(lib[a-z0-9_]+)\\.so\\.\\*\"$" "\\1" _lib_${_cur} "${_val}")
      elseif(_key STREQUAL "conda")
        string(REGEX REPLACE "\"" "" _pkg_${_cur} "${_val}")
      elseif(_key STREQUAL "operator_namespaces")
        _executorch_toml_list("${_val}" _ns_${_cur})
      else()
        _executorch_toml_list("${_val}" _be_${_cur})
      endif()
    endif()
  endforeach()
  set(_rows "")
  foreach(_n IN LISTS _names)
    if(_ns_${_n} OR _be_${_n})
      string(APPEND _rows "    {\"${_n}\", \"${_lib_${_n}}.so.${EXECUTORCH_SOVERSION}\", \"${_pkg_${_n}}\", "
                          "\"${_ns_${_n}}\", \"${_be_${_n}}\"},\n")
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
