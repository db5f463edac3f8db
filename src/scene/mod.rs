//! Scene objects, hierarchy, meshes and scene files.

pub mod primitives;
