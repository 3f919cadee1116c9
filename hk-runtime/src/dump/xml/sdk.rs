//! What the SDK dialect of Havok XML does differently from hk's exact one
//! (docs/havok-xml.md §3): the order and names of objects, floats with six decimals, and
//! `hkQsTransform` groups of three, four and three numbers.

use serde_json::Value as Json;

/// The two dialects hk writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// The SDK's own (the Skyrim behaviour files'): objects named `#NNNN` with their class
    /// signature, children before the objects that point to them, floats with six
    /// decimals, `SERIALIZE_IGNORED` members left out with a comment in their place. Floats
    /// may lose bits; [`Xml::rounded`] counts them.
    #[default]
    Sdk,
    /// hk's: every member, floats with the fewest digits that read back to the same bits,
    /// objects in graph order, so binary → XML → binary gives the same bytes.
    Exact,
}

/// Havok XML text and what the dialect could not keep.
#[derive(Clone, Debug, Default)]
pub struct Xml {
    /// The text.
    pub text: String,
    /// Float values that do not read back to the same bits: rounded to six decimals, or
    /// the unwritten fourth component of an `hkQsTransform`'s translation or scale when it
    /// is not zero (SDK dialect only).
    pub rounded: usize,
    /// `SERIALIZE_IGNORED` members left out that hold something other than zero, null or
    /// empty (SDK dialect only).
    pub ignored: usize,
}

/// The order the SDK's writer lists objects in: each object after every object it points
/// to, the pointers of an object followed last to first, starting from the root; objects
/// the root does not reach follow, each from the first in graph order. `refs[i]` are the
/// objects object `i` points to, in member order.
pub(super) fn post_order(refs: &[Vec<u32>], root: u32) -> Vec<u32> {
    let n = refs.len();
    let mut seen = vec![false; n];
    let mut out = Vec::with_capacity(n);
    let starts = std::iter::once(root).chain(0..n as u32);
    for start in starts {
        if (start as usize) >= n || seen[start as usize] {
            continue;
        }
        // Each frame is an object and how many of its pointers (from the last) are done.
        seen[start as usize] = true;
        let mut stack = vec![(start, refs[start as usize].len())];
        while let Some((o, left)) = stack.last_mut() {
            if *left == 0 {
                out.push(*o);
                stack.pop();
                continue;
            }
            *left -= 1;
            let next = refs[*o as usize][*left];
            if (next as usize) < n && !seen[next as usize] {
                seen[next as usize] = true;
                stack.push((next, refs[next as usize].len()));
            }
        }
    }
    out
}

/// The number each object is named by: the root first, then the others in the order
/// written, from 1.
pub(super) fn numbers(order: &[u32], root: u32) -> Vec<u64> {
    let mut names = vec![0u64; order.len()];
    let mut next = 1u64;
    if let Some(r) = names.get_mut(root as usize) {
        *r = next;
        next += 1;
    }
    for &o in order {
        if o != root {
            names[o as usize] = next;
            next += 1;
        }
    }
    names
}

/// A float as the SDK prints it, six decimals (`-0.000000`), and whether it reads back to
/// the same bits (for a `half` member, to the same half: see `leaf::named_half`).
/// Non-finite floats keep hk's `f32:0x…` form, which reads back exactly.
pub(super) fn six(j: &Json, half: bool) -> (String, bool) {
    match j {
        Json::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0) as f32;
            let s = format!("{f:.6}");
            let back = s.parse::<f32>().ok().map(|g| match half {
                true => super::leaf::named_half(&s, f64::from(g)).unwrap_or(g),
                false => g,
            });
            (s, back.is_some_and(|g| g.to_bits() == f.to_bits()))
        }
        Json::String(s) => (s.clone(), true),
        _ => ("0.000000".into(), true),
    }
}

/// The groups an `hkQsTransform`'s twelve floats are written in: translation and scale
/// without their fourth component.
pub(super) const QS_GROUPS: [(usize, usize); 3] = [(0, 3), (4, 8), (8, 11)];

/// Whether a dumped value is all zero, false, null or empty.
pub(super) fn is_empty(v: &Json) -> bool {
    match v {
        Json::Null => true,
        Json::Bool(b) => !b,
        Json::Number(n) => n.as_f64() == Some(0.0) && !n.to_string().starts_with('-'),
        Json::String(s) => s.is_empty(),
        Json::Array(a) => a.iter().all(is_empty),
        Json::Object(m) => m.values().all(is_empty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_come_before_their_parents_last_pointer_first() {
        // 0 -> [1, 2], 1 -> [3], 2 -> [3]; 4 unreachable.
        let refs = vec![vec![1, 2], vec![3], vec![3], vec![], vec![]];
        let order = post_order(&refs, 0);
        assert_eq!(order, vec![3, 2, 1, 0, 4]);
        assert_eq!(numbers(&order, 0), vec![1, 4, 3, 2, 5]);
    }

    #[test]
    fn six_decimals_say_whether_bits_survive() {
        assert_eq!(
            six(&serde_json::json!(0.5), false),
            ("0.500000".into(), true)
        );
        assert_eq!(
            six(&serde_json::json!(-0.0), false),
            ("-0.000000".into(), true)
        );
        let (s, same) = six(&serde_json::json!(0.1_f32), false);
        assert_eq!((s.as_str(), same), ("0.100000", true));
        assert!(!six(&serde_json::json!(7.105_427_4e-14_f32), false).1);
        // A half's six decimals name it again (Dark Souls' angular damping, 0x3D4C).
        for top in [0x3D4C_u32, 0xBD4C, 0x3F80, 0x4479, 0x3A83] {
            let h = f32::from_bits(top << 16);
            let (s, same) = six(&serde_json::json!(h), true);
            assert!(same, "{s} should name the half {top:#X}");
            let back = super::super::leaf::named_half(&s, s.parse().unwrap()).unwrap();
            assert_eq!(back.to_bits(), top << 16, "{s}");
            // The same text is not the f32 it rounds.
            assert!(!six(&serde_json::json!(h), false).1 || s.parse::<f32>().unwrap() == h);
        }
    }
}
