"""The Python package against the fmtstr CLI on the samples: every function, byte for byte.

Run by `cargo xtask wheel --test` (and CI) with the wheel installed and FMTSTR_CLI naming the
release binary; FMTSTR_SAMPLES is the samples/ directory."""

import json
import os
import subprocess
import warnings
from pathlib import Path

import pytest

import fmtstr

CLI = os.environ["FMTSTR_CLI"]
SAMPLES = Path(os.environ["FMTSTR_SAMPLES"])
PAL = SAMPLES / "pal"
DECODE = SAMPLES / "decode"


def cli(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True)


@pytest.mark.parametrize("string", ["x=%d\n", "", "thread %u: value %lld\n", "%s %v4hlf|é"])
def test_hash_equals_the_cli(string):
    run = cli("hash", "--raw", "--json", string)
    assert run.returncode == 0, run.stderr
    expected = json.loads(run.stdout)[0]["id"]
    assert fmtstr.hash(string) == expected
    assert fmtstr.hash(string.encode()) == expected


def test_hash_refuses_other_types():
    with pytest.raises(TypeError):
        fmtstr.hash(42)


@pytest.mark.parametrize(
    "buffer, elfs",
    [
        ("compute.bin", ["compute.elf", "graphics.elf"]),
        ("compute.bin", ["compute-linked.elf"]),
        ("overflow.bin", ["compute.elf", "graphics.elf"]),
    ],
)
def test_decode_equals_the_cli(buffer, elfs):
    args = ["decode", DECODE / buffer]
    for elf in elfs:
        args += ["--elf", PAL / elf]
    run = cli(*args)
    assert run.returncode == 0, run.stderr
    expected_warnings = [
        line.removeprefix("fmtstr: warning: ").replace(str(DECODE / buffer), "buffer")
        for line in run.stderr.decode().splitlines()
    ]
    data = (DECODE / buffer).read_bytes()
    for given in ([PAL / e for e in elfs], [(PAL / e).read_bytes() for e in elfs]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            text = fmtstr.decode(data, elfs=given)
        assert text.encode("utf-8", "surrogateescape") == run.stdout
        assert [str(w.message) for w in caught] == expected_warnings


def test_decode_with_json_strings_and_strict():
    run = cli("decode", DECODE / "compute.bin", "--strings", DECODE / "compute.json")
    text = fmtstr.decode((DECODE / "compute.bin").read_bytes(), strings=[DECODE / "compute.json"])
    assert text.encode() == run.stdout
    with pytest.raises(fmtstr.Error, match="overflowed"):
        fmtstr.decode((DECODE / "overflow.bin").read_bytes(), elfs=[PAL / "compute.elf"], strict=True)


def test_decode_errors_carry_the_cli_message(tmp_path):
    missing = tmp_path / "missing.elf"
    run = cli("decode", DECODE / "compute.bin", "--elf", missing)
    assert run.returncode == 2
    with pytest.raises(fmtstr.Error) as raised:
        fmtstr.decode(b"\0" * 16, elfs=[missing])
    assert run.stderr.decode().startswith("fmtstr: error: " + str(raised.value).splitlines()[0])
    with pytest.raises(fmtstr.Error, match="no format strings"):
        fmtstr.decode(b"\0" * 16)
    with pytest.raises(fmtstr.Error, match=r"elfs\[0\]"):
        fmtstr.decode(b"\0" * 16, elfs=[b"not an ELF"])


@pytest.mark.parametrize("elf", ["compute.elf", "compute-linked.elf", "llpc.elf", "no_strings.elf"])
def test_dump_equals_the_cli(elf):
    run = cli("dump", "--json", PAL / elf)
    assert run.returncode == 0, run.stderr
    assert fmtstr.dump(PAL / elf) == json.loads(run.stdout)
    assert fmtstr.dump(str(PAL / elf)) == json.loads(run.stdout)


@pytest.mark.parametrize(
    "base, inputs",
    [
        ("compute-linked.elf", []),
        ("compute.elf", ["graphics.elf", "llpc.elf"]),
    ],
)
def test_merge_equals_the_cli(tmp_path, base, inputs):
    expected = tmp_path / "cli.elf"
    run = cli("merge", PAL / base, *[PAL / i for i in inputs], "-o", expected)
    assert run.returncode == 0, run.stderr
    ours = tmp_path / "ours.elf"
    assert fmtstr.merge(PAL / base, [PAL / i for i in inputs], ours) is None
    assert ours.read_bytes() == expected.read_bytes()


def test_merge_collision_raises_with_the_cli_message(tmp_path):
    out = tmp_path / "out.elf"
    run = cli("merge", PAL / "compute.elf", PAL / "collision.elf", "-o", out)
    assert run.returncode == 1
    with pytest.raises(fmtstr.CollisionError) as raised:
        fmtstr.merge(PAL / "compute.elf", [PAL / "collision.elf"], out)
    assert str(raised.value) + "\n" == run.stderr.decode()
    assert isinstance(raised.value, fmtstr.Error)
    assert not out.exists()


@pytest.mark.parametrize(
    "fmt, args, typed",
    [
        ("x=%d y=%f\n", [7, 1.5], ["i32:7", "f64:1.5"]),
        ("%-8.3e|%#x|%5s|%c\n", [1234.5, 255, "hi", 65], ["f64:1234.5", "u32:255", "str:hi", "i32:65"]),
        ("%lld %hhd %u\n", [-5, 0x1FF, -1], ["i64:-5", "i32:511", "i32:-1"]),
        ("%v4hlf|%.1a|%g\n", [(1.0, 2.0, 3.0, 4.0), 1.96875, 0.0001], ["v4f32:1,2,3,4", "f64:1.96875", "f64:0.0001"]),
        ("%*d|%-*s|%%\n", [5, 42, 4, b"ab"], ["i32:5", "i32:42", "i32:4", "str:ab"]),
    ],
)
def test_printf_equals_the_cli(fmt, args, typed):
    run = cli("printf", "--raw", fmt, *typed)
    assert run.returncode == 0, run.stderr
    assert fmtstr.printf(fmt, *args) == run.stdout
    assert fmtstr.printf(fmt.encode(), *args) == run.stdout


def test_printf_errors():
    with pytest.raises(fmtstr.Error, match="in FORMAT"):
        fmtstr.printf("%y")
    with pytest.raises(TypeError):
        fmtstr.printf("%d", object())


LOWER = SAMPLES / "lower"


@pytest.mark.parametrize(
    "module, args, options",
    [
        ("forms.ll", ["--target", "nvptx"], {"target": "nvptx"}),
        (
            "worked-example.ll",
            ["--target", "nvptx", "--prefix", "site,thread", "--limit-per-site", "4"],
            {"target": "nvptx", "prefix": "site,thread", "limit_per_site": 4},
        ),
        ("warnings.ll", ["--target", "nvptx"], {"target": "nvptx"}),
        ("llpc-today.ll", ["--target", "amdgpu"], {"target": "amdgpu"}),
        ("worked-example.ll", ["--pass", "strip"], {"pass_": "strip"}),
    ],
)
def test_lower_equals_the_cli(module, args, options):
    run = cli("lower", *args, LOWER / module)
    assert run.returncode == 0, run.stderr
    for given in (LOWER / module, (LOWER / module).read_bytes()):
        name = str(LOWER / module)
        lowered = fmtstr.lower(given, name, **options)
        assert lowered["module"].encode("utf-8", "surrogateescape") == run.stdout
        assert lowered["diagnostics"] == run.stderr.decode()
        assert lowered["strings"] is None and lowered["report"] is None


def test_lower_gives_the_table_and_the_report_the_cli_writes(tmp_path):
    table, report = tmp_path / "table.json", tmp_path / "report.json"
    module = LOWER / "llpc-today.ll"
    run = cli(
        "lower", "--target", "amdgpu", "--stage", "buffer", "--emit-strings", table,
        "--report-json", report, module,
    )
    assert run.returncode == 0, run.stderr
    lowered = fmtstr.lower(
        module, target="amdgpu", stage="buffer", emit_strings=True, report=True
    )
    assert lowered["module"].encode() == run.stdout
    assert lowered["strings"] == json.loads(table.read_text())
    assert lowered["report"] == json.loads(report.read_text())


def test_lower_errors_carry_the_cli_diagnostics():
    module = LOWER / "warnings.ll"
    run = cli("lower", "--target", "nvptx", "--Werror", module)
    assert run.returncode == 1
    with pytest.raises(fmtstr.Error) as error:
        fmtstr.lower(module, target="nvptx", werror=True)
    assert str(error.value) == run.stderr.decode().rstrip("\n")
    run = cli("lower", "--target", "amdgpu", "--stage", "buffer", LOWER / "forms.ll")
    assert run.returncode == 2
    with pytest.raises(fmtstr.Error) as error:
        fmtstr.lower(LOWER / "forms.ll", target="amdgpu", stage="buffer")
    assert str(error.value) == run.stderr.decode().rstrip("\n")
    with pytest.raises(TypeError, match="targte"):
        fmtstr.lower(LOWER / "forms.ll", targte="nvptx")
    with pytest.raises(fmtstr.Error, match="runtime-strings"):
        fmtstr.lower(LOWER / "forms.ll", target="nvptx", runtime_strings=8)


@pytest.mark.parametrize(
    "fmt, args, options",
    [
        ("%ld %s", ["--args", "i32,ptr"], {"args": ["i32", "ptr"]}),
        ("%d %f", ["--args", "i32", "--format", "json"], {"args": ["i32"], "format": "json"}),
        ("%+p x", ["--args", "ptr", "--format", "sarif"], {"args": ["ptr"], "format": "sarif"}),
        ("%+p", ["--args", "ptr", "--dialect", "c"], {"args": ["ptr"], "dialect": "c"}),
        ("%d %f\n", ["--args", "i32,double"], {"args": ["i32", "double"]}),
    ],
)
def test_check_equals_the_cli(fmt, args, options):
    run = cli("check", "--raw", *args, fmt)
    checked = fmtstr.check(fmt, **options)
    assert checked["code"] == run.returncode
    assert checked["output"] == run.stdout.decode()
    assert checked["diagnostics"] == run.stderr.decode()
    assert fmtstr.check(fmt.encode(), **options) == checked


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_check_of_a_module_equals_the_cli(fmt):
    module = SAMPLES / "spirv" / "mistakes.spv"
    run = cli("check", "--format", fmt, module)
    checked = fmtstr.check(module, format=fmt)
    assert (checked["code"], checked["output"], checked["diagnostics"]) == (
        run.returncode,
        run.stdout.decode(),
        run.stderr.decode(),
    )


def test_check_errors_carry_the_cli_message():
    run = cli("check", "--raw", "--args", "i32", "%y %d")
    assert run.returncode == 2
    with pytest.raises(fmtstr.Error) as error:
        fmtstr.check("%y %d", ["i32"])
    assert "fmtstr: error: " + str(error.value).splitlines()[-1] in run.stderr.decode()
    with pytest.raises(TypeError):
        fmtstr.check("%d", ["i32"], format="xml")


@pytest.mark.parametrize(
    "paths, args, options",
    [
        (["pal"], [], {}),
        (["pal/compute.elf", "pal/graphics.elf"], ["--format", "json"], {"format": "json"}),
        (["pal"], ["--format", "github"], {"format": "github"}),
        (["pal"], ["--format", "sarif", "--verify-ids"], {"format": "sarif", "verify_ids": True}),
    ],
)
def test_audit_equals_the_cli(paths, args, options):
    full = [SAMPLES / p for p in paths]
    run = cli("audit", *args, *full)
    assert fmtstr.audit(full, **options) == (run.returncode, run.stdout.decode())


def test_audit_of_an_unreadable_path_raises_the_cli_message():
    missing = SAMPLES / "pal" / "no-such.elf"
    run = cli("audit", missing)
    assert run.returncode == 2
    with pytest.raises(fmtstr.Error) as error:
        fmtstr.audit([missing])
    assert run.stderr.decode() == "fmtstr: error: " + str(error.value) + "\n"
