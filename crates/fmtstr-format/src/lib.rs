//! printf format strings: grammar, argument classes, a checker and glibc-exact rendering.
