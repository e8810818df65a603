//! fmtstr as a Python extension module (`fmtstr._fmtstr`, re-exported by the `fmtstr`
//! package): the functions of fmtstr-tools, with the CLI's messages in exceptions.

use std::path::PathBuf;

use fmtstr_format::{Arg, Format};
use fmtstr_tools::Source;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

create_exception!(
    fmtstr,
    Error,
    PyException,
    "Bad input: the message is the fmtstr CLI's (it names the input and the fix)."
);
create_exception!(
    fmtstr,
    CollisionError,
    Error,
    "A merge found IDs with two strings (collisions) or two argument layouts (conflicts)."
);

/// An error and its causes, as the CLI prints them after `fmtstr: error: `.
fn error(error: &fmtstr_tools::Error) -> PyErr {
    Error::new_err(fmtstr_tools::describe(error))
}

/// An input given as a path (str or os.PathLike) or as bytes.
enum Input {
    Path(PathBuf),
    Bytes { name: String, bytes: Vec<u8> },
}

impl Input {
    fn extract(value: &Bound<'_, PyAny>, name: String) -> PyResult<Input> {
        if let Ok(bytes) = value.downcast::<PyBytes>() {
            return Ok(Input::Bytes {
                name,
                bytes: bytes.as_bytes().to_vec(),
            });
        }
        value.extract::<PathBuf>().map(Input::Path).map_err(|_| {
            PyTypeError::new_err(format!(
                "{name}: expected a path (str or os.PathLike) or bytes, got {}",
                value
                    .get_type()
                    .name()
                    .map_or_else(|_| "?".into(), |n| n.to_string())
            ))
        })
    }

    fn source(&self) -> Source<'_> {
        match self {
            Input::Path(path) => Source::Path(path),
            Input::Bytes { name, bytes } => Source::Bytes { name, bytes },
        }
    }
}

fn inputs(values: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Vec<Input>> {
    let Some(values) = values else {
        return Ok(Vec::new());
    };
    if values.is_instance_of::<PyBytes>() || values.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what} is a list of paths or bytes, not one"
        )));
    }
    values
        .try_iter()?
        .enumerate()
        .map(|(index, value)| Input::extract(&value?, format!("{what}[{index}]")))
        .collect()
}

/// fmtstr's 48-bit ID of a format string (str is encoded as UTF-8; no trailing NUL).
#[pyfunction]
fn hash(string: &Bound<'_, PyAny>) -> PyResult<u64> {
    let bytes = string_bytes(string, "string")?;
    Ok(fmtstr_meta::FormatId::of(&bytes).get())
}

fn string_bytes(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = value.downcast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if let Ok(text) = value.downcast::<PyString>() {
        return Ok(text.to_cow()?.as_bytes().to_vec());
    }
    Err(PyTypeError::new_err(format!(
        "{what}: expected bytes or str"
    )))
}

/// What `fmtstr decode` prints for a printf buffer (see fmtstr/__init__.pyi).
#[pyfunction]
#[pyo3(signature = (buffer, elfs=None, strings=None, strict=false))]
fn decode(
    py: Python<'_>,
    buffer: &Bound<'_, PyAny>,
    elfs: Option<&Bound<'_, PyAny>>,
    strings: Option<&Bound<'_, PyAny>>,
    strict: bool,
) -> PyResult<PyObject> {
    let buffer = Input::extract(buffer, "buffer".into())?;
    let elfs = inputs(elfs, "elfs")?;
    let strings = inputs(strings, "strings")?;
    let (result, out, warned) = py.allow_threads(|| {
        let elf_sources: Vec<Source<'_>> = elfs.iter().map(Input::source).collect();
        let string_sources: Vec<Source<'_>> = strings.iter().map(Input::source).collect();
        let mut out = Vec::new();
        let mut warned = Vec::new();
        let result = fmtstr_tools::decode::decode(
            &buffer.source(),
            &elf_sources,
            &string_sources,
            &fmtstr_tools::decode::Options::default(),
            &mut out,
            &mut warned,
        );
        (result, out, warned)
    });
    let summary = result.map_err(|e| error(&e))?;
    let warned = String::from_utf8_lossy(&warned);
    if strict && summary.warnings > 0 {
        return Err(Error::new_err(format!(
            "{} warning(s) with strict=True:\n{}",
            summary.warnings,
            warned.trim_end()
        )));
    }
    let warnings = py.import("warnings")?;
    for line in warned.lines() {
        let message = line.strip_prefix("fmtstr: warning: ").unwrap_or(line);
        warnings.call_method1("warn", (message, py.get_type::<PyUserWarning>(), 2))?;
    }
    // The exact bytes: what is not UTF-8 comes back as surrogate escapes.
    let text = PyBytes::new(py, &out).call_method1("decode", ("utf-8", "surrogateescape"))?;
    Ok(text.unbind())
}

