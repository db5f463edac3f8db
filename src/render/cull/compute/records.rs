//! The data the GPU-driven scene path keeps on the GPU: one compact record
//! per scene object (persistent, updated only for changed objects), and per
//! frame a header (frustum planes, eye, view rotation), a table of meshes
//! and the indirect draw commands.

use bytemuck::{Pod, Zeroable};
use nalgebra::{Matrix4, Point3};

use super::chunks::{split_f64, ObjectBox};
use crate::math::Frustum;
use crate::math::Obb;
use crate::render::cull::small::GpuSmallCull;
use crate::render::cull::MeshBounds;
use crate::render::desc::MeshId;

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

impl GpuObjectRecord {
    /// The record of `o`; `bounds[m]` are mesh `m`'s local bounds (an
    /// unknown mesh draws nothing, as on the CPU path).
    pub(crate) fn new(o: &SceneObject, bounds: &[MeshBounds]) -> GpuObjectRecord {
        GpuObjectRecord::with_box(o, bounds).0
    }

    /// [`GpuObjectRecord::new`] and what the object adds to its chunk's
    /// box: its world box (the CPU cull's: the world AABB of its OBB), or
    /// "always" when it has none (never culled), or nothing (no mesh).
    #[inline(always)]
    pub(crate) fn with_box(o: &SceneObject, bounds: &[MeshBounds]) -> (GpuObjectRecord, ObjectBox) {
        let mut record = GpuObjectRecord::unboxed(o, bounds);
        let object_box = match record.mesh {
            NO_MESH => ObjectBox::None,
            m => match world_box(&o.world, bounds[m as usize]) {
                None => {
                    record.flags = FLAG_NO_BOX;
                    ObjectBox::Always
                }
                Some((min, max)) => {
                    let w = &o.world;
                    let translation = Point3::new(w[(0, 3)], w[(1, 3)], w[(2, 3)]);
                    ObjectBox::Box { min, max, translation }
                }
            },
        };
        (record, object_box)
    }

    /// The record of `o` without its box: flags clear, so it is culled as
    /// an object with a box would be. [`GpuObjectRecord::provisional`] and
    /// [`GpuObjectRecord::with_box`] decide the flags.
    #[inline(always)]
    fn unboxed(o: &SceneObject, bounds: &[MeshBounds]) -> GpuObjectRecord {
        let w = &o.world;
        let (mut hi, mut lo) = ([0.0; 3], [0.0; 3]);
        for k in 0..3 {
            (hi[k], lo[k]) = split_f64(w[(k, 3)]);
        }
        let columns = std::array::from_fn(|c| [w[(0, c)] as f32, w[(1, c)] as f32, w[(2, c)] as f32, o.color[c]]);
        let mesh = o.mesh.map(|m| m.0).filter(|&m| (m as usize) < bounds.len());
        GpuObjectRecord { translation_hi: hi, mesh: mesh.unwrap_or(NO_MESH), translation_lo: lo, flags: 0, columns }
    }

    /// A provisional record of `o`, made without its world box (about
    /// half the cost of [`GpuObjectRecord::with_box`]): one that draws a
    /// mesh is flagged as having no box, so the cull never drops it, as
    /// it never drops a degenerate object. It is drawn, never wrongly
    /// culled, until a record with its box replaces it.
    #[inline(always)]
    pub(crate) fn provisional(o: &SceneObject, bounds: &[MeshBounds]) -> GpuObjectRecord {
        let mut record = GpuObjectRecord::unboxed(o, bounds);
        if record.mesh != NO_MESH {
            record.flags = FLAG_NO_BOX;
        }
        record
    }

    /// The world translation, hi + lo in f64.
    pub fn translation(&self) -> [f64; 3] {
        std::array::from_fn(|k| f64::from(self.translation_hi[k]) + f64::from(self.translation_lo[k]))
    }
}

