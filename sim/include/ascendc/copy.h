// Data movement: DataCopy, DataCopyPad, atomic-add stores, InitOutput/InitGlobalMemory.
#pragma once