/// What `fmtstr dump --json` prints for one file, as Python objects.
#[pyfunction]
fn dump(py: Python<'_>, elf: &Bound<'_, PyAny>) -> PyResult<PyObject> {
    let input = Input::extract(elf, "elf".into())?;
    let dumped = fmtstr_tools::dump::dump(&[input.source()], fmtstr_tools::dump::Mode::Json)
        .map_err(|e| error(&e))?;
    let fmtstr_tools::dump::Dumped::Json(reports) = dumped else {
        return Err(Error::new_err(
            "fmtstr dump gave text where JSON was asked for",
        ));
    };
    let text = serde_json::to_string(&reports)
        .map_err(|e| Error::new_err(format!("cannot write JSON: {e}")))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// `fmtstr merge BASE INPUTS... -o OUT`.
#[pyfunction]
fn merge(py: Python<'_>, base: PathBuf, inputs: Vec<PathBuf>, out: PathBuf) -> PyResult<()> {
    let merged = py
        .allow_threads(|| {
            let sources: Vec<Source<'_>> = inputs.iter().map(|p| Source::Path(p)).collect();
            fmtstr_tools::merge::merge(
                &Source::Path(&base),
                &sources,
                &fmtstr_tools::merge::Options::default(),
            )
        })
        .map_err(|e| error(&e))?;
    let Some(image) = merged.image else {
        return Err(CollisionError::new_err(merged.messages.join("\n")));
    };
    // Through a temporary file and a rename: a reader never sees a partial file.
    let temporary = out.with_file_name(format!(
        ".{}.fmtstr-{}",
        out.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        std::process::id()
    ));
    std::fs::write(&temporary, &image)
        .and_then(|()| std::fs::rename(&temporary, &out))
        .map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            Error::new_err(format!("cannot write {}: {e}", out.display()))
        })
}

/// The bytes glibc's printf prints for `fmt` and `args` (see fmtstr/__init__.pyi).
#[pyfunction]
#[pyo3(signature = (fmt, *args))]
fn printf<'py>(
    py: Python<'py>,
    fmt: &Bound<'py, PyAny>,
    args: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = string_bytes(fmt, "fmt")?;
    let format = Format::parse(&bytes).map_err(|e| Error::new_err(format!("in FORMAT {e}")))?;
    let mut strings: Vec<Vec<u8>> = Vec::new();
    // Strings first (the arguments borrow them).
    for arg in args.iter() {
        if arg.is_instance_of::<PyBytes>() || arg.is_instance_of::<PyString>() {
            strings.push(string_bytes(&arg, "argument")?);
        }
    }
    let mut strings = strings.iter();
    let mut values: Vec<Arg<'_>> = Vec::new();
    for (index, arg) in args.iter().enumerate() {
        if arg.is_none() {
            values.push(Arg::Ptr(0));
        } else if arg.is_instance_of::<PyBytes>() || arg.is_instance_of::<PyString>() {
            values.push(Arg::Str(strings.next().map_or(&[][..], Vec::as_slice)));
        } else if arg.is_instance_of::<PyList>() || arg.is_instance_of::<PyTuple>() {
            for component in arg.try_iter()? {
                values.push(number(&component?, index)?);
            }
        } else {
            values.push(number(&arg, index)?);
        }
    }
    let mut rendered = Vec::new();
    format
        .render(&values, &mut rendered)
        .map_err(|e| Error::new_err(format!("cannot render FORMAT: {e}")))?;
    Ok(PyBytes::new(py, &rendered))
}

/// What `fmtstr lower` does to a module (see fmtstr/__init__.pyi).
#[pyfunction]
#[pyo3(signature = (module, name=None, **options))]
fn lower(
    py: Python<'_>,
    module: &Bound<'_, PyAny>,
    name: Option<String>,
    options: Option<&Bound<'_, pyo3::types::PyDict>>,
) -> PyResult<PyObject> {
    let input = Input::extract(module, "module".into())?;
    let (name, bytes) = match input {
        Input::Path(path) => {
            let bytes = std::fs::read(&path)
                .map_err(|e| Error::new_err(format!("cannot read {}: {e}", path.display())))?;
            (name.unwrap_or_else(|| path.display().to_string()), bytes)
        }
        Input::Bytes { bytes, .. } => (name.unwrap_or_else(|| "module".into()), bytes),
    };
    // The options by their command-line names: runtime_strings is --runtime-strings.
    let renamed = pyo3::types::PyDict::new(py);
    if let Some(options) = options {
        for (key, value) in options.iter() {
            let key: String = key.extract()?;
            // `pass_` is how Python spells the keyword `pass`.
            renamed.set_item(key.trim_end_matches('_').replace('_', "-"), value)?;
        }
    }
    let json: String = py
        .import("json")?
        .call_method1("dumps", (renamed,))?
        .extract()?;
    let options: fmtstr_tools::lower::LowerOptions =
        serde_json::from_str(&json).map_err(|e| PyTypeError::new_err(format!("options: {e}")))?;
    let lowered =
        py.allow_threads(|| fmtstr_tools::lower::lower_in_memory(&name, &bytes, &options));
    if lowered.code != 0 {
        return Err(Error::new_err(format!(
            "{}fmtstr: error: {}",
            lowered.diagnostics,
            lowered.error.unwrap_or_default()
        )));
    }
    let json_loads = |text: &Option<String>| -> PyResult<PyObject> {
        match text {
            Some(text) => Ok(py.import("json")?.call_method1("loads", (text,))?.unbind()),
            None => Ok(py.None()),
        }
    };
    let result = pyo3::types::PyDict::new(py);
    let text = PyBytes::new(py, lowered.module.as_deref().unwrap_or_default())
        .call_method1("decode", ("utf-8", "surrogateescape"))?;
    result.set_item("module", text)?;
    result.set_item("diagnostics", lowered.diagnostics.as_str())?;
    result.set_item("strings", json_loads(&lowered.strings_json)?)?;
    result.set_item("report", json_loads(&lowered.report_json)?)?;
    Ok(result.into_any().unbind())
}