/// The world AABB of a mesh box `(min, max)` under `world`, or `None` when
/// [`Obb::from_local_aabb`] has no box (the CPU cull's test: such objects
/// are never culled). Building the OBB (normals, square roots) is most of
/// the cost of a record; it is needed only to decide `None`, and that is
/// certain to be `Some` when the box's half-edges, scaled by the longest,
/// span a volume above 1e-6: each scaled edge is then longer than 1e-6
/// (more than `Obb::new`'s 1e-9) and each face normal's cross product too
/// (more than its 1e-12). That volume is `|det| / s^3` for the edges'
/// determinant `det` and the longest edge `s`; it is tested as
/// `det^2 > 1e-12 s^6` (no root, no division) while `s^2` stays within
/// 1e-80..1e80: nothing overflows, the right side is a normal f64 number
/// (at least 1e-252), and `det` is computed within a few parts in 1e16 of
/// `s^3` (cancellation included), which moves the test by far less than the
/// margins above. Otherwise (longer or shorter edges, non-finite or huge
/// values, a projective last row) the OBB decides.
#[inline(always)]
fn world_box(w: &Matrix4<f64>, (min, max): MeshBounds) -> Option<(Point3<f64>, Point3<f64>)> {
    let p = |v: [f32; 3]| Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
    let (min, max) = (p(min), p(max));
    let mid = nalgebra::center(&min, &max);
    let half = (max - min) * 0.5;
    let lin = w.fixed_view::<3, 3>(0, 0);
    let edges = [lin.column(0) * half.x, lin.column(1) * half.y, lin.column(2) * half.z];
    let center = lin * mid.coords + w.fixed_view::<3, 1>(0, 3);
    let s2 = edges[0].norm_squared().max(edges[1].norm_squared()).max(edges[2].norm_squared());
    let det = edges[0].dot(&edges[1].cross(&edges[2]));
    // A NaN edge makes `det` NaN (the comparison fails) whatever `max`
    // made of its length.
    let ordinary = (1e-80..=1e80).contains(&s2)
        && det * det > 1e-12 * (s2 * s2 * s2)
        && center.iter().all(|&v| v.abs() < 1e150)
        && w[(3, 0)] == 0.0
        && w[(3, 1)] == 0.0
        && w[(3, 2)] == 0.0
        && w[(3, 3)] == 1.0;
    if ordinary {
        let ext = edges[0].abs() + edges[1].abs() + edges[2].abs();
        return Some((Point3::from(center - ext), Point3::from(center + ext)));
    }
    Obb::from_local_aabb(&min, &max, w).map(|b| b.aabb())
}

/// The per-frame header (std430, 368 bytes) before the mesh table.
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
    /// The small-object test (`render/cull/small.rs`; off by default).
    pub small: GpuSmallCull,
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
        assert_eq!(std::mem::size_of::<FrameHeader>(), 368);
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

    /// The quick box decision agrees with the OBB's on ordinary,
    /// sheared, flat and collapsed boxes, and its box holds the OBB's.
    #[test]
    fn the_quick_box_test_decides_as_the_obb_does() {
        use nalgebra::{Rotation3, Unit};
        let bounds = ([-0.5f32, -1.0, 0.0], [0.5f32, 1.0, 3.0]);
        let p = |v: [f32; 3]| Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]));
        let turn = Rotation3::from_axis_angle(&Unit::new_normalize(Vector3::new(1.0, 2.0, 3.0)), 0.7);
        let mut worlds = Vec::new();
        // Ordinary, thin, flat; then edges past either end of the quick
        // test's range (the OBB decides those).
        let scales = [
            Vector3::new(1.0, 2.0, 3.0),
            Vector3::new(1e-4, 1.0, 1.0),
            Vector3::new(0.0, 1.0, 1.0),
            Vector3::new(1e-45, 2e-45, 3e-45),
            Vector3::new(1e45, 1e45, 2e45),
        ];
        for scale in scales {
            for far in [0.0, 3.0e5] {
                let t = Matrix4::new_translation(&Vector3::new(far, -far, 1.0));
                worlds.push(t * turn.to_homogeneous() * Matrix4::new_nonuniform_scaling(&scale));
            }
        }
        let mut shear = Matrix4::identity();
        shear[(0, 1)] = 5.0;
        worlds.push(shear);
        worlds.push(Matrix4::new_nonuniform_scaling(&Vector3::new(0.0, 0.0, 1.0)));
        worlds.push(Matrix4::zeros());
        let mut nan = Matrix4::identity();
        nan[(1, 3)] = f64::NAN;
        worlds.push(nan);
        let (mut some, mut none) = (0, 0);
        for w in &worlds {
            let obb = Obb::from_local_aabb(&p(bounds.0), &p(bounds.1), w);
            let quick = world_box(w, bounds);
            assert_eq!(quick.is_some(), obb.is_some(), "{w}");
            if let (Some((lo, hi)), Some(b)) = (quick, obb) {
                let (blo, bhi) = b.aabb();
                for k in 0..3 {
                    let tol = 1e-9 * (1.0 + blo[k].abs() + bhi[k].abs());
                    assert!((lo[k] - blo[k]).abs() <= tol && (hi[k] - bhi[k]).abs() <= tol, "{w}");
                }
                some += 1;
            } else {
                none += 1;
            }
        }
        assert_eq!((some, none), (11, 3), "flat, tiny and huge boxes have one, lines, points and NaN none");
    }
}
