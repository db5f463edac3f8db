//! What the scene's meshes are made of on the GPU: vertex and index buffers
//! with their parts by material, materials with their descriptor sets and
//! samplers, the `.hdr` environment's maps the material sets read, and
//! textures with their mip chains.

pub(crate) mod environment;
pub(crate) mod environment_map;
pub(crate) mod material;
pub(crate) mod mesh;
pub(crate) mod sampler;
pub(crate) mod shadow_map;
pub(crate) mod texture;
