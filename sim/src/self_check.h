// The simulator's self-check (self_check.cpp), run by normgradSimSelfCheck().
#pragma once
#include <string>

namespace normgrad_sim {
// Runs the self-check kernel on the current SoC; returns 0 and a summary, or nonzero and the reason.
int RunSelfCheck(std::string* message);
}  // namespace normgrad_sim
