#!/usr/bin/env python3
"""Kernel Tuner side of the blocktune side-by-side benchmark (our own code).

Usage:
  python3 bench/anchors/kt_budget.py KERNEL --seconds 120 --out result.json [--strategy random_sample]
  python3 bench/anchors/kt_budget.py KERNEL --count-only      # build KT's search space on the CPU, no GPU

KERNEL is hotspot, gemm, stencil3d_r1, pnpoly or convolution. Tunes with Kernel Tuner 1.5 (lang="cupy", GPU 0),
strategy_options={"time_limit": seconds} (random_sample also gets fraction=1.0 so that the
time limit, not the default 10% sample, ends the run), cold caches (fresh CUPY_CACHE_DIR, no
KT cache file), and verification against the default configuration's output. Every measured
configuration is recorded with the wall-clock seconds since this script started (taken before
kernel_tuner and cupy are imported), from the `timestamp` KT stores in each result.

Public kernel sources are read at run time from .carry/public/<kernel>/ (never committed); see
bench/anchors/SOURCES.md.
"""
import time

T0_WALL = time.time()  # script start, before any heavy import

import argparse
import json
import os
import sys
import tempfile
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
PUBLIC = os.path.join(REPO, ".carry", "public")

# ----------------------------------------------------------------------------------------------
# hotspot: space of the Kernel Tuner hotspot script as published (python-constraint benchmark
# "hotspot", expected 349,853 solutions; BAT hotspot-CAFF.json), device constants of that
# publication: max_threads 1024, max_shared_memory_per_block 49152, max_shared_memory 102400.
# ----------------------------------------------------------------------------------------------
HOTSPOT_N = 4096
HOTSPOT_MAX_TFACTOR = 10


def hotspot_space(blocks_per_sm=True):
    tp = {}
    tp["grid_width"] = [HOTSPOT_N]
    tp["grid_height"] = [HOTSPOT_N]
    tp["block_size_x"] = [1, 2, 4, 8, 16] + [32 * i for i in range(1, 33)]
    tp["block_size_y"] = [2**i for i in range(6)]
    tp["tile_size_x"] = list(range(1, 11))
    tp["tile_size_y"] = list(range(1, 11))
    tp["temporal_tiling_factor"] = list(range(1, 11))
    tp["max_tfactor"] = [HOTSPOT_MAX_TFACTOR]
    tp["loop_unroll_factor_t"] = list(range(1, HOTSPOT_MAX_TFACTOR + 1))
    tp["sh_power"] = [0, 1]
    smem = ("(block_size_x*tile_size_x + temporal_tiling_factor * 2) * "
            "(block_size_y*tile_size_y + temporal_tiling_factor * 2) * (2+sh_power) * 4")
    restrictions = [
        "block_size_x*block_size_y >= 32",
        "temporal_tiling_factor % loop_unroll_factor_t == 0",
        "block_size_x*block_size_y <= 1024",
        f"{smem} <= 49152",
    ]
    if blocks_per_sm:
        tp["blocks_per_sm"] = [0, 1, 2, 3, 4]
        restrictions.append(f"blocks_per_sm == 0 or (({smem}) * blocks_per_sm <= 102400)")
    return tp, restrictions


HOTSPOT_DEFAULT = dict(grid_width=HOTSPOT_N, grid_height=HOTSPOT_N, block_size_x=16, block_size_y=16,
                       tile_size_x=1, tile_size_y=1, temporal_tiling_factor=1,
                       max_tfactor=HOTSPOT_MAX_TFACTOR, loop_unroll_factor_t=1, sh_power=0, blocks_per_sm=0)


def hotspot_scalars(grid_rows, grid_cols):
    # chip constants of the Rodinia hotspot / KT hotspot script (recomputed, not copied)
    max_pd, precision, spec_heat_si, k_si, factor_chip = 3.0e6, 0.001, 1.75e6, 100, 0.5
    t_chip, chip_height, chip_width = 0.0005, 0.016, 0.016
    gh = chip_height / grid_rows
    gw = chip_width / grid_cols
    cap = factor_chip * spec_heat_si * t_chip * gw * gh
    rx = gw / (2.0 * k_si * t_chip * gh)
    ry = gh / (2.0 * k_si * t_chip * gw)
    rz = t_chip / (k_si * gh * gw)
    max_slope = max_pd / (factor_chip * t_chip * spec_heat_si)
    step = precision / max_slope
    return step / cap, 1 / rx, 1 / ry, 1 / rz  # step_div_cap, Rx_1, Ry_1, Rz_1


