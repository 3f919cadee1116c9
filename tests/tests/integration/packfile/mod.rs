//! Packfiles (docs/packfile-format.md): corpus round trips through the graph, dumps and
//! platform conversion, edits, exports and imports, stored metadata, strict and lenient
//! reading, struct columns, and values refused because they do not fit their member.

mod convert;
mod edits;
mod exports_imports;
mod homogeneous;
mod lenient_rules;
mod metadata;
mod refused_values;
mod round_trip;
mod strict_lenient;
mod struct_columns;
