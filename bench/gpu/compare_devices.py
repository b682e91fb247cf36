"""Compares `blocktune devices --json` (driver API, dlopen'ed) with what the
CUDA runtime reports through PyTorch, field by field."""
import json
import sys

import torch

ours = json.load(open(sys.argv[1]))
failures = 0
for d in ours:
    p = torch.cuda.get_device_properties(d["ordinal"])
    pairs = [
        ("name", d["name"], p.name),
        ("uuid", d["uuid"], "GPU-" + str(p.uuid)),
        ("compute capability", d["compute_capability"], f"{p.major}.{p.minor}"),
        ("SMs", d["sm_count"], p.multi_processor_count),
        ("memory bytes", d["memory_bytes"], p.total_memory),
        ("L2 bytes", d["l2_bytes"], p.L2_cache_size),
        ("max threads per SM", d["max_threads_per_sm"], p.max_threads_per_multi_processor),
        ("registers per SM", d["registers_per_sm"], p.regs_per_multiprocessor),
        ("shared per block (opt-in)", d["shared_per_block_optin"], getattr(p, "shared_memory_per_block_optin", None)),
        ("shared per SM", d["shared_per_sm"], getattr(p, "shared_memory_per_multiprocessor", None)),
        ("shared per block", d["shared_per_block"], getattr(p, "shared_memory_per_block", None)),
        ("warp size", d["warp_size"], getattr(p, "warp_size", None)),
    ]
    for field, mine, theirs in pairs:
        if theirs is None:
            print(f"  {field:28} blocktune {mine!s:40} runtime: not reported")
            continue
        same = str(mine) == str(theirs)
        failures += not same
        print(f"  {field:28} blocktune {mine!s:40} runtime {theirs!s:40} {'agree' if same else 'DIFFER'}")
print("devices agree" if failures == 0 else f"{failures} fields differ")
sys.exit(1 if failures else 0)
