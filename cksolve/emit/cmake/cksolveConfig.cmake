# cksolve's CMake package: generate CK Tile grouped-convolution kernel instances at
# configure time and compile them as an OBJECT library.
#
#   cmake -Dcksolve_DIR="$(cksolve cmake-dir)" ...      (or put that directory in CMAKE_PREFIX_PATH)
#   find_package(cksolve CONFIG REQUIRED)
#   cksolve_add_conv_instances(<target> RULE_SET <name|file> | NAMES_FILE <file>
#                              ARCHS <gfx... or target IDs such as gfx942:xnack->...
#                              [VARIANTS ...] [DTYPES ...] [NDIMS ...]
#                              [BUILDER_CONFIGS <dir>] [OUTPUT_DIR <dir>] [CK <ref>]
#                              [UNITY_BATCH <n>] [ALLOW_EMPTY])
#
# See docs/cmake.md.
include_guard(GLOBAL)
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...4.4)

# The cksolve to run is the one of the Python environment this package belongs to:
# <prefix>/lib/pythonX.Y/site-packages/cksolve/emit/cmake -> <prefix>/bin (POSIX),
# <prefix>/Lib/site-packages/cksolve/emit/cmake -> <prefix>/Scripts (Windows).
# An editable install has no such prefix: then the cksolve on PATH, if it is this one.
# Either way the choice is checked: `cksolve cmake-dir` must name this directory.
if(NOT cksolve_EXECUTABLE)
  get_filename_component(_cksolve_prefix "${CMAKE_CURRENT_LIST_DIR}/../../../../../.." ABSOLUTE)
  get_filename_component(_cksolve_wprefix "${CMAKE_CURRENT_LIST_DIR}/../../../../.." ABSOLUTE)
  find_program(cksolve_EXECUTABLE NAMES cksolve
               HINTS "${_cksolve_prefix}/bin" "${_cksolve_wprefix}/Scripts" NO_DEFAULT_PATH)
  if(NOT cksolve_EXECUTABLE)
    find_program(cksolve_EXECUTABLE NAMES cksolve)
  endif()
  unset(_cksolve_prefix)
  unset(_cksolve_wprefix)
endif()

if(NOT _cksolve_checked STREQUAL "${cksolve_EXECUTABLE}")
  set(_cksolve_dir "")
  if(cksolve_EXECUTABLE)
    execute_process(COMMAND "${cksolve_EXECUTABLE}" cmake-dir OUTPUT_VARIABLE _cksolve_dir
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _cksolve_rc)
    if(_cksolve_rc EQUAL 0)
      file(REAL_PATH "${_cksolve_dir}" _cksolve_dir)
    endif()
  endif()
  file(REAL_PATH "${CMAKE_CURRENT_LIST_DIR}" _cksolve_here)
  if(NOT _cksolve_dir STREQUAL _cksolve_here)
    set(cksolve_FOUND FALSE)
    set(cksolve_NOT_FOUND_MESSAGE
        "no cksolve executable of this installation (${_cksolve_here}) was found (tried '${cksolve_EXECUTABLE}'); "
        "set cksolve_EXECUTABLE to the cksolve whose `cksolve cmake-dir` prints that directory")
    unset(cksolve_EXECUTABLE CACHE)
    cmake_policy(POP)
    return()
  endif()
  set(_cksolve_checked "${cksolve_EXECUTABLE}" CACHE INTERNAL "cksolve executable checked against its package")
endif()

set(CKSOLVE_CK "" CACHE STRING
    "CK version cksolve_add_conv_instances answers at, unless its CK argument names one: a commit prefix or an alias (2026-06, develop); empty: cksolve's default, the newest bundled")

set(CKSOLVE_SKIP_COMPILER_CHECK OFF CACHE BOOL
    "Skip cksolve's configure-time check that the C++ compiler accepts --offload-arch")

