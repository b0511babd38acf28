// TPipe, TQue and TBuf: Unified Buffer allocation, queue state machines and their implicit events.
#pragma once
