"""Runtime for ExecuTorch ``.pte`` programs, and the C++ SDK it is built from.

``import executorch`` is cheap: it loads nothing native. ``executorch.runtime`` loads the shared runtime
library (``lib/libexecutorch.so.*``, the same one C++ applications link) through the ``_C`` extension.

SDK helpers for C++ users::

    cmake -DCMAKE_PREFIX_PATH="$(python -m executorch --cmake-dir)" ...
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["__version__", "cmake_prefix_path", "get_cmake_dir", "get_include", "get_lib_dir", "load_library"]

_PACKAGE = Path(__file__).resolve().parent


def _sdk_root() -> Path:
    """The SDK prefix: the package itself in a wheel, the environment prefix in a conda install."""
    if (_PACKAGE / "lib" / "cmake" / "executorch").is_dir():
        return _PACKAGE
    # conda: <prefix>/lib/pythonX.Y/site-packages/executorch
    prefix = _PACKAGE.parents[3]
    if (prefix / "lib" / "cmake" / "executorch").is_dir():
        return prefix
    return _PACKAGE


_ROOT = _sdk_root()


def _read_version() -> str:
    try:
        from importlib.metadata import version

        return version("executorch")
    except Exception:  # not installed as a distribution (e.g. a source tree on sys.path)
        return "0+unknown"


__version__: str = _read_version()

#: Directory to put on CMAKE_PREFIX_PATH: ``find_package(executorch)`` finds ``lib/cmake/executorch`` in it.
cmake_prefix_path: str = str(_ROOT)


def get_cmake_dir() -> str:
    """Directory holding ``executorch-config.cmake`` (usable as ``executorch_DIR``)."""
    return str(_ROOT / "lib" / "cmake" / "executorch")


def get_include() -> str:
    """Directory to add to the include path for ``#include <executorch/...>``."""
    return str(_ROOT / "include")


def get_lib_dir() -> str:
    """Directory holding ``libexecutorch.so.*`` and the component libraries."""
    return str(_ROOT / "lib")


def load_library(path: str | Path) -> None:
    """Loads a custom-kernel or backend library built against this SDK into the process-wide registries."""
    from executorch.runtime import _C  # executorch.runtime loads the shared libraries before _C

    _C.load_library(str(Path(path).resolve()))