# The kernels are compiled by the C++ compiler with --offload-arch=<arch>: a compiler that
# refuses it (g++, say) would fail every kernel, so one probe per compiler and arch says so at
# configure time. The verdict is cached; CKSOLVE_SKIP_COMPILER_CHECK skips the probe.
function(_cksolve_check_compiler where)
  if(CKSOLVE_SKIP_COMPILER_CHECK)
    return()
  endif()
  set(_dir "${CMAKE_BINARY_DIR}/CMakeFiles/cksolve")
  set(_probe "${_dir}/cksolve_offload_arch_probe.cpp")
  file(CONFIGURE OUTPUT "${_probe}" CONTENT "// cksolve: does the C++ compiler accept --offload-arch?\nint cksolve_probe() { return 0; }\n")
  separate_arguments(_flags NATIVE_COMMAND "${CMAKE_CXX_FLAGS}")
  foreach(_arch IN LISTS ARGN)
    string(MAKE_C_IDENTIFIER "${CMAKE_CXX_COMPILER}_${_arch}" _key)
    if(_cksolve_offload_ok_${_key})
      continue()
    endif()
    execute_process(COMMAND "${CMAKE_CXX_COMPILER}" ${_flags} "--offload-arch=${_arch}" -c "${_probe}"
                            -o "${_dir}/cksolve_offload_arch_probe.o"
                    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      string(REGEX REPLACE "\n.*" "" _err "${_err}${_out}")
      message(FATAL_ERROR "${where}: the C++ compiler ${CMAKE_CXX_COMPILER} (${CMAKE_CXX_COMPILER_ID} "
              "${CMAKE_CXX_COMPILER_VERSION}) does not accept --offload-arch=${_arch}: ${_err}\n"
              "Use HIP's clang (hipcc or amdclang++ of ROCm) as CMAKE_CXX_COMPILER, or "
              "-DCKSOLVE_SKIP_COMPILER_CHECK=ON to skip this check.")
    endif()
    set(_cksolve_offload_ok_${_key} TRUE CACHE INTERNAL "${CMAKE_CXX_COMPILER} accepts --offload-arch=${_arch}")
  endforeach()
endfunction()

function(cksolve_add_conv_instances target)
  cmake_parse_arguments(PARSE_ARGV 1 _ck "ALLOW_EMPTY" "RULE_SET;NAMES_FILE;BUILDER_CONFIGS;OUTPUT_DIR;UNITY_BATCH;CK"
                        "ARCHS;VARIANTS;DTYPES;NDIMS")
  set(_where "cksolve_add_conv_instances(${target})")
  if(_ck_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${_where}: unknown arguments: ${_ck_UNPARSED_ARGUMENTS}")
  endif()
  if((DEFINED _ck_RULE_SET AND DEFINED _ck_NAMES_FILE) OR NOT (DEFINED _ck_RULE_SET OR DEFINED _ck_NAMES_FILE))
    message(FATAL_ERROR "${_where}: give exactly one of RULE_SET or NAMES_FILE")
  endif()
  if(NOT _ck_ARCHS)
    message(FATAL_ERROR "${_where}: ARCHS is required (one output tree per arch)")
  endif()
  if(NOT _ck_OUTPUT_DIR)
    set(_ck_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  endif()
  cmake_path(ABSOLUTE_PATH _ck_OUTPUT_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  _cksolve_check_compiler("${_where}" ${_ck_ARCHS})

  # the target owns OUTPUT_DIR: a changed rule set or names file replaces what the last one wrote
  set(_cmd "${cksolve_EXECUTABLE}" emit --out "${_ck_OUTPUT_DIR}" --arch-dirs --replace)
  if(DEFINED _ck_UNITY_BATCH)
    list(APPEND _cmd --unity-batch "${_ck_UNITY_BATCH}")
  endif()
  if(DEFINED _ck_RULE_SET)
    # a rule-set file is relative to the calling CMakeLists.txt; anything else is a rule set's name
    set(_rs "${_ck_RULE_SET}")
    cmake_path(ABSOLUTE_PATH _rs BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    if(EXISTS "${_rs}" AND NOT IS_DIRECTORY "${_rs}")
      list(APPEND _cmd --rule-set "${_rs}")
    else()
      list(APPEND _cmd --rule-set "${_ck_RULE_SET}")
    endif()
  else()
    set(_names "${_ck_NAMES_FILE}")
    cmake_path(ABSOLUTE_PATH _names BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    list(APPEND _cmd --names "${_names}")
  endif()
  foreach(_opt IN ITEMS ARCHS:--arch VARIANTS:--variant DTYPES:--dtype NDIMS:--ndim)
    string(REPLACE ":" ";" _opt "${_opt}")
    list(GET _opt 0 _key)
    list(GET _opt 1 _flag)
    foreach(_value IN LISTS _ck_${_key})
      list(APPEND _cmd "${_flag}" "${_value}")
    endforeach()
  endforeach()
  if(DEFINED _ck_BUILDER_CONFIGS)
    set(_bc "${_ck_BUILDER_CONFIGS}")
    cmake_path(ABSOLUTE_PATH _bc BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    list(APPEND _cmd --builder-configs "${_bc}")
  endif()
  # the CK version: the call's CK argument, else the CKSOLVE_CK cache variable, else cksolve's default
  if(DEFINED _ck_CK)
    list(APPEND _cmd --ck "${_ck_CK}")
  elseif(NOT CKSOLVE_CK STREQUAL "")
    list(APPEND _cmd --ck "${CKSOLVE_CK}")
  endif()
  set(_list "${CMAKE_CURRENT_BINARY_DIR}/${target}.cksolve.cmake")
  list(APPEND _cmd --cmake-list "${_list}")

  # configure time, as CK does -- but unchanged files keep their mtime, so nothing recompiles
  execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${_where}: ${_err}")
  endif()
  if(_err)
    message(WARNING "${_where}: ${_err}")
  endif()
  message(STATUS "${_where}: ${_out}")

  include("${_list}")
  set(_sources "")
  set(_kernels "")
  foreach(_arch IN LISTS CKSOLVE_ARCHS)
    if(CKSOLVE_SOURCES_${_arch})
      set_source_files_properties(${CKSOLVE_SOURCES_${_arch}} PROPERTIES
                                  COMPILE_OPTIONS "--offload-arch=${_arch}"
                                  INCLUDE_DIRECTORIES "${CKSOLVE_TREE_${_arch}}")
    endif()
    list(APPEND _sources ${CKSOLVE_SOURCES_${_arch}})
    foreach(_k IN LISTS CKSOLVE_KERNELS_${_arch})
      list(APPEND _kernels "${_arch}:${_k}")
    endforeach()
  endforeach()
  if(NOT _sources)
    if(NOT _ck_ALLOW_EMPTY)
      message(FATAL_ERROR "${_where}: the selection has no kernel for ${_ck_ARCHS} "
              "(give ALLOW_EMPTY to accept an empty selection)")
    endif()
    message(STATUS "${_where}: the selection has no kernel for ${_ck_ARCHS}; ${target} is empty (ALLOW_EMPTY)")
    # an OBJECT library needs a source: one that defines nothing (rewritten only if its text changes)
    set(_sources "${CMAKE_CURRENT_BINARY_DIR}/${target}.cksolve-empty.cpp")
    file(CONFIGURE OUTPUT "${_sources}" CONTENT "// cksolve: ${target} selects no kernel (ALLOW_EMPTY).\n")
  endif()
  add_library(${target} OBJECT ${_sources})
  # consumers include "<arch>/dispatcher_wrappers/register_all_grouped_conv_kernels.hpp" etc.
  target_include_directories(${target} INTERFACE "${_ck_OUTPUT_DIR}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CKSOLVE_DEPENDS} "${cksolve_EXECUTABLE}")
  set(${target}_KERNELS "${_kernels}" PARENT_SCOPE)
endfunction()

cmake_policy(POP)