def setup_hotspot(np, args):
    from kernel_tuner.accuracy import Tunable
    tp, restrictions = hotspot_space(not args.no_blocks_per_sm)
    n, m = HOTSPOT_N, HOTSPOT_MAX_TFACTOR
    rng = np.random.default_rng(args.seed)
    w = n + 2 * m
    temp = np.zeros((w, w), dtype=np.float32)
    temp[m:-m, m:-m] = rng.random((n, n), dtype=np.float32) + 324
    power = np.zeros((w, w), dtype=np.float32)
    power[m:-m, m:-m] = rng.random((n, n), dtype=np.float32)
    temp_dst = np.zeros((n, n), dtype=np.float32)
    step_div_cap, rx1, ry1, rz1 = (np.float32(v) for v in hotspot_scalars(n, n))
    kargs = [power, temp, temp_dst, rx1, ry1, rz1, step_div_cap]
    default = dict(HOTSPOT_DEFAULT)
    if args.no_blocks_per_sm:
        default.pop("blocks_per_sm")
    return dict(
        kernel_name="calculate_temp",
        kernel_source=os.path.join(PUBLIC, "hotspot", "hotspot_kernel.cu"),
        problem_size=(n, n),
        arguments=kargs,
        tune_params=tp,
        restrictions=restrictions,
        grid_div_x=["block_size_x", "tile_size_x"],
        grid_div_y=["block_size_y", "tile_size_y"],
        block_size_names=None,
        default=default,
        output_index=2,
        atol=1e-3,
        # the output depends on temporal_tiling_factor (time steps fused in one launch): one
        # reference per value, each from the default configuration with that factor
        answer_key="temporal_tiling_factor",
        answer_wrap=Tunable,
    )


# ----------------------------------------------------------------------------------------------
# GEMM: CLBlast Xgemm through CLBlast's OpenCL-to-CUDA header, space of the Kernel Tuner GEMM
# script / cache (17,956 configurations), 4096 x 4096 x 4096, alpha = beta = 1.
# ----------------------------------------------------------------------------------------------
GEMM_N = 4096


def gemm_space():
    tp = dict(MWG=[16, 32, 64, 128], NWG=[16, 32, 64, 128], KWG=[32], MDIMC=[8, 16, 32], NDIMC=[8, 16, 32],
              MDIMA=[8, 16, 32], NDIMB=[8, 16, 32], KWI=[2], VWM=[1, 2, 4, 8], VWN=[1, 2, 4, 8], STRM=[0],
              STRN=[0], SA=[0, 1], SB=[0, 1], PRECISION=[32])
    restrictions = ["KWG % KWI == 0", "MWG % (MDIMC * VWM) == 0", "NWG % (NDIMC * VWN) == 0",
                    "MWG % (MDIMA * VWM) == 0", "NWG % (NDIMB * VWN) == 0",
                    "KWG % ((MDIMC * NDIMC)/MDIMA) == 0", "KWG % ((MDIMC * NDIMC)/NDIMB) == 0"]
    return tp, restrictions


GEMM_DEFAULT = dict(MWG=64, NWG=64, KWG=32, MDIMC=32, NDIMC=32, MDIMA=32, NDIMB=32, KWI=2, VWM=2, VWN=2,
                    STRM=0, STRN=0, SA=1, SB=1, PRECISION=32)

GEMM_FILES = ["opencl_to_cuda.h", "common.opencl", "xgemm_part1.opencl", "xgemm_part2.opencl",
              "xgemm_part3.opencl", "xgemm_part4.opencl"]
# Defines that CLBlast's own CUDA path sets and that the files need under CUDA: USE_INLINE_KEYWORD makes
# INLINE_FUNC `inline`, which opencl_to_cuda.h turns into __device__ (without it the helpers are host
# functions); RELAX_WORKGROUP_SIZE=1 selects part4's `__kernel` branch (the other one is an `#elif`
# without a condition). The same options are in specs/gemm/spec.json.
GEMM_OPTIONS = ["-DRELAX_WORKGROUP_SIZE=1", "-DUSE_INLINE_KEYWORD=1"]
GEMM_CUDA_DIR = os.path.join(PUBLIC, "gemm", "cuda")


