//! The SARIF rules: one per finding kind of `fmtstr check` and of `fmtstr audit`, each with
//! what it means and how to fix it. CI systems show these texts beside every result, so they
//! say in general what a result's message says about one case.

/// A rule's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleText {
    /// The finding kind, as the text and JSON reports spell it.
    pub id: &'static str,
    /// One line: what is wrong.
    pub short: &'static str,
    /// What it means, and why it matters.
    pub full: &'static str,
    /// How to fix it.
    pub help: &'static str,
}

const fn rule(
    id: &'static str,
    short: &'static str,
    full: &'static str,
    help: &'static str,
) -> RuleText {
    RuleText {
        id,
        short,
        full,
        help,
    }
}

/// `fmtstr check`'s rules, in the order of `fmtstr_format::FindingKind::NAMES`.
pub const CHECK: [RuleText; 37] = [
    rule(
        "too-few-arguments",
        "The format consumes more arguments than the call passes.",
        "A conversion, or a '*' width or precision, has no argument left for it. C's printf \
         reads whatever lies past the last argument; GPU printf prints garbage or nothing there.",
        "Pass an argument for every conversion, or remove the conversions that have none (write \
         '%%' for a literal '%').",
    ),
    rule(
        "too-many-arguments",
        "The call passes more arguments than the format consumes.",
        "The arguments past the last one the format consumes are never printed: usually a \
         conversion is missing, or a value is passed by mistake.",
        "Remove the extra arguments, or add the conversions that print them.",
    ),
    rule(
        "width",
        "An argument has the right class but not the width its conversion reads.",
        "The conversion reads a value of one width ('%d' 32 bits, '%ld' 64, '%v4hf' 16-bit \
         elements) and the argument has another. The value prints wrong, and on the GPU the \
         arguments after it are read from the wrong bytes.",
        "Use the length modifier that fits the argument (the result's message names the \
         conversion, such as '%ld' for an i64), or convert the argument to the width the \
         conversion reads.",
    ),
    rule(
        "class",
        "An argument is not the kind of value its conversion reads.",
        "The conversion reads an integer, a floating-point value, a pointer or a string and the \
         argument is another kind (a double for '%d', an i32 for '%s'): printf prints its bits as \
         the wrong type, and '%s' of an integer reads memory at that address.",
        "Use the conversion for the argument's type ('%d' '%u' '%x' for integers, '%f' '%e' '%g' \
         for floating-point values, '%p' for pointers, '%s' for strings), or convert the argument.",
    ),
    rule(
        "vector-length",
        "A vector conversion and its argument have different lengths.",
        "A vector conversion ('%v4f') reads that many elements and the argument has another \
         number, or is a scalar where a vector belongs or the reverse (a scalar counts as length \
         1). The runtime prints the wrong elements and misreads the arguments after it.",
        "Make the conversion's vector length ('%vN') the argument's, or pass a vector of the \
         conversion's length.",
    ),
    rule(
        "invalid-conversion",
        "A conversion character that this printf does not know.",
        "The character that ends the conversion is not one of the dialect's ('%y', '%@', or '%s' \
         for the Vulkan validation layers). C leaves the call undefined; GPU runtimes print it \
         literally or skip the call. Where the dialect cannot parse the format at all, this is an \
         error.",
        "Write one of the dialect's conversions, or '%%' for a literal '%'.",
    ),
    rule(
        "incomplete",
        "The format ends inside a conversion.",
        "The format ends after a '%', or inside a conversion's flags, width, precision or length \
         modifier, so the last conversion has no conversion character.",
        "Finish the conversion, or write '%%' for a literal '%'.",
    ),
    rule(
        "embedded-nul",
        "The format contains a NUL byte.",
        "printf stops at the first NUL byte: the text and the conversions after it are never \
         printed, and their arguments are never read.",
        "Remove the NUL byte, or end the format there.",
    ),
    rule(
        "flag-undefined",
        "A flag that is undefined with its conversion.",
        "The flag has no meaning, or undefined behavior, with this conversion ('+' with '%p', \
         '#' with '%d', '0' with '%s').",
        "Remove the flag.",
    ),
    rule(
        "flag-ignored",
        "A flag that another flag overrides.",
        "Two flags contradict each other and printf ignores one: ' ' when '+' is present, '0' \
         when '-' is present.",
        "Remove the ignored flag.",
    ),
    rule(
        "width-undefined",
        "A field width with '%n'.",
        "'%n' stores the number of characters printed so far; a field width with it is undefined \
         behavior.",
        "Remove the field width.",
    ),
    rule(
        "precision-undefined",
        "A precision with a conversion that has none.",
        "A precision is defined for integer, floating-point and '%s' conversions only; with '%c', \
         '%p' or '%n' it is undefined behavior.",
        "Remove the precision.",
    ),
    rule(
        "length-undefined",
        "A length modifier that does not apply to its conversion.",
        "The length modifier means nothing with this conversion ('%hhs', '%lp', '%Ld'): the \
         behavior is undefined, and a runtime may read the argument at a width nobody meant.",
        "Remove the length modifier, or use a conversion it applies to.",
    ),
    rule(
        "mixed-positional",
        "Positional and sequential conversions in one format.",
        "Some conversions name their argument ('%1$d') and others take the next one ('%d'): C \
         leaves such a format undefined.",
        "Number every conversion ('%1$d') or none.",
    ),
    rule(
        "zero-position",
        "An argument position of 0.",
        "Positions in '%N$' and '*N$' count from 1, so position 0 names no argument.",
        "Number the first argument 1.",
    ),
    rule(
        "invalid-position",
        "A '*' without a position in a positional format.",
        "In a format whose conversions name their arguments ('%1$d'), a '*' width or precision \
         must name its argument too.",
        "Write '*N$', with N the position of the width's or precision's argument.",
    ),
    rule(
        "position-too-large",
        "An argument position past the last argument.",
        "'%N$' names argument N, and the call passes fewer arguments.",
        "Pass argument N, or number the conversion within the arguments passed.",
    ),
    rule(
        "star-missing",
        "A '*' width or precision with no argument for it.",
        "A '*' takes an int argument for the field width or precision, and the call has none \
         left.",
        "Pass an int for the width or precision, or write it as digits.",
    ),
    rule(
        "empty-format",
        "An empty format given arguments.",
        "The format is empty, so none of the call's arguments is printed.",
        "Write the format that prints the arguments, or remove them.",
    ),
    rule(
        "gpu-write-back",
        "'%n', which GPU printf cannot do.",
        "'%n' writes the number of characters printed through a pointer. GPU printf formats on \
         the host after the kernel has run, so nothing can be written back.",
        "Remove the conversion and its argument.",
    ),
    rule(
        "gpu-wide-character",
        "Wide characters ('%lc', '%ls', '%C', '%S'), which GPU printf does not have.",
        "GPU printf prints narrow characters and strings only; it has no wchar_t conversions.",
        "Convert the text to char and print it with '%c' or '%s'.",
    ),
    rule(
        "gpu-positional",
        "Positional arguments ('%1$d'), which GPU printf does not support.",
        "CUDA's vprintf and AMD's printf buffer take the arguments in order; a '%N$' is not \
         honored.",
        "Write the conversions in argument order, without 'N$'.",
    ),
    rule(
        "gpu-errno",
        "'%m', glibc's strerror(errno), which GPU printf does not have.",
        "'%m' prints the C library's message for errno, a glibc extension; a GPU thread has no \
         errno, and GPU printf does not know the conversion.",
        "Remove it, or print an error code with '%d'.",
    ),
    rule(
        "gpu-thousands-grouping",
        "The ''' flag, which needs a locale that GPU printf does not have.",
        "The ''' flag groups digits with the locale's thousands separator; GPU printf has no \
         locale.",
        "Remove the ''' flag.",
    ),
    rule(
        "gpu-binary",
        "C23's '%b' and '%B', which GPU printf does not print.",
        "The binary conversions are new in C23; GPU printf runtimes do not know them.",
        "Print the value with '%x' or '%o'.",
    ),
    rule(
        "gpu-bsd-quad",
        "BSD's 'q' length, which GPU printf does not know.",
        "'q' is BSD's spelling of 'll'; GPU printf does not know it.",
        "Write 'll' for 'q'.",
    ),
    rule(
        "gpu-exact-width",
        "C23's 'wN' and 'wfN' lengths, which GPU printf does not support.",
        "The exact-width length modifiers are new in C23; GPU printf runtimes do not know them.",
        "Write the classic length for the width: 'hh' for 8 bits, 'h' for 16, none for 32, 'll' \
         for 64.",
    ),
    rule(
        "gpu-vector-of-non-number",
        "A vector modifier on '%c', '%s' or '%p'.",
        "Vector conversions print integer and floating-point elements only.",
        "Remove the vector modifier, or use an integer or floating-point conversion.",
    ),
    rule(
        "gpu-cuda-argument-limit",
        "More than 32 arguments, past what CUDA's printf prints.",
        "CUDA's printf prints at most 32 arguments and drops the rest.",
        "Split the call into printf calls of at most 32 arguments.",
    ),
    rule(
        "vvl-flag",
        "A flag other than '0', which the Vulkan validation layers reject.",
        "The validation layers' debug printf takes only the '0' flag; with '-', '+', ' ', '#' or \
         ''' it rejects the format and skips the call.",
        "Remove the flag.",
    ),
    rule(
        "vvl-star",
        "A '*' width or precision, which the Vulkan validation layers do not have.",
        "The validation layers' debug printf takes widths and precisions as digits only; it \
         rejects a '*' and skips the call.",
        "Write the width or precision as digits.",
    ),
    rule(
        "vvl-length",
        "A length modifier the Vulkan validation layers reject.",
        "The validation layers' only length modifier is 'l', on integer conversions (8- and \
         16-bit values print with the 32-bit conversions); with any other they skip the call.",
        "Remove the length modifier.",
    ),
    rule(
        "vvl-long-long",
        "'ll', which the Vulkan validation layers read as 'l'.",
        "The validation layers' 64-bit length is 'l'; they read 'll' as 'l', which is not their \
         documented spelling.",
        "Write 'l' for 'll'.",
    ),
    rule(
        "vvl-long-float",
        "'%lf', which the Vulkan validation layers document as unsupported.",
        "The validation layers print 16-, 32- and 64-bit floating-point values with '%f' (and \
         '%e', '%g', '%a'); they document an 'l' there as unsupported.",
        "Remove the 'l'.",
    ),
    rule(
        "vvl-vector-size",
        "A vector size other than 2, 3 or 4, which the Vulkan validation layers reject.",
        "The validation layers print vectors of 2, 3 or 4 elements; with another size they skip \
         the call.",
        "Write '%v2', '%v3' or '%v4'.",
    ),
    rule(
        "vvl-positional",
        "A positional argument ('%1$d'), which the Vulkan validation layers reject.",
        "The validation layers take the arguments in order; they reject '%N$' and skip the call.",
        "Write the conversions in argument order, without 'N$'.",
    ),
    rule(
        "vvl-ul-alias",
        "'%ul', the Vulkan validation layers' alias of '%lx'.",
        "The validation layers print '%ul' as a 64-bit integer in hex; C's printf reads it as \
         '%u' followed by the letter 'l', so the same format prints differently elsewhere.",
        "Write '%lx'.",
    ),
];

