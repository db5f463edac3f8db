//! The data the GPU-driven scene path keeps on the GPU: one compact record
//! per scene object (persistent, updated only for changed objects), and per
//! frame a header (frustum planes, eye, view rotation), a table of meshes
//! and the indirect draw commands.

use bytemuck::{Pod, Zeroable};
use nalgebra::{Matrix4, Point3};

use super::super::MeshId;
use crate::math::geom::Obb;
use crate::math::Frustum;

/// One scene object for the GPU-driven path ([`crate::render::Renderer::set_scene_objects`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneObject {
    /// `None`: the object draws nothing (an empty, or a mesh without triangles).
    pub mesh: Option<MeshId>,
    pub world: Matrix4<f64>,
    /// Linear RGB.
    pub color: [f32; 3],
}

impl SceneObject {
    /// A slot without an object (deleted, or room for objects still to
    /// come): no mesh, so the cull pass never draws it.
    pub const NONE: SceneObject = SceneObject {
        mesh: None,
        world: Matrix4::new(1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0),
        color: [0.0; 3],
    };
}

/// `mesh` of a record that draws nothing.
pub(crate) const NO_MESH: u32 = u32::MAX;
/// Record flag: the object has no box (degenerate, e.g. zero scale) and,
/// as on the CPU path, is never culled.
pub(crate) const FLAG_NO_BOX: u32 = 1;

/// An object as the GPU holds it (80 bytes, std430 layout of `cull.comp`
/// and `scene_gpu.vert`). Camera-relative precision: the world translation
/// is an f64 split into `translation_hi` (the nearest f32) and
/// `translation_lo` (the f32 nearest the rest); the shaders subtract the
/// eye split the same way, hi from hi and lo from lo, so the difference
/// keeps about 48 bits far from the origin. The linear part is f32.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuObjectRecord {
    pub translation_hi: [f32; 3],
    /// The mesh index, or `u32::MAX` for none.
    pub mesh: u32,
    pub translation_lo: [f32; 3],
    /// Bit 0: no box (never culled).
    pub flags: u32,
    /// The world matrix's linear part by columns; `w` holds the colour
    /// (column 0: red, 1: green, 2: blue).
    pub columns: [[f32; 4]; 3],
}

/// `x` as an f32 `hi` and the f32 nearest `x - hi`.
pub fn split_f64(x: f64) -> (f32, f32) {
    let hi = x as f32;
    (hi, (x - f64::from(hi)) as f32)
}

/// Local mesh box (min, max) by mesh index.
pub(crate) type MeshBounds = ([f32; 3], [f32; 3]);

impl GpuObjectRecord {
    /// The record of `o`; `bounds[m]` are mesh `m`'s local bounds (an
    /// unknown mesh draws nothing, as on the CPU path).
    pub(crate) fn new(o: &SceneObject, bounds: &[MeshBounds]) -> GpuObjectRecord {
        let w = &o.world;
        let (mut hi, mut lo) = ([0.0; 3], [0.0; 3]);
        for k in 0..3 {
            (hi[k], lo[k]) = split_f64(w[(k, 3)]);
        }
        let columns = std::array::from_fn(|c| [w[(0, c)] as f32, w[(1, c)] as f32, w[(2, c)] as f32, o.color[c]]);
        let mesh = o.mesh.map(|m| m.0).filter(|&m| (m as usize) < bounds.len());
        let flags = match mesh {
            Some(m) => {
                let (min, max) = bounds[m as usize];
                let p = |v: [f32; 3]| Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
                if Obb::from_local_aabb(&p(min), &p(max), w).is_none() {
                    FLAG_NO_BOX
                } else {
                    0
                }
            }
            None => 0,
        };
        GpuObjectRecord { translation_hi: hi, mesh: mesh.unwrap_or(NO_MESH), translation_lo: lo, flags, columns }
    }

    /// The world translation, hi + lo in f64.
    pub fn translation(&self) -> [f64; 3] {
        std::array::from_fn(|k| f64::from(self.translation_hi[k]) + f64::from(self.translation_lo[k]))
    }
}

