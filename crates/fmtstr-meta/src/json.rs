//! JSON forms: any msgpack value, and the format-string table.
//!
//! A msgpack value becomes the JSON value a reader expects (nil `null`, booleans, integers and
//! floats as numbers, UTF-8 strings as strings, arrays as arrays, maps with distinct string keys
//! as objects in key order) and the rest uses tagged objects, so nothing is lost or ambiguous:
//!
//! | msgpack | JSON |
//! | --- | --- |
//! | str that is not UTF-8 | `{"$str_hex": "ff00"}` |
//! | bin | `{"$bin": "0a0b"}` (hex) |
//! | ext | `{"$ext": 5, "data": "0a0b"}` |
//! | NaN and infinite floats | `{"$float": "nan"}`, `"inf"`, `"-inf"` |
//! | map with a non-string, duplicate or `$`-prefixed key | `{"$map": [[key, value], ...]}` |
//!
//! The width of an integer or float encoding is not kept (the value and its signedness are).
//! The table's JSON form is the JSON-ified `amdpal.format_strings` map itself
//! (`schemas/format-strings.schema.json`), with the format string as a plain JSON string.

use std::fmt::Write as _;

use rmpv::Value;
use serde_json::{Map, Number, Value as Json};

use crate::mask::Mask;
use crate::table::{keys, AbortEntry, Entry, Item, Table, VERSION};
use crate::FormatId;

/// A msgpack value as JSON (see the module documentation for the mapping).
pub fn to_json(value: &Value) -> Json {
    match value {
        Value::Nil => Json::Null,
        Value::Boolean(value) => Json::Bool(*value),
        Value::Integer(integer) => match (integer.as_u64(), integer.as_i64()) {
            (Some(value), _) => Json::from(value),
            (None, Some(value)) => Json::from(value),
            (None, None) => Json::Null,
        },
        Value::F32(value) => float(f64::from(*value)),
        Value::F64(value) => float(*value),
        Value::String(text) => match text.as_str() {
            Some(text) => Json::from(text),
            None => tagged("$str_hex", Json::from(hex(text.as_bytes()))),
        },
        Value::Binary(bytes) => tagged("$bin", Json::from(hex(bytes))),
        Value::Ext(kind, bytes) => {
            let mut object = Map::new();
            object.insert("$ext".into(), Json::from(*kind));
            object.insert("data".into(), Json::from(hex(bytes)));
            Json::Object(object)
        }
        Value::Array(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Map(pairs) => map_to_json(pairs, &[]),
    }
}

fn float(value: f64) -> Json {
    match Number::from_f64(value) {
        Some(number) => Json::Number(number),
        None if value.is_nan() => tagged("$float", Json::from("nan")),
        None if value > 0.0 => tagged("$float", Json::from("inf")),
        None => tagged("$float", Json::from("-inf")),
    }
}

fn tagged(tag: &str, value: Json) -> Json {
    let mut object = Map::new();
    object.insert(tag.into(), value);
    Json::Object(object)
}

fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// A map as a JSON object after `known` members, or as `{"$map": [...]}` when its keys cannot
/// be object members. Keys already present in `known` force the `$map` form too.
fn map_to_json(pairs: &[(Value, Value)], known: &[&str]) -> Json {
    let plain = pairs.iter().enumerate().all(|(index, (key, _))| {
        key.as_str().is_some_and(|name| {
            !name.starts_with('$')
                && !known.contains(&name)
                && !pairs[..index]
                    .iter()
                    .any(|(seen, _)| seen.as_str() == Some(name))
        })
    });
    if plain {
        Json::Object(
            pairs
                .iter()
                .map(|(key, value)| (key.as_str().unwrap_or_default().to_owned(), to_json(value)))
                .collect(),
        )
    } else {
        tagged(
            "$map",
            Json::Array(
                pairs
                    .iter()
                    .map(|(key, value)| Json::Array(vec![to_json(key), to_json(value)]))
                    .collect(),
            ),
        )
    }
}

/// Why JSON cannot be turned into msgpack or into a table. `path` is a JSON pointer-like path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct JsonError {
    /// Where the offending value sits, as `.strings[1].index` or `.$map[0][1]`; `(top level)`
    /// for the whole document.
    pub path: String,
    /// What is wrong with the value there and what it must be instead.
    pub message: String,
}

