// The simulator's extern "C" API (normgrad_sim.h): SoC selection, profiles, the modeled run log,
// the self-check and the recorded operator schemas, as JSON for Python's ctypes binding. No
// exception leaves a function (CBoundary): a failure is the error value with aclGetRecentErrMsg().
#include <cstring>
#include <string>

#include "ascendc/cost.h"
#include "ascendc/launch.h"
#include "ascendc/soc.h"
#include "graph/operator_reg.h"
#include "json_text.h"
#include "normgrad_sim.h"
#include "simhost/op_records.h"
#include "self_check.h"
#include "simhost/c_boundary.h"
#include "simhost/cann_frontend.h"

using normgrad_sim::JsonArray;
using normgrad_sim::JsonBool;
using normgrad_sim::JsonNumber;
using normgrad_sim::JsonString;

namespace {

std::string Field(const char* name, const std::string& json) { return JsonString(name) + ": " + json; }
std::string Num(double v) { return JsonNumber(v); }
std::string Int(uint64_t v) { return std::to_string(v); }

std::string Object(const std::vector<std::string>& fields) {
  std::string out = "{";
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + fields[i];
  return out + "}";
}

std::string SocJson(const sim::SocProfile& s) {
  return Object({Field("name", JsonString(s.name)), Field("aivCores", Int(s.aivCores)),
                 Field("ubBytes", Int(s.ubBytes)), Field("clockGHz", Num(s.clockGHz)),
                 Field("hbmSustainedTBs", Num(s.hbmSustainedTBs)), Field("hbmPeakTBs", Num(s.hbmPeakTBs)),
                 Field("coreDmaBytesPerCycle", Num(s.coreDmaBytesPerCycle)),
                 Field("dmaIssueCycles", Num(s.dmaIssueCycles)), Field("vecIssueCycles", Num(s.vecIssueCycles)),
                 Field("launchUs", Num(s.launchUs)), Field("syncAllUs", Num(s.syncAllUs)),
                 Field("eventIdsPerEvent", Int(s.eventIdsPerEvent)), Field("hasDataCopyPad", JsonBool(s.hasDataCopyPad)),
                 Field("hasBf16", JsonBool(s.hasBf16)), Field("hasHardSyncAll", JsonBool(s.hasHardSyncAll)),
                 Field("hasBrcb", JsonBool(s.hasBrcb)), Field("hasMulAdd", JsonBool(s.hasMulAdd)),
                 Field("countFormCounterMode", JsonBool(s.countFormCounterMode)),
                 Field("rejectsZeroMask", JsonBool(s.rejectsZeroMask)),
                 Field("l2Bytes", Int(s.l2Bytes)), Field("family", JsonString(s.family)),
                 Field("shortSocVersion", JsonString(s.shortSocVersion)),
                 Field("socVersion", JsonString(s.socVersion))});
}

std::string CoreJson(const sim::CoreCounters& c, const sim::CoreTime& t) {
  auto rep = [&](sim::OpClass k) { return Int(c.vecRepeats[static_cast<int>(k)]); };
  std::string repeats = Object({Field("elementwise", rep(sim::OpClass::kElementwise)),
                                Field("reduce", rep(sim::OpClass::kReduce)),
                                Field("transcendental", rep(sim::OpClass::kTranscendental)),
                                Field("cast", rep(sim::OpClass::kCast))});
  return Object({Field("gmToUbBytes", Int(c.gmToUbBytes)), Field("ubToGmBytes", Int(c.ubToGmBytes)),
                 Field("ubToUbBytes", Int(c.ubToUbBytes)), Field("dmaIn", Int(c.dmaIn)), Field("dmaOut", Int(c.dmaOut)),
                 Field("vecInstr", Int(c.vecInstr)), Field("vecRepeats", repeats), Field("scalarGm", Int(c.scalarGm)),
                 Field("scalarGmBytesIn", Int(c.scalarGmBytesIn)), Field("scalarGmBytesOut", Int(c.scalarGmBytesOut)),
                 Field("scalarUb", Int(c.scalarUb)), Field("syncs", Int(c.syncs)), Field("syncAll", Int(c.syncAll)),
                 Field("crossCoreWaits", Int(c.crossCoreWaits)),
                 Field("fullBarriers", Int(c.fullBarriers)), Field("drains", Int(c.drains)),
                 Field("l2HitBytes", Int(c.l2HitBytes)),
                 Field("ubPeakBytes", Int(c.ubPeakBytes)), Field("mte2Us", Num(t.mte2Us)),
                 Field("mte3Us", Num(t.mte3Us)), Field("vecUs", Num(t.vecUs)), Field("fillUs", Num(t.fillUs)),
                 Field("refills", Int(t.refills)), Field("coreUs", Num(t.coreUs))});
}

std::string LaunchJson(const sim::LaunchReport& r, const sim::KernelTime& k) {
  std::vector<std::string> warnings, cores;
  for (const std::string& w : r.warnings) warnings.push_back(JsonString(w));
  for (size_t i = 0; i < r.cores.size(); ++i) cores.push_back(CoreJson(r.cores[i], k.cores[i]));
  const sim::SocProfile& soc = r.soc != nullptr ? *r.soc : sim::CurrentSoc();
  return Object({Field("kernel", JsonString(r.kernel)), Field("soc", JsonString(soc.name)),
                 Field("blockDim", Int(r.blockDim)), Field("ok", JsonBool(r.ok)), Field("error", JsonString(r.error)),
                 Field("warnings", JsonArray(warnings)), Field("totalUs", Num(k.totalUs)),
                 Field("launchUs", Num(k.launchUs)), Field("hbmUs", Num(k.hbmUs)), Field("maxCoreUs", Num(k.maxCoreUs)),
                 Field("meanCoreUs", Num(k.meanCoreUs)), Field("syncUs", Num(k.syncUs)),
                 Field("bytesIn", Int(k.bytesIn)), Field("bytesOut", Int(k.bytesOut)),
                 Field("scalarGmBytesIn", Int(k.scalarBytesIn)), Field("scalarGmBytesOut", Int(k.scalarBytesOut)),
                 Field("l2HitBytes", Int(k.l2HitBytes)), Field("ubPeakBytes", Int(k.ubPeakBytes)),
                 Field("loadBalance", Num(k.loadBalance)), Field("chipUtilization", Num(k.chipUtilization)),
                 Field("busyCores", Int(k.busyCores)), Field("cores", JsonArray(cores))});
}

thread_local std::string t_soc, t_socs, t_lastRun, t_graphOps, t_opDefs;

}  // namespace

