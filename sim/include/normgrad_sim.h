// The simulator's C API, for Python (ctypes) and tools: SoC selection, the modeled timing of the
// latest operator call, the self-check, and the recorded operator schemas, as JSON text.
// Every returned string is owned by the library and stays valid until the next call of the same
// function on the same thread. No function lets a C++ exception out: a failure inside (out of host
// memory, say) returns NULL from the string functions and the documented error value from the
// others, with the reason in aclGetRecentErrMsg().
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Selects the SoC profile later launches run on, process-wide: a family ("ascend910b",
// "ascend910_93", "ascend910") or a chip ("Ascend910B3", docs/soc-profiles.md). Returns 0, or 1 for
// an unknown name (the current SoC is unchanged).
int normgradSimSetSoc(const char* name);
// Selects the calling thread's own SoC profile, which wins over the process-wide one for the
// operators this thread runs; NULL or "" clears it. Returns 0, or 1 for an unknown name.
int normgradSimSetThreadSoc(const char* name);
// The profile the calling thread's operators run on (its own, else the process-wide one).
const char* normgradSimGetSoc(void);

// [{"name":..., "aivCores":..., "ubBytes":..., "clockGHz":..., ... every SocProfile field,
//   "l2Bytes", "family", "shortSocVersion", "socVersion"}], with the what-if constants of
//   normgradSimSetCostOverrides applied.
const char* normgradSimSocsJson(void);

// What-if cost-model constants: "launch_us=3,sync_us=1" replaces those constants of every SoC
// profile (keys in ascendc/cost.h, SetCostOverrides) for later launches and reports; "" or
// nullptr restores the profiles' own. Returns 0, or 1 with the reason in aclGetRecentErrMsg()
// (nothing changed).
int normgradSimSetCostOverrides(const char* spec);

// The launches of the calling thread's latest operator call (its aclnn execute phase clears the log):
// {"soc": "<current soc>", "totalUs": <sum over launches>, "bytesIn": ..., "bytesOut": ...,
//  "launches": [{"kernel", "soc", "blockDim", "ok", "error", "warnings": [...],
//                "totalUs", "launchUs", "hbmUs", "maxCoreUs", "meanCoreUs", "syncUs",
//                "bytesIn", "bytesOut", "scalarGmBytesIn", "scalarGmBytesOut", "l2HitBytes",
//                "ubPeakBytes", "loadBalance", "chipUtilization", "busyCores",
//                "cores": [{"gmToUbBytes", "ubToGmBytes", "ubToUbBytes", "dmaIn", "dmaOut",
//                           "vecInstr", "vecRepeats": {"elementwise", "reduce", "transcendental",
//                           "cast"}, "scalarGm", "scalarGmBytesIn", "scalarGmBytesOut", "scalarUb",
//                           "syncs", "syncAll", "fullBarriers", "drains", "l2HitBytes", "ubPeakBytes",
//                           "mte2Us", "mte3Us", "vecUs", "fillUs", "refills", "coreUs"}]}]}
// Times are the cost model's (ascendc/cost.h), in microseconds. bytesIn/bytesOut count DMA payload
// plus the scalar GM accesses' DCache traffic, which scalarGmBytesIn/Out also give on their own;
// l2HitBytes is the part of bytesIn the L2 re-read model served (not charged at HBM bandwidth).
// ubPeakBytes: the highest UB byte a core's TPipe reached (InitBuffer rounding included), per
// core and, for the launch, the largest over its cores.
const char* normgradSimLastRunJson(void);

// Runs a small multi-core Ascend C kernel (queues with double buffering, DataCopy, DataCopyPad,
// Cast, Add, Muls, ReduceSum, SyncAll, a cross-core combine) on the current SoC and compares it
// with the host. Returns 0 and a one-line summary in msg, or nonzero and the reason.
// msg may be nullptr; the text is truncated to msgBytes - 1 characters.
int normgradSimSelfCheck(char* msg, size_t msgBytes);

// Graph prototypes recorded by REG_OP (graph/operator_reg.h):
// [{"name", "inputs": [{"name", "kind": "required"|"optional"|"dynamic", "dtypes": ["DT_FLOAT", ...]}],
//   "outputs": [...], "attrs": [{"name", "type": "Int"|..., "required": bool, "default": <json>}]}]
const char* normgradGraphOpsJson(void);

// Operator definitions recorded by OP_ADD (register/op_def_registry.h):
// [{"name", "inputs": [{"name", "paramType": "required"|"optional"|"dynamic", "dtypes": [...],
//   "formats": [...]}], "outputs": [...], "attrs": [{"name", "type", "required", "default"}],
//   "hasInferShape", "hasTiling", "socs": [...], "problems": [...]}]
const char* normgradOpDefsJson(void);

// aclrtMalloc(devPtr, size) followed by an aclrtMemcpy of `size` host bytes into the whole block,
// without first filling it with 0xFF (every byte is written anyway). Returns an aclError (0 on
// success) with the reason in aclGetRecentErrMsg(). Python's normgrad.tensor() uses it.
int normgradSimMallocFrom(void** devPtr, const void* host, size_t size);

// Records the text aclGetRecentErrMsg() returns on this thread (the aclnn layer's Error()).
void normgradSimSetRecentErrMsg(const char* msg);

// Whether front end B (CANN's Ascend C in CPU-debug mode, sim/cann_cpu; NORMGRAD_FRONTEND=cann) can run
// the launches of SoC profile `soc` (NULL or "": the current one): 0 ready, with the runner's path in msg;
// 1 the SoC's family has no front end B build; 2 front end B is not built (its runner is missing where it
// is looked for: NORMGRAD_CANN_RUNNER_DIR, else beside this library); 3 no profile is named soc. The reason
// is in msg (truncated to msgBytes - 1 characters; msg may be NULL).
int normgradSimCannFrontEnd(const char* soc, char* msg, size_t msgBytes);

// The launch report (one element of normgradSimLastRunJson's "launches", priced on the current SoC with
// its what-if constants) of a front end B launch another runner made in directory `dir` (ops-nn's kernels:
// python/normgrad/opsnn.py), from its cores' cost reports; "null" when it has none. Not added to the run log.
const char* normgradCannLaunchReportJson(const char* dir);

#ifdef __cplusplus
}  // extern "C"
#endif
