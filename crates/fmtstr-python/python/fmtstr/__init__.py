"""fmtstr: GPU debug printf across vendors, from Python.

Format-string IDs (hash), printf buffers back into text (decode), the format-string tables
of PAL ELFs and HSA code objects (dump, merge) and glibc-exact printf rendering (printf).
Errors are exceptions carrying the fmtstr CLI's messages: fmtstr.Error, and
fmtstr.CollisionError (a subclass) when a merge finds colliding or conflicting IDs.
"""

from ._fmtstr import CollisionError, Error, decode, dump, hash, merge, printf

__all__ = ["CollisionError", "Error", "decode", "dump", "hash", "merge", "printf"]
