"""The NumPy API of each operator, one module per operator; each goes through the aclnn C API."""
