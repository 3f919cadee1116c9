//! Writing a tagfile from the object graph and a type table (docs/tagfile-format.md §8).
//! Everything is regenerated: DATA placement and item numbering, the type, string, body and
//! hash tables and their order, ITEM, PTCH and every section header. Only leaf values come
//! from the graph; type definitions and hashes come from the type table.
//!
//! The graph's schema may be the one extracted from the table (a round trip) or a
//! generation's (files hk makes, `hk build`): classes and members are matched to the
//! table's records by name, once per class (modules `bind` and `encode`).

use std::collections::VecDeque;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::data::{ITEM_ARRAY, ITEM_OBJECT};
use super::encode::{Encoder, Step, Target};
use super::relative::{self, Rel};
use super::tables::{self, Placed};
use super::types::TypeTable;
use crate::error::{Error, Result, WriteError};
use crate::graph::{Array, Graph, ObjectId};
use crate::schema::{Shape, TagfileRules};

pub use super::tables::{encode_table, section};

/// A block waiting to be placed.
enum Node<'g> {
    Object(ObjectId),
    Array {
        elem: u64,
        items: &'g Array,
        shape: Shape,
        path: Vec<Step>,
        index: usize,
    },
    Str {
        bytes: &'g [u8],
        index: usize,
    },
}

fn align_to(buf: &mut Vec<u8>, a: u64) {
    let n = (buf.len() as u64).div_ceil(a.max(1)) * a.max(1);
    buf.resize(n as usize, 0);
}

/// Writes `graph` as a TAG0 tagfile with the types of `table` (which must describe every
/// class of the graph as a record of the same full name, with members of the same names)
/// and SDK version `sdk`, in the table order `rules` give.
///
/// # Errors
/// A class or member the table lacks, a value that does not fit its type-table member
/// (naming the object and member), or a table too large for the format's fields.
pub fn write(graph: &Graph, table: &TypeTable, sdk: &str, rules: &TagfileRules) -> Result<Vec<u8>> {
    tables::check_refs(table)?;
    let placed = place(graph, table, rules.dedupe_strings)?;
    tables::assemble(table, sdk, &placed, rules)
}

/// Writes `graph` as a TAG0 whose types are those of compendium `id` (docs/tagfile-format.md
/// §1a): `table` is the compendium's, its indices are used as they stand, and a `TCRF`
/// section naming `id` takes the TYPE section's place.
///
/// # Errors
/// As [`write()`].
pub fn write_referencing(
    graph: &Graph,
    table: &TypeTable,
    sdk: &str,
    rules: &TagfileRules,
    id: u64,
) -> Result<Vec<u8>> {
    tables::check_refs(table)?;
    let placed = place(graph, table, rules.dedupe_strings)?;
    tables::assemble_referencing(table, sdk, &placed, id)
}

/// DATA: the queue algorithm of docs/tagfile-format.md §4.
fn place(graph: &Graph, table: &TypeTable, dedupe_strings: bool) -> Result<Placed> {
    let root = graph.root;
    if root.0 as usize >= graph.objects.len() {
        return Err(Error::write(WriteError::MissingObject(u64::from(root.0))).in_("root"));
    }
    let enc = Encoder::new(graph, table);
    let mut placer = Placer {
        // String items have type `char`; a file without strings need not describe it.
        char_ty: enc.type_named("char"),
        enc,
        table,
        rel: relative::forms(table),
        dedupe_strings,
        p: Placed {
            items: vec![(0, 0, 0, 0), (ITEM_OBJECT, 0, 0, 1)],
            ..Placed::default()
        },
        object_index: HashMap::from_iter([(root, 1)]),
        string_index: HashMap::default(),
        fills: Vec::new(),
        touched_set: HashSet::default(),
        objects: VecDeque::from([root]),
    };
    while let Some(obj) = placer.objects.pop_front() {
        let mut fifo: VecDeque<Node<'_>> = VecDeque::from([Node::Object(obj)]);
        while let Some(node) = fifo.pop_front() {
            placer.node(node, &mut fifo)?;
        }
    }
    // Only what the root reaches has a place (docs §4); an object it does not reach would
    // be lost.
    if let Some(k) =
        (0..graph.objects.len()).find(|&k| !placer.object_index.contains_key(&ObjectId(k as u32)))
    {
        let id = ObjectId(k as u32);
        return Err(Error::invalid_write(
            "the root does not reach this object, and a tagfile holds only what its root reaches",
        )
        .in_(graph.object_step(id)));
    }
    placer.fill()
}

