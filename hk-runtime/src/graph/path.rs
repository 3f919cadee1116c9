//! Member paths as people write them: `bones[2].name`, `collidable.shape`.

/// One step of a written member path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathStep<'a> {
    /// A member name.
    Name(&'a str),
    /// An element index.
    Index(u32),
}

/// Splits `bones[2].name` into `[Name("bones"), Index(2), Name("name")]`; `None` for a
/// malformed path (an empty name between dots, an index that is not a number).
pub fn parse_path(text: &str) -> Option<Vec<PathStep<'_>>> {
    let mut out = Vec::new();
    for part in text.split('.') {
        let (name, rest) = part.split_once('[').map_or((part, ""), |(n, r)| (n, r));
        if name.is_empty() && (rest.is_empty() || out.is_empty() && !text.starts_with('[')) {
            return None;
        }
        if !name.is_empty() {
            out.push(PathStep::Name(name));
        }
        if !rest.is_empty() {
            for idx in format!("[{rest}").split('[').skip(1) {
                let n = idx.strip_suffix(']')?;
                out.push(PathStep::Index(n.parse().ok()?));
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(
            parse_path("bones[2].name"),
            Some(vec![
                PathStep::Name("bones"),
                PathStep::Index(2),
                PathStep::Name("name")
            ])
        );
        assert_eq!(
            parse_path("a[1][3]"),
            Some(vec![
                PathStep::Name("a"),
                PathStep::Index(1),
                PathStep::Index(3)
            ])
        );
        assert_eq!(parse_path("a..b"), None);
        assert_eq!(parse_path("a[x]"), None);
        assert_eq!(parse_path("a[1"), None);
    }
}