fn json_error<T>(path: &str, message: impl Into<String>) -> Result<T, JsonError> {
    Err(JsonError {
        path: if path.is_empty() {
            "(top level)".into()
        } else {
            path.into()
        },
        message: message.into(),
    })
}

/// The msgpack value a JSON value stands for: the inverse of [`to_json`].
pub fn from_json(json: &Json) -> Result<Value, JsonError> {
    from_json_at(json, "")
}

fn from_json_at(json: &Json, path: &str) -> Result<Value, JsonError> {
    Ok(match json {
        Json::Null => Value::Nil,
        Json::Bool(value) => Value::Boolean(*value),
        Json::Number(number) => {
            if let Some(value) = number.as_u64() {
                Value::from(value)
            } else if let Some(value) = number.as_i64() {
                Value::from(value)
            } else {
                Value::F64(number.as_f64().unwrap_or(f64::NAN))
            }
        }
        Json::String(text) => Value::from(text.as_str()),
        Json::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(index, item)| from_json_at(item, &format!("{path}[{index}]")))
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(object) => {
            if let Some(value) = tagged_from_json(object, path)? {
                value
            } else {
                let mut pairs = Vec::with_capacity(object.len());
                for (key, value) in object {
                    if key.starts_with('$') {
                        return json_error(
                            &format!("{path}.{key}"),
                            "unknown `$` form; the tagged forms are $str_hex, $bin, $ext with data, \
                             $float and $map (write a map whose keys start with `$` as $map)",
                        );
                    }
                    pairs.push((
                        Value::from(key.as_str()),
                        from_json_at(value, &format!("{path}.{key}"))?,
                    ));
                }
                Value::Map(pairs)
            }
        }
    })
}

fn tagged_from_json(object: &Map<String, Json>, path: &str) -> Result<Option<Value>, JsonError> {
    let hex_bytes = |value: &Json, at: &str| -> Result<Vec<u8>, JsonError> {
        let Some(text) = value.as_str() else {
            return json_error(at, "must be a string of hex digits");
        };
        if text.len() % 2 != 0 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return json_error(at, "must be an even number of hex digits");
        }
        Ok((0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap_or(0))
            .collect())
    };
    let keys: Vec<&str> = object.keys().map(String::as_str).collect();
    let at = |key: &str| format!("{path}.{key}");
    Ok(Some(match keys.as_slice() {
        ["$str_hex"] => {
            let bytes = hex_bytes(&object["$str_hex"], &at("$str_hex"))?;
            crate::msgpack::string_value(&bytes)
        }
        ["$bin"] => Value::Binary(hex_bytes(&object["$bin"], &at("$bin"))?),
        ["$ext", "data"] | ["data", "$ext"] => {
            let Some(kind) = object["$ext"].as_i64().and_then(|k| i8::try_from(k).ok()) else {
                return json_error(&at("$ext"), "must be an extension type from -128 to 127");
            };
            Value::Ext(kind, hex_bytes(&object["data"], &at("data"))?)
        }
        ["$float"] => match object["$float"].as_str() {
            Some("nan") => Value::F64(f64::NAN),
            Some("inf") => Value::F64(f64::INFINITY),
            Some("-inf") => Value::F64(f64::NEG_INFINITY),
            _ => return json_error(&at("$float"), "must be \"nan\", \"inf\" or \"-inf\""),
        },
        ["$map"] => {
            let Some(pairs) = object["$map"].as_array() else {
                return json_error(&at("$map"), "must be an array of [key, value] pairs");
            };
            let mut map = Vec::with_capacity(pairs.len());
            for (index, pair) in pairs.iter().enumerate() {
                let here = format!("{}[{index}]", at("$map"));
                match pair.as_array().map(Vec::as_slice) {
                    Some([key, value]) => map.push((
                        from_json_at(key, &format!("{here}[0]"))?,
                        from_json_at(value, &format!("{here}[1]"))?,
                    )),
                    _ => return json_error(&here, "must be a [key, value] pair"),
                }
            }
            Value::Map(map)
        }
        _ => return Ok(None),
    }))
}

