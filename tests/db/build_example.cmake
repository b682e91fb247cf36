# Installs blocktune's package (the components in COMPONENTS, default runtime)
# into a scratch prefix, then configures and builds an example application
# (examples/runtime_query, examples/launch) against it, as an application
# would. With RUN=program, runs the built program too: it must exit 0, or 77
# (no GPU here).
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DLIBDIR=lib [-DCOMPONENTS=runtime,launch]
#         [-DCUDA_COMPILER=...] [-DRUN=transpose_app] -P build_example.cmake
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
if(NOT DEFINED COMPONENTS)
  set(COMPONENTS runtime)
endif()
string(REPLACE "," ";" COMPONENTS "${COMPONENTS}")
foreach(component IN LISTS COMPONENTS)
  step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component ${component})
endforeach()

set(cuda_compiler)
if(CUDA_COMPILER)
  set(cuda_compiler -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
endif()
if(CUDAToolkit_ROOT)
  list(APPEND cuda_compiler -DCUDAToolkit_ROOT=${CUDAToolkit_ROOT})
endif()
step(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_BUILD_TYPE=Release
     -Dblocktune_DIR=${prefix}/${LIBDIR}/cmake/blocktune ${cuda_compiler})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
message(STATUS "build_example.cmake: built ${SOURCE_DIR} in ${WORK_DIR}/build against ${prefix}")
if(RUN)
  execute_process(COMMAND ${WORK_DIR}/build/${RUN} RESULT_VARIABLE result)
  if(NOT (result EQUAL 0 OR result EQUAL 77))
    message(FATAL_ERROR "build_example.cmake: ${RUN} exited ${result}, not 0 or 77")
  endif()
  message(STATUS "build_example.cmake: ${RUN} exited ${result}")
endif()
