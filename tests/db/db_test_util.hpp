// Shared fixtures for the db tests: a temporary folder and sample records.
#pragma once

#include "temp_dir.hpp"

#include <blocktune/store.hpp>

#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace blocktune::test {


inline DeviceRecord h100(std::string uuid = "GPU-00000000-0000-0000-0000-000000000001") {
  DeviceRecord d;
  d.uuid = std::move(uuid);
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.memory_bytes = 85'000'000'000;
  d.l2_bytes = 52'428'800;
  d.sm_clock_mhz = 1980;
  d.memory_clock_mhz = 2619;
  d.memory_bus_bits = 5120;
  d.driver_version = 580;
  d.cuda_version = 13000;
  d.ecc = true;
  return d;
}

inline DeviceRecord device(std::string uuid, std::string name, int cc_major, int cc_minor, int sm_count) {
  DeviceRecord d = h100(std::move(uuid));
  d.name = std::move(name);
  d.cc_major = cc_major;
  d.cc_minor = cc_minor;
  d.sm_count = sm_count;
  return d;
}

inline KernelRecord stencil(std::string source_hash = "hash-1") {
  return {"stencil3d", std::move(source_hash), {"block_x", "block_y", "block_z"}, "block_x=32,block_y=4,block_z=1",
          std::nullopt};
}

inline std::string config(int x, int y, int z) {
  return "block_x=" + std::to_string(x) + ",block_y=" + std::to_string(y) + ",block_z=" + std::to_string(z);
}

// An ok trial of block x*y*z that took median_ms.
inline TrialRecord trial(int x, int y, int z, double median_ms) {
  TrialRecord t;
  t.config = config(x, y, z);
  t.shape.block = {x, y, z};
  t.samples_ms = {median_ms * 0.99, median_ms, median_ms * 1.01};
  t.median_ms = median_ms;
  t.min_ms = median_ms * 0.99;
  t.mean_ms = median_ms;
  t.spread = 0.02;
  t.registers = 32;
  t.blocks_per_sm = 8;
  t.occupancy = 1.0;
  t.limiting_factor = "warps";
  t.timestamp = 1'700'000'000;
  t.blocktune_version = "0.1.0";
  return t;
}

// The first column of the first row of a query on a database file, or -1.
inline std::int64_t query_int(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  const std::int64_t value = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

// A writable copy of the committed H200 database (schema version 1) in `dir`.
inline std::filesystem::path copy_h200_database(const TempDir& dir, const std::string& name = "h200.db") {
  const auto copy = dir / name;
  std::filesystem::copy_file(std::filesystem::path(BLOCKTUNE_TEST_DATA_DIR) / "db/stencil3d_r1_h200.db", copy);
  std::filesystem::permissions(copy, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  return copy;
}

inline std::string exported(const std::filesystem::path& file) {
  std::ostringstream out;
  export_json(file, out);
  return out.str();
}

inline void write_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace blocktune::test
