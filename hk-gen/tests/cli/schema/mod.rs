//! `hk schema` and the schema-selection rule from the command line.

mod import_xml;
mod new_version;
mod record;
mod selection;
