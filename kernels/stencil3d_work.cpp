#include <blocktune/stencil_work.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

namespace blocktune {
namespace {

constexpr double kSector = 32;  // bytes: what L2 moves per request

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Bytes of the 32-byte sectors a row of `elements` touches; rows start unaligned, so one more.
double row_bytes(std::int64_t elements, int element_bytes) {
  return (double(ceil_div(elements * element_bytes, std::int64_t(kSector))) + 1) * kSector;
}

// The columns either side of a COMP or RING tile: R, rounded up to a multiple
// of the vector and of a 16-byte copy.
std::int64_t tile_lead(std::int64_t r, std::int64_t vx, int element_bytes) {
  const std::int64_t align = std::max<std::int64_t>(vx, 16 / element_bytes);
  return ceil_div(r, align) * align;
}

// A block's walk along z. stencil3d.cu ends each block's walk at the grid's
// interior, so a chunk longer than the interior walks the interior, and the
// last of several chunks what is left: on a grid 40 deep, z_chunk 128 walks 38
// planes, not 128 (counted as 128, the model charged it 3.4x the work there).
// The counts add up the planes walked, and the latency counts the mean walk's
// steps: the blocks of a short last chunk finish early and others take their
// place (the longest walk's steps ranked two grids held out for the choice
// worse: bench/results/model/README.md, "A z walk ends at the interior").
struct ZWalk {
  double blocks;  // blocks along z
  double mean;    // planes a block walks, on average over them
};

ZWalk z_walk(std::int64_t interior, std::int64_t planes_per_block) {
  const std::int64_t blocks = ceil_div(interior, planes_per_block);
  return {double(blocks), double(interior) / double(blocks)};
}

// The constraints keep every tile's written part non-empty; the counts rely on it.
void require_written_part(std::string_view coding, std::int64_t written_width, std::int64_t written_rows) {
  if (written_width <= 0 || written_rows <= 0) throw std::invalid_argument(fmt::format("the {} tile is too small for its halo", coding));
}

// What STREAM and PLANE share: a block of `threads` owns a tile of tile_width x
// tile_rows points whose written part is written_width x written_rows, one of
// `tiles` (x by y) over the grid's xy plane, and walks z_chunk planes plus
// fused_steps * R before and after. Per plane a thread loads its py row vectors; the last step
// stores the written part of the tile. The coding adds its per-step work to
// `work` (its shared memory and instructions), per thread and plane.
struct FusedWalk {
  KernelWork work;
  double thread_steps = 0;       // threads x planes walked, over the grid
  double vector_wavefronts = 0;  // per warp access of a row vector
};

FusedWalk fused_walk(int radius, int element_bytes, const std::array<std::int64_t, 3>& problem, const Config& config,
                     std::int64_t threads, std::int64_t tile_width, std::int64_t written_width, const std::array<std::int64_t, 2>& tiles) {
  const std::int64_t nx = problem[0], ny = problem[1], nz = problem[2], r = radius;
  const std::int64_t by = config.get_int("block_y"), vx = config.get_int("vx"), py = config.get_int("py");
  const std::int64_t z_chunk = config.get_int("z_chunk"), halo = config.get_int("fused_steps") * r;
  const std::int64_t tile_rows = by * py, written_rows = tile_rows - 2 * halo;
  const ZWalk z = z_walk(nz - 2 * r, z_chunk);
  const double blocks = double(tiles[0] * tiles[1]) * z.blocks;
  const double cells = double(nx - 2 * r) * double(ny - 2 * r) * double(nz - 2 * r);
  const double planes = z.mean + double(2 * halo);

  FusedWalk walk;
  walk.thread_steps = blocks * double(threads) * planes;
  walk.vector_wavefronts = std::max(1.0, double(vx * element_bytes) * 32 / 128);
  KernelWork& w = walk.work;
  w.dram_bytes = double(nx * ny * nz) * element_bytes + cells * element_bytes;  // overlapping tiles meet in L2
  w.l2_bytes = blocks * planes * double(tile_rows) * row_bytes(tile_width, element_bytes) + cells * element_bytes;
  // The row loads, and the stores of the last step's written part of the tile.
  const double written = double(written_width * written_rows) / double(tile_width * tile_rows);
  w.l1_wavefronts = walk.thread_steps / 32 * double(py) * (1 + written) * walk.vector_wavefronts;
  w.steps = planes;
  w.chains = double(vx * py);  // a sum per point
  w.rounds = 2;  // the plane's loads, then the barrier before the steps read shared memory
  return walk;
}

// STREAM (stencil3d.cu): a block of 32 x block_y threads owns a tile of
// 32 * vx by block_y * py points, overlapping its neighbours by fused_steps * R,
// and walks z_chunk planes plus fused_steps * R before and after. Per plane a
// thread loads its py row vectors once; each fused step then shuffles its x
// neighbours, reads its y neighbours beyond its own rows from shared memory,
// stores its edge rows there for the others, and shifts its register ring.
// These are the counts of STREAM's first coding, the one the H100 spaces of
// tests/data/spaces recorded. stencil3d.cu holds the second since 97e5238
// (rows copied by cp.async into shared-memory slots planes ahead and read back,
// rings that rotate without moves; the H200 spaces of bench/results/spaces);
// counted as such, the H200 spaces' STREAM rows ranked no better
// (bench/results/model/README.md, round 2), so these counts stay.
KernelWork stream_work(int radius, int element_bytes, const std::array<std::int64_t, 3>& problem, const Config& config) {
  const std::int64_t nx = problem[0], r = radius;
  const std::int64_t by = config.get_int("block_y"), vx = config.get_int("vx"), py = config.get_int("py");
  const std::int64_t halo = config.get_int("fused_steps") * r, tile_width = 32 * vx;
  const std::int64_t lead = ceil_div(halo - r, vx) * vx;
  const std::int64_t written_width = (tile_width - halo - r - lead) / vx * vx, written_rows = by * py - 2 * halo;
  require_written_part("STREAM", written_width, written_rows);
  FusedWalk walk = fused_walk(radius, element_bytes, problem, config, 32 * by, tile_width, written_width,
                              {ceil_div(nx - 2 * r, written_width), ceil_div(problem[1] - 2 * r, written_rows)});
  double shared_loads = 0;  // per row and step: the y neighbours beyond the thread's rows
  for (std::int64_t i = 0; i < py; ++i)
    for (std::int64_t d = 1; d <= r; ++d) shared_loads += double(i - d < 0) + double(i + d >= py);
  const double shared_stores = double(std::min(py, 2 * r));
  const double per_step = double(2 * r * py) /* shuffles */ + shared_loads + shared_stores + double(vx * py * (5 * r + 1)) +
                          double(2 * r * py * vx) /* ring shift */;
  const double k = double(config.get_int("fused_steps"));
  walk.work.shared_wavefronts = walk.thread_steps / 32 * k * (shared_loads + shared_stores) * walk.vector_wavefronts;
  walk.work.warp_instructions = walk.thread_steps / 32 * (3 * double(py) + k * per_step + 22);
  return walk.work;
}

// PLANE (stencil3d.cu): STREAM's walk by a block of block_x x block_y threads
// over a tile of block_x * vx by block_y * py points, its written columns a whole
// vector in. Per plane a thread copies its py row vectors into a shared-memory
// slot and reads them back; each fused step then stores its rows into the
// level's plane in shared memory, reads its y neighbours beyond its own rows (2R
// vectors) and its x neighbours either side of each row from there (pieces of
// up to the vector), and keeps its z neighbours in a register ring that rotates
// without moves.
KernelWork plane_work(int radius, int element_bytes, const std::array<std::int64_t, 3>& problem, const Config& config) {
  const std::int64_t nx = problem[0], r = radius;
  const std::int64_t bx = config.get_int("block_x"), by = config.get_int("block_y"), vx = config.get_int("vx"), py = config.get_int("py");
  const std::int64_t halo = config.get_int("fused_steps") * r, tile_width = bx * vx;
  const std::int64_t lead = ceil_div(halo, vx) * vx;
  const std::int64_t written_width = (tile_width - halo - lead) / vx * vx, tile_rows = by * py, written_rows = tile_rows - 2 * halo;
  require_written_part("PLANE", written_width, written_rows);
  // Tiles from face to face, stepping by their written part (stencil3d.cu).
  const auto tiles = [](std::int64_t points, std::int64_t tile, std::int64_t step) { return 1 + ceil_div(std::max<std::int64_t>(0, points - tile), step); };
  FusedWalk walk = fused_walk(radius, element_bytes, problem, config, bx * by, tile_width, written_width,
                              {tiles(nx, tile_width, written_width), tiles(problem[1], tile_rows, written_rows)});
  // x neighbours in pieces of up to the vector, R either side of each row.
  const std::int64_t piece = std::min<std::int64_t>(vx, r <= 1 ? 1 : r <= 2 ? 2 : 4);
  const double x_reads = double(2 * ceil_div(r, piece) * py);
  const double piece_wavefronts = std::max(1.0, double(piece * element_bytes) * 32 / 128);
  const double per_step_shared = double(2 * r + py) * walk.vector_wavefronts + x_reads * piece_wavefronts;
  const double per_step = double(2 * r + py) + x_reads + double(vx * py * (5 * r + 1));
  const double k = double(config.get_int("fused_steps"));
  walk.work.shared_wavefronts = walk.thread_steps / 32 * (k * per_step_shared + 2 * double(py) * walk.vector_wavefronts);
  walk.work.warp_instructions = walk.thread_steps / 32 * (4 * double(py) + k * per_step + 22);
  return walk.work;
}

// RING (stencil3d.cu): COMP's tile and REG's queue, fed by cp.async copies
// RING_DEPTH planes ahead. Per thread and plane: its new plane's row vectors
// copied into shared memory and read back, its centre rows stored into the
// tile, 2R vectors of y neighbours and 2 * HALO per row of x neighbours read
// from the tile, its share of the halo's 16-byte copies, and the queue's
// shift. Per block, the chunk's planes of the tile and 2R more queue planes
// (loaded into registers before the loop).
KernelWork ring_work(int radius, int element_bytes, const std::array<std::int64_t, 3>& problem, const Config& config) {
  const std::int64_t nx = problem[0], ny = problem[1], nz = problem[2], r = radius;
  const std::int64_t bx = config.get_int("block_x"), by = config.get_int("block_y");
  const std::int64_t vx = config.get_int("vx"), py = config.get_int("py"), z_chunk = config.get_int("z_chunk");
  const std::int64_t width = bx * vx, rows = by * py, halo = ceil_div(r, vx);
  const std::int64_t chunk = 16 / element_bytes;
  const std::int64_t lead = tile_lead(r, vx, element_bytes);
  const ZWalk z = z_walk(nz - 2 * r, z_chunk);
  const double blocks = double(ceil_div(nx, width) * ceil_div(ny - 2 * r, rows)) * z.blocks;
  const double cells = double(nx - 2 * r) * double(ny - 2 * r) * double(nz - 2 * r);
  const double threads = blocks * double(bx * by);
  const double thread_steps = threads * z.mean;

  KernelWork w;
  w.dram_bytes = double(nx * ny * nz) * element_bytes + cells * element_bytes;
  // L2 to SM: the block's points of its planes + 2R; the halo (2R full rows
  // of the tile, `lead` columns either side of its rows) of its planes.
  const double own = row_bytes(width, element_bytes) * double(rows);
  const double tile_halo = row_bytes(width + 2 * lead, element_bytes) * double(2 * r) + 2 * row_bytes(lead, element_bytes) * double(rows);
  w.l2_bytes = blocks * ((z.mean + double(2 * r)) * own + z.mean * tile_halo);

  const double vector_wavefronts = std::max(1.0, double(vx * element_bytes) * 32 / 128);
  const double halo_copies = double(ceil_div((2 * r * (width + 2 * lead) + rows * 2 * lead) / chunk, bx * by));
  const double own_copies = double(py * ceil_div(vx * element_bytes, 16));
  const double shared_reads = double(py /* the new plane */ + 2 * r + py * 2 * halo);
  const double shared_stores = double(py);  // the centre rows
  w.l1_wavefronts = thread_steps / 32 * (halo_copies * 4 + double(py) * vector_wavefronts) + threads / 32 * double(2 * r * py) * vector_wavefronts;
  w.shared_wavefronts = thread_steps / 32 * ((shared_reads + shared_stores) * vector_wavefronts + halo_copies * 4 + double(py) * vector_wavefronts);
  const double arithmetic = double(vx * py * (5 * r + 1));
  const double shift = double(2 * r * py * vx);
  w.warp_instructions =
      thread_steps / 32 * (3 * (halo_copies + own_copies) + shared_reads + shared_stores + arithmetic + shift + 22 + 4 /* wait, barrier, commit */);
  w.steps = z.mean;
  w.chains = double(vx * py);  // a sum per point
  // A plane's copies were started RING_DEPTH (3) planes earlier: the round they
  // wait for is spread over as many steps, and what follows the barrier reads
  // shared memory, not a global round.
  w.rounds = 1.0 / 3;
  return w;
}

}  // namespace

KernelWork stencil3d_work(int radius, int element_bytes, const std::array<std::int64_t, 3>& problem, const Config& config) {
  const std::int64_t nx = problem[0], ny = problem[1], nz = problem[2], r = radius;
  const std::int64_t bx = config.get_int("block_x"), by = config.get_int("block_y"), bz = config.get_int("block_z");
  const std::int64_t vx = config.get_int("vx"), py = (config.find("py") ? config.get_int("py") : 1), z_chunk = config.get_int("z_chunk");
  const std::string strategy = to_string(config.at("strategy")), zloop = to_string(config.at("zloop"));
  if (nx <= 2 * r || ny <= 2 * r || nz <= 2 * r) throw std::invalid_argument("the stencil's problem must exceed twice its radius in every dimension");
  if (strategy == "STREAM") return stream_work(radius, element_bytes, problem, config);
  if (strategy == "PLANE") return plane_work(radius, element_bytes, problem, config);
  if (strategy == "RING") return ring_work(radius, element_bytes, problem, config);
  const bool comp = strategy == "COMP", reg = zloop == "REG";

  const std::int64_t width = bx * vx;          // a block's points in x
  const std::int64_t rows = by * py;           // and its rows
  const std::int64_t halo = ceil_div(r, vx);   // vectors either side that cover the x neighbours
  // A block computes block_z * z_chunk planes (one of the two is 1: stencil3d.cpp's constraints).
  const ZWalk z = z_walk(nz - 2 * r, bz * z_chunk);
  const double blocks = double(ceil_div(nx, width) * ceil_div(ny - 2 * r, rows)) * z.blocks;
  const double cells = double(nx - 2 * r) * double(ny - 2 * r) * double(nz - 2 * r);
  const double thread_steps = blocks * double(bx * by) * z.mean;  // threads beyond the interior do nothing
  const double planes = z.mean;  // planes one block computes
  const std::int64_t chunk = 16 / element_bytes;
  const std::int64_t lead = tile_lead(r, vx, element_bytes);

  KernelWork w;
  // Input read once (the planes a z neighbour needs stay in L2), output written once.
  w.dram_bytes = double(nx * ny * nz) * element_bytes + cells * element_bytes;

  // L2 to SM: one block's footprint, its loads reused in L1 (or shared memory)
  // within the block. Its own planes need the rows with the x halo and the y
  // halo rows; the 2R planes above and below only the block's rows.
  const double own_rows = comp ? row_bytes(width + 2 * lead, element_bytes) * double(rows + 2 * r)
                               : row_bytes(width + 2 * halo * vx, element_bytes) * double(rows) + row_bytes(width, element_bytes) * double(2 * r);
  w.l2_bytes = blocks * (planes * own_rows + double(2 * r) * row_bytes(width, element_bytes) * double(rows));

  // Per thread and plane, as stencil3d.cu codes them: the thread's column of
  // py + 2R vectors (its rows' y neighbours), HALO vectors either side of each
  // row, and the z neighbours (one new plane per row with REG). COMP reads the
  // first two from its tile, conflict-free, after filling the tile with 16-byte
  // asynchronous copies (one barrier per plane).
  const double xy_vectors = double(py + 2 * r + py * 2 * halo);
  const double z_vectors = double(reg ? py : py * 2 * r);
  const double vector_wavefronts = std::max(1.0, double(vx * element_bytes) * 32 / 128);
  double loads = 0, shared_reads = 0, copies = 0, extra = 0;
  if (comp) {
    copies = double(ceil_div((rows + 2 * r) * ((width + 2 * lead) / chunk), bx * by));
    loads = z_vectors;
    shared_reads = xy_vectors;
    extra = 8 * copies + 2;  // copy addresses and bounds, the barrier and the wait
    // The tile's arrival, then the loads of the plane (below). With a z loop
    // the next plane's tile is requested right after the barrier and arrives
    // while this one is read, which would make it no round of its own; but the
    // barrier makes every step wait for the block's slowest copy and load.
    // Counted as no round, the model ranks the development spaces 0.016-0.033
    // worse (bench/results/model/README.md): kept, not derived.
    // With one plane per thread the block waits for its tile with nothing else
    // in flight; with a z loop the next plane's tile arrives while this one is read.
    w.staged = z_chunk == 1 ? 1 : 0;
  } else {
    loads = xy_vectors + z_vectors;
  }
  // A row's loads wait for the previous row's store, BASE's and CSL's alike:
  // each row's loads sit in the branch that skips rows beyond the grid, and
  // ptxas issues them there (sm_90 SASS of CSL at radius 1, vx 4, py 4: the
  // column's loads and row 0's, then each further row's after the previous
  // row's store). INTZ's rows load their z neighbours, a plane never loaded
  // before among them: a memory round per row. REG's rows load only x
  // neighbours that the column's loads brought into L1 (COMP: shared memory),
  // the new plane one step ahead: one memory round, then a near round per row.
  const double tile_round = comp ? 1 : 0;
  if (zloop == "INTZ") {
    w.rounds = tile_round + double(py);
  } else {
    w.rounds = tile_round + 1;
    w.near_rounds = double(py - 1);
  }
  // INTZ loads its z neighbours from global memory at every plane: L1 serves
  // them only while it holds, besides the plane's rows, the block's rows of
  // the 2R planes around it.
  // One plane per thread (NONE) reuses only within its planes: the rows with
  // their halo, and with several z layers the planes between (a single layer
  // loads each z neighbour once). Not counted: REG's own rows come in as the
  // new plane R + 1 steps before its x and y loads read them again, so L1
  // would hold R + 1 planes of them; counted so, the development spaces moved
  // by +0.012 (r1), -0.002 (r3) and -0.016 (r5) (bench/results/model/README.md).
  const double block_rows = double(rows) * row_bytes(width, element_bytes);
  if (zloop == "INTZ")
    w.reuse_footprint = own_rows + double(2 * r) * block_rows;
  else if (zloop == "NONE")
    w.reuse_footprint = planes * own_rows + (bz > 1 ? double(2 * r) * block_rows : 0);
  w.l1_wavefronts = thread_steps / 32 * (loads * vector_wavefronts + copies * 4);
  w.shared_wavefronts = thread_steps / 32 * (shared_reads * vector_wavefronts + copies * 4);
  // Instructions: address arithmetic per load, the adds and FMAs of the
  // points, and the loop and index overhead.
  const double arithmetic = double(vx * py * (5 * r + 1));
  w.warp_instructions = thread_steps / 32 * (3 * (loads + copies) + shared_reads + arithmetic + 22 + extra);
  w.steps = z_chunk == 1 ? 1.0 : z.mean;  // a thread's planes (block_z > 1 only with one plane each)
  w.chains = double(vx * py);  // a sum per point
  return w;
}

}  // namespace blocktune