/// DATA as it is placed: the items, the blocks, and the slots still to fill with the
/// index of the item they name.
struct Placer<'g> {
    enc: Encoder<'g>,
    table: &'g TypeTable,
    /// The relative form of each type, when the table has relative slot types.
    rel: Option<Vec<Option<Rel>>>,
    char_ty: Option<u64>,
    dedupe_strings: bool,
    p: Placed,
    object_index: HashMap<ObjectId, usize>,
    string_index: HashMap<&'g [u8], usize>,
    /// Slot offset, item index, declared type (the index fills the first min(size, 8)
    /// bytes; a relative slot takes the distance to the item and its count instead).
    fills: Vec<(u64, usize, u64)>,
    touched_set: HashSet<u64>,
    /// Objects named and not placed yet, in the order they were first named.
    objects: VecDeque<ObjectId>,
}

impl<'g> Placer<'g> {
    /// The relative form of type `t`, if it is one.
    fn rel_of(&self, t: u64) -> Option<Rel> {
        self.rel.as_ref()?.get(t as usize).copied().flatten()
    }

    /// Notes that type `t` is used, the first time.
    fn touch(&mut self, t: u64) {
        if self.touched_set.insert(t) {
            self.p.touched.push(t);
        }
    }

    /// The item header of `node`: flag, type, count, item index and alignment.
    fn header(&mut self, node: &Node<'g>) -> Result<(u8, u64, u64, usize, u64)> {
        Ok(match node {
            Node::Object(id) => {
                let t = self.enc.object_type(*id)?;
                (
                    ITEM_OBJECT,
                    t,
                    1,
                    self.object_index[id],
                    self.table.align_of(t),
                )
            }
            Node::Array {
                elem, items, index, ..
            } => (ITEM_ARRAY, *elem, items.len() as u64, *index, 16),
            Node::Str { bytes, index } => {
                let c = self.char_ty.ok_or_else(|| {
                    Error::invalid_write("the type table has no `char` for string items")
                })?;
                (ITEM_ARRAY, c, bytes.len() as u64 + 1, *index, 2)
            }
        })
    }

    /// Places one block: its item, its bytes, and the items its slots name (arrays queued
    /// on `fifo`, objects on the object queue, strings after the block's whole scan).
    fn node(&mut self, node: Node<'g>, fifo: &mut VecDeque<Node<'g>>) -> Result<()> {
        let (flag, ty, count, index, align) = self.header(&node)?;
        align_to(&mut self.p.data, align);
        let off = self.p.data.len() as u64;
        self.touch(ty);
        self.p.item_types.push(ty);
        self.p.items[index] = (flag, ty, off, count);
        let block = match node {
            Node::Str { bytes, .. } => {
                self.p.data.extend_from_slice(bytes);
                self.p.data.push(0);
                return Ok(());
            }
            Node::Object(id) => self.enc.object(id, ty)?,
            Node::Array {
                elem,
                items,
                shape,
                path,
                ..
            } => self.enc.array(items, elem, &shape, path)?,
        };
        if off + block.bytes.len() as u64 >= tables::MAX_DATA {
            return Err(Error::write(WriteError::TooLarge(
                "DATA grows past what a TAG0 section holds".into(),
            )));
        }
        self.p.data.extend_from_slice(&block.bytes);
        let mut strings = Vec::new();
        for slot in block.slots {
            let Some(target) = slot.target else { continue };
            let at = off + slot.rel;
            // A relative slot holds no item index, so PTCH does not list it.
            if self.rel_of(slot.ty).is_none() {
                self.p.patches.entry(slot.ty).or_default().push(at);
            }
            match target {
                Target::Object(id) => self.object_slot(id, at, slot.ty),
                Target::Array {
                    items,
                    elem,
                    shape,
                    path,
                } => {
                    self.touch(slot.ty);
                    let i = self.p.items.len();
                    self.p.items.push((0, 0, 0, 0));
                    fifo.push_back(Node::Array {
                        elem,
                        items,
                        shape,
                        path,
                        index: i,
                    });
                    self.fills.push((at, i, slot.ty));
                }
                Target::Str(s) => strings.push((slot.ty, s, at)),
            }
        }
        // Strings are numbered after the whole scan of the block that holds them.
        for (field_ty, s, at) in strings {
            self.string_slot(s, at, field_ty, fifo);
        }
        Ok(())
    }

