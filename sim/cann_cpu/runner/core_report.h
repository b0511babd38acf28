// What front end B's core processes report back for the cost model: one file a core, DIR/core<i>.txt,
// written by the core when its kernel has returned (sim/cann_cpu/src/cost_report.cpp) and read by
// libnormgrad (sim/src/cann_frontend.cpp), which turns it into front end A's sim::CoreCounters and a launch
// report. Plain text, so that neither side links the other.
//
//   counters <name>=<value> ...     the core's figures (CoreFigures, names as in kFigureNames)
//   split <name>=<value> ...        one line per CrossCoreWaitFlag that had a matching CrossCoreSetFlag of
//   split <name>=<value> ...        this core: two lines, the figures at the set and at the wait
#pragma once
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace normgrad::cann {

// The figures of one core that the cost model reads (front end A's sim::CoreCounters, same names).
struct CoreFigures {
  uint64_t gmToUbBytes = 0, ubToGmBytes = 0, ubToUbBytes = 0, dmaIn = 0, dmaOut = 0, vecInstr = 0;
  uint64_t vecRepeats[4] = {};  // elementwise, reduce, transcendental, cast
  uint64_t scalarGm = 0, scalarGmBytesIn = 0, scalarGmBytesOut = 0, syncs = 0, syncAll = 0, crossCoreWaits = 0;
  uint64_t fullBarriers = 0, drains = 0, l2HitBytes = 0, ubPeakBytes = 0;
};

struct CoreReport {
  CoreFigures figures;
  // Per split-phase wait: the figures at the matching set and at the wait (the work between them hides
  // the barrier's latency, ascendc/cost.h).
  std::vector<std::pair<CoreFigures, CoreFigures>> splitWaits;
};

// Every field of CoreFigures with its name, for the text form.
template <typename F>
void ForEachFigure(CoreFigures& c, F&& f) {
  f("gmToUbBytes", c.gmToUbBytes);
  f("ubToGmBytes", c.ubToGmBytes);
  f("ubToUbBytes", c.ubToUbBytes);
  f("dmaIn", c.dmaIn);
  f("dmaOut", c.dmaOut);
  f("vecInstr", c.vecInstr);
  f("vecElementwise", c.vecRepeats[0]);
  f("vecReduce", c.vecRepeats[1]);
  f("vecTranscendental", c.vecRepeats[2]);
  f("vecCast", c.vecRepeats[3]);
  f("scalarGm", c.scalarGm);
  f("scalarGmBytesIn", c.scalarGmBytesIn);
  f("scalarGmBytesOut", c.scalarGmBytesOut);
  f("syncs", c.syncs);
  f("syncAll", c.syncAll);
  f("crossCoreWaits", c.crossCoreWaits);
  f("fullBarriers", c.fullBarriers);
  f("drains", c.drains);
  f("l2HitBytes", c.l2HitBytes);
  f("ubPeakBytes", c.ubPeakBytes);
}

inline std::string CoreReportPath(const std::string& dir, int core) {
  return dir + "/core" + std::to_string(core) + ".txt";
}

inline std::string FiguresLine(const char* tag, CoreFigures c) {
  std::string line = tag;
  ForEachFigure(c, [&](const char* name, uint64_t v) { line += std::string(" ") + name + "=" + std::to_string(v); });
  return line + "\n";
}

inline bool WriteCoreReport(const std::string& path, const CoreReport& r) {
  std::ofstream out(path);
  out << FiguresLine("counters", r.figures);
  for (const auto& w : r.splitWaits) out << FiguresLine("split", w.first) << FiguresLine("split", w.second);
  return static_cast<bool>(out);
}

// Reads a core's report; false with *error naming the file or the line that does not parse.
inline bool ReadCoreReport(const std::string& path, CoreReport* r, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "no cost report " + path + " (the core did not finish)";
    return false;
  }
  std::string line;
  std::vector<CoreFigures> splits;
  bool sawCounters = false;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag, item;
    ls >> tag;
    CoreFigures c;
    int read = 0, expected = 0;
    ForEachFigure(c, [&](const char*, uint64_t&) { ++expected; });
    while (ls >> item) {
      const size_t eq = item.find('=');
      bool known = false;
      ForEachFigure(c, [&](const char* name, uint64_t& v) {
        if (eq != std::string::npos && item.compare(0, eq, name) == 0 && eq == std::string(name).size()) {
          v = std::stoull(item.substr(eq + 1));
          known = true;
        }
      });
      read += known ? 1 : 0;
    }
    if ((tag != "counters" && tag != "split") || read != expected) {
      *error = "bad line in " + path + ": '" + line + "'";
      return false;
    }
    if (tag == "counters") {
      r->figures = c;
      sawCounters = true;
    } else {
      splits.push_back(c);
    }
  }
  if (!sawCounters || splits.size() % 2 != 0) {
    *error = path + " is incomplete";
    return false;
  }
  for (size_t i = 0; i < splits.size(); i += 2) r->splitWaits.push_back({splits[i], splits[i + 1]});
  return true;
}

}  // namespace normgrad::cann
