//! One-byte flag sets: the macro behind an instruction's flags (`InstFlags`) and what edits
//! did to a function (`FuncState`).
//!
//! A set is a `u8` newtype with a constant per flag: a record keeps its flags in one byte and a
//! test is one mask, as with a raw `u8`, but a flag of one set cannot be tested against another
//! set, and `Debug` names the flags that are set.

/// Defines a one-byte flag set: a `u8` newtype, one associated constant per flag (each a
/// distinct bit, checked at compile time), the set operations and a `Debug` that names the
/// flags (`InstFlags(HAS_DEF | NEW)`).
macro_rules! flag_set {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$flag_meta:meta])*
                const $flag:ident = $bit:expr;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Default)]
        $vis struct $name(u8);

        impl $name {
            $(
                $(#[$flag_meta])*
                pub const $flag: $name = $name($bit);
            )*
        }

        // Each flag one bit, no two the same, so that `Debug` names each set bit once.
        const _: () = {
            let mut seen = 0u8;
            $(
                let bit = $name::$flag.0;
                assert!(bit.count_ones() == 1 && seen & bit == 0);
                seen |= bit;
            )*
            let _ = seen;
        };

        // Every set has the whole API, whether or not its users call each method.
        #[allow(dead_code)]
        impl $name {
            /// No flag set.
            pub const EMPTY: $name = $name(0);

            /// Whether no flag is set.
            #[inline]
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }

            /// Whether every flag of `other` is set.
            #[inline]
            pub const fn contains(self, other: $name) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether any flag of `other` is set.
            #[inline]
            pub const fn intersects(self, other: $name) -> bool {
                self.0 & other.0 != 0
            }

            /// The flags of both sets.
            #[inline]
            pub const fn union(self, other: $name) -> $name {
                $name(self.0 | other.0)
            }

            /// Sets the flags of `other`.
            #[inline]
            pub const fn insert(&mut self, other: $name) {
                self.0 |= other.0;
            }

            /// Clears the flags of `other`.
            #[inline]
            pub const fn remove(&mut self, other: $name) {
                self.0 &= !other.0;
            }
        }

        impl std::ops::BitOr for $name {
            type Output = $name;

            #[inline]
            fn bitor(self, other: $name) -> $name {
                self.union(other)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(concat!(stringify!($name), "("))?;
                let mut sep = "";
                $(
                    if self.contains($name::$flag) {
                        f.write_str(sep)?;
                        f.write_str(stringify!($flag))?;
                        sep = " | ";
                    }
                )*
                let _ = sep;
                f.write_str(")")
            }
        }
    };
}

pub(crate) use flag_set;

#[cfg(test)]
mod tests {
    use crate::inst::InstFlags;
    use crate::module::FuncState;

    #[test]
    fn set_operations_and_debug() {
        let mut f = InstFlags::EMPTY;
        assert!(f.is_empty());
        assert_eq!(format!("{f:?}"), "InstFlags()");
        f.insert(InstFlags::HAS_DEF | InstFlags::NEW);
        assert!(f.contains(InstFlags::HAS_DEF) && f.contains(InstFlags::NEW));
        assert!(!f.contains(InstFlags::NEW | InstFlags::REMOVED));
        assert!(f.intersects(InstFlags::NEW | InstFlags::REMOVED));
        assert!(!f.intersects(InstFlags::REMOVED | InstFlags::OPAQUE));
        assert_eq!(format!("{f:?}"), "InstFlags(HAS_DEF | NEW)");
        f.remove(InstFlags::HAS_DEF);
        assert_eq!(f, InstFlags::NEW);
        assert_eq!(InstFlags::default(), InstFlags::EMPTY);
        let all = FuncState::HEADER_EDITED | FuncState::BODY_EDITED | FuncState::RENUMBER;
        assert_eq!(
            format!("{all:?}"),
            "FuncState(HEADER_EDITED | BODY_EDITED | RENUMBER)"
        );
    }
}
