"""Upstream ExecuTorch's Python module paths (``executorch.extension.pybindings.portable_lib``) on this runtime."""
