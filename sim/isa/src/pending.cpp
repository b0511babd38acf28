// Skeleton: every model function traps until it is implemented (replaced file by file).
#include "internal.h"

namespace normgrad {
namespace isa {

uint32_t ElemBytes(Elem e) { return e == Elem::kF32 || e == Elem::kS32 || e == Elem::kU32 ? 4 : e == Elem::kS8 || e == Elem::kU8 ? 1 : 2; }
const char* ElemName(Elem) { return "?"; }
void VecBinary(const char* name, BinOp, Elem, void*, const void*, const void*, const VecStrides&) { Trap(name); }
void VecScalar(const char* name, ScalarOp, Elem, void*, const void*, uint64_t, const VecStrides&) { Trap(name); }
void VecDup(Elem, void*, uint64_t, const VecStrides&) { Trap("vector_dup"); }
void VecBrcb(Elem, void*, const void*, uint64_t, uint64_t, uint64_t) { Trap("vbrcb"); }
void VecConv(const char* name, Elem, Elem, Round, void*, const void*, const VecStrides&) { Trap(name); }
void VecCadd(Arch, Elem, void*, const void*, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t) { Trap("vcadd"); }
void VecCgadd(Elem, void*, const void*, uint64_t, uint64_t, uint64_t, uint64_t) { Trap("vcgadd"); }
void CopyGmToUb(void*, const void*, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t) { Trap("copy_gm_to_ubuf"); }
void CopyUbToGm(Arch, void*, const void*, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t) { Trap("copy_ubuf_to_gm"); }
void CopyUbToUb(void*, const void*, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t) { Trap("copy_ubuf_to_ubuf"); }
void CopyGmToUbAlign(uint32_t, void*, const void*, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                     uint64_t) { Trap("copy_gm_to_ubuf_align"); }
void CopyUbToGmAlign(Arch, uint32_t, void*, const void*, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                     uint64_t) { Trap("copy_ubuf_to_gm_align"); }
void SetMovPadVal(uint64_t) { Trap("set_mov_pad_val"); }
void SetVectorMask(uint64_t, uint64_t) { Trap("set_vector_mask"); }
void SetMaskCount() { Trap("set_mask_count"); }
void SetMaskNorm() { Trap("set_mask_norm"); }
void SetAtomicType(AtomicType) { Trap("set_atomic_<type>"); }
void SetAtomicOp(AtomicOp) { Trap("set_atomic_<op>"); }
void SetFlag(int, int, int) { Trap("set_flag"); }
void WaitFlag(int, int, int) { Trap("wait_flag"); }
void PipeBarrier(int) { Trap("pipe_barrier"); }
int64_t Sff0(uint64_t) { Trap("sff0"); }
uint64_t Sbitset0(uint64_t, int64_t) { Trap("sbitset0"); }
uint64_t Sbitset1(uint64_t, int64_t) { Trap("sbitset1"); }

}  // namespace isa
}  // namespace normgrad
