//! One conversion specification and what it consumes.

use std::fmt;

/// The flags of a conversion: `-`, `+`, space, `#` and `0`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// `-`: left-justify within the field width.
    pub left: bool,
    /// `+`: always print a sign for signed conversions.
    pub plus: bool,
    /// space: print a space where a `+` would go.
    pub space: bool,
    /// `#`: the alternate form (`0x` prefixes, a kept decimal point, ...).
    pub alt: bool,
    /// `0`: pad with zeros instead of spaces.
    pub zero: bool,
}

/// A field width or precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Count {
    /// Written in the format as digits.
    Fixed(u32),
    /// `*`: taken from an `int` argument before the value.
    Star,
}

/// A length modifier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Length {
    /// No modifier.
    #[default]
    None,
    /// `hh`
    Hh,
    /// `h`
    H,
    /// `hl`, OpenCL's 32-bit vector element (only valid with a vector modifier).
    Hl,
    /// `l`
    L,
    /// `ll`
    Ll,
    /// `j`
    J,
    /// `z`
    Z,
    /// `t`
    T,
    /// `L`
    BigL,
}

impl Length {
    /// The modifier as written in a format.
    pub fn as_str(self) -> &'static str {
        match self {
            Length::None => "",
            Length::Hh => "hh",
            Length::H => "h",
            Length::Hl => "hl",
            Length::L => "l",
            Length::Ll => "ll",
            Length::J => "j",
            Length::Z => "z",
            Length::T => "t",
            Length::BigL => "L",
        }
    }
}

impl fmt::Display for Length {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A conversion character (everything but `%%`, which is [`crate::Piece::Percent`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Conversion {
    /// `d`
    D,
    /// `i`
    I,
    /// `u`
    U,
    /// `o`
    O,
    /// `x`
    LowerX,
    /// `X`
    UpperX,
    /// `c`
    C,
    /// `s`
    S,
    /// `p`
    P,
    /// `f`
    LowerF,
    /// `F`
    UpperF,
    /// `e`
    LowerE,
    /// `E`
    UpperE,
    /// `g`
    LowerG,
    /// `G`
    UpperG,
    /// `a`
    LowerA,
    /// `A`
    UpperA,
}

impl Conversion {
    /// The conversion for a conversion character, if it is one fmtstr supports.
    pub fn from_byte(byte: u8) -> Option<Conversion> {
        Some(match byte {
            b'd' => Conversion::D,
            b'i' => Conversion::I,
            b'u' => Conversion::U,
            b'o' => Conversion::O,
            b'x' => Conversion::LowerX,
            b'X' => Conversion::UpperX,
            b'c' => Conversion::C,
            b's' => Conversion::S,
            b'p' => Conversion::P,
            b'f' => Conversion::LowerF,
            b'F' => Conversion::UpperF,
            b'e' => Conversion::LowerE,
            b'E' => Conversion::UpperE,
            b'g' => Conversion::LowerG,
            b'G' => Conversion::UpperG,
            b'a' => Conversion::LowerA,
            b'A' => Conversion::UpperA,
            _ => return None,
        })
    }

    /// The conversion character.
    pub fn as_byte(self) -> u8 {
        match self {
            Conversion::D => b'd',
            Conversion::I => b'i',
            Conversion::U => b'u',
            Conversion::O => b'o',
            Conversion::LowerX => b'x',
            Conversion::UpperX => b'X',
            Conversion::C => b'c',
            Conversion::S => b's',
            Conversion::P => b'p',
            Conversion::LowerF => b'f',
            Conversion::UpperF => b'F',
            Conversion::LowerE => b'e',
            Conversion::UpperE => b'E',
            Conversion::LowerG => b'g',
            Conversion::UpperG => b'G',
            Conversion::LowerA => b'a',
            Conversion::UpperA => b'A',
        }
    }

    /// `d i u o x X`.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Conversion::D
                | Conversion::I
                | Conversion::U
                | Conversion::O
                | Conversion::LowerX
                | Conversion::UpperX
        )
    }

    /// `f F e E g G a A`.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Conversion::LowerF
                | Conversion::UpperF
                | Conversion::LowerE
                | Conversion::UpperE
                | Conversion::LowerG
                | Conversion::UpperG
                | Conversion::LowerA
                | Conversion::UpperA
        )
    }

    /// The argument class this conversion reads.
    pub fn class(self) -> ArgClass {
        match self {
            Conversion::D | Conversion::I => ArgClass::Signed,
            Conversion::U | Conversion::O | Conversion::LowerX | Conversion::UpperX => {
                ArgClass::Unsigned
            }
            Conversion::C => ArgClass::Char,
            Conversion::S => ArgClass::String,
            Conversion::P => ArgClass::Pointer,
            _ => ArgClass::Float,
        }
    }
}

