# The final binaries (12838f9: face tiles, per-step explain, the exploitation change) on an H100, one call;
# .carry/bin: stripped blocktune, blocktune-worker, test_gpu built here.
export BLOCKTUNE_CLI=$(realpath .carry/bin/blocktune) BLOCKTUNE_WORKER=$(realpath .carry/bin/blocktune-worker)
.carry/bin/test_gpu --durations yes > $OUT/fc/gpu-tests.log 2>&1
.carry/bin/blocktune tune stencil3d_r2 -p 512x512x512 --time-steps 100 --max-seconds 60 --db /tmp/fc.db > $OUT/fc/tune-60s.log 2> $OUT/fc/tune-60s.err
.carry/bin/blocktune best stencil3d_r2 -p 512x512x512 --time-steps 100 --db /tmp/fc.db >> $OUT/fc/tune-60s.log 2>&1
