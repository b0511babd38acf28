"""normgrad.errors: what a failed native call looks like to Python code."""

from __future__ import annotations

import pytest

from normgrad.errors import AclError, AclnnError, LibraryNotFoundError, status_name


def test_aclnn_error_is_a_value_error_carrying_status_and_message():
    err = AclnnError("aclnnGroupNormBackwardGetWorkspaceSize", 161002,
                     "aclnnGroupNormBackward: gamma has 30 elements, expected C = 32")
    assert isinstance(err, ValueError)
    assert (err.api, err.status) == ("aclnnGroupNormBackwardGetWorkspaceSize", 161002)
    assert err.message == "aclnnGroupNormBackward: gamma has 30 elements, expected C = 32"
    assert str(err) == ("aclnnGroupNormBackwardGetWorkspaceSize returned 161002 (ACLNN_ERR_PARAM_INVALID): "
                        "aclnnGroupNormBackward: gamma has 30 elements, expected C = 32")


def test_aclnn_error_without_a_message_says_so():
    text = str(AclnnError("aclnnX", 561000, "  "))
    assert text == "aclnnX returned 561000 (ACLNN_ERR_INNER): (no message recorded)"


def test_acl_error_for_a_null_result_has_no_status():
    err = AclError("aclCreateTensor", None, "aclCreateTensor: offset -1 is negative")
    assert isinstance(err, RuntimeError) and err.status is None
    assert str(err) == "aclCreateTensor returned NULL: aclCreateTensor: offset -1 is negative"


def test_acl_error_with_a_status_names_it():
    assert "207001 (ACL_ERROR_RT_MEMORY_ALLOCATION)" in str(AclError("aclrtMalloc", 207001, "out of memory"))


def test_unknown_status_is_shown_as_a_number():
    assert status_name(161001) == "ACLNN_ERR_PARAM_NULLPTR"
    assert status_name(42) == "status 42"


def test_library_not_found_is_a_file_not_found_error():
    with pytest.raises(FileNotFoundError):
        raise LibraryNotFoundError("libnormgrad.so not found")
