// Pipes and events: SetFlag/WaitFlag, PipeBarrier, and the inter-core SyncAll barriers.
#pragma once
