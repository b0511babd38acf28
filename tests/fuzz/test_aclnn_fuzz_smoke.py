"""A short run of the aclnn fuzzer in the ordinary test suite (fixed seed, 60 inputs), so that a
change that breaks the harness or the property shows up without the sanitizer build; the long
bounded run is ./build.sh --sanitize's (docs/fuzzing.md)."""

from __future__ import annotations

import aclnn_fuzz


def test_fuzzer_finds_nothing_in_60_inputs_of_seed_13():
    before = aclnn_fuzz.STATS.examples
    aclnn_fuzz.fuzz_batch(13, 60)
    assert aclnn_fuzz.STATS.examples - before == 60
    assert aclnn_fuzz.STATS.outcomes["ok, matches the golden"] > 0  # some inputs ran and were compared
