//! The dynamic object graph as a packfile model: [`read`] decodes a packfile's objects into
//! a [`crate::graph::Graph`] by running each class's plan over the bytes, [`write`](mod@write) writes a
//! graph back, both through [`super::engine`].

pub mod read;
pub mod write;