impl Entry<'_> {
    /// The entry as a JSON object with the PAL key names; unknown keys follow.
    pub fn to_json(&self) -> Json {
        let mut object = Map::new();
        object.insert(keys::INDEX.into(), Json::from(self.id().get()));
        object.insert(keys::STRING.into(), Json::from(self.string()));
        object.insert(
            keys::ARGUMENT_COUNT.into(),
            Json::from(self.argument_count()),
        );
        object.insert(keys::MASK.into(), Json::from(self.mask().words().to_vec()));
        extend_with_extra(
            &mut object,
            self.extra(),
            &[keys::INDEX, keys::STRING, keys::ARGUMENT_COUNT, keys::MASK],
        );
        Json::Object(object)
    }
}

impl AbortEntry<'_> {
    /// The entry as a JSON object: its keys as they are, in order.
    pub fn to_json(&self) -> Json {
        map_to_json(self.pairs(), &[])
    }
}

/// Adds unknown keys as members, or as one `$extra` member of pairs when any key cannot be a
/// member (not a string, starts with `$`, or clashes with a known key).
fn extend_with_extra(object: &mut Map<String, Json>, extra: &[(Value, Value)], known: &[&str]) {
    if extra.is_empty() {
        return;
    }
    match map_to_json(extra, known) {
        Json::Object(members) if !members.contains_key("$map") => object.extend(members),
        Json::Object(mut tagged) => {
            if let Some(pairs) = tagged.remove("$map") {
                object.insert("$extra".into(), pairs);
            }
        }
        _ => {}
    }
}

impl Table<'_> {
    /// The table in its JSON form (`schemas/format-strings.schema.json`).
    pub fn to_json(&self) -> Json {
        let mut object = Map::new();
        object.insert(keys::VERSION.into(), Json::from(VERSION));
        object.insert(
            keys::STRINGS.into(),
            Json::Array(
                self.strings()
                    .map(|item| match item {
                        Item::Printf(entry) => entry.to_json(),
                        Item::Abort(entry) => entry.to_json(),
                    })
                    .collect(),
            ),
        );
        if let Some(offset) = self.user_data_offset {
            object.insert(keys::USER_DATA_OFFSET.into(), Json::from(offset));
        }
        extend_with_extra(
            &mut object,
            &self.extra,
            &[keys::VERSION, keys::STRINGS, keys::USER_DATA_OFFSET],
        );
        Json::Object(object)
    }

    /// Reads a table from its JSON form. `.index` may be a number or a string in decimal or
    /// `0x` hex.
    pub fn from_json(json: &Json) -> Result<Table<'static>, JsonError> {
        let Some(object) = json.as_object() else {
            return json_error(
                "",
                "must be an object with \".version\": 1 and \".strings\": [...]",
            );
        };
        let mut table = Table::new();
        let mut version = false;
        let mut strings = None;
        for (key, value) in object {
            match key.as_str() {
                keys::VERSION => {
                    if value.as_u64() != Some(VERSION) {
                        return json_error(
                            keys::VERSION,
                            format!("is {value}; fmtstr reads and writes version {VERSION}"),
                        );
                    }
                    version = true;
                }
                keys::STRINGS => strings = Some(value),
                keys::USER_DATA_OFFSET => match value.as_u64() {
                    Some(offset) => table.user_data_offset = Some(offset),
                    None => {
                        return json_error(
                            keys::USER_DATA_OFFSET,
                            "must be a whole number (the printf buffer's user-data offset in \
                             dwords)",
                        )
                    }
                },
                "$extra" => table.extra.extend(extra_pairs(value, "$extra")?),
                _ => table.extra.push((
                    Value::from(key.as_str()),
                    from_json_at(value, &format!(".{key}"))?,
                )),
            }
        }
        if !version {
            return json_error(
                "",
                "has no \".version\": 1 (add it; this is amdpal.format_strings version 1)",
            );
        }
        let Some(strings) = strings.and_then(Json::as_array) else {
            return json_error("", "needs \".strings\": an array of entries");
        };
        for (index, entry) in strings.iter().enumerate() {
            let path = format!("{}[{index}]", keys::STRINGS);
            let is_abort = entry.as_object().is_some_and(|object| {
                object.contains_key(keys::IS_ABORT_MESSAGE) && !object.contains_key(keys::STRING)
            });
            if is_abort {
                let Value::Map(pairs) = from_json_at(entry, &path)? else {
                    return json_error(&path, "must be an object");
                };
                table
                    .aborts
                    .push(AbortEntry::new(table.entries.len(), pairs));
            } else {
                table.entries.push(entry_from_json(entry, &path)?);
            }
        }
        Ok(table)
    }
}

