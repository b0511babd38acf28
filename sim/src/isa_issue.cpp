// Front end A's binding to the instruction-level model (ascendc/isa_issue.h).
#include "ascendc/isa_issue.h"

#include <cstring>

#include "ascendc/vec_engine.h"

namespace sim {
namespace vec {
namespace {

// The model's counts feed the cost model's: its vector classes are the cost model's, in order.
static_assert(static_cast<int>(isa::VecClass::kElementwise) == static_cast<int>(OpClass::kElementwise) &&
                  static_cast<int>(isa::VecClass::kReduce) == static_cast<int>(OpClass::kReduce) &&
                  static_cast<int>(isa::VecClass::kTranscendental) == static_cast<int>(OpClass::kTranscendental) &&
                  static_cast<int>(isa::VecClass::kCast) == static_cast<int>(OpClass::kCast) &&
                  isa::kVecClasses == static_cast<int>(OpClass::kCount),
              "the model's VecClass and the cost model's OpClass must match");

// The front end's checks come first and name the API; a rule only the model enforces fails the
// kernel the same way, naming the instruction.
void FailFromModel(const char* message) { Fail("instruction model", "%s", message); }

// The model's count of one vector instruction, into the counters of the core it was bound with.
void CountFromModel(void* counters, isa::VecClass cls, uint64_t repeats) {
  CountInstr(*static_cast<CoreCounters*>(counters), static_cast<OpClass>(cls), repeats);
}

}  // namespace

isa::Arch CoreArch(const CoreContext& c) { return c.davC100 ? isa::Arch::k910 : isa::Arch::kA2; }

void BindModelCore(CoreContext& ctx) {
  ctx.davC100 = ctx.soc != nullptr && std::strcmp(ctx.soc->family, "ascend910") == 0;
  isa::SetViolationHook(&FailFromModel);
  isa::SetGmReader(&gm::Read);
  isa::ResetCore();
  isa::SetVecCountListener(&CountFromModel, &ctx.counters);
  isa::RegisterUb(ctx.ub.data(), ctx.ub.size(), /*operandsChecked=*/true);  // the APIs check them first
  isa::Core().deviceAtomicStores = true;  // A has no CPU-debug add in UB before the copy (state.h)
}

}  // namespace vec
}  // namespace sim
