mkdir -p .carry/gpu/n && tar -C .carry/gpu/n -xJf .carry/gpu/bins-553aea6c.tar.xz && B=$PWD/.carry/gpu/n/bin
mkdir -p build/cli && cp $B/blocktune $B/blocktune-worker build/cli/; mkdir -p /work && { [ -e /work/main ] || ln -s "$PWD" /work/main; }
R=$PWD/examples/specs/reduction/spec.json; T=$PWD/examples/specs/transpose/spec.json
W=/tmp/res; rm -rf $W; mkdir -p $W; cd $W && nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > device.txt; nproc >> device.txt
s=$(date +%s); $B/test_gpu --durations yes > test_gpu.log 2>&1; echo "test_gpu exit $? $(( $(date +%s) - s )) s" >> status.txt
s=$(date +%s); $B/test_launcher_gpu > test_launcher_gpu.log 2>&1; echo "test_launcher_gpu exit $? $(( $(date +%s) - s )) s" >> status.txt
for k in "sum_of_squares $R 67108864" "transpose $T 4096x4096"; do set -- $k
  for m in model no-model; do F=; [ $m = no-model ] && F=--no-model; s=$(date +%s)
    $B/blocktune tune --spec $2 --problem $3 --max-evaluations 30 $F --db $W/$m.db --trace $W/$1-$m.trace > $W/tune-$1-$m.log 2>&1
    echo "tune $1 $m exit $? $(( $(date +%s) - s )) s" >> status.txt; done; done
$B/blocktune replay export-space --db $W/model.db --output-dir $W/spaces > export.log 2>&1; echo "export exit $?" >> status.txt
cd /tmp && tar -czf $OUT/res.tar.gz res && cat res/status.txt
