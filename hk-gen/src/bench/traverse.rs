//! The view traversal `hk bench` times: every member of every object of a packfile read in
//! place through the built-in typed classes' zero-copy views (structs and array elements
//! included, pointers not followed, so each object once), folded into a checksum so that no
//! read is optimised away.

use hk_runtime::packfile::Packfile;
use hk_runtime::typed::view::traverse_packfile;

use crate::typed710::AnyView;

/// Parses `bytes` as a packfile and reads every member of every object through the views,
/// returning the checksum of what was read. Allocates nothing per member.
///
/// # Errors
/// A malformed file, an object of a class the built-in classes lack, or data that does not
/// read.
pub fn traverse_file(bytes: &[u8]) -> hk_runtime::Result<u64> {
    let pf = Packfile::parse(bytes)?;
    traverse_packfile::<AnyView<'_>>(&pf)
}