/// The per-frame header (std430, 192 bytes) before the mesh table.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct FrameHeader {
    /// Camera-relative planes: `dot(n, p - eye) + w >= 0` inside.
    pub planes: [[f32; 4]; 6],
    pub eye_hi: [f32; 4],
    pub eye_lo: [f32; 4],
    /// Objects, planes, meshes, member slots.
    pub counts: [u32; 4],
    /// The view's rotation by columns.
    pub view_rot: [[f32; 4]; 3],
}

/// One mesh of the per-frame table (std430, 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct MeshInfo {
    pub center: [f32; 3],
    pub first_cmd: u32,
    pub half: [f32; 3],
    pub cmd_count: u32,
    /// First slot of the mesh's members, and of its slice of the visible list.
    pub base: u32,
    /// Workgroups of the mesh's (padded) members.
    pub groups: u32,
    pub pad: [u32; 2],
}

/// Threads per workgroup of `cull.comp`; each mesh's members are padded to
/// a multiple of it.
pub(crate) const GROUP: u32 = 256;
/// A padding slot of [`Members::slots`].
pub(crate) const NO_OBJECT: u32 = u32::MAX;

/// The member list `cull.comp` walks: the indices of the objects that draw
/// a mesh, grouped by mesh (in mesh order) and ascending inside each mesh,
/// each mesh's run padded with [`NO_OBJECT`] to whole workgroups. A
/// workgroup thus holds one mesh's objects, and an ordered compaction of
/// the slots keeps each mesh's visible objects in ascending order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Members {
    /// Emptied once uploaded ([`Members::len`] stays).
    pub slots: Vec<u32>,
    /// How many slots there are.
    pub len: u32,
    /// Per mesh: its first slot.
    pub base: Vec<u32>,
    /// Per mesh: how many objects draw it.
    pub count: Vec<u32>,
}

impl Members {
    /// The members of objects whose mesh indices are `object_mesh` ([`NO_MESH`]:
    /// none), over `meshes` meshes (a counting sort, linear in objects).
    pub fn new(object_mesh: &[u32], meshes: usize) -> Members {
        let mut count = vec![0u32; meshes];
        for &m in object_mesh.iter().filter(|&&m| (m as usize) < meshes) {
            count[m as usize] += 1;
        }
        let mut base = Vec::with_capacity(meshes);
        let mut at = 0u32;
        for &c in &count {
            base.push(at);
            at += c.div_ceil(GROUP) * GROUP;
        }
        let mut slots = vec![NO_OBJECT; at as usize];
        let mut next = base.clone();
        for (i, &m) in object_mesh.iter().enumerate().filter(|(_, &m)| (m as usize) < meshes) {
            slots[next[m as usize] as usize] = i as u32;
            next[m as usize] += 1;
        }
        Members { len: slots.len() as u32, slots, base, count }
    }

    /// Mesh `m`'s first slot and workgroups (a mesh past the list has none).
    pub fn of(&self, m: usize) -> (u32, u32) {
        match (self.base.get(m), self.count.get(m)) {
            (Some(&b), Some(&c)) => (b, c.div_ceil(GROUP)),
            _ => (self.len, 0),
        }
    }
}

/// `VkDrawIndexedIndirectCommand` (20 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct IndexedCommand {
    pub index_count: u32,
    pub instance_count: u32,
    pub first_index: u32,
    pub vertex_offset: i32,
    pub first_instance: u32,
}

