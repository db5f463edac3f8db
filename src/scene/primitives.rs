//! Built-in primitive meshes (being written).
