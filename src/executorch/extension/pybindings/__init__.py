"""Upstream ExecuTorch's pybindings entry points, over the same shared runtime as :mod:`executorch.runtime`."""
