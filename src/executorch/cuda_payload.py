"""The ``CudaBackend`` delegate payload, written by :mod:`executorch.lower` and read by :mod:`executorch.inspect`
(and by the delegate itself, ``cpp/cuda/src/payload.cpp``): the magic ``ETCUDA01``, the program's length as a
little-endian u64, then the subgraph program (an ET12 flatbuffer)."""

from __future__ import annotations

import struct

from executorch.pte import PteError

__all__ = ["MAGIC", "pack", "unpack"]

MAGIC = b"ETCUDA01"
_HEADER = struct.Struct("<8sQ")


def pack(program: bytes) -> bytes:
    """The payload holding ``program`` (a serialized ET12 flatbuffer)."""
    return _HEADER.pack(MAGIC, len(program)) + program


def unpack(payload: bytes) -> bytes:
    """The subgraph program of a payload; :class:`executorch.pte.PteError` when it is not one or is cut short."""
    if len(payload) < _HEADER.size or payload[:8] != MAGIC:
        raise PteError("not a CUDA delegate payload written by executorch.lower (no ETCUDA01 magic)")
    _, n = _HEADER.unpack_from(payload)
    if _HEADER.size + n > len(payload):
        raise PteError(f"CUDA payload says its program is {n} bytes but only {len(payload) - _HEADER.size} follow")
    return bytes(payload[_HEADER.size : _HEADER.size + n])
