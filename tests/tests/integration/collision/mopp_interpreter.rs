//! The MOPP interpreter on codes assembled here, command by command (docs/mopp.md): the
//! commands the corpus codes do not use (return, 24- and 32-bit jumps, the chunk jump,
//! 24-bit bounds, the 32-bit terminal), split semantics, and the errors (unknown command,
//! jump out of the code, a loop), each naming its address. Also the degenerate-triangle
//! rule.

use hk_runtime::collision::mopp::{degenerate, Code, CHUNK};
use hk_runtime::collision::{Aabb, CollisionError};
use hk_runtime::graph::ObjectId;

/// A code whose integer space has 65,536 units per unit of length, so that a coordinate's
/// whole part is the high byte the commands compare.
fn code(bytes: Vec<u8>) -> Code {
    Code {
        object: ObjectId(u32::MAX),
        offset: [0.0; 3],
        scale: 65_536.0,
        bytes,
    }
}

/// A box whose x runs over high bytes `x0..=x1` (y and z at 0..1).
fn bx(x0: f32, x1: f32) -> Aabb {
    Aabb {
        min: [x0 + 0.1, 0.1, 0.1],
        max: [x1 + 0.5, 0.5, 0.5],
    }
}

/// Command builders: each is an opcode and its big-endian arguments.
fn terminal(k: u8) -> Vec<u8> {
    assert!(k < 32);
    vec![0x30 + k]
}

fn be(v: u64, n: usize) -> Vec<u8> {
    (0..n).rev().map(|i| (v >> (8 * i)) as u8).collect()
}

fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

#[test]
fn return_ends_a_path() {
    let c = code(cat(&[vec![0x00], terminal(1)]));
    assert_eq!(c.query(&bx(0.0, 1.0)).unwrap(), Vec::<u32>::new());
    assert_eq!(c.terminals().unwrap(), Vec::<u32>::new());
}

#[test]
fn splits_send_a_box_left_right_or_both() {
    // 0x10: x split, left if min <= 10, right if max >= 20; the right branch is 1 byte on.
    let c = code(cat(&[vec![0x10, 10, 20, 1], terminal(1), terminal(2)]));
    assert_eq!(c.query(&bx(0.0, 5.0)).unwrap(), [1]);
    assert_eq!(c.query(&bx(25.0, 30.0)).unwrap(), [2]);
    assert_eq!(c.query(&bx(5.0, 25.0)).unwrap(), [1, 2]);
    assert_eq!(c.query(&bx(12.0, 18.0)).unwrap(), Vec::<u32>::new());
    // 0x20: one value for both sides.
    let c = code(cat(&[vec![0x20, 10, 1], terminal(1), terminal(2)]));
    assert_eq!(c.query(&bx(0.0, 5.0)).unwrap(), [1]);
    assert_eq!(c.query(&bx(11.0, 12.0)).unwrap(), [2]);
    assert_eq!(c.query(&bx(9.0, 11.0)).unwrap(), [1, 2]);
    // 0x23: 16-bit jumps to both sides, counted from the end of the command.
    let c = code(cat(&[
        vec![0x23, 10, 20],
        be(1, 2),
        be(0, 2),
        terminal(2),
        terminal(1),
    ]));
    assert_eq!(c.query(&bx(0.0, 5.0)).unwrap(), [1]);
    assert_eq!(c.query(&bx(25.0, 30.0)).unwrap(), [2]);
    // A diagonal split is followed on both sides.
    let c = code(cat(&[vec![0x13, 0, 255, 1], terminal(1), terminal(2)]));
    assert_eq!(c.query(&bx(0.0, 0.0)).unwrap(), [1, 2]);
}

#[test]
fn bounds_in_the_frame_and_at_24_bits_in_the_root() {
    // 0x26: x bounds 4..=6 in the frame.
    let c = code(cat(&[vec![0x26, 4, 6], terminal(3)]));
    assert_eq!(c.query(&bx(5.0, 5.0)).unwrap(), [3]);
    assert_eq!(c.query(&bx(7.0, 9.0)).unwrap(), Vec::<u32>::new());
    // A rescale by 4 bits around frame byte 16 (x 16.0 becomes 0), then 24-bit x bounds
    // around root 16.0: they compare the root value, so x 16.x passes.
    let lo = 16u64 << 16;
    let c = code(cat(&[
        vec![0x04, 16, 0, 0],
        vec![0x29],
        be(lo, 3),
        be(lo + 0xFFFF, 3),
        terminal(4),
    ]));
    assert_eq!(c.query(&bx(16.0, 16.0)).unwrap(), [4]);
    assert_eq!(c.query(&bx(18.0, 19.0)).unwrap(), Vec::<u32>::new());
    // After that rescale the frame's high byte of x 16.5 is (0.5 << 4) = 8.
    let near = Aabb {
        min: [16.5, 0.1, 0.1],
        max: [16.52, 0.2, 0.2],
    };
    let c = code(cat(&[vec![0x04, 16, 0, 0], vec![0x26, 8, 8], terminal(5)]));
    assert_eq!(c.query(&near).unwrap(), [5]);
    let c = code(cat(&[vec![0x04, 16, 0, 0], vec![0x26, 9, 9], terminal(5)]));
    assert_eq!(c.query(&near).unwrap(), Vec::<u32>::new());
}

