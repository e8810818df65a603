import os
from typing import Any, Literal, Optional, Sequence, TypedDict, Union

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

class Lowered(TypedDict):
    module: str
    """The lowered module's text (bytes that are not UTF-8 as surrogate escapes)."""
    diagnostics: str
    """What `fmtstr lower` prints on stderr: the warnings, one diagnostic after another."""
    strings: Optional[dict[str, Any]]
    """The --emit-strings table (emit_strings=True, AMD buffer stage), else None."""
    report: Optional[dict[str, Any]]
    """The --report-json report (report=True), else None."""

def lower(
    module: PathOrBytes,
    name: Optional[str] = None,
    *,
    target: Optional[Literal["nvptx", "amdgpu"]] = ...,
    pass_: Optional[Literal["printf", "assert", "strip", "struct-args"]] = ...,
    stage: Optional[Literal["lgc", "buffer"]] = ...,
    layout: Optional[Literal["natural", "slot32"]] = ...,
    buffer_addrspace: Optional[int] = ...,
    lgc_form: Optional[Literal["format-first", "buffer-first"]] = ...,
    user_data_offset: Optional[int] = ...,
    prefix: Optional[str] = ...,
    only: Optional[str] = ...,
    limit_per_site: Optional[int] = ...,
    runtime_strings: Optional[int] = ...,
    report: bool = False,
    emit_strings: bool = False,
    werror: bool = False,
    **options: Any,
) -> Lowered:
    """`fmtstr lower` on a module (a path, or the bytes of IR text or bitcode): the options are
    the command's, with underscores for dashes (runtime_strings=32 is --runtime-strings 32;
    pass_="strip" is --pass strip). Raises Error with the CLI's diagnostics and
    message when the lowering fails (errors, or warnings with werror=True), TypeError for an
    unknown option. `name` names the module in messages (default: the path, or "module")."""

class Checked(TypedDict):
    code: int
    """0 without findings, 1 with findings (the CLI's exit code)."""
    output: str
    """What `fmtstr check` prints on stdout: the JSON report or the SARIF log ("" for text)."""
    diagnostics: str
    """What it prints on stderr: the text findings (format="text")."""

def check(
    input: Union[str, bytes, os.PathLike[str]],
    args: Sequence[str] = ...,
    dialect: Optional[Literal["gpu", "c", "opencl", "vvl"]] = None,
    format: Literal["text", "json", "sarif"] = "text",
) -> Checked:
    """`fmtstr check`: a format (str or bytes, taken as they are, like --raw) against argument
    types as LLVM IR spells them (args=["i32", "ptr"]), or a SPIR-V module given by its path
    (pathlib.Path). Raises Error with the CLI's message when the format cannot be parsed or the
    module read (exit 2), TypeError for an unknown dialect or format."""

def audit(
    paths: Sequence[Union[str, os.PathLike[str]]],
    format: Literal["text", "json", "github", "sarif"] = "text",
    verify_ids: bool = False,
) -> tuple[int, str]:
    """`fmtstr audit PATHS...`: (the exit code, 0 clean or 1 findings; what it prints on
    stdout). Raises Error with the CLI's message when an input cannot be read."""
