//! Dumps (JSON, TOML) and Havok XML: `hk build`'s strictness and error places, XML round
//! trips and Havok's own XML exports.

mod build_errors;
mod strict_build;
mod xml_dialects;
mod xml_reference;
mod xml_round_trip;
