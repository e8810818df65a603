//! The grammar: pieces, spec fields, what each spec consumes, and every error.

use fmtstr_format::{
    ArgClass, ArgSlot, Conversion, Count, CountKind, Flags, Format, Length, ParseError,
    ParseErrorKind, Piece, Spec,
};

fn only_spec(text: &str) -> Spec {
    let format = Format::parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let specs: Vec<Spec> = format.specs().copied().collect();
    assert_eq!(specs.len(), 1, "{text:?}");
    specs[0]
}

fn error(text: &[u8]) -> ParseError {
    match Format::parse(text) {
        Ok(format) => panic!("{:?} parsed: {format:?}", String::from_utf8_lossy(text)),
        Err(error) => error,
    }
}

#[test]
fn pieces_cover_literals_percent_and_specs() {
    let format = Format::parse(b"a%db%%c").unwrap();
    assert_eq!(format.bytes(), b"a%db%%c");
    let pieces = format.pieces();
    assert_eq!(pieces.len(), 5);
    assert_eq!(pieces[0], Piece::Literal(0..1));
    match &pieces[1] {
        Piece::Spec(spec) => {
            assert_eq!((spec.offset, spec.len), (1, 2));
            assert_eq!(spec.conversion, Conversion::D);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(pieces[2], Piece::Literal(3..4));
    assert_eq!(pieces[3], Piece::Percent);
    assert_eq!(pieces[4], Piece::Literal(6..7));
    assert_eq!(format.specs().count(), 1);
    assert!(Format::parse(b"").unwrap().pieces().is_empty());
    assert_eq!(
        Format::parse(b"%%").unwrap().pieces(),
        &[Piece::Percent][..]
    );
}

#[test]
fn spec_fields() {
    let spec = only_spec("x%-+ #012.5llx");
    assert_eq!(spec.offset, 1);
    assert_eq!(spec.len, 13);
    assert_eq!(
        spec.flags,
        Flags {
            left: true,
            plus: true,
            space: true,
            alt: true,
            zero: true
        }
    );
    assert_eq!(spec.width, Some(Count::Fixed(12)));
    assert_eq!(spec.precision, Some(Count::Fixed(5)));
    assert_eq!(spec.length, Length::Ll);
    assert_eq!(spec.vector, None);
    assert_eq!(spec.conversion, Conversion::LowerX);

    assert_eq!(only_spec("%.f").precision, Some(Count::Fixed(0)));
    assert_eq!(only_spec("%f").precision, None);
    let star = only_spec("%*.*d");
    assert_eq!(star.width, Some(Count::Star));
    assert_eq!(star.precision, Some(Count::Star));
    assert_eq!(star.star_args(), 2);
    assert_eq!(only_spec("%.*s").star_args(), 1);
    assert_eq!(only_spec("%s").star_args(), 0);
    assert_eq!(only_spec("%65536d").width, Some(Count::Fixed(65536)));
    assert_eq!(only_spec("%.65536f").precision, Some(Count::Fixed(65536)));
}

#[test]
fn every_conversion_and_its_class() {
    let table = [
        ("d", Conversion::D, ArgClass::Signed),
        ("i", Conversion::I, ArgClass::Signed),
        ("u", Conversion::U, ArgClass::Unsigned),
        ("o", Conversion::O, ArgClass::Unsigned),
        ("x", Conversion::LowerX, ArgClass::Unsigned),
        ("X", Conversion::UpperX, ArgClass::Unsigned),
        ("c", Conversion::C, ArgClass::Char),
        ("s", Conversion::S, ArgClass::String),
        ("p", Conversion::P, ArgClass::Pointer),
        ("f", Conversion::LowerF, ArgClass::Float),
        ("F", Conversion::UpperF, ArgClass::Float),
        ("e", Conversion::LowerE, ArgClass::Float),
        ("E", Conversion::UpperE, ArgClass::Float),
        ("g", Conversion::LowerG, ArgClass::Float),
        ("G", Conversion::UpperG, ArgClass::Float),
        ("a", Conversion::LowerA, ArgClass::Float),
        ("A", Conversion::UpperA, ArgClass::Float),
    ];
    for (text, conversion, class) in table {
        let spec = only_spec(&format!("%{text}"));
        assert_eq!(spec.conversion, conversion, "{text}");
        assert_eq!(spec.class(), class, "{text}");
        assert_eq!(conversion.to_string(), text);
    }
}

#[test]
fn c_widths_of_scalars() {
    let table = [
        ("%d", 32),
        ("%hhd", 8),
        ("%hd", 16),
        ("%ld", 64),
        ("%lld", 64),
        ("%jd", 64),
        ("%zu", 64),
        ("%tx", 64),
        ("%hhx", 8),
        ("%c", 32),
        ("%s", 64),
        ("%p", 64),
        ("%f", 64),
        ("%lf", 64),
        ("%Lf", 64),
        ("%a", 64),
    ];
    for (text, bits) in table {
        assert_eq!(only_spec(text).c_width(), bits, "{text}");
        assert_eq!(only_spec(text).vector_len(), None, "{text}");
    }
}

#[test]
fn opencl_vectors() {
    let table = [
        ("%v2d", 2, Length::None, 32),
        ("%v3hhx", 3, Length::Hh, 8),
        ("%v8hd", 8, Length::H, 16),
        ("%v16hld", 16, Length::Hl, 32),
        ("%v4ld", 4, Length::L, 64),
        ("%v4f", 4, Length::None, 32),
        ("%v4hf", 4, Length::H, 16),
        ("%v4hlf", 4, Length::Hl, 32),
        ("%v4lf", 4, Length::L, 64),
        ("%v2a", 2, Length::None, 32),
        // C habit puts the length last; both orders mean the same.
        ("%hlv4f", 4, Length::Hl, 32),
    ];
    for (text, n, length, bits) in table {
        let spec = only_spec(text);
        assert_eq!(spec.vector, Some(n), "{text}");
        assert_eq!(spec.vector_len(), Some(n), "{text}");
        assert_eq!(spec.length, length, "{text}");
        assert_eq!(spec.c_width(), bits, "{text}");
    }
    let spec = only_spec("%-08.3v4hlf");
    assert!(spec.flags.left && spec.flags.zero);
    assert_eq!(spec.width, Some(Count::Fixed(8)));
    assert_eq!(spec.precision, Some(Count::Fixed(3)));
    assert_eq!(spec.c_type(), "float4");
    assert_eq!(only_spec("%v2hhu").c_type(), "uchar2");
}

#[test]
fn c_type_names() {
    let table = [
        ("%d", "int"),
        ("%u", "unsigned int"),
        ("%hhd", "signed char"),
        ("%hx", "unsigned short"),
        ("%ld", "long"),
        ("%llu", "unsigned long long"),
        ("%zu", "size_t"),
        ("%c", "int"),
        ("%s", "char *"),
        ("%p", "void *"),
        ("%f", "double"),
        ("%Lg", "long double"),
    ];
    for (text, name) in table {
        assert_eq!(only_spec(text).c_type(), name, "{text}");
    }
}

#[test]
fn arguments_in_call_order() {
    let format = Format::parse(b"%*.*d %v4f %% %s %.*e").unwrap();
    assert_eq!(
        format.arguments(),
        vec![
            ArgSlot::Star { spec: 0 },
            ArgSlot::Star { spec: 0 },
            ArgSlot::Value { spec: 0 },
            ArgSlot::Value { spec: 1 },
            ArgSlot::Value { spec: 2 },
            ArgSlot::Star { spec: 3 },
            ArgSlot::Value { spec: 3 },
        ]
    );
    assert_eq!(format.argument_count(), 7);
    assert_eq!(format.scalar_argument_count(), 10);
    assert!(format.has_star());
    assert_eq!(format.specs().count(), 4);
    assert_eq!(Format::parse(b"plain").unwrap().argument_count(), 0);
}

/// C reads a `*` as an `int`, then the value as its conversion says; a vector is one
/// argument. The classes end at the format's NUL, as printf's reading does.
#[test]
fn argument_classes_in_call_order() {
    use ArgClass::{Char, Float, Pointer, Signed, String, Unsigned};
    assert_eq!(
        Format::argument_classes(b"%*.*d %v4f %% %s %.*e %lu %c %p %#X\0%d").unwrap(),
        vec![
            Signed, Signed, Signed, Float, String, Signed, Float, Unsigned, Char, Pointer, Unsigned
        ]
    );
    assert_eq!(Format::argument_classes(b"plain").unwrap(), vec![]);
    assert_eq!(
        Format::argument_classes(b"%1$d").unwrap_err(),
        Format::parse(b"%1$d").unwrap_err()
    );
}

#[test]
fn parse_once_compare_and_from_str() {
    let a: Format = "%5.2f|%s".parse().unwrap();
    let b = Format::parse(b"%5.2f|%s").unwrap();
    assert_eq!(a, b);
    assert_eq!(a.clone(), b);
    assert_ne!(a, Format::parse(b"%5.2f|%p").unwrap());
}

#[test]
fn unterminated() {
    let e = error(b"abc%");
    assert_eq!(e.offset, 3);
    assert_eq!(e.kind, ParseErrorKind::Unterminated { start: 3 });
    assert_eq!(
        e.to_string(),
        "at byte 3: the format ends inside the conversion that starts at byte 3; expected a \
         conversion character (one of d i u o x X c s p f F e E g G a A %)"
    );
    for text in [&b"%-5"[..], b"%.*", b"%ll", b"%v4", b"%5.3h"] {
        let e = error(text);
        assert_eq!(e.offset, 0, "{text:?}");
        assert_eq!(e.kind, ParseErrorKind::Unterminated { start: 0 });
    }
}

#[test]
fn unknown_conversion_names_the_byte() {
    let e = error(b"x=%y");
    assert_eq!(e.offset, 3);
    assert_eq!(e.kind, ParseErrorKind::UnknownConversion { byte: b'y' });
    assert_eq!(
        e.to_string(),
        "at byte 3: unknown conversion character 'y'; expected one of d i u o x X c s p f F e \
         E g G a A %"
    );
    let e = error(b"%5\xff");
    assert_eq!(e.offset, 2);
    assert!(e.to_string().contains("byte 0xff"), "{e}");
    // glibc's thousands flag and BSD's `q` are not part of the grammar.
    assert_eq!(error(b"%'d").offset, 1);
    assert_eq!(error(b"%qd").offset, 1);
    assert_eq!(error(b"%b").offset, 1);
}

#[test]
fn what_the_renderer_refuses_is_named() {
    let e = error(b"%2$d");
    assert_eq!(
        (e.offset, &e.kind),
        (1, &ParseErrorKind::Positional { position: 2 })
    );
    assert!(
        e.to_string()
            .starts_with("at byte 1: positional argument '2$'"),
        "{e}"
    );
    assert_eq!(
        error(b"%*3$d").kind,
        ParseErrorKind::Positional { position: 3 }
    );
    let e = error(b"%-'d");
    assert_eq!((e.offset, &e.kind), (2, &ParseErrorKind::ThousandsFlag));
    assert!(
        e.to_string().contains("the ''' flag groups thousands"),
        "{e}"
    );
    let e = error(b"%#b");
    assert_eq!(
        (e.offset, &e.kind),
        (2, &ParseErrorKind::Binary { byte: b'b' })
    );
    assert!(
        e.to_string().contains("C23's binary conversion '%b'"),
        "{e}"
    );
    let e = error(b"%w32d");
    assert_eq!(
        (e.offset, &e.kind),
        (
            1,
            &ParseErrorKind::ExactWidth {
                length: "w32".to_string()
            }
        )
    );
    assert!(e.to_string().contains("length modifier 'w32'"), "{e}");
    assert_eq!(
        error(b"%wf16d").kind,
        ParseErrorKind::ExactWidth {
            length: "wf16".to_string()
        }
    );
    assert_eq!(error(b"%qd").kind, ParseErrorKind::BsdQuad);
    assert_eq!(error(b"%m").kind, ParseErrorKind::Errno);
    assert_eq!(
        error(b"%S").to_string(),
        "at byte 1: '%S' takes a wide string, which fmtstr does not support; expected '%s'"
    );
    assert_eq!(
        error(b"%C").kind,
        ParseErrorKind::WideConversion { byte: b'C' }
    );
    assert!(error(b"%Z").to_string().contains("Microsoft's"));
    assert!(error(b"%@").to_string().contains("Objective-C"));
}

#[test]
fn percent_n_is_refused() {
    let e = error(b"ab%n");
    assert_eq!(e.offset, 3);
    assert_eq!(e.kind, ParseErrorKind::WriteBack);
    assert!(e.to_string().starts_with("at byte 3: '%n' writes"), "{e}");
    assert!(e.to_string().contains("; expected"), "{e}");
    assert_eq!(error(b"%lln").kind, ParseErrorKind::WriteBack);
}

#[test]
fn percent_takes_nothing() {
    for text in [&b"%5%"[..], b"%-%", b"%.2%", b"%l%", b"%v4%"] {
        let e = error(text);
        assert_eq!(e.offset, 0, "{text:?}");
        assert_eq!(e.kind, ParseErrorKind::ModifiedPercent);
    }
    assert_eq!(
        error(b"%5%").to_string(),
        "at byte 0: '%%' takes no flags, width, precision or modifiers; expected a bare '%%'"
    );
}

#[test]
fn modifiers_that_do_not_apply() {
    let e = error(b"%hld");
    assert_eq!(e.offset, 1);
    assert_eq!(
        e.kind,
        ParseErrorKind::LengthNotApplicable {
            length: Length::Hl,
            conversion: Conversion::D,
            vector: false
        }
    );
    assert_eq!(
        e.to_string(),
        "at byte 1: length modifier 'hl' does not apply to '%d' outside a vector; expected one \
         of hh, h, l, ll, j, z, t or none"
    );

    let e = error(b"x%5hf");
    assert_eq!(e.offset, 3);
    assert_eq!(
        e.to_string(),
        "at byte 3: length modifier 'h' does not apply to '%f'; expected l, L or none"
    );
    let e = error(b"%Ld");
    assert_eq!(e.offset, 1);
    assert!(matches!(
        e.kind,
        ParseErrorKind::LengthNotApplicable {
            length: Length::BigL,
            ..
        }
    ));
    assert_eq!(error(b"%jf").offset, 1);
    assert_eq!(error(b"%hp").offset, 1);
    assert_eq!(error(b"%hhs").offset, 1);
    assert_eq!(error(b"%zc").offset, 1);

    let e = error(b"%v4hhf");
    assert_eq!(e.offset, 3);
    assert_eq!(
        e.to_string(),
        "at byte 3: length modifier 'hh' does not apply to '%f' in a vector; expected one of h, \
         hl, l or none (OpenCL vector element sizes)"
    );
    for text in [&b"%v4lld"[..], b"%v4jd", b"%v4zd", b"%v4td", b"%v4Lf"] {
        let e = error(text);
        assert_eq!(e.offset, 3, "{text:?}");
        assert!(
            matches!(
                e.kind,
                ParseErrorKind::LengthNotApplicable { vector: true, .. }
            ),
            "{text:?}: {e}"
        );
    }
}

#[test]
fn wide_characters_are_unsupported() {
    for (text, conversion) in [(&b"%lc"[..], Conversion::C), (b"%-3ls", Conversion::S)] {
        let e = error(text);
        assert_eq!(e.kind, ParseErrorKind::WideUnsupported { conversion });
        assert!(e.to_string().contains("wide character or string"), "{e}");
    }
    assert_eq!(error(b"%-3ls").offset, 3);
}

#[test]
fn vectors_that_do_not_apply() {
    for (text, conversion) in [
        (&b"%v4c"[..], Conversion::C),
        (b"%v4s", Conversion::S),
        (b"%v2p", Conversion::P),
    ] {
        let e = error(text);
        assert_eq!(e.offset, 1);
        assert_eq!(e.kind, ParseErrorKind::VectorNotApplicable { conversion });
    }
    let e = error(b"ab%v5d");
    assert_eq!(e.offset, 3);
    assert_eq!(e.kind, ParseErrorKind::VectorLength { found: Some(5) });
    assert_eq!(
        e.to_string(),
        "at byte 3: vector length 5 is not supported; expected 2, 3, 4, 8 or 16"
    );
    let e = error(b"%vd");
    assert_eq!(e.kind, ParseErrorKind::VectorLength { found: None });
    assert!(e.to_string().contains("missing after 'v'"), "{e}");
    assert_eq!(
        error(b"%v99999999999d").kind,
        ParseErrorKind::VectorLength {
            found: Some(u32::MAX)
        }
    );
    assert!(matches!(
        error(b"%v4v4d").kind,
        ParseErrorKind::RepeatedModifier { what: "vector" }
    ));
    assert!(matches!(
        error(b"%hhhd").kind,
        ParseErrorKind::RepeatedModifier { what: "length" }
    ));
}

#[test]
fn fields_after_modifiers_are_out_of_order() {
    let e = error(b"%v4.1f");
    assert_eq!(e.offset, 3);
    assert_eq!(e.kind, ParseErrorKind::OutOfOrder { byte: b'.' });
    assert_eq!(
        e.to_string(),
        "at byte 3: '.' after the modifiers; expected flags, width and precision before the \
         vector and length modifiers, as in '%-8.2v4hlf'"
    );
    assert_eq!(
        error(b"%l5d").kind,
        ParseErrorKind::OutOfOrder { byte: b'5' }
    );
    // Without a modifier in front it is just an unknown conversion.
    assert_eq!(
        error(b"%5.3y").kind,
        ParseErrorKind::UnknownConversion { byte: b'y' }
    );
}

#[test]
fn counts_are_bounded() {
    let e = error(b"%70000d");
    assert_eq!(e.offset, 1);
    assert_eq!(
        e.kind,
        ParseErrorKind::CountTooLarge {
            what: CountKind::Width,
            value: 70000
        }
    );
    assert_eq!(
        e.to_string(),
        "at byte 1: field width 70000 is above fmtstr's limit of 65536 (a bound that keeps a \
         hostile format from making the renderer allocate gigabytes); expected at most 65536"
    );
    let e = error(b"%-5.65537f");
    assert_eq!(e.offset, 4);
    assert_eq!(
        e.kind,
        ParseErrorKind::CountTooLarge {
            what: CountKind::Precision,
            value: 65537
        }
    );
    let e = error(b"%99999999999999999999999999d");
    assert_eq!(
        e.kind,
        ParseErrorKind::CountTooLarge {
            what: CountKind::Width,
            value: u64::MAX
        }
    );
}

#[test]
fn every_message_says_where_and_what_was_expected() {
    let bad: &[&[u8]] = &[
        b"%",
        b"%y",
        b"%n",
        b"%3%",
        b"%hlx",
        b"%lc",
        b"%v4s",
        b"%v7d",
        b"%100000d",
        b"%v2v2d",
        b"%v2.1f",
    ];
    for text in bad {
        let e = error(text);
        let message = e.to_string();
        assert!(
            message.starts_with(&format!("at byte {}: ", e.offset)),
            "{message}"
        );
        assert!(message.contains("; expected "), "{message}");
    }
}