def strip_raw_string(text):
    """CLBlast wraps each file in a C++11 raw string literal R"( ... )" so that its host code can
    #include it as a string; blank those two marker lines (nothing else changes, line numbers are
    kept) so that the code compiles as code, as the string CLBlast hands to NVRTC does."""
    out = []
    for line in text.split("\n"):
        out.append("" if line.strip() in ('R"(', ')"') else line)
    return "\n".join(out)


def gemm_write_cuda_sources():
    """Writes .carry/public/gemm/cuda/<file>: the saved public files with the raw-string marker lines
    blanked. Kernel Tuner's kernel string and blocktune's spec (specs/gemm/spec.json) both read these."""
    src = os.path.join(PUBLIC, "gemm")
    os.makedirs(GEMM_CUDA_DIR, exist_ok=True)
    for name in GEMM_FILES:
        with open(os.path.join(src, name)) as f:
            text = strip_raw_string(f.read())
        dst = os.path.join(GEMM_CUDA_DIR, name)
        if not os.path.exists(dst) or open(dst).read() != text:
            with open(dst, "w") as f:
                f.write(text)


def gemm_kernel_string():
    """The files in order, as KT's CUDA GEMM script concatenates them (header first)."""
    gemm_write_cuda_sources()
    parts = []
    for name in GEMM_FILES:
        with open(os.path.join(GEMM_CUDA_DIR, name)) as f:
            parts.append(f.read())
    return "".join(parts)


def setup_gemm(np, args):
    tp, restrictions = gemm_space()
    m = n = k = GEMM_N
    rng = np.random.default_rng(args.seed)
    a = np.asfortranarray(rng.standard_normal((m, k), dtype=np.float32))
    b = np.asfortranarray(rng.standard_normal((k, n), dtype=np.float32))
    c = np.zeros((m, n), order="F", dtype=np.float32)
    alpha, beta = np.float32(1.0), np.float32(1.0)
    kargs = [np.int32(m), np.int32(n), np.int32(k), alpha, beta, a, b, c, np.int32(0), np.int32(0)]
    return dict(
        kernel_name="Xgemm",
        kernel_source=gemm_kernel_string(),
        problem_size=(m, n),
        arguments=kargs,
        tune_params=tp,
        restrictions=restrictions,
        grid_div_x=["MWG"],
        grid_div_y=["NWG"],
        block_size_names=["MDIMC", "NDIMC", "block_size_z"],
        compiler_options=list(GEMM_OPTIONS),
        default=dict(GEMM_DEFAULT),
        output_index=7,
        atol=1e-2,
    )


# ----------------------------------------------------------------------------------------------
# stencil3d_r1: blocktune's own kernel (kernels/stencil3d.cu, entry stencil3d<1>), the space and
# launch geometry of examples/specs/stencil3d/spec.json translated by hand, carveout dropped.
# ----------------------------------------------------------------------------------------------
ST_N = (512, 512, 512)
ST_R = 1


