// The launch directory: how front end A's process hands one kernel launch to front end B's runner
// (normgrad_cann_run_<soc> DIR) and gets the global memory back. Plain files, so that the runner links
// nothing of front end A (the two implement the same AscendC names and cannot share a process).
//
//   DIR/launch.txt   one item a line:
//     kernel <name>                 the extern "C" entry (op_kernel/*.cpp)
//     blockdim <n>
//     l2bytes <n>                   the L2 size the cost model uses (the SoC's, what-if applied)
//     region <i> <bytes>            one GM allocation, its bytes in DIR/region<i>.bin (written back after)
//     arg <i> <offset> | arg null   kernel arguments in order, then the workspace, then the tiling
//   DIR/result.txt   written by the runner: "ok", or "error <message>" (one line).
//   DIR/core<i>.txt  each core's cost report (core_report.h), when it finished.
// Used by the runner (main.cpp) and by libnormgrad (sim/src/cann_frontend.cpp); one definition here.
#pragma once
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace normgrad::cann {

struct LaunchArg {
  int region = -1;  // -1: null pointer
  uint64_t offset = 0;
};

struct LaunchFile {
  std::string kernel;
  uint32_t blockDim = 0;
  uint64_t l2Bytes = 0;
  std::vector<uint64_t> regionBytes;
  std::vector<LaunchArg> args;  // kernel arguments, workspace, tiling
};

inline std::string RegionPath(const std::string& dir, size_t i) { return dir + "/region" + std::to_string(i) + ".bin"; }

inline bool WriteLaunchFile(const std::string& dir, const LaunchFile& f) {
  std::ofstream out(dir + "/launch.txt");
  out << "kernel " << f.kernel << "\nblockdim " << f.blockDim << "\nl2bytes " << f.l2Bytes << "\n";
  for (size_t i = 0; i < f.regionBytes.size(); ++i) out << "region " << i << " " << f.regionBytes[i] << "\n";
  for (const LaunchArg& a : f.args) {
    if (a.region < 0) {
      out << "arg null\n";
    } else {
      out << "arg " << a.region << " " << a.offset << "\n";
    }
  }
  return static_cast<bool>(out);
}

// Reads DIR/launch.txt; false with *error naming the line that does not parse.
inline bool ReadLaunchFile(const std::string& dir, LaunchFile* f, std::string* error) {
  std::ifstream in(dir + "/launch.txt");
  if (!in) {
    *error = "cannot read " + dir + "/launch.txt";
    return false;
  }
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    bool ok = true;
    if (key == "kernel") {
      ok = static_cast<bool>(ls >> f->kernel);
    } else if (key == "blockdim") {
      ok = static_cast<bool>(ls >> f->blockDim);
    } else if (key == "l2bytes") {
      ok = static_cast<bool>(ls >> f->l2Bytes);
    } else if (key == "region") {
      size_t i = 0;
      uint64_t bytes = 0;
      ok = static_cast<bool>(ls >> i >> bytes) && i == f->regionBytes.size();
      if (ok) f->regionBytes.push_back(bytes);
    } else if (key == "arg") {
      std::string first;
      ok = static_cast<bool>(ls >> first);
      LaunchArg a;
      if (ok && first != "null") {
        a.region = std::stoi(first);
        ok = static_cast<bool>(ls >> a.offset) && a.region < static_cast<int>(f->regionBytes.size()) &&
             a.offset <= f->regionBytes[a.region];
      }
      f->args.push_back(a);
    } else if (!key.empty()) {
      ok = false;
    }
    if (!ok) {
      *error = "bad line in launch.txt: '" + line + "'";
      return false;
    }
  }
  if (f->kernel.empty() || f->blockDim == 0) {
    *error = "launch.txt names no kernel or a block dim of 0";
    return false;
  }
  return true;
}

inline bool ReadFileBytes(const std::string& path, void* dst, uint64_t bytes) {
  FILE* fp = std::fopen(path.c_str(), "rb");
  if (fp == nullptr) return false;
  const bool ok = std::fread(dst, 1, bytes, fp) == bytes;
  std::fclose(fp);
  return ok;
}

inline bool WriteFileBytes(const std::string& path, const void* src, uint64_t bytes) {
  FILE* fp = std::fopen(path.c_str(), "wb");
  if (fp == nullptr) return false;
  const bool ok = std::fwrite(src, 1, bytes, fp) == bytes;
  return std::fclose(fp) == 0 && ok;
}

// Ends a runner: DIR/result.txt = "ok" or "error <error>", the error also on stderr after `who`; the exit
// status (0 iff ok).
inline int WriteResult(const std::string& dir, const std::string& error, const char* who) {
  std::FILE* fp = std::fopen((dir + "/result.txt").c_str(), "w");
  if (fp != nullptr) {
    std::fprintf(fp, "%s\n", error.empty() ? "ok" : ("error " + error).c_str());
    std::fclose(fp);
  }
  if (!error.empty()) std::fprintf(stderr, "%s: %s\n", who, error.c_str());
  return error.empty() ? 0 : 1;
}

}  // namespace normgrad::cann
