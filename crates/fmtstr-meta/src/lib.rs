//! Format-string metadata: 48-bit IDs and the `amdpal.format_strings` table.