using sim::host::CBoundary;

extern "C" {

int normgradSimSetSoc(const char* name) {
  return CBoundary("normgradSimSetSoc", 1, [&] {
    if (name == nullptr) return 1;
    return sim::SetCurrentSoc(name) ? 0 : 1;
  });
}

int normgradSimSetThreadSoc(const char* name) {
  return CBoundary("normgradSimSetThreadSoc", 1, [&] { return sim::SetThreadSoc(name != nullptr ? name : "") ? 0 : 1; });
}

const char* normgradSimGetSoc(void) {
  return CBoundary("normgradSimGetSoc", static_cast<const char*>(nullptr), [&] {
    t_soc = sim::CurrentSoc().name;
    return t_soc.c_str();
  });
}

const char* normgradSimSocsJson(void) {
  return CBoundary("normgradSimSocsJson", static_cast<const char*>(nullptr), [&] {
    int count = 0;
    const sim::SocProfile* socs = sim::AllSocs(&count);
    std::vector<std::string> items;
    for (int i = 0; i < count; ++i) items.push_back(SocJson(sim::EffectiveSoc(socs[i])));
    t_socs = JsonArray(items);
    return t_socs.c_str();
  });
}

const char* normgradSimLastRunJson(void) {
  return CBoundary("normgradSimLastRunJson", static_cast<const char*>(nullptr), [&] {
    std::vector<std::string> launches;
    double totalUs = 0;
    uint64_t bytesIn = 0, bytesOut = 0;
    for (const sim::LaunchReport& r : sim::RunLog()) {
      sim::KernelTime k = sim::ModelLaunch(r);
      totalUs += k.totalUs;
      bytesIn += k.bytesIn;
      bytesOut += k.bytesOut;
      launches.push_back(LaunchJson(r, k));
    }
    t_lastRun = Object({Field("soc", JsonString(sim::CurrentSoc().name)), Field("totalUs", Num(totalUs)),
                        Field("bytesIn", Int(bytesIn)), Field("bytesOut", Int(bytesOut)),
                        Field("launches", JsonArray(launches))});
    return t_lastRun.c_str();
  });
}

const char* normgradCannLaunchReportJson(const char* dir) {
  return CBoundary("normgradCannLaunchReportJson", static_cast<const char*>(nullptr), [&] {
    sim::LaunchReport report;
    std::string error;
    if (dir == nullptr || !sim::host::ReadCannLaunch(dir, "ops-nn", &report, &error)) {
      t_lastRun = "null";
    } else {
      t_lastRun = LaunchJson(report, sim::ModelLaunch(report));
    }
    return t_lastRun.c_str();
  });
}

int normgradSimSetCostOverrides(const char* spec) {
  return CBoundary("normgradSimSetCostOverrides", 1, [&] {
    std::string error;
    if (sim::SetCostOverrides(spec != nullptr ? spec : "", &error)) return 0;
    normgradSimSetRecentErrMsg(error.c_str());
    return 1;
  });
}

int normgradSimSelfCheck(char* msg, size_t msgBytes) {
  return CBoundary("normgradSimSelfCheck", 5, [&] {
    std::string message;
    int status;
    try {
      status = normgrad_sim::RunSelfCheck(&message);
    } catch (const std::exception& e) {  // a simulator bug outside a launch: reported in msg too
      message = std::string("self-check threw: ") + e.what();
      status = 5;
    }
    if (msg != nullptr && msgBytes > 0) {
      std::strncpy(msg, message.c_str(), msgBytes - 1);
      msg[msgBytes - 1] = '\0';
    }
    return status;
  });
}

const char* normgradGraphOpsJson(void) {
  return CBoundary("normgradGraphOpsJson", static_cast<const char*>(nullptr), [&] {
    t_graphOps = ge::RegisteredOpsJson();
    return t_graphOps.c_str();
  });
}

const char* normgradOpDefsJson(void) {
  return CBoundary("normgradOpDefsJson", static_cast<const char*>(nullptr), [&] {
    t_opDefs = sim::host::RegisteredOpDefsJson();
    return t_opDefs.c_str();
  });
}

}  // extern "C"
