#include <blocktune/stencil_work.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace blocktune {
namespace {

constexpr double kSector = 32;  // bytes: what L2 moves per request

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Bytes of the 32-byte sectors a row of `elements` touches; rows start unaligned, so one more.
double row_bytes(std::int64_t elements, int element_bytes) {
  return (double(ceil_div(elements * element_bytes, std::int64_t(kSector))) + 1) * kSector;
}

}  // namespace

KernelWork stencil3d_work(int radius, int element_bytes, const std::array<std::int64_t, 3>& problem, const Config& config) {
  const std::int64_t nx = problem[0], ny = problem[1], nz = problem[2], r = radius;
  const std::int64_t bx = config.get_int("block_x"), by = config.get_int("block_y"), bz = config.get_int("block_z");
  const std::int64_t vx = config.get_int("vx"), z_chunk = config.get_int("z_chunk");
  const std::string strategy = to_string(config.at("strategy")), zloop = to_string(config.at("zloop"));
  if (nx <= 2 * r || ny <= 2 * r || nz <= 2 * r) throw std::invalid_argument("the stencil's problem must exceed twice its radius in every dimension");
  const bool comp = strategy == "COMP", reg = zloop == "REG";

  const double blocks = double(ceil_div(nx, bx * vx) * ceil_div(ny - 2 * r, by) * ceil_div(nz - 2 * r, bz * z_chunk));
  const double cells = double(nx - 2 * r) * double(ny - 2 * r) * double(nz - 2 * r);
  const double threads = blocks * double(bx * by * bz);
  const double thread_steps = threads * double(z_chunk);
  const std::int64_t width = bx * vx;           // a block's points in x
  const std::int64_t halo = ceil_div(r, vx);    // vectors either side that cover the x neighbours
  const double planes = double(bz * z_chunk);   // planes one block computes

  KernelWork w;
  // Input read once (the planes a z neighbour needs stay in L2), output written once.
  w.dram_bytes = double(nx * ny * nz) * element_bytes + cells * element_bytes;

  // L2 to SM: one block's footprint, its loads reused in L1 within the block.
  // Its own planes need the rows with the x halo and the y halo rows; the 2R
  // planes above and below only the block's rows.
  const double own_rows = comp ? row_bytes(width + 2 * r, element_bytes) * double(by + 2 * r)
                               : row_bytes(width + 2 * halo * vx, element_bytes) * double(by) + row_bytes(width, element_bytes) * double(2 * r);
  w.l2_bytes = blocks * (planes * own_rows + double(2 * r) * row_bytes(width, element_bytes) * double(by));

  // Per thread and plane: load instructions (vectors of vx), shared-memory
  // traffic and dependent rounds, as stencil3d.cu codes them.
  double vector_loads = 0, scalar_loads = 0, shared_reads = 0, shared_writes = 0, bank_conflict = 1, extra = 0;
  if (comp) {
    // The tile (with halo) is filled by scalar loads in loops over rows and
    // columns, each load waited for before its store to shared memory; the
    // threads then read it vx words apart (vx-way bank conflicts).
    const double fill = double(ceil_div(by + 2 * r, by) * ceil_div(width + 2 * r, bx));
    vector_loads = reg ? 1 : double(2 * r);
    scalar_loads = fill;
    shared_reads = double(vx * (4 * r + 1));
    shared_writes = fill;
    bank_conflict = double(vx);
    extra = 10 * fill + 2;  // address clamps per fill load, two barriers
    w.rounds = fill + 1;
  } else {
    vector_loads = double(2 * halo + 1 + 2 * r + (reg ? 1 : 2 * r));
    w.rounds = 1;  // every load of a step is independent
  }
  const double vector_bytes = double(vx * element_bytes);
  w.l1_wavefronts = thread_steps / 32 * (vector_loads * std::max(1.0, vector_bytes * 32 / 128) + scalar_loads);
  w.shared_wavefronts = thread_steps / 32 * (shared_reads * bank_conflict + shared_writes);
  // Instructions: address arithmetic per load, the adds and FMAs of the
  // points, and the loop and index overhead.
  const double arithmetic = double(vx * (5 * r + 1));
  w.warp_instructions = thread_steps / 32 * (3 * (vector_loads + scalar_loads) + shared_reads + shared_writes + arithmetic + 22 + extra);
  w.steps = double(z_chunk);
  return w;
}

}  // namespace blocktune
