//! Tagfiles: TAG0 sections, type tables and schemas, the cm container, the synthetic hknp
//! samples, and old binary tagfiles.

mod binary;
pub mod binary_walk;
mod cm;
mod compendium;
mod dump_build;
mod reflect;
mod relative;
mod schema;
mod sections;
mod synthetic;