def cdiv(a, b):  # C integer division (truncation toward zero)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def ceil_div(a, b):
    return -(-a // b)


def st_halo(vx):  # 2 * ((1 + max(vx,4) - 1) / max(vx,4) * max(vx,4)) with R = 1
    w = vx if vx > 4 else 4
    return 2 * (cdiv(ST_R + w - 1, w) * w)


def st_stream_tx(p):  # STREAM tile width in x
    bx, vx, fs = p["BLOCK_X"], p["VX"], p["FUSED_STEPS"]
    return cdiv(bx * vx - fs * ST_R - 1 - (cdiv(fs * ST_R - 1 + vx - 1, vx) * vx), vx) * vx


def st_smem(p):
    bx, by, bz, vx, py, zc, fs = (p["BLOCK_X"], p["BLOCK_Y"], p["BLOCK_Z"], p["VX"], p["PY"], p["Z_CHUNK"],
                                  p["FUSED_STEPS"])
    s = p["STRATEGY"]
    if s == "STREAM":
        return fs * 2 * by * py * bx * vx * 4
    if s == "COMP":
        return bz * (2 if zc > 1 else 1) * (by * py + 2) * (bx * vx + st_halo(vx)) * 4
    if s == "RING":
        return 4 * ((by * py + 2) * (bx * vx + st_halo(vx)) + by * py * bx * vx) * 4
    return 0


def st_valid(p, max_threads=1024, max_smem=232448, nx=ST_N[0]):
    bx, by, bz, vx, py, zc, fs = (p["BLOCK_X"], p["BLOCK_Y"], p["BLOCK_Z"], p["VX"], p["PY"], p["Z_CHUNK"],
                                  p["FUSED_STEPS"])
    s, zl = p["STRATEGY"], p["ZLOOP"]
    t = bx * by * bz
    if not (64 <= t <= max_threads):
        return False
    if zl == "NONE":
        if zc != 1:
            return False
    elif not (zc > 1 and bz == 1):
        return False
    if nx % vx != 0:
        return False
    if s == "COMP" and st_smem(p) > max_smem:
        return False
    if s == "STREAM":  # the spec's "carveout != 0" term is dropped with carveout
        if not (bx == 32 and zl == "REG" and zc >= 16 and fs * 3 * py * vx <= 64):
            return False
    else:
        if not (fs == 1 and (zl != "REG" or 3 * py * vx <= (96 if s == "RING" else 64))):
            return False
    if s == "RING" and zl != "REG":
        return False
    if s == "RING" and st_smem(p) > max_smem:
        return False
    if not (s == "STREAM" or py == 1 or (zl != "NONE" and vx >= 2 and by * py <= 16)):
        return False
    if s == "STREAM":
        tx = st_stream_tx(p)
        ty = by * py - 2 * fs * ST_R
        if not (tx > 0 and ty > 0 and 2 * tx * ty >= bx * vx * by * py):
            return False
        if fs * 2 * by * py * bx * vx * 4 > max_smem:
            return False
    return True


def st_grid(p, nx=ST_N[0], ny=ST_N[1], nz=ST_N[2]):
    bx, by, bz, vx, py, zc, fs = (p["BLOCK_X"], p["BLOCK_Y"], p["BLOCK_Z"], p["VX"], p["PY"], p["Z_CHUNK"],
                                  p["FUSED_STEPS"])
    stream = p["STRATEGY"] == "STREAM"
    gx = ceil_div(nx - 2, st_stream_tx(p)) if stream else ceil_div(nx, bx * vx)
    gy = ceil_div(ny - 2, (by * py - 2 * fs * ST_R) if stream else by * py)
    gz = ceil_div(nz - 2, bz * zc)
    return (gx, gy, gz)


def st_restriction(max_threads=1024, max_smem=232448):
    """KT restriction: a plain function whose arguments are the parameter names (KT 1.5 calls it
    positionally in parameter order while building the space, by keyword when checking)."""
    def stencil_restriction(BLOCK_X, BLOCK_Y, BLOCK_Z, STRATEGY, ZLOOP, Z_CHUNK, VX, PY, FUSED_STEPS):
        return st_valid(dict(BLOCK_X=BLOCK_X, BLOCK_Y=BLOCK_Y, BLOCK_Z=BLOCK_Z, STRATEGY=STRATEGY, ZLOOP=ZLOOP,
                             Z_CHUNK=Z_CHUNK, VX=VX, PY=PY, FUSED_STEPS=FUSED_STEPS), max_threads, max_smem)
    return stencil_restriction


def stencil_space():
    tp = dict(BLOCK_X=[32, 64, 128, 256], BLOCK_Y=[1, 2, 4, 8, 16], BLOCK_Z=[1, 2, 4],
              STRATEGY=["BASE", "CSL", "COMP", "STREAM", "RING"], ZLOOP=["NONE", "INTZ", "REG"],
              Z_CHUNK=[1, 8, 16, 32, 64], VX=[1, 2, 4], PY=[1, 2, 4], FUSED_STEPS=[1])
    return tp


STENCIL_DEFAULT = dict(BLOCK_X=32, BLOCK_Y=16, BLOCK_Z=1, STRATEGY="BASE", ZLOOP="NONE", Z_CHUNK=1, VX=1, PY=1,
                       FUSED_STEPS=1)


def setup_stencil(np, args, max_smem):
    tp = stencil_space()
    nx, ny, nz = ST_N
    rng = np.random.default_rng(args.seed)
    a = rng.random(nx * ny * nz, dtype=np.float32)
    out = np.zeros(nx * ny * nz, dtype=np.float32)
    coef = np.array([-0.5, 1.0 / 12.0], dtype=np.float32)
    kargs = [a, out, coef, np.int32(nx), np.int32(ny), np.int32(nz)]
    one = lambda p: 1  # noqa: E731  grid = problem_size (a callable giving the spec's grid) / 1
    return dict(
        kernel_name=f"stencil3d<{ST_R}>",
        kernel_source=os.path.join(REPO, "kernels", "stencil3d.cu"),
        problem_size=lambda p: st_grid(p),
        arguments=kargs,
        tune_params=tp,
        restrictions=[st_restriction(1024, max_smem)],
        grid_div_x=one, grid_div_y=one, grid_div_z=one,
        block_size_names=["BLOCK_X", "BLOCK_Y", "BLOCK_Z"],
        smem_args=dict(size=st_smem),
        default=dict(STENCIL_DEFAULT),
        output_index=1,
        atol=1e-5,
        compiler_options=["-std=c++17"],  # the kernel uses if constexpr; KT's cupy default is c++11
    )


def stencil_check_csv():
    """Compare the translated constraints with blocktune's recorded H100 space (an older space:
    strategies BASE, CSL, COMP only; no PY / FUSED_STEPS columns, i.e. PY = FUSED_STEPS = 1)."""
    import csv
    import gzip
    import itertools
    path = os.path.join(REPO, "tests", "data", "spaces", "stencil3d_r1-512x512x512-h100-80gb-hbm3.csv.gz")
    with gzip.open(path, "rt") as f:
        rows = [line for line in f if not line.startswith("#")]
    csv_set = set()
    for r in csv.DictReader(rows):
        d = dict(kv.split("=") for kv in r["config"].split(","))
        d.pop("carveout", None)
        csv_set.add((int(d["block_x"]), int(d["block_y"]), int(d["block_z"]), d["strategy"], d["zloop"],
                     int(d["z_chunk"]), int(d["vx"])))
    tp = stencil_space()
    mine_sub, mine_all = set(), 0
    keys = list(tp)
    for vals in itertools.product(*tp.values()):
        p = dict(zip(keys, vals))
        if st_valid(p):
            mine_all += 1
            if p["STRATEGY"] in ("BASE", "CSL", "COMP") and p["PY"] == 1:
                mine_sub.add((p["BLOCK_X"], p["BLOCK_Y"], p["BLOCK_Z"], p["STRATEGY"], p["ZLOOP"], p["Z_CHUNK"],
                              p["VX"]))
    return dict(csv_configs_without_carveout=len(csv_set), translated_same_subset=len(mine_sub),
                equal=(csv_set == mine_sub), only_in_csv=len(csv_set - mine_sub),
                only_translated=len(mine_sub - csv_set), translated_full_space=mine_all)


# ----------------------------------------------------------------------------------------------
# pnpoly: Kernel Tuner's point-in-polygon kernel (cn_pnpoly, .carry/public/pnpoly/pnpoly.cu) with the
# space of the public brute-forced caches (/work/shared/spaces/public/pnpoly-*.json.gz, 4,092
# configurations, no restrictions) and of BAT's T1 file: 2e7 points, a 600-vertex polygon (a unit
# circle) in constant memory (d_vertices, KT cmem_args).
# ----------------------------------------------------------------------------------------------
PNPOLY_N = 20000000
PNPOLY_VERTICES = 600
# The polygon both tuners use: raw float32 x0, y0, x1, y1, ... that blocktune's spec fills into the
# kernel's __constant__ d_vertices (a constant argument) and Kernel Tuner copies with cmem_args.
PNPOLY_VERTICES_FILE = os.path.join(HERE, "specs", "pnpoly", "vertices.f32")


def pnpoly_space():
    tp = dict(block_size_x=[32 * i for i in range(1, 32)], tile_size=[1] + [2 * i for i in range(1, 11)],
              between_method=[0, 1, 2, 3], use_method=[0, 1, 2])
    return tp, []


PNPOLY_DEFAULT = dict(block_size_x=256, tile_size=1, between_method=0, use_method=0)  # the .cu's macro defaults


def pnpoly_vertices(np, seed=1):
    """The polygon as float32 [x0, y0, x1, y1, ...]: read from the spec's file, or, when it is missing,
    made as the public KT script makes it (600 sorted random angles on the unit circle, reversed) from
    default_rng(seed) and written there."""
    if os.path.exists(PNPOLY_VERTICES_FILE):
        xy = np.fromfile(PNPOLY_VERTICES_FILE, dtype=np.float32)
        assert xy.size == 2 * PNPOLY_VERTICES, PNPOLY_VERTICES_FILE
        return xy
    rng = np.random.default_rng(seed)
    angles = np.sort(rng.random(PNPOLY_VERTICES) * 2.0 * np.pi)[::-1]
    xy = np.array(list(zip(np.cos(angles), np.sin(angles)))).astype(np.float32).ravel()
    xy.tofile(PNPOLY_VERTICES_FILE)
    return xy


def pnpoly_verify(answer, result_host, atol=None):
    """||out - ref|| / ||ref|| <= 1e-3 on the bitmap, blocktune's check with the spec's tolerance (np.allclose
    on 0/1 integers would accept either everything or no single differing point)."""
    import numpy as np
    ref = np.asarray(answer[0], dtype=np.float64).ravel()
    out = np.asarray(result_host[0], dtype=np.float64).ravel()
    return bool(np.linalg.norm(out - ref) <= 1e-3 * np.linalg.norm(ref))


def setup_pnpoly(np, args):
    tp, restrictions = pnpoly_space()
    n = PNPOLY_N
    rng = np.random.default_rng(args.seed)
    points = rng.standard_normal(2 * n, dtype=np.float32)  # float2 points, x and y standard normal
    bitmap = np.zeros(n, dtype=np.int32)
    vertex_xy = pnpoly_vertices(np)
    return dict(
        kernel_name="cn_pnpoly",
        kernel_source=os.path.join(PUBLIC, "pnpoly", "pnpoly.cu"),
        problem_size=(n, 1),
        arguments=[bitmap, points, np.int32(n)],  # the kernel's signature (the public script passes 4)
        tune_params=tp,
        restrictions=restrictions,
        grid_div_x=["block_size_x", "tile_size"],
        block_size_names=None,
        cmem_args={"d_vertices": vertex_xy},
        default=dict(PNPOLY_DEFAULT),
        output_index=0,
        atol=1e-3,
        verify=pnpoly_verify,
    )


# ----------------------------------------------------------------------------------------------
# convolution: Kernel Tuner's 2D convolution example (convolution_kernel, .carry/public/convolution/
# convolution.cu; 4096 x 4096 image fixed in the source), space of benchmark_hub kernels/convolution.py
# and BAT convolution-CAFF.json (15 x 15 filter). The filter is read from constant memory only
# (d_filter, KT cmem_args); the kernel's `filter` pointer argument is unused.
# ----------------------------------------------------------------------------------------------
CONV_N = 4096
CONV_F = 15


def conv_space():
    tp = dict(block_size_x=[1, 2, 4, 8, 16, 32, 48, 64, 96, 112, 128], block_size_y=[1, 2, 4, 8, 16, 32],
              filter_height=[CONV_F], filter_width=[CONV_F], read_only=[0, 1], tile_size_x=list(range(1, 9)),
              tile_size_y=list(range(1, 9)), use_padding=[0, 1])
    restrictions = ["block_size_x*block_size_y>=64", "block_size_x*block_size_y<=1024", "tile_size_x*tile_size_y<30"]
    return tp, restrictions


# T1 defaults (convolution-CAFF.json)
CONV_DEFAULT = dict(block_size_x=32, block_size_y=32, filter_height=CONV_F, filter_width=CONV_F, read_only=0,
                    tile_size_x=1, tile_size_y=1, use_padding=1)


def setup_convolution(np, args):
    tp, restrictions = conv_space()
    w = h = CONV_N
    rng = np.random.default_rng(args.seed)
    output = np.zeros(w * h, dtype=np.float32)
    inp = rng.standard_normal((w + CONV_F - 1) * (h + CONV_F - 1), dtype=np.float32)
    filt = rng.standard_normal(CONV_F * CONV_F, dtype=np.float32)
    return dict(
        kernel_name="convolution_kernel",
        kernel_source=os.path.join(PUBLIC, "convolution", "convolution.cu"),
        problem_size=(w, h),
        arguments=[output, inp, filt],
        tune_params=tp,
        restrictions=restrictions,
        grid_div_x=["block_size_x", "tile_size_x"],
        grid_div_y=["block_size_y", "tile_size_y"],
        block_size_names=None,
        cmem_args={"d_filter": filt},
        default=dict(CONV_DEFAULT),
        output_index=0,
        atol=1e-3,
    )


# ----------------------------------------------------------------------------------------------


def count_only(kernel):
    from kernel_tuner.searchspace import Searchspace
    res = {"kernel": kernel}
    if kernel == "hotspot":
        for bps in (True, False):
            tp, r = hotspot_space(bps)
            res[f"valid_with_blocks_per_sm={bps}"] = Searchspace(tp, r, 1024).size
    elif kernel == "gemm":
        tp, r = gemm_space()
        gemm_write_cuda_sources()  # the sources that both tuners compile (specs/gemm/spec.json reads them)
        res["cuda_sources"] = os.path.relpath(GEMM_CUDA_DIR, REPO)
        res["valid"] = Searchspace(tp, r, 1024, block_size_names=["MDIMC", "NDIMC", "block_size_z"]).size
    elif kernel in ("pnpoly", "convolution"):
        import numpy as np
        tp, r = pnpoly_space() if kernel == "pnpoly" else conv_space()
        res["valid"] = Searchspace(tp, r, 1024).size
        if kernel == "pnpoly":  # the polygon both tuners use (the spec's constant argument reads this file)
            res["vertices"] = int(pnpoly_vertices(np).size // 2)
    else:
        tp = stencil_space()
        r = [st_restriction(1024, 232448)]
        res["valid_kt_searchspace_h100_smem_232448"] = Searchspace(
            tp, r, 1024, block_size_names=["BLOCK_X", "BLOCK_Y", "BLOCK_Z"]).size
        res["csv_check"] = stencil_check_csv()
    print(json.dumps(res, indent=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", choices=["hotspot", "gemm", "stencil3d_r1", "pnpoly", "convolution"])
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--strategy", default="random_sample")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=7, help="KT's timed launches per configuration")
    ap.add_argument("--no-blocks-per-sm", action="store_true",
                    help="hotspot: the benchmark_hub hotspot_milo space (no blocks_per_sm, 82,984 configs)")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--count-only", action="store_true")
    args = ap.parse_args()

    if args.count_only:
        count_only(args.kernel)
        return

    # cold caches: a fresh CuPy kernel cache, no KT cache file
    cache_dir = tempfile.mkdtemp(prefix="kt_cupy_cache_")
    os.environ["CUPY_CACHE_DIR"] = cache_dir
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", os.environ.get("CUDA_VISIBLE_DEVICES", "0"))

    import numpy as np
    import cupy as cp
    import kernel_tuner as kt
    from kernel_tuner.backends import cupy as kt_cupy

    # CuPy's backend passes dynamic shared memory at launch but never raises the kernel's limit
    # above 48 KiB; do it here so that stencil configurations that the spec allows (opt-in
    # shared memory) can run instead of aborting the tuning run.
    _orig_run = kt_cupy.CupyFunctions.run_kernel

    def _run_kernel(self, func, gpu_args, threads, grid, stream=None):
        if self.smem_size > 48 * 1024 and getattr(func, "max_dynamic_shared_size_bytes", 0) < self.smem_size:
            func.max_dynamic_shared_size_bytes = int(self.smem_size)
        return _orig_run(self, func, gpu_args, threads, grid, stream)

    kt_cupy.CupyFunctions.run_kernel = _run_kernel

    # Some CuPy builds give the device's uuid as text, not the 16 bytes KT's cupy backend expects
    # (uuid.UUID(bytes=...) raises ValueError): hand it 16 bytes.
    _orig_properties = cp.cuda.runtime.getDeviceProperties

    def _properties(device):
        props = dict(_orig_properties(device))
        raw = props.get("uuid")
        if isinstance(raw, str):
            raw = raw.encode("latin-1")
        if isinstance(raw, (bytes, bytearray)) and len(raw) != 16:
            props["uuid"] = bytes(raw[:16]).ljust(16, b"\0")
        return props

    cp.cuda.runtime.getDeviceProperties = _properties

    dev = cp.cuda.Device(0)
    max_smem = int(dev.attributes.get("MaxSharedMemoryPerBlockOptin", 232448))

    if args.kernel == "hotspot":
        cfg = setup_hotspot(np, args)
    elif args.kernel == "gemm":
        cfg = setup_gemm(np, args)
    elif args.kernel in ("pnpoly", "convolution"):
        cfg = (setup_pnpoly if args.kernel == "pnpoly" else setup_convolution)(np, args)
    else:
        cfg = setup_stencil(np, args, max_smem)

    common = dict(lang="cupy", device=0, iterations=args.iterations, quiet=True, verbose=False)
    for key in ("grid_div_x", "grid_div_y", "grid_div_z", "smem_args", "cmem_args", "compiler_options"):
        if key in cfg:
            common[key] = cfg[key]
    if cfg.get("block_size_names"):
        common["block_size_names"] = cfg["block_size_names"]

    # reference output(s) from the default configuration
    answer = None
    t_ref0 = time.time()
    if not args.no_verify:
        oi = cfg["output_index"]

        def ref(params):
            outs = kt.run_kernel(cfg["kernel_name"], cfg["kernel_source"], cfg["problem_size"], cfg["arguments"],
                                 params, **{k: v for k, v in common.items() if k not in ("iterations", "verbose")})
            a = [None] * len(cfg["arguments"])
            a[oi] = outs[oi]
            return a

        if cfg.get("answer_key"):
            key = cfg["answer_key"]
            refs = {}
            for v in cfg["tune_params"][key]:
                p = dict(cfg["default"])
                p[key] = v
                refs[v] = ref(p)
            answer = cfg["answer_wrap"](key, refs)
        else:
            answer = ref(cfg["default"])
    t_ref = time.time() - t_ref0

    strategy_options = {"time_limit": args.seconds}
    if args.strategy == "random_sample":
        strategy_options["fraction"] = 1.0  # sample the whole space in random order; time_limit ends it
    if args.strategy == "brute_force":
        strategy_options = None  # brute_force rejects time_limit; it runs until the space is done

    t_tune0 = time.time()
    results, env = kt.tune_kernel(
        cfg["kernel_name"], cfg["kernel_source"], cfg["problem_size"], cfg["arguments"], cfg["tune_params"],
        restrictions=cfg["restrictions"], answer=answer, atol=cfg["atol"], verify=cfg.get("verify"),
        strategy=args.strategy,
        strategy_options=strategy_options, cache=None, **common)
    t_end = time.time()

    # KT's count of valid configurations (same construction as in tune_kernel), after the clock
    from kernel_tuner.searchspace import Searchspace
    bsn = cfg.get("block_size_names") or ["block_size_x", "block_size_y", "block_size_z"]
    space_size = Searchspace(cfg["tune_params"], cfg["restrictions"], int(dev.attributes["MaxThreadsPerBlock"]),
                             block_size_names=bsn).size

    keys = list(cfg["tune_params"])
    records = []
    for r in results:
        ts = r.get("timestamp")
        sec = None
        if ts:
            sec = datetime.fromisoformat(ts).timestamp() - T0_WALL
        err = r.get("__error__")
        ok = err is None and isinstance(r.get("time"), (int, float))
        records.append(dict(seconds=sec, config={k: r.get(k) for k in keys},
                            time_ms=(float(r["time"]) if ok else None),
                            error=(None if ok else type(err).__name__ if err is not None else "no time")))
    records.sort(key=lambda x: (x["seconds"] is None, x["seconds"]))
    valid = [x for x in records if x["time_ms"] is not None]

    def checkpoint(limit):
        v = [x for x in valid if x["seconds"] is not None and x["seconds"] <= limit]
        return dict(configurations_measured=len(v), best_time_ms=(min(x["time_ms"] for x in v) if v else None))

    out = dict(
        kernel=args.kernel,
        strategy=args.strategy,
        strategy_options=strategy_options,
        seconds_budget=args.seconds,
        kernel_tuner_version=getattr(kt, "__version__", None),
        device=env.get("device_name"),
        valid_configurations=space_size,
        problem_size={"hotspot": [HOTSPOT_N, HOTSPOT_N], "gemm": [GEMM_N, GEMM_N, GEMM_N],
                      "stencil3d_r1": list(ST_N), "pnpoly": [PNPOLY_N], "convolution": [CONV_N, CONV_N]}[args.kernel],
        reference_seconds=t_ref,
        tune_kernel_seconds=t_end - t_tune0,
        total_seconds=t_end - T0_WALL,
        seconds_to_first_measurement=(valid[0]["seconds"] if valid else None),
        checkpoints={"30": checkpoint(30.0), "120": checkpoint(120.0), "end": checkpoint(float("inf"))},
        evaluated=len(records),
        failed=len(records) - len(valid),
        measurements=records,
    )
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1, default=str)
    c30, c120 = out["checkpoints"]["30"], out["checkpoints"]["120"]
    print(f"{args.kernel} {args.strategy}: space {out['valid_configurations']}, first measurement "
          f"{out['seconds_to_first_measurement']}, 30 s: {c30['configurations_measured']} configs best "
          f"{c30['best_time_ms']} ms, 120 s: {c120['configurations_measured']} configs best "
          f"{c120['best_time_ms']} ms, failed {out['failed']}")


if __name__ == "__main__":
    sys.exit(main())