impl fmt::Display for Conversion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_byte() as char)
    }
}

/// What kind of value a conversion reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgClass {
    /// `d i`
    Signed,
    /// `u o x X`
    Unsigned,
    /// `c` (an `int` printed as its low byte)
    Char,
    /// `f F e E g G a A`
    Float,
    /// `p`
    Pointer,
    /// `s`
    String,
}

impl fmt::Display for ArgClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArgClass::Signed => "signed integer",
            ArgClass::Unsigned => "unsigned integer",
            ArgClass::Char => "character",
            ArgClass::Float => "floating-point value",
            ArgClass::Pointer => "pointer",
            ArgClass::String => "string",
        })
    }
}

/// One conversion specification such as `%-08.3lx` or `%v4hlf`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Byte offset of the `%` in the format.
    pub offset: usize,
    /// Length in bytes of the whole specification, `%` and conversion included.
    pub len: usize,
    /// The flags.
    pub flags: Flags,
    /// The field width.
    pub width: Option<Count>,
    /// The precision; a bare `.` is `Some(Count::Fixed(0))`.
    pub precision: Option<Count>,
    /// The length modifier.
    pub length: Length,
    /// OpenCL's vector modifier `vN`: N is 2, 3, 4, 8 or 16.
    pub vector: Option<u8>,
    /// The conversion character.
    pub conversion: Conversion,
}

impl Spec {
    /// The class of value the conversion reads (for vectors: of each element).
    pub fn class(&self) -> ArgClass {
        self.conversion.class()
    }

    /// Bits of one value (of one element for vectors), as C on LP64 passes it.
    ///
    /// Scalar floats are C doubles whatever their modifier, because varargs promote `float`;
    /// vector elements are not promoted, so there the modifier picks half, float or double.
    pub fn c_width(&self) -> u32 {
        let conversion = self.conversion;
        if conversion.is_float() {
            if self.vector.is_none() {
                return 64;
            }
            return match self.length {
                Length::H => 16,
                Length::L => 64,
                _ => 32,
            };
        }
        match conversion {
            Conversion::C => 32,
            Conversion::S | Conversion::P => 64,
            _ => match self.length {
                Length::Hh => 8,
                Length::H => 16,
                Length::None | Length::Hl => 32,
                Length::L | Length::Ll | Length::J | Length::Z | Length::T | Length::BigL => 64,
            },
        }
    }

    /// The number of vector elements, if this is a vector specification.
    pub fn vector_len(&self) -> Option<u8> {
        self.vector
    }

    /// The number of extra `int` arguments the `*`s of width and precision consume.
    pub fn star_args(&self) -> usize {
        usize::from(self.width == Some(Count::Star))
            + usize::from(self.precision == Some(Count::Star))
    }

    /// Whether an integer conversion reads its value as signed.
    pub fn is_signed(&self) -> bool {
        self.class() == ArgClass::Signed
    }

    /// The C (or OpenCL vector) type the conversion expects, the way clang names it in
    /// diagnostics: `int`, `unsigned long`, `char *`, `float4`, ...
    pub fn c_type(&self) -> String {
        let conversion = self.conversion;
        if let Some(n) = self.vector {
            let element = if conversion.is_float() {
                match self.c_width() {
                    16 => "half",
                    32 => "float",
                    _ => "double",
                }
            } else {
                let signed = self.is_signed();
                match (self.c_width(), signed) {
                    (8, true) => "char",
                    (8, false) => "uchar",
                    (16, true) => "short",
                    (16, false) => "ushort",
                    (32, true) => "int",
                    (32, false) => "uint",
                    (_, true) => "long",
                    (_, false) => "ulong",
                }
            };
            return format!("{element}{n}");
        }
        let name = match conversion {
            Conversion::C => "int",
            Conversion::S => "char *",
            Conversion::P => "void *",
            c if c.is_float() => {
                if self.length == Length::BigL {
                    "long double"
                } else {
                    "double"
                }
            }
            c => {
                let signed = c.class() == ArgClass::Signed;
                match (self.length, signed) {
                    (Length::Hh, true) => "signed char",
                    (Length::Hh, false) => "unsigned char",
                    (Length::H, true) => "short",
                    (Length::H, false) => "unsigned short",
                    (Length::L, true) => "long",
                    (Length::L, false) => "unsigned long",
                    (Length::Ll, true) => "long long",
                    (Length::Ll, false) => "unsigned long long",
                    (Length::J, true) => "intmax_t",
                    (Length::J, false) => "uintmax_t",
                    (Length::Z, true) => "ssize_t",
                    (Length::Z, false) => "size_t",
                    (Length::T, _) => "ptrdiff_t",
                    (_, true) => "int",
                    (_, false) => "unsigned int",
                }
            }
        };
        name.to_string()
    }
}
