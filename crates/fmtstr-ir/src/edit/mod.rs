//! Edits: the instruction builder and the module-level changes the lowering passes make.
//!
//! Input: a parsed module and the passes' requests (insert this, replace those uses, remove
//! that global). Output: the module changed in place, its records marked for the printer; or
//! an [`EditError`] and no change at all.
//!
//! Every edit keeps the module printable: new instructions get fresh *named* results
//! (`%printf.buf`, `%printf.buf1`, ...), never numbers, so inserting one never disturbs the
//! `%N` sequence; removing a numbered value makes the printer renumber the function. Edits
//! that would leave a dangling reference (removing a used instruction or function) are refused
//! with an [`EditError`] and change nothing.
//!
//! Each file adds one kind of edit to [`Module`](crate::Module): `builder` (new
//! instructions), `names` (fresh local names), `uses` (who uses a value, replacing uses),
//! `removal` (of instructions), `globals` (declarations, globals, parameters), `metadata`,
//! `constants` and `control` (blocks, branches, phis). They import from one another in one
//! direction; this file imports none of them.

use crate::error::EditError;

pub(crate) mod builder;
mod constants;
pub(crate) mod control;
pub(crate) mod globals;
pub(crate) mod metadata;
mod names;
mod removal;
mod uses;

/// An edit refused: the error every edit returns with its reason.
fn invalid<T>(message: impl Into<String>) -> Result<T, EditError> {
    Err(EditError::Invalid(message.into()))
}
