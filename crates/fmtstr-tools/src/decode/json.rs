//! `fmtstr decode --json`: one object per entry, one per line (schemas/decode.schema.json).

use std::io::{self, Write};
use std::ops::Range;

use fmtstr_decode::stream::Stats;
use fmtstr_decode::{Buffer, Decoder, Formats, Problem, ProblemKind, RawEntry, TextChunk};
use fmtstr_format::{Arg, ArgClass, ArgSlot, Spec};
use serde_json::{json, Map, Value as Json};

/// The JSON lines of one window, with its problems (as [`stream::decode_text`] gives them).
pub fn decode_window(buffer: &Buffer<'_>, formats: &Formats, window: Range<u64>) -> TextChunk {
    let mut decoder = Decoder::new(formats);
    let mut chunk = TextChunk::default();
    let mut text = Vec::new();
    for item in buffer.entries_in(window) {
        let entry = match item {
            Ok(entry) => entry,
            Err((offset, stop)) => {
                let problem = Problem {
                    offset,
                    kind: ProblemKind::Stop(stop),
                };
                let mut object = Map::new();
                object.insert("offset".into(), json!(offset));
                object.insert("byte".into(), json!(problem.byte_offset()));
                object.insert("error".into(), json!(problem.kind.to_string()));
                object.insert("text".into(), Json::Null);
                line(&mut chunk.text, &Json::Object(object));
                chunk.marked += 1;
                chunk.problems.push(problem);
                break;
            }
        };
        let mut object = Map::new();
        object.insert("offset".into(), json!(entry.offset));
        object.insert("byte".into(), json!(entry.byte_offset()));
        object.insert("size".into(), json!(entry.size));
        object.insert("id".into(), json!(entry.id));
        let known = formats.get(entry.id);
        object.insert(
            "format".into(),
            known.map_or(Json::Null, |known| json!(known.entry().string())),
        );
        if let Some(sites) = known.map(|known| known.entry().sites()) {
            if !sites.is_empty() {
                object.insert("sites".into(), json!(sites));
            }
        }
        text.clear();
        match decoder.render(&entry, &mut text) {
            Ok(warning) => {
                chunk.printed += 1;
                object.insert("arguments".into(), arguments(&mut decoder, &entry));
                object.insert(
                    "text".into(),
                    json!(String::from_utf8_lossy(&text).into_owned()),
                );
                if let Some(kind) = warning {
                    object.insert("warnings".into(), json!([kind.to_string()]));
                    chunk.problems.push(Problem {
                        offset: entry.offset,
                        kind,
                    });
                }
            }
            Err(kind) => {
                chunk.marked += 1;
                object.insert("arguments".into(), json!([]));
                object.insert("text".into(), Json::Null);
                object.insert("error".into(), json!(kind.to_string()));
                chunk.problems.push(Problem {
                    offset: entry.offset,
                    kind,
                });
            }
        }
        line(&mut chunk.text, &Json::Object(object));
        decoder.take_notes(&mut chunk.problems);
    }
    chunk
}

fn line(out: &mut Vec<u8>, value: &Json) {
    // Serializing a `Value` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *out, value);
    out.push(b'\n');
}

