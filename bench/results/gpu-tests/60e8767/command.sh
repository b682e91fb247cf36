mkdir -p .carry/gpu/n && tar -C .carry/gpu/n -xJf .carry/gpu/bins-60e8767.tar.xz && B=$PWD/.carry/gpu/n/bin
mkdir -p build/cli && cp $B/blocktune $B/blocktune-worker build/cli/; mkdir -p /work && { [ -e /work/main ] || ln -s "$PWD" /work/main; }
W=/tmp/res; rm -rf $W; mkdir -p $W; cd $W && nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > device.txt; nproc >> device.txt
s=$(date +%s); $B/test_gpu --durations yes > test_gpu.log 2>&1; echo "test_gpu exit $? $(( $(date +%s) - s )) s" >> status.txt
s=$(date +%s); $B/test_launcher_gpu > test_launcher_gpu.log 2>&1; echo "test_launcher_gpu exit $? $(( $(date +%s) - s )) s" >> status.txt
s=$(date +%s); $B/record_occupancy /tmp/occ.csv > record_occupancy.log 2>&1; echo "record_occupancy exit $? $(( $(date +%s) - s )) s" >> status.txt
for m in model no-model; do F=; [ $m = no-model ] && F=--no-model; s=$(date +%s); $B/blocktune tune stencil3d_r1 -p 512x512x512 --max-evaluations 60 $F --db $W/$m.db --trace $W/$m.trace > $W/tune-$m.log 2>&1; echo "tune $m exit $? $(( $(date +%s) - s )) s" >> status.txt; done
cd /tmp && tar -czf $OUT/res.tar.gz res && cat res/status.txt
