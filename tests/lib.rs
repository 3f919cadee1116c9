//! hk corpus tests
