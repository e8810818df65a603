//! CUDA vprintf argument buffers: natural alignment, promotions, and short buffers.

use fmtstr_decode::vprintf::{half_to_f64, layout, render_vprintf, VprintfError};
use fmtstr_format::Format;

fn offsets(format: &str) -> (Vec<usize>, usize) {
    let layout = layout(&Format::parse(format.as_bytes()).unwrap());
    (
        layout.fields.iter().map(|f| f.offset).collect(),
        layout.size,
    )
}

#[test]
fn arguments_sit_at_their_natural_alignment() {
    // Measured with nvcc and clang.
    assert_eq!(offsets("%c %hd %lld %f %s"), (vec![0, 4, 8, 16, 24], 32));
    assert_eq!(offsets("x=%d y=%f"), (vec![0, 8], 16));
    assert_eq!(offsets("%*d %.*f"), (vec![0, 4, 8, 16], 24));
    assert_eq!(offsets("%p %d %ld %hhu"), (vec![0, 8, 16, 24], 28));
    assert_eq!(offsets("%d %v4hlf %v2lf"), (vec![0, 16, 32], 48));
    assert_eq!(offsets("%d %v3d"), (vec![0, 16], 32));
    assert_eq!(offsets("%hd %v2hf"), (vec![0, 4], 8));
    assert_eq!(offsets("no arguments"), (vec![], 0));
}

fn render(format: &str, buffer: &[u8]) -> Result<String, VprintfError> {
    let mut out = Vec::new();
    render_vprintf(&Format::parse(format.as_bytes()).unwrap(), buffer, &mut out)?;
    Ok(String::from_utf8(out).unwrap())
}

#[test]
fn values_are_read_as_promoted() {
    let mut buffer = vec![0u8; 32];
    buffer[0..4].copy_from_slice(&0x141i32.to_le_bytes()); // %c prints the low byte
    buffer[4..8].copy_from_slice(&(-70000i32).to_le_bytes()); // %hd truncates like C
    buffer[8..16].copy_from_slice(&(-1i64).to_le_bytes());
    buffer[16..24].copy_from_slice(&0.1f64.to_le_bytes());
    // 24..32: a null %s pointer.
    assert_eq!(
        render("%c %hd %lld %.3f %s|", &buffer).unwrap(),
        "A -4464 -1 0.100 (null)|"
    );
    buffer[24] = 0x10;
    assert_eq!(
        render("%c %hd %lld %.3f %s|", &buffer).unwrap(),
        "A -4464 -1 0.100 <string>|"
    );
    let mut stars = vec![0u8; 24];
    stars[0..4].copy_from_slice(&6i32.to_le_bytes());
    stars[4..8].copy_from_slice(&42i32.to_le_bytes());
    stars[8..12].copy_from_slice(&2i32.to_le_bytes());
    stars[16..24].copy_from_slice(&2.345f64.to_le_bytes());
    assert_eq!(render("[%*d|%.*f]", &stars).unwrap(), "[    42|2.35]");
    // Extra bytes (nvcc sizes one buffer per function for its largest call) are ignored.
    assert_eq!(render("%d", &stars).unwrap(), "6");
}

#[test]
fn vectors_keep_their_element_types() {
    let mut buffer = vec![0u8; 48];
    buffer[0..4].copy_from_slice(&7i32.to_le_bytes());
    for (k, value) in [1.5f32, -2.0, 0.25, 8.0].iter().enumerate() {
        buffer[16 + 4 * k..20 + 4 * k].copy_from_slice(&value.to_bits().to_le_bytes());
    }
    buffer[32..40].copy_from_slice(&1e300f64.to_le_bytes());
    buffer[40..48].copy_from_slice(&(-0.0f64).to_le_bytes());
    assert_eq!(
        render("%d %v4hlf %v2le", &buffer).unwrap(),
        "7 1.500000,-2.000000,0.250000,8.000000 1.000000e+300,-0.000000e+00"
    );
    let halves: Vec<u8> = [0u16, 0, 0x3c00, 0xc000]
        .iter()
        .flat_map(|h| h.to_le_bytes())
        .collect();
    assert_eq!(render("%hd %v2hg", &halves).unwrap(), "0 1,-2");
}

#[test]
fn a_short_buffer_names_the_argument_and_its_offset() {
    let error = render("%d %f %d", &[0u8; 12]).unwrap_err();
    assert_eq!(
        error,
        VprintfError::Short {
            argument: 2,
            spec: "%f".into(),
            offset: 8,
            size: 8,
            len: 12,
            needs: 20,
        }
    );
    assert_eq!(
        error.to_string(),
        "argument 2 (%f) is read at byte 8 and needs 8 bytes, but the buffer has 12; the format \
         reads 20 bytes in all"
    );
    let error = render("%*d", &[0u8; 2]).unwrap_err();
    assert!(error
        .to_string()
        .starts_with("argument 1 ('*' of %*d) is read at byte 0"));
    // A '*' beyond fmtstr's limit is the renderer's error.
    let mut stars = vec![0u8; 8];
    stars[0..4].copy_from_slice(&1_000_000i32.to_le_bytes());
    assert!(matches!(
        render("%*d", &stars),
        Err(VprintfError::Render(_))
    ));
}

#[test]
fn halves_widen_exactly() {
    assert_eq!(half_to_f64(0x3c00), 1.0);
    assert_eq!(half_to_f64(0xc000), -2.0);
    assert_eq!(half_to_f64(0x7bff), 65504.0);
    assert_eq!(half_to_f64(0x0001), 2f64.powi(-24));
    assert_eq!(half_to_f64(0x03ff), 1023.0 * 2f64.powi(-24));
    assert_eq!(half_to_f64(0x0400), 2f64.powi(-14));
    assert_eq!(half_to_f64(0x7c00), f64::INFINITY);
    assert_eq!(half_to_f64(0xfc00), f64::NEG_INFINITY);
    assert!(half_to_f64(0x7e00).is_nan() && half_to_f64(0x7e00).is_sign_positive());
    assert!(half_to_f64(0xfe00).is_nan() && half_to_f64(0xfe00).is_sign_negative());
    assert!(half_to_f64(0x8000) == 0.0 && half_to_f64(0x8000).is_sign_negative());
    // Every finite half is exact in a float, and widening is monotonic.
    let mut last = f64::NEG_INFINITY;
    for bits in (0x0000u16..0x7c00)
        .rev()
        .map(|b| b | 0x8000)
        .chain(0x0000..0x7c00)
    {
        let value = half_to_f64(bits);
        assert_eq!(f64::from(value as f32), value);
        assert!(value >= last, "{bits:#x}");
        last = value;
    }
}
