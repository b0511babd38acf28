// Reductions: ReduceSum, WholeReduceSum, BlockReduceSum in the documented pairwise order.
#pragma once
