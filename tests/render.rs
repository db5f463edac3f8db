//! Headless rendering on the Vulkan device the loader gives (lavapipe with
//! `VK_DRIVER_FILES`), always with the validation layer, in-process. One test
//! executable; each file under `render/` is a module
//! (declared with `#[path]`, as a crate root's modules would otherwise be
//! looked for beside it). Every renderer owns its
//! own instance and validation counter, so the tests run in parallel threads.

mod support;

/// Frames culled through the editor's pick tree keep what a scan of every
/// object keeps.
#[path = "render/culling.rs"]
mod culling;
/// Orbit and zoom about the surface point read back from the depth buffer.
#[path = "render/depth_probe.rs"]
mod depth_probe;
/// The overlay recorded into a foreign ash program's frame (the example).
#[path = "render/embed_overlay.rs"]
mod embed_overlay;
/// GPU culling's chunk boxes: few workgroups tested, edits followed.
#[path = "render/gpu_chunks.rs"]
mod gpu_chunks;
/// GPU culling: the compute pass keeps what the CPU frustum test keeps.
#[path = "render/gpu_culling.rs"]
mod gpu_culling;
/// The grid far from the origin (the same picture, the axes in place) and
/// in orthographic front and side views.
#[path = "render/grid.rs"]
mod grid;
/// Radiance .hdr environments: constant files as uniform, orientation of
/// diffuse and mirror light, changing files between frames.
#[path = "render/hdr.rs"]
mod hdr;
/// Colours, occlusion and depth precision in both depth modes.
#[path = "render/headless.rs"]
mod headless;
/// The object-ID target against CPU picking; region read-backs.
#[path = "render/id_buffer.rs"]
mod id_buffer;
/// glTF materials: textures, factors, vertex colours, MASK and BLEND.
#[path = "render/materials.rs"]
mod materials;
/// Memory stays flat while frames are drawn over and over.
#[path = "render/memory.rs"]
mod memory;
/// MSAA: blended edges, exact depth, outline and overlay.
#[path = "render/msaa.rs"]
mod msaa;
/// The gizmo overlay pass.
#[path = "render/overlay.rs"]
mod overlay;
/// The material shading mode against Appendix B, computed in the test.
#[path = "render/pbr.rs"]
mod pbr;
/// The quad view: four views in one frame, ids per view, separators, gizmos.
#[path = "render/quad.rs"]
mod quad;
/// Changed glTF files reloaded: edits kept, new nodes and meshes, undo.
#[path = "render/reload.rs"]
mod reload;
/// The selection outline and the box-selection rectangle.
#[path = "render/selection.rs"]
mod selection;
/// Skinned meshes posed by their joint objects: drawn, picked, snapped.
#[path = "render/skin.rs"]
mod skin;
/// Small-object culling: no pixel changes, both paths keep the same objects.
#[path = "render/small_culling.rs"]
mod small_culling;