/// The arguments of an entry that rendered: per argument, its conversion, value(s) and bits.
fn arguments(decoder: &mut Decoder<'_>, entry: &RawEntry<'_>) -> Json {
    let Ok(interpreted) = decoder.interpret(entry) else {
        return json!([]);
    };
    let format = interpreted.compiled.format();
    let specs: Vec<&Spec> = format.specs().collect();
    let mut args = interpreted.args.iter();
    let mut list = Vec::new();
    for (index, slot) in format.arguments().into_iter().enumerate() {
        let wide = interpreted.compiled.is_wide(index);
        let (spec, star) = match slot {
            ArgSlot::Star { spec } => (specs[spec], true),
            ArgSlot::Value { spec } => (specs[spec], false),
        };
        let text = String::from_utf8_lossy(&format.bytes()[spec.offset..spec.offset + spec.len]);
        let components = if star {
            1
        } else {
            usize::from(spec.vector_len().unwrap_or(1))
        };
        let mut values = Vec::with_capacity(components);
        for _ in 0..components {
            let Some(arg) = args.next() else {
                break;
            };
            values.push(value(spec, star, arg));
        }
        let mut object = Map::new();
        object.insert(
            "conversion".into(),
            json!(if star {
                format!("* of {text}")
            } else {
                text.into_owned()
            }),
        );
        object.insert("bits".into(), json!(if wide { 64 } else { 32 }));
        object.insert(
            "value".into(),
            if spec.vector_len().is_some() && !star {
                Json::Array(values)
            } else {
                values.pop().unwrap_or(Json::Null)
            },
        );
        list.push(Json::Object(object));
    }
    Json::Array(list)
}

/// One value as C reads it for its conversion.
fn value(spec: &Spec, star: bool, arg: &Arg<'_>) -> Json {
    match *arg {
        Arg::Int(bits) if star => json!(bits as u32 as i32),
        Arg::Int(bits) => match (spec.class(), spec.c_width()) {
            (ArgClass::Char, _) => json!(bits as u8),
            (ArgClass::Signed, 8) => json!(bits as i8),
            (ArgClass::Signed, 16) => json!(bits as i16),
            (ArgClass::Signed, 32) => json!(bits as i32),
            (ArgClass::Signed, _) => json!(bits as i64),
            (_, 8) => json!(bits as u8),
            (_, 16) => json!(bits as u16),
            (_, 32) => json!(bits as u32),
            _ => json!(bits),
        },
        Arg::Float(value) if value.is_nan() => {
            json!(if value.is_sign_negative() {
                "-nan"
            } else {
                "nan"
            })
        }
        Arg::Float(value) if value.is_infinite() => {
            json!(if value < 0.0 { "-inf" } else { "inf" })
        }
        Arg::Float(value) => json!(value),
        Arg::Ptr(0) if spec.class() == ArgClass::String => Json::Null,
        Arg::Ptr(bits) => json!(format!("{bits:#x}")),
        Arg::Str(text) => json!(String::from_utf8_lossy(text)),
    }
}

/// `--stats --json`.
pub fn write_stats(
    out: &mut dyn Write,
    buffer: &Buffer<'_>,
    formats: &Formats,
    stats: &Stats,
) -> io::Result<()> {
    let rows = stats.sorted();
    let entries: u64 = rows.iter().map(|(_, c)| c.entries).sum();
    let dwords: u64 = rows.iter().map(|(_, c)| c.dwords).sum();
    let overflow = buffer.overflow();
    let object = json!({
        "buffer_offset": buffer.header().buffer_offset,
        "capacity": buffer.capacity(),
        "lost_dwords": overflow.map_or(0, |o| o.lost_dwords),
        "entries": entries,
        "dwords": dwords,
        "stopped": stats.stop.as_ref().map(|p| json!({
            "offset": p.offset,
            "byte": p.byte_offset(),
            "error": p.kind.to_string(),
        })),
        "formats": rows.iter().map(|(id, count)| json!({
            "id": id,
            "format": formats.get(*id).map(|known| known.entry().string()),
            "entries": count.entries,
            "dwords": count.dwords,
            "strings_cut": count.strings_cut,
        })).collect::<Vec<_>>(),
    });
    let mut object = object;
    let sites = super::site_stats(formats, &rows);
    if !sites.is_empty() {
        object["sites"] = sites
            .iter()
            .map(|site| {
                json!({
                    "site": site.site,
                    "entries": site.entries,
                    "limit_hit": site.limit_hit,
                })
            })
            .collect();
    }
    serde_json::to_writer_pretty(&mut *out, &object)?;
    writeln!(out)
}