/// `fmtstr audit`'s rules, in the order of `audit::Kind::ALL`.
pub const AUDIT: [RuleText; 6] = [
    rule(
        "collision",
        "One format-string ID names different strings.",
        "Two entries, in one file or in two files loaded together, give the same ID (or, for \
         HIP's buffered printf, the same hash) to different format strings. The runtime finds a \
         format by its ID, so the records of one of the calls print with the other's format.",
        "Rebuild one of the files so that its string gets another ID, or do not load the two \
         files together.",
    ),
    rule(
        "conflict",
        "One ID and string with different argument layouts.",
        "Two entries give the same ID and string different argument counts or 64-bit masks. The \
         decoder reads a record with one layout, so the records written with the other one \
         decode wrong.",
        "Rebuild the files from the same source, so that every entry of the string describes \
         the arguments the same way.",
    ),
    rule(
        "arguments",
        "An argument count or 64-bit mask that the format string contradicts.",
        "The entry's .argument_count or .64bit_arguments (or an amdhsa.printf entry's argument \
         sizes) is not what the format string takes, or the format string does not parse: the \
         decoder reads the record's dwords with the wrong layout.",
        "Regenerate the entry from the printf call (fmtstr lower, or the compiler that wrote \
         it), or fix the format string.",
    ),
    rule(
        "malformed",
        "A file or entry that cannot be read as a format-string table.",
        "The file's ELF structure or PAL metadata cannot be read, an amdhsa.printf entry is not \
         'ID:N:SIZE1:...:SIZEN:FORMAT' or '0:0:HASH,FORMAT', or a SPIR-V module is damaged or \
         its DebugPrintf calls have no table entry: the runtime cannot decode its prints.",
        "Rebuild the file; if a tool rewrote it, check that tool's output.",
    ),
    rule(
        "unfolded",
        "A linked file with several metadata notes.",
        "The file holds one NT_AMDGPU_METADATA note per linked object: the post-link step has \
         not run, and PAL reads a single note, so the format strings of the other objects are \
         not found.",
        "Fold the notes with `fmtstr merge FILE --in-place` after linking.",
    ),
    rule(
        "id",
        "An ID that is not the hash of its string.",
        "With --verify-ids: the ID is not fmtstr's 48-bit hash of its string, so a runtime or a \
         merge that recomputes IDs does not find it. Always: a HIP buffered printf entry's hash \
         is not the MD5 of its format, so the runtime does not find the format for that call's \
         records.",
        "Rebuild the file (fmtstr lower, or clang -mprintf-kind=buffered), or restore the entry's \
         original ID.",
    ),
];
