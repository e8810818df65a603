"""fmtstr: GPU debug printf across vendors, from Python.

Format-string IDs (hash), printf buffers back into text (decode), the format-string tables
of PAL ELFs and HSA code objects (dump, merge), glibc-exact printf rendering (printf) and the
lowering of printf calls in LLVM IR for NVIDIA and AMD GPUs (lower), -Wformat-style checks of
formats and SPIR-V modules (check) and the collision audit of ELF files (audit).
Errors are exceptions carrying the fmtstr CLI's messages: fmtstr.Error, and
fmtstr.CollisionError (a subclass) when a merge finds colliding or conflicting IDs.
"""

from ._fmtstr import (
    CollisionError,
    Error,
    audit,
    check,
    decode,
    dump,
    hash,
    lower,
    merge,
    printf,
)

__all__ = [
    "CollisionError",
    "Error",
    "audit",
    "check",
    "decode",
    "dump",
    "hash",
    "lower",
    "merge",
    "printf",
]
