# GPU tests at d4f8952a and `tune` with one planning per candidate for its score and resident warps (forty-first
# session). Run from the repository root on the GPU machine, carry [".carry/gpu/bins-d4f8952a.tar.xz", ".carry/public"].
mkdir -p .carry/gpu/n && tar -C .carry/gpu/n -xJf .carry/gpu/bins-d4f8952a.tar.xz && B=$PWD/.carry/gpu/n/bin
mkdir -p build/cli && cp $B/blocktune $B/blocktune-worker build/cli/; mkdir -p /work && { [ -e /work/main ] || ln -s "$PWD" /work/main; }
R=$PWD/examples/specs/reduction/spec.json; T=$PWD/examples/specs/transpose/spec.json; H=$PWD/bench/anchors/specs/hotspot/spec.json
W=/tmp/res; rm -rf $W; mkdir -p $W; cd $W && nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > device.txt; nproc >> device.txt
s=$(date +%s); $B/test_gpu --durations yes > test_gpu.log 2>&1; echo "test_gpu exit $? $(( $(date +%s) - s )) s" >> status.txt
s=$(date +%s); $B/test_launcher_gpu > test_launcher_gpu.log 2>&1; echo "test_launcher_gpu exit $? $(( $(date +%s) - s )) s" >> status.txt
# Spaces searched whole (190 and 136 configurations): 30 trials with the model.
for k in "sum_of_squares $R 67108864" "transpose $T 4096x4096"; do set -- $k; s=$(date +%s)
  $B/blocktune tune --spec $2 --problem $3 --max-evaluations 30 --db $W/model.db --trace $W/$1.trace > $W/tune-$1.log 2>&1
  echo "tune $1 exit $? $(( $(date +%s) - s )) s" >> status.txt; done
# A space sampled, not searched whole (hotspot, 349,853 configurations; its spec counts no work): 90 s with the model.
s=$(date +%s); $B/blocktune tune --spec $H --problem 4096x4096 --max-seconds 90 --db $W/hotspot.db --trace $W/hotspot.trace > $W/tune-hotspot.log 2>&1
echo "tune hotspot exit $? $(( $(date +%s) - s )) s" >> status.txt
$B/blocktune replay export-space --db $W/model.db --output-dir $W/spaces > export.log 2>&1; echo "export exit $?" >> status.txt
$B/blocktune replay export-space --db $W/hotspot.db --output-dir $W/spaces >> export.log 2>&1; echo "export hotspot exit $?" >> status.txt
cd /tmp && tar -czf $OUT/res.tar.gz res && cat res/status.txt
