//! hk-runtime's own integration tests, on small schemas built in code (no corpus needed):
//! layout and signature rules, and the tools for adding a version. The corpus and
//! whole-file tests are in the hk-tests crate (tests/README.md).

mod layout_rules;
mod schema_tools;

use hk_runtime::schema::Member;
use hk_runtime::types::TypeKind;

/// A plain member of type `ty`: no class, enum, array size, flags or stated offset.
fn member(name: &str, ty: TypeKind) -> Member {
    Member {
        name: name.into(),
        ty,
        subtype: TypeKind::Void,
        element: TypeKind::Void,
        class: None,
        enum_ref: None,
        array_size: 0,
        flags: 0,
        expected_offset: None,
        gap_before: 0,
        line: 0,
    }
}
