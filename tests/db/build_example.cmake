# Installs blocktune's runtime package into a scratch prefix, then configures
# and builds examples/runtime_query against it, as an application would.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DLIBDIR=lib [-DCUDA_COMPILER=...] -P build_example.cmake
foreach(variable BUILD_DIR SOURCE_DIR WORK_DIR LIBDIR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "build_example.cmake: -D${variable}=... is required")
  endif()
endforeach()

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "build_example.cmake: failed (${result}): ${command}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component runtime)

set(cuda_compiler)
if(CUDA_COMPILER)
  set(cuda_compiler -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
endif()
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
     -Dblocktune_DIR=${prefix}/${LIBDIR}/cmake/blocktune ${cuda_compiler})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
message(STATUS "build_example.cmake: built ${WORK_DIR}/build/stencil_app against ${prefix}")