fn extra_pairs(value: &Json, path: &str) -> Result<Vec<(Value, Value)>, JsonError> {
    match from_json_at(&tagged("$map", value.clone()), path)? {
        Value::Map(pairs) => Ok(pairs),
        _ => json_error(path, "must be an array of [key, value] pairs"),
    }
}

fn entry_from_json(json: &Json, path: &str) -> Result<Entry<'static>, JsonError> {
    let Some(object) = json.as_object() else {
        return json_error(
            path,
            "must be an object with .index, .string, .argument_count and .64bit_arguments",
        );
    };
    let mut id = None;
    let mut string = None;
    let mut argument_count = None;
    let mut mask = None;
    let mut extra = Vec::new();
    for (key, value) in object {
        let here = format!("{path}{key}");
        match key.as_str() {
            keys::INDEX => {
                let parsed = match value {
                    Json::Number(number) => match number.as_u64() {
                        Some(raw) => FormatId::new(raw).ok_or_else(|| {
                            format!("{raw} is not an ID: IDs are between 1 and 0xffffffffffff (48 bits)")
                        }),
                        None => Err(format!("{number} is not an ID: IDs are whole numbers from 1 to 2^48-1")),
                    },
                    Json::String(text) => text.parse::<FormatId>().map_err(|error| error.to_string()),
                    _ => Err("must be a number, or a string in decimal or 0x hex".to_owned()),
                };
                id = Some(parsed.or_else(|message| json_error(&here, message))?);
            }
            keys::STRING => match value.as_str() {
                Some(text) => string = Some(text.to_owned()),
                None => {
                    return json_error(
                        &here,
                        "must be a string (the format string itself, with JSON escapes)",
                    )
                }
            },
            keys::ARGUMENT_COUNT => match value.as_u64() {
                Some(count) => argument_count = Some(count),
                None => return json_error(&here, "must be a whole number"),
            },
            keys::MASK => {
                let words = value
                    .as_array()
                    .and_then(|items| items.iter().map(Json::as_u64).collect::<Option<Vec<u64>>>());
                match words {
                    Some(words) => mask = Some(Mask::from_words(&words)),
                    None => {
                        return json_error(
                            &here,
                            "must be an array of whole numbers (64-bit words; bit i set when argument i is 64 bits)",
                        )
                    }
                }
            }
            "$extra" => extra.extend(extra_pairs(value, &here)?),
            _ => extra.push((Value::from(key.as_str()), from_json_at(value, &here)?)),
        }
    }
    let missing = |key: &str| json_error(path, format!("has no \"{key}\""));
    let Some(id) = id else {
        return missing(keys::INDEX);
    };
    let Some(string) = string else {
        return missing(keys::STRING);
    };
    let Some(argument_count) = argument_count else {
        return missing(keys::ARGUMENT_COUNT);
    };
    let mask = match mask {
        Some(mask) => mask,
        None => return missing(keys::MASK),
    };
    Ok(Entry::new(id, string, argument_count, mask).with_extra(extra))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_json() {
        let value = Value::Map(vec![
            (Value::from("a"), Value::from(1u64)),
            (Value::from("neg"), Value::from(-5i64)),
            (Value::from("f"), Value::F64(0.5)),
            (Value::from("nan"), Value::F64(f64::INFINITY)),
            (Value::from("bin"), Value::Binary(vec![0, 255])),
            (Value::from("ext"), Value::Ext(-3, vec![1])),
            (Value::from("bad"), crate::msgpack::string_value(b"\xff")),
            (
                Value::from("regs"),
                Value::Map(vec![(Value::from(11776u64), Value::from(32768u64))]),
            ),
            (
                Value::from("dup"),
                Value::Map(vec![
                    (Value::from("k"), Value::Nil),
                    (Value::from("k"), Value::Nil),
                ]),
            ),
            (
                Value::from("dollar"),
                Value::Map(vec![(Value::from("$bin"), Value::Nil)]),
            ),
            (
                Value::from("list"),
                Value::Array(vec![Value::Boolean(true), Value::from("x")]),
            ),
        ]);
        let json = to_json(&value);
        assert_eq!(json["regs"], serde_json::json!({"$map": [[11776, 32768]]}));
        assert_eq!(json["bin"], serde_json::json!({"$bin": "00ff"}));
        assert_eq!(json["bad"], serde_json::json!({"$str_hex": "ff"}));
        assert_eq!(from_json(&json), Ok(value));
    }

    #[test]
    fn tables_round_trip_through_json() {
        let table = Table {
            entries: vec![
                Entry::new(
                    FormatId::new(7).unwrap(),
                    "x=%d\n",
                    1,
                    Mask::from_words(&[0]),
                ),
                Entry::for_format("%ld %f", 2, Mask::from_words(&[3]))
                    .with_extra(vec![(Value::from(".user_data_offset"), Value::from(4u64))]),
            ],
            aborts: vec![AbortEntry::new(
                1,
                vec![
                    (Value::from(".index"), Value::from(12345678u64)),
                    (Value::from(".is_abort_message"), Value::from(1u64)),
                    (Value::from(".data_count"), Value::from(2u64)),
                    (
                        Value::from(".constant_status"),
                        Value::Array(vec![3u64.into()]),
                    ),
                    (
                        Value::from(".constants"),
                        Value::Array(vec![0x7473_6574u64.into(), 0x6C25_203Au64.into()]),
                    ),
                ],
            )],
            user_data_offset: Some(6),
            extra: vec![(Value::from(9u64), Value::from("odd key"))],
        };
        let json = table.to_json();
        assert_eq!(json[".strings"][0][".string"], "x=%d\n");
        assert_eq!(json[".strings"][2][".user_data_offset"], 4);
        assert_eq!(json["$extra"], serde_json::json!([[9, "odd key"]]));
        assert_eq!(json[".user_data_offset"], 6);
        assert_eq!(json[".strings"][1][".is_abort_message"], 1);
        assert_eq!(json[".strings"][2][".string"], "%ld %f");
        let back = Table::from_json(&json).expect("reads back");
        assert_eq!(back.to_msgpack(), table.to_msgpack());
    }

    #[test]
    fn table_json_errors_name_the_path() {
        let bad = serde_json::json!({".version": 1, ".strings": [
            {".index": 1, ".string": "a", ".argument_count": 0, ".64bit_arguments": []},
            {".index": "0x1000000000000", ".string": "b", ".argument_count": 0, ".64bit_arguments": []}
        ]});
        let error = Table::from_json(&bad).expect_err("out of range");
        assert_eq!(error.path, ".strings[1].index");
        let error =
            Table::from_json(&serde_json::json!({".version": 2, ".strings": []})).expect_err("v2");
        assert_eq!(error.path, ".version");
        let error =
            Table::from_json(&serde_json::json!({".version": 1, ".strings": [{".index": 5}]}))
                .expect_err("missing");
        assert!(error.to_string().contains(".string"), "{error}");
        let hex = serde_json::json!({".version": 1, ".strings": [
            {".index": "0x7b", ".string": "a", ".argument_count": 0, ".64bit_arguments": []}]});
        assert_eq!(
            Table::from_json(&hex).expect("hex id").entries[0]
                .id()
                .get(),
            0x7b
        );
    }
}
