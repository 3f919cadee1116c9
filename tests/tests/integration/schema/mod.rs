//! Schema folders (schemas/README.md): loading and its errors, layouts, plans, signatures,
//! and the schema-selection rule.

mod borrow;
mod corpus_signatures;
mod error_columns;
mod errors;
mod folders;
mod layout_71;
mod layout_work;
mod plan_limits;
mod selection;
mod signature_work;
mod signatures;
