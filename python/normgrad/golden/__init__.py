"""Float64 NumPy references derived from the math (the true gradient of each forward op)."""
