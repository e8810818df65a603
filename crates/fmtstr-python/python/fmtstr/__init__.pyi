import os
from typing import Any, Sequence, Union

PathOrBytes = Union[str, os.PathLike[str], bytes]

class Error(Exception):
    """Bad input: the message is the fmtstr CLI's (it names the input and the fix)."""

class CollisionError(Error):
    """A merge found IDs with two strings (collisions) or two argument layouts (conflicts)."""

def hash(string: Union[bytes, str]) -> int:
    """fmtstr's 48-bit ID of a format string (str is encoded as UTF-8; no trailing NUL)."""

def decode(
    buffer: bytes,
    elfs: Sequence[PathOrBytes] = ...,
    strings: Sequence[PathOrBytes] = ...,
    strict: bool = False,
) -> str:
    """What `fmtstr decode` prints for a printf buffer, with the tables of PAL ELFs or HSA
    code objects (paths or bytes) and JSON tables (paths or bytes). Bytes that are not UTF-8
    come back as surrogate escapes (text.encode("utf-8", "surrogateescape") gives the exact
    bytes). Warnings are issued with warnings.warn (UserWarning); strict=True raises Error
    instead when there is any."""

def dump(elf: PathOrBytes) -> list[dict[str, Any]]:
    """What `fmtstr dump --json` prints for one file (one object per metadata note)."""

def merge(
    base: Union[str, os.PathLike[str]],
    inputs: Sequence[Union[str, os.PathLike[str]]],
    out: Union[str, os.PathLike[str]],
) -> None:
    """`fmtstr merge BASE INPUTS... -o OUT`: raises CollisionError on collisions or conflicts
    (nothing written), Error on bad input."""

def printf(fmt: Union[bytes, str], *args: Union[int, float, bytes, str, None, Sequence[Union[int, float]]]) -> bytes:
    """The bytes glibc's printf prints: int for integer conversions, %c and '*' (as the bits
    C would pass), float for floating ones, bytes or str for %s, None for a null %s or %p, a
    sequence of numbers for an OpenCL vector (%v4f)."""
