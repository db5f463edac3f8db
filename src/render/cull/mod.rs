//! Deciding what the scene pass draws: the choice between the CPU and the
//! compute (GPU) path, the exact small-object test both use, and the compute
//! path's persistent object records and indirect draws.

pub(crate) mod choice;
pub(crate) mod compute;
pub(crate) mod small;

/// Local mesh box (min, max) by mesh index.
pub(crate) type MeshBounds = ([f32; 3], [f32; 3]);
