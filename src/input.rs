//! Platform-free input events (being written).
