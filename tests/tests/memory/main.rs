//! The tests that read process-wide counters: the heap (live bytes, their peak and the
//! largest request, counted by [`hk_tests::heap::Counting`] installed as this binary's
//! global allocator) and the number of graphs built. A test running on another thread
//! would move the counters, so these tests share a process with nothing else, and each
//! holds [`hk_tests::heap::measuring`] from its start to its end: they run one at a time.

mod binary_tagfile_limits;
mod dump;
#[path = "../integration/typed/h710.rs"]
mod h710;
mod packfile_corruption;
mod packfile_limits;
mod schema_plan;
mod tagfile_limits;
mod typed;
mod xml;

#[global_allocator]
static HEAP: hk_tests::heap::Counting = hk_tests::heap::Counting;