impl FrameHeader {
    /// The header for a view with rotation (3x3 of) `view`, eye `eye` and
    /// `frustum` (None: nothing is culled), over `objects` objects and
    /// `meshes` meshes and `slots` member slots. Planes are moved to the
    /// eye in f64 first.
    pub fn new(
        view: &Matrix4<f64>,
        eye: &Point3<f64>,
        frustum: Option<&Frustum>,
        (objects, meshes, slots): (u32, u32, u32),
    ) -> FrameHeader {
        let mut h = FrameHeader::default();
        let mut n = 0;
        if let Some(f) = frustum {
            for p in f.sides.iter().chain(std::iter::once(&f.near)).chain(f.far.iter()) {
                // n . (eye + r) + d = n . r + (n . eye + d)
                let d = p.normal.dot(&eye.coords) + p.d;
                h.planes[n] = [p.normal.x as f32, p.normal.y as f32, p.normal.z as f32, d as f32];
                n += 1;
            }
        }
        for k in 0..3 {
            let (hi, lo) = split_f64(eye[k]);
            h.eye_hi[k] = hi;
            h.eye_lo[k] = lo;
        }
        h.counts = [objects, n as u32, meshes, slots];
        h.view_rot = std::array::from_fn(|c| [view[(0, c)] as f32, view[(1, c)] as f32, view[(2, c)] as f32, 0.0]);
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    #[test]
    fn layouts_match_the_shaders() {
        assert_eq!(std::mem::size_of::<GpuObjectRecord>(), 80);
        assert_eq!(std::mem::size_of::<FrameHeader>(), 192);
        assert_eq!(std::mem::size_of::<MeshInfo>(), 48);
        assert_eq!(std::mem::size_of::<IndexedCommand>(), 20);
    }

    #[test]
    fn the_split_keeps_far_translations_to_a_fraction_of_a_micrometre() {
        for x in [1.0e6 + 0.123_456_789, -3.3e7 + 0.5e-3, 0.1] {
            let (hi, lo) = split_f64(x);
            assert_eq!(hi, x as f32);
            assert!((f64::from(hi) + f64::from(lo) - x).abs() < 1e-9 * x.abs().max(1.0), "{x}");
        }
        let bounds = [([-0.5f32; 3], [0.5f32; 3])];
        let world = Matrix4::new_translation(&Vector3::new(2.0e5 + 0.25, -1.0e5, 3.0e5 + 1e-4));
        let r = GpuObjectRecord::new(&SceneObject { mesh: Some(MeshId(0)), world, color: [0.5; 3] }, &bounds);
        assert_eq!(r.mesh, 0);
        assert_eq!(r.flags, 0);
        let t = r.translation();
        assert!((t[2] - (3.0e5 + 1e-4)).abs() < 1e-9);
        // Zero scale: no box, never culled; an unknown mesh draws nothing.
        let flat = SceneObject { mesh: Some(MeshId(0)), world: Matrix4::zeros(), color: [1.0; 3] };
        assert_eq!(GpuObjectRecord::new(&flat, &bounds).flags, FLAG_NO_BOX);
        let unknown = SceneObject { mesh: Some(MeshId(3)), ..flat };
        assert_eq!(GpuObjectRecord::new(&unknown, &bounds).mesh, NO_MESH);
    }

    #[test]
    fn members_group_objects_by_mesh_in_ascending_order_padded_to_workgroups() {
        // 600 objects: every third draws mesh 2, the rest alternate mesh 0
        // and none; mesh 1 has no objects.
        let object_mesh: Vec<u32> = (0..600u32)
            .map(|i| {
                if i % 3 == 0 {
                    2
                } else if i % 2 == 0 {
                    0
                } else {
                    NO_MESH
                }
            })
            .collect();
        let m = Members::new(&object_mesh, 3);
        let expect_0: Vec<u32> = (0..600).filter(|i| i % 3 != 0 && i % 2 == 0).collect();
        let expect_2: Vec<u32> = (0..600).step_by(3).collect();
        assert_eq!((expect_0.len(), expect_2.len()), (200, 200));
        assert_eq!(m.count, vec![200, 0, 200]);
        // 200 objects take one workgroup of 256 slots.
        assert_eq!(m.base, vec![0, 256, 256]);
        assert_eq!((m.slots.len(), m.len), (512, 512));
        assert_eq!(m.slots[..200], expect_0[..]);
        assert!(m.slots[200..256].iter().all(|&s| s == NO_OBJECT));
        assert_eq!(m.slots[256..456], expect_2[..]);
        assert!(m.slots[456..].iter().all(|&s| s == NO_OBJECT));
        assert_eq!((m.of(0), m.of(1), m.of(2), m.of(7)), ((0, 1), (256, 0), (256, 1), (512, 0)));
    }
}