    /// A slot naming object `id`: its item, numbered and queued when first named.
    fn object_slot(&mut self, id: ObjectId, at: u64, ty: u64) {
        self.touch(ty);
        let next = self.p.items.len();
        let objects = &mut self.objects;
        let i = *self.object_index.entry(id).or_insert_with(|| {
            objects.push_back(id);
            next
        });
        if i == next {
            self.p.items.push((0, 0, 0, 0));
        }
        self.fills.push((at, i, ty));
    }

    /// A slot naming string `s`: a new item, or (with deduplication) the one of the same
    /// bytes.
    fn string_slot(&mut self, s: &'g [u8], at: u64, ty: u64, fifo: &mut VecDeque<Node<'g>>) {
        self.touch(ty);
        let known = if self.dedupe_strings {
            self.string_index.get(s).copied()
        } else {
            None
        };
        let i = match known {
            Some(i) => i,
            None => {
                let i = self.p.items.len();
                self.p.items.push((0, 0, 0, 0));
                if self.dedupe_strings {
                    self.string_index.insert(s, i);
                }
                fifo.push_back(Node::Str { bytes: s, index: i });
                i
            }
        };
        self.fills.push((at, i, ty));
    }

    /// Pads DATA and writes each slot's item index into its first bytes, or a relative
    /// slot's distance to its item and the item's count.
    fn fill(mut self) -> Result<Placed> {
        align_to(&mut self.p.data, 16);
        for &(at, i, ty) in &self.fills {
            let bytes = match self.rel_of(ty) {
                Some(r) => self.relative_slot(r, at, i)?,
                None => self.index_slot(i, ty)?,
            };
            let n = bytes.len();
            let dst = self
                .p
                .data
                .get_mut(at as usize..at as usize + n)
                .ok_or_else(|| Error::invalid_write("a slot lies past DATA"))?;
            dst.copy_from_slice(&bytes);
        }
        Ok(self.p)
    }

    /// An item-index slot's first min(size, 8) bytes.
    fn index_slot(&self, i: usize, ty: u64) -> Result<Vec<u8>> {
        let n = self.table.size_of(ty).clamp(1, 8) as usize;
        let i = i as u64;
        if n < 8 && i >> (8 * n) != 0 {
            return Err(Error::write(WriteError::TooLarge(format!(
                "item {i} does not fit the {n}-byte slot of {}",
                self.table.full_name(ty)
            ))));
        }
        Ok(i.to_le_bytes()[..n].to_vec())
    }

    /// A relative slot at `at` naming item `i` (docs/relative-pointers.md): the distance
    /// from the slot to the item, then the item's count and a zero capacity for arrays.
    fn relative_slot(&self, r: Rel, at: u64, i: usize) -> Result<Vec<u8>> {
        let (_, _, off, count) = self.p.items[i];
        let mut bytes = relative::offset_word(at, off, r.offset_width())
            .map_err(|m| Error::write(WriteError::TooLarge(m)))?;
        if r.count_at().is_some() {
            let n = u32::try_from(count)
                .ok()
                .filter(|&n| n <= i32::MAX as u32)
                .ok_or_else(|| {
                    Error::write(WriteError::TooLarge(format!(
                        "{count} elements do not fit a relative array's count"
                    )))
                })?;
            bytes.extend_from_slice(&n.to_le_bytes());
        }
        bytes.resize(r.size() as usize, 0);
        Ok(bytes)
    }
}
