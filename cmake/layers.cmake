# The layering of docs/architecture.md, checked when configuring: a library
# that links a layer above its own (directly; each layer is checked, so the
# rule holds transitively) fails the configure, naming both.
function(blocktune_forbid_links target)
  get_target_property(links ${target} LINK_LIBRARIES)
  set(names)
  foreach(link IN LISTS links)
    string(REGEX REPLACE "^\\$<(BUILD_INTERFACE|INSTALL_INTERFACE|LINK_ONLY):(.*)>$" "\\2" link "${link}")
    list(APPEND names "${link}")
  endforeach()
  foreach(forbidden IN LISTS ARGN)
    if(forbidden IN_LIST names)
      message(FATAL_ERROR "${target} links ${forbidden}, which its layer may not use (docs/architecture.md)")
    endif()
  endforeach()
endfunction()

set(blocktune_tools blocktune_kernels blocktune_report blocktune_replay blocktune_bench)
set(blocktune_above_foundations blocktune_description blocktune_cuda blocktune_launch blocktune_tuner
    ${blocktune_tools} blocktune_cli)
# The bottom: the run-time query and the configuration text, which search reads too.
blocktune_forbid_links(blocktune_runtime blocktune_db blocktune_search blocktune_model ${blocktune_above_foundations})
blocktune_forbid_links(blocktune_search blocktune_db blocktune_model ${blocktune_above_foundations})
blocktune_forbid_links(blocktune_model blocktune_db blocktune_search ${blocktune_above_foundations})
blocktune_forbid_links(blocktune_db ${blocktune_above_foundations})
# The description layer is CUDA-free: no CUDA headers, no NVRTC, no read-write store.
blocktune_forbid_links(blocktune_description blocktune_cuda blocktune_launch blocktune_tuner blocktune_db
  CUDA::toolkit CUDA::nvrtc CUDA::cudart CUDA::cudart_static CUDA::cuda_driver)
blocktune_forbid_links(blocktune_cuda blocktune_launch blocktune_tuner blocktune_db)
# The launch API and the tuner stand side by side.
blocktune_forbid_links(blocktune_launch blocktune_tuner blocktune_db)
blocktune_forbid_links(blocktune_tuner blocktune_launch)
# The tools (kernels, report, replay, bench) stand on the tuner: no layer below
# links them, and they link nothing of cli/.
foreach(library blocktune_description blocktune_cuda blocktune_launch blocktune_tuner)
  blocktune_forbid_links(${library} ${blocktune_tools})
endforeach()
foreach(library ${blocktune_tools})
  blocktune_forbid_links(${library} blocktune_cli blocktune_db_cli blocktune_report_cli blocktune_replay_cli)
endforeach()
# The command line lives in cli/ only: no library below it uses CLI11.
foreach(library blocktune_runtime blocktune_db blocktune_search blocktune_model blocktune_description blocktune_cuda
                blocktune_launch blocktune_tuner ${blocktune_tools})
  blocktune_forbid_links(${library} CLI11::CLI11)
endforeach()