#[test]
fn long_jumps_chunk_jumps_and_terminal_offsets() {
    // 0x07: 24-bit forward jump over a return.
    let c = code(cat(&[vec![0x07], be(1, 3), vec![0x00], terminal(2)]));
    assert_eq!(c.terminals().unwrap(), [2]);
    // 0x08: 32-bit forward jump.
    let c = code(cat(&[vec![0x08], be(2, 4), vec![0x00, 0x00], terminal(6)]));
    assert_eq!(c.terminals().unwrap(), [6]);
    // 0x0C: to chunk 1 (byte 512); the bytes between are returns.
    let mut b = cat(&[vec![0x0C], be(1, 2)]);
    b.resize(CHUNK, 0x00);
    b.extend(terminal(5));
    assert_eq!(code(b).terminals().unwrap(), [5]);
    // 0x70: absolute.
    let c = code(cat(&[vec![0x70], be(6, 4), vec![0x00], terminal(7)]));
    assert_eq!(c.terminals().unwrap(), [7]);
    // Terminal offsets (0x0B set, 0x09 and 0x0A add) and the 8- to 32-bit terminals.
    let c = code(cat(&[
        vec![0x0B],
        be(1000, 4),
        vec![0x09, 5],
        vec![0x0A],
        be(300, 2),
        vec![0x20, 128, 9],
        vec![0x10, 64, 64, 2],
        vec![0x50, 9],
        vec![0x51],
        be(0x1234, 2),
        vec![0x10, 200, 200, 4],
        vec![0x52],
        be(0x10_0000, 3),
        vec![0x53],
        be(0x0100_0000, 4),
    ]));
    let base = 1305;
    assert_eq!(
        c.terminals().unwrap(),
        [
            base + 9,
            base + 0x1234,
            base + 0x10_0000,
            base + 0x0100_0000
        ]
    );
}

fn address(e: &CollisionError) -> usize {
    match e {
        CollisionError::Mopp { address, .. } => *address,
        other => panic!("not a MOPP error: {other}"),
    }
}

#[test]
fn bad_codes_are_errors_that_name_the_address() {
    // An unknown command after two good ones.
    let c = code(cat(&[vec![0x26, 0, 255], vec![0x09, 1], vec![0x60]]));
    let e = c.terminals().unwrap_err();
    assert_eq!(address(&e), 5, "{e}");
    assert!(e.to_string().contains("0x60"), "{e}");
    // A jump past the end.
    let c = code(cat(&[vec![0x09, 1], vec![0x05, 200]]));
    assert_eq!(address(&c.terminals().unwrap_err()), 2);
    // A command cut short.
    let c = code(vec![0x26, 0]);
    assert_eq!(address(&c.terminals().unwrap_err()), 0);
    // A code that jumps back to its start runs into the step limit, not forever.
    let c = code(cat(&[vec![0x09, 1], vec![0x70], be(0, 4)]));
    let e = c.terminals().unwrap_err();
    assert!(e.to_string().contains("loops"), "{e}");
    // Running off the end without a terminal.
    let c = code(vec![0x09, 1]);
    assert_eq!(address(&c.terminals().unwrap_err()), 2);
    // A box that is not finite.
    let c = code(terminal(1));
    assert!(c
        .query(&Aabb {
            min: [f32::NAN; 3],
            max: [0.0; 3]
        })
        .is_err());
}

#[test]
fn degenerate_triangles() {
    let d = |a: [f32; 3], b: [f32; 3], c: [f32; 3]| degenerate(a, b, c);
    assert!(!d([0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]));
    // Squared cross product 1e-8 (under 1e-7).
    assert!(d([0.0; 3], [1.0, 0.0, 0.0], [0.0, 1e-4, 0.0]));
    // Repeated vertices.
    assert!(d([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]));
    // Squared cross product 0.01: kept.
    assert!(!d([0.0; 3], [1.0, 0.0, 0.0], [0.0, 0.1, 0.0]));
    // Long and thin: u = (39, 0, 0), v = (78, 1e-5, 0). The cross product's square is
    // (39e-5)² = 1.52e-7, over the threshold at both vertices; but in f32 |v|² rounds to
    // 6084 exactly, so |u|²|v|² = 1521 × 6084 = 9253764 = 3042² = (u·v)²: the identity is
    // exactly zero and the triangle is left out.
    assert!(d([0.0; 3], [39.0, 0.0, 0.0], [78.0, 1e-5, 0.0]));
    // Ten thousand times wider, |v|² = 6084.01 is no longer 6084: kept. (At 1e-2 the
    // 1e-4 it adds is under half a unit in the last place of 6084 and vanishes.)
    assert!(!d([0.0; 3], [39.0, 0.0, 0.0], [78.0, 0.1, 0.0]));
}