/// What `fmtstr check` prints for a format or a SPIR-V module (see fmtstr/__init__.pyi).
#[pyfunction]
#[pyo3(signature = (input, args=Vec::new(), dialect=None, format="text"))]
fn check(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    args: Vec<String>,
    dialect: Option<String>,
    format: &str,
) -> PyResult<PyObject> {
    let options: fmtstr_tools::check::CheckOptions = serde_json::from_value(serde_json::json!({
        "args": args,
        "dialect": dialect,
        "format": format,
    }))
    .map_err(|e| PyTypeError::new_err(format!("options: {e}")))?;
    // A str or bytes is the format itself; a path (os.PathLike) names a SPIR-V module.
    let checked = if input.is_instance_of::<PyString>() || input.is_instance_of::<PyBytes>() {
        let bytes = string_bytes(input, "input")?;
        py.allow_threads(|| {
            fmtstr_tools::check::check_format_bytes(&bytes, &options, fmtstr_tools::VERSION)
        })
    } else {
        let path: PathBuf = input.extract().map_err(|_| {
            PyTypeError::new_err("input: expected a format (str or bytes) or a module's path")
        })?;
        let bytes = std::fs::read(&path).map_err(|e| {
            Error::new_err(format!("cannot read {}\n  caused by: {e}", path.display()))
        })?;
        let name = path.display().to_string();
        py.allow_threads(|| {
            fmtstr_tools::check::check_module_bytes(&name, &bytes, &options, fmtstr_tools::VERSION)
        })
    };
    if checked.code == 2 {
        return Err(Error::new_err(format!(
            "{}{}",
            checked.stderr,
            checked.error.unwrap_or_default()
        )));
    }
    let result = pyo3::types::PyDict::new(py);
    result.set_item("code", checked.code)?;
    result.set_item("output", checked.stdout)?;
    result.set_item("diagnostics", checked.stderr)?;
    Ok(result.into_any().unbind())
}

/// What `fmtstr audit` prints for files and directories (see fmtstr/__init__.pyi).
#[pyfunction]
#[pyo3(signature = (paths, format="text", verify_ids=false))]
fn audit(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    format: &str,
    verify_ids: bool,
) -> PyResult<(u8, String)> {
    let request: fmtstr_tools::audit_formats::Request = serde_json::from_value(serde_json::json!({
        "format": format,
        "verify-ids": verify_ids,
    }))
    .map_err(|e| PyTypeError::new_err(format!("options: {e}")))?;
    if paths.is_empty() {
        return Err(Error::new_err(
            "no paths to audit: give at least one file or directory",
        ));
    }
    let (text, code) = py
        .allow_threads(|| {
            fmtstr_tools::audit_formats::audit_to_text(&paths, &request, fmtstr_tools::VERSION)
        })
        .map_err(Error::new_err)?;
    Ok((code, text))
}

/// An int (its bits as C passes them: negative numbers in two's complement) or a float.
fn number(value: &Bound<'_, PyAny>, index: usize) -> PyResult<Arg<'static>> {
    if value.is_instance_of::<pyo3::types::PyFloat>() {
        return Ok(Arg::Float(value.extract()?));
    }
    if let Ok(bits) = value.extract::<u64>() {
        return Ok(Arg::Int(bits));
    }
    if let Ok(signed) = value.extract::<i64>() {
        return Ok(Arg::Int(signed as u64));
    }
    Err(PyTypeError::new_err(format!(
        "argument {}: expected an int that fits 64 bits, a float, bytes, str, None or a \
         sequence of numbers",
        index + 1
    )))
}

#[pymodule]
fn _fmtstr(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("CollisionError", m.py().get_type::<CollisionError>())?;
    m.add_function(wrap_pyfunction!(hash, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(dump, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add_function(wrap_pyfunction!(printf, m)?)?;
    m.add_function(wrap_pyfunction!(lower, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    Ok(())
}
