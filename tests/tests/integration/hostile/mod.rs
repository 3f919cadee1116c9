//! Hostile input that the readers refuse with a place: mutated tagfiles and binary
//! tagfiles, read limits, hostile names and Havok XML from strangers. The hostile-input
//! tests that measure heap are in the memory binary (`tests/tests/memory`).

mod binary_tagfile_limits;
mod binary_tagfile_mutations;
mod names;
mod tagfile_mutations;
mod xml;
