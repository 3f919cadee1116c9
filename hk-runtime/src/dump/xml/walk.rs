//! What every pass over an XML text shares: the text, the schema, what the first look
//! found, the memory meter, and the slot where the XML reader keeps its own error (typed,
//! with its byte position) while serde unwinds with its message. The dump's reader keeps
//! its errors in a slot of its own; each adds the path (`#0034 hkaSkeleton.bones[2]`) to
//! the error it raised as the error passes the objects, members and elements it leaves.

use std::cell::RefCell;

use super::events::{Ev, Events, Located};
use super::leaf::{DeErr, Leaf};
use super::meter::Meter;
use super::scan::Scan;
use crate::error::PathSegment;
use crate::schema::Schema;

/// What the passes share.
pub(super) struct Shared<'a> {
    pub(super) text: &'a str,
    pub(super) schema: &'a Schema,
    pub(super) scan: Scan<'a>,
    pub(super) meter: Meter,
    /// The XML reader's own error being unwound.
    failed: RefCell<Option<Located>>,
    /// The object (list position and how the XML names it) the last error left, when the
    /// dump's reader raised that error.
    pub(super) left: RefCell<Option<(u32, String)>>,
}

impl<'a> Shared<'a> {
    pub(super) fn new(text: &'a str, schema: &'a Schema, scan: Scan<'a>, meter: Meter) -> Self {
        Shared {
            text,
            schema,
            scan,
            meter,
            failed: RefCell::new(None),
            left: RefCell::new(None),
        }
    }

    /// Keeps `l` and returns the serde error that carries its message.
    pub(super) fn fail(&self, l: Located) -> DeErr {
        let e = DeErr {
            message: l.error.to_string(),
            at: Some(l.at),
        };
        *self.failed.borrow_mut() = Some(l);
        e
    }

    /// Prepends a path element to the kept error, if the XML reader raised the error being
    /// unwound; returns whether it did.
    pub(super) fn context<S: Into<PathSegment>>(&self, element: impl FnOnce() -> S) -> bool {
        let mut slot = self.failed.borrow_mut();
        match slot.take() {
            Some(l) => {
                *slot = Some(Located {
                    error: l.error.in_(element()),
                    at: l.at,
                });
                true
            }
            None => false,
        }
    }

    /// The kept error, if the last run stopped on one.
    pub(super) fn take_failure(&self) -> Option<Located> {
        self.failed.borrow_mut().take()
    }

    /// Forgets what an earlier run left (each run starts clean).
    pub(super) fn clear(&self) {
        self.failed.borrow_mut().take();
        self.left.borrow_mut().take();
    }

    /// Charges the read's budget, for something at `at`.
    pub(super) fn charge(&self, bytes: u64, at: usize) -> Result<(), DeErr> {
        self.meter.charge(bytes, at).map_err(|l| self.fail(l))
    }

    /// What words mean for members.
    pub(super) fn leaf(&self) -> Leaf<'_> {
        Leaf {
            schema: self.schema,
            names: &self.scan.names,
        }
    }
}

/// One pass: the shared state and the events, and where the last element or value read
/// starts (a place for errors the dump's reader raises there).
pub(super) struct Walk<'s, 'a> {
    pub(super) sh: &'s Shared<'a>,
    pub(super) ev: Events<'a>,
    pub(super) last: usize,
}

impl<'s, 'a> Walk<'s, 'a> {
    /// The next event (an error is kept).
    pub(super) fn next(&mut self) -> Result<Ev<'a>, DeErr> {
        self.ev.next().map_err(|l| self.sh.fail(l))
    }

    /// Reads past the rest of the elements open until `depth` are.
    pub(super) fn skip_to(&mut self, depth: usize) -> Result<(), DeErr> {
        self.ev.skip_to(depth).map_err(|l| self.sh.fail(l))
    }

    /// Keeps `l`.
    pub(super) fn err(&self, l: Located) -> DeErr {
        self.sh.fail(l)
    }
}
