//! Draw data for the gizmo: one [`OverlayInstance`] per mesh piece, with a
//! model matrix that maps a canonical unit mesh into world space. No GPU.
//!
//! Canonical meshes (what the renderer must build for each [`MeshKind`]):
//! - `Shaft`: cylinder of radius 1 along +Y from y = 0 to y = 1.
//! - `Cone`: base radius 1 at y = 0, apex at y = 1.
//! - `Cube`: the cube [-0.5, 0.5]^3.
//! - `PlaneQuad`: the square [-0.5, 0.5]^2 in the XY plane, normal +Z.
//! - `Disc`: filled disc of radius 1 in the XY plane, normal +Z.
//! - `Ring`: torus of major radius 1 and minor radius [`RING_TUBE`] in the XY
//!   plane (around +Z).
//!
//! Every matrix is scaled by the screen-constant length `L`, so the drawn
//! sizes stay constant on screen (thicknesses included). All sizes come from
//! [`GEOMETRY`], the same table the pick shapes and the drags use.

use nalgebra::{Matrix4, Vector3};

use crate::mesh::MeshData;

use super::geometry::GEOMETRY;
use super::layout::GizmoFrame;
use super::types::{Axis, Handle};
use crate::math::closest::orthonormal_basis;

/// Minor radius of the canonical `Ring` torus (relative to its major radius
/// 1); the same as [`GEOMETRY`]`.ring_tube`.
pub const RING_TUBE: f64 = GEOMETRY.ring_tube;

/// Which canonical mesh an instance draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshKind {
    /// Cylinder of radius 1 along +Y from y = 0 to 1.
    Shaft,
    /// Cone with base radius 1 at y = 0 and apex at y = 1.
    Cone,
    /// The cube [-0.5, 0.5]^3.
    Cube,
    /// The square [-0.5, 0.5]^2 in the XY plane, normal +Z.
    PlaneQuad,
    /// Filled disc of radius 1 in the XY plane, normal +Z.
    Disc,
    /// Torus of major radius 1 and tube radius [`RING_TUBE`] around +Z.
    Ring,
}

impl MeshKind {
    /// Every kind, in drawing order (opaque kinds first, the translucent
    /// planes and discs last; [`MeshKind::index`] gives the place): a
    /// renderer builds one mesh per entry and needs no list of its own.
    pub const ALL: [MeshKind; 6] =
        [MeshKind::Shaft, MeshKind::Cone, MeshKind::Cube, MeshKind::Ring, MeshKind::PlaneQuad, MeshKind::Disc];

    /// This kind's place in [`MeshKind::ALL`]. The match has no catch-all,
    /// so a new kind does not compile until it has a place.
    pub const fn index(self) -> usize {
        match self {
            MeshKind::Shaft => 0,
            MeshKind::Cone => 1,
            MeshKind::Cube => 2,
            MeshKind::Ring => 3,
            MeshKind::PlaneQuad => 4,
            MeshKind::Disc => 5,
        }
    }
}

/// Interaction state of the handle an instance belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleState {
    /// Neither hovered nor dragged.
    Normal,
    /// Under the cursor.
    Hovered,
    /// Being dragged.
    Active,
    /// Fading out because the handle is nearly aligned with the view.
    Faded,
}

/// One piece of gizmo geometry to draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverlayInstance {
    /// Which canonical mesh to draw (see [`mesh`]).
    pub mesh: MeshKind,
    /// Canonical mesh -> world.
    pub model: Matrix4<f64>,
    /// Linear RGBA; alpha includes the fade.
    pub color: [f32; 4],
    /// The handle's interaction state (the colour already reflects it).
    pub state: HandleState,
    /// The handle this piece belongs to; `None` for a marker that is not a
    /// handle (the axis cross of a selected empty, [`axis_cross`]).
    pub handle: Option<Handle>,
}

const AXIS_COLORS: [[f32; 3]; 3] = [[0.90, 0.20, 0.22], [0.35, 0.80, 0.15], [0.20, 0.42, 0.95]];
const VIEW_COLOR: [f32; 3] = [0.85, 0.85, 0.85];
const ACTIVE_COLOR: [f32; 3] = [1.0, 0.85, 0.10];

/// A matrix whose columns are `x`, `y`, `z` and translation `t`.
fn basis(t: &nalgebra::Point3<f64>, x: Vector3<f64>, y: Vector3<f64>, z: Vector3<f64>) -> Matrix4<f64> {
    #[rustfmt::skip]
    let m = Matrix4::new(
        x.x, y.x, z.x, t.x,
        x.y, y.y, z.y, t.y,
        x.z, y.z, z.z, t.z,
        0.0, 0.0, 0.0, 1.0,
    );
    m
}

fn color_of(handle: Handle) -> [f32; 3] {
    match handle.axis() {
        Some(a) => AXIS_COLORS[a.index()],
        None => VIEW_COLOR,
    }
}

/// Arm length of an empty's axis cross, in pixels.
pub const AXIS_CROSS_PX: f64 = 40.0;
/// Radius of its arms, in pixels.
pub const AXIS_CROSS_RADIUS_PX: f64 = 1.0;

/// The axis cross that marks a selected empty (an object without geometry):
/// three shafts from the origin of `world` along its X, Y and Z axes (scale
/// taken out), [`AXIS_CROSS_PX`] long on screen, in the axis colours.
/// `world_per_pixel` is the view's size of a pixel at that origin. Not
/// handles: nothing picks them.
pub fn axis_cross(world: &Matrix4<f64>, world_per_pixel: f64) -> Vec<OverlayInstance> {
    let origin = nalgebra::Point3::from(world.fixed_view::<3, 1>(0, 3).into_owned());
    let (len, r) = (AXIS_CROSS_PX * world_per_pixel, AXIS_CROSS_RADIUS_PX * world_per_pixel);
    let mut out = Vec::with_capacity(3);
    for (k, rgb) in AXIS_COLORS.iter().enumerate() {
        let column: Vector3<f64> = world.fixed_view::<3, 1>(0, k).into_owned();
        // A zero or non-finite column (zero scale) falls back to the world axis.
        let dir = nalgebra::Unit::try_new(column, 1e-12)
            .filter(|d| d.iter().all(|v| v.is_finite()))
            .unwrap_or_else(|| nalgebra::Unit::new_unchecked(Vector3::ith(k, 1.0)));
        let (x, z) = orthonormal_basis(&dir);
        out.push(OverlayInstance {
            mesh: MeshKind::Shaft,
            model: basis(&origin, x * r, dir.into_inner() * len, z * r),
            color: [rgb[0], rgb[1], rgb[2], 1.0],
            state: HandleState::Normal,
            handle: None,
        });
    }
    out
}

/// Instances for `handles` in `frame`, given the hovered and active handle.
pub fn instances(
    frame: &GizmoFrame,
    handles: &[Handle],
    hovered: Option<Handle>,
    active: Option<Handle>,
) -> Vec<OverlayInstance> {
    let mut out = Vec::with_capacity(handles.len() * 2);
    let (p, l, g) = (frame.pivot, frame.len, &GEOMETRY);
    for &h in handles {
        let vis = frame.visibility(h);
        if vis <= 0.0 {
            continue;
        }
        let state = if active == Some(h) {
            HandleState::Active
        } else if hovered == Some(h) {
            HandleState::Hovered
        } else if vis < 1.0 {
            HandleState::Faded
        } else {
            HandleState::Normal
        };
        let rgb = match state {
            HandleState::Active => ACTIVE_COLOR,
            HandleState::Hovered => {
                let c = color_of(h);
                [c[0] * 0.5 + 0.5, c[1] * 0.5 + 0.5, c[2] * 0.5 + 0.4]
            }
            _ => color_of(h),
        };
        let base_alpha: f32 = match h {
            Handle::TranslatePlane(_) | Handle::ScalePlane(_) => 0.6,
            Handle::TranslateView | Handle::ScaleUniform => 0.35,
            Handle::RotateFree => 0.15,
            _ => 1.0,
        };
        let color = [rgb[0], rgb[1], rgb[2], base_alpha * vis as f32];
        let mut push = |mesh, model| out.push(OverlayInstance { mesh, model, color, state, handle: Some(h) });
        let axis_frame = |a: Axis| {
            let y = frame.axes[a.index()];
            let n = nalgebra::Unit::new_normalize(y);
            let (x, z) = orthonormal_basis(&n);
            (x, y, z)
        };
        match h {
            Handle::TranslateAxis(a) | Handle::ScaleAxis(a) => {
                let (x, y, z) = axis_frame(a);
                let r = g.shaft_radius * l;
                if matches!(h, Handle::ScaleAxis(_)) {
                    push(MeshKind::Shaft, basis(&p, x * r, y * (g.scale_shaft_len() * l), z * r));
                    let c = g.cube_size * l;
                    push(MeshKind::Cube, basis(&(p + y * (g.cube_center() * l)), x * c, y * c, z * c));
                } else {
                    push(MeshKind::Shaft, basis(&p, x * r, y * (g.arrow_shaft_len * l), z * r));
                    let cr = g.cone_radius * l;
                    let base = p + y * (g.arrow_shaft_len * l);
                    push(MeshKind::Cone, basis(&base, x * cr, y * (g.cone_len() * l), z * cr));
                }
            }
            Handle::TranslatePlane(n) | Handle::ScalePlane(n) => {
                let (i, j) = n.plane_axes();
                let (a, b) = (frame.axes[i.index()], frame.axes[j.index()]);
                let c = p + (a + b) * (g.plane_center() * l);
                // The canonical quad is 1 wide: scale it to the square's side.
                let side = 2.0 * g.plane_half() * l;
                push(MeshKind::PlaneQuad, basis(&c, a * side, b * side, frame.axes[n.index()] * side));
            }
            Handle::TranslateView | Handle::ScaleUniform => {
                let (x, y, z) = frame.facing();
                let r = g.disc_radius * l;
                push(MeshKind::Disc, basis(&p, x * r, y * r, z * r));
            }
            Handle::RotateAxis(a) => {
                let z = frame.axes[a.index()];
                let (x, y) = orthonormal_basis(&nalgebra::Unit::new_normalize(z));
                let r = g.ring_radius * l;
                push(MeshKind::Ring, basis(&p, x * r, y * r, z * r));
            }
            Handle::RotateView => {
                let (x, y, z) = frame.facing();
                let r = g.view_ring_radius * l;
                push(MeshKind::Ring, basis(&p, x * r, y * r, z * r));
            }
            Handle::RotateFree => {
                let (x, y, z) = frame.facing();
                let r = g.trackball_radius * l;
                push(MeshKind::Disc, basis(&p, x * r, y * r, z * r));
            }
        }
    }
    out
}

/// The canonical mesh of a [`MeshKind`] (see the module docs), built from
/// the scene's parametric generators, so the renderer uploads exactly what
/// the model matrices above assume.
pub fn mesh(kind: MeshKind) -> MeshData {
    match kind {
        // Radius 1 along +Y from y = 0 to 1.
        MeshKind::Shaft => MeshData::cylinder(1.0, 1.0, 16).mapped(|p| p, [0.0, 0.5, 0.0]),
        // Base radius 1 at y = 0, apex at y = 1.
        MeshKind::Cone => MeshData::cone(1.0, 1.0, 24).mapped(|p| p, [0.0, 0.5, 0.0]),
        MeshKind::Cube => MeshData::cube(),
        // [-0.5, 0.5]^2 in XY, normal +Z.
        MeshKind::PlaneQuad => MeshData::plane_xz().mapped(MeshData::y_to_z, [0.0; 3]),
        // Radius 1 in XY, normal +Z.
        MeshKind::Disc => MeshData::disc_xz(1.0, 64).mapped(MeshData::y_to_z, [0.0; 3]),
        // Major radius 1, tube RING_TUBE, around +Z.
        MeshKind::Ring => MeshData::torus(1.0, RING_TUBE as f32, 96, 8).mapped(MeshData::y_to_z, [0.0; 3]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gizmo::Mode;
    use crate::math::{Camera, DepthMode, View};
    use crate::picking::PickShape;
    use nalgebra::{Point3, UnitQuaternion};

    /// What is drawn covers what is picked, and both have the sizes of
    /// docs/spec/conventions.md ("Gizmo geometry"), typed in here independently.
    #[test]
    fn every_kind_has_its_own_place_in_all() {
        for (place, kind) in MeshKind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), place, "{kind:?}");
        }
    }

    #[test]
    fn drawn_handles_cover_the_pick_shapes_of_the_spec() {
        let view = View::new(Camera::default(), 800.0, 600.0, DepthMode::Reversed).unwrap();
        let q = UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1);
        let axes = [q * Vector3::x(), q * Vector3::y(), q * Vector3::z()];
        let frame = GizmoFrame::with_axes(&view, Point3::new(0.5, -0.2, 0.3), axes, 100.0).unwrap();
        let (p, l) = (frame.pivot, frame.len);
        let near = |a: Point3<f64>, b: Point3<f64>| (a - b).norm() < 1e-12 * (1.0 + l);
        let mut all = Vec::new();
        for mode in [Mode::Translate, Mode::Rotate, Mode::Scale] {
            all.extend(instances(&frame, Handle::for_mode(mode), None, None));
        }
        for a in Axis::ALL {
            let tip = p + axes[a.index()] * l;
            // Translate arrow: the cone's apex is the pick segment's end.
            let cone =
                all.iter().find(|i| i.handle == Some(Handle::TranslateAxis(a)) && i.mesh == MeshKind::Cone).unwrap();
            assert!(near(cone.model.transform_point(&Point3::new(0.0, 1.0, 0.0)), tip));
            let PickShape::Segment(seg) = frame.shape(Handle::TranslateAxis(a)) else { panic!() };
            assert!(near(seg.a, p) && near(seg.b, tip));
            // Scale axis: the cube's outer face ends at L.
            let cube = all.iter().find(|i| i.handle == Some(Handle::ScaleAxis(a)) && i.mesh == MeshKind::Cube).unwrap();
            assert!(near(cube.model.transform_point(&Point3::new(0.0, 0.5, 0.0)), tip));
            // Plane squares: [0.2 L, 0.4 L] along both axes, drawn and picked.
            for h in [Handle::TranslatePlane(a), Handle::ScalePlane(a)] {
                let (i, j) = a.plane_axes();
                let (u, v) = (axes[i.index()], axes[j.index()]);
                let quad = all.iter().find(|x| x.handle == Some(h)).unwrap();
                let PickShape::Quad { center, a: qa, b: qb } = frame.shape(h) else { panic!() };
                for (x, y) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                    let (fx, fy) = (if x < 0.0 { 0.2 } else { 0.4 }, if y < 0.0 { 0.2 } else { 0.4 });
                    let corner = p + u * (fx * l) + v * (fy * l);
                    assert!(near(quad.model.transform_point(&Point3::new(0.5 * x, 0.5 * y, 0.0)), corner));
                    assert!(near(center + qa * x + qb * y, corner));
                }
            }
            // Axis rings: radius L around the axis.
            let ring = all.iter().find(|i| i.handle == Some(Handle::RotateAxis(a))).unwrap();
            let r = ring.model.transform_point(&Point3::new(1.0, 0.0, 0.0)) - p;
            assert!((r.norm() - l).abs() < 1e-12 * l && r.dot(&axes[a.index()]).abs() < 1e-12 * l);
            let PickShape::Ring(c) = frame.shape(Handle::RotateAxis(a)) else { panic!() };
            assert!((c.radius - l).abs() < 1e-12 * l);
        }
        // The discs (0.12 L) and the view ring (1.2 L).
        for (h, radius) in [(Handle::TranslateView, 0.12), (Handle::ScaleUniform, 0.12), (Handle::RotateView, 1.2)] {
            let inst = all.iter().find(|i| i.handle == Some(h)).unwrap();
            let r = inst.model.transform_point(&Point3::new(1.0, 0.0, 0.0)) - p;
            assert!((r.norm() - radius * l).abs() < 1e-12 * l, "{h:?}");
            let (PickShape::Disc(c) | PickShape::Ring(c)) = frame.shape(h) else { panic!() };
            assert!((c.radius - radius * l).abs() < 1e-12 * l, "{h:?}");
        }
    }

    #[test]
    fn canonical_meshes_have_the_documented_bounds() {
        let b = |k| mesh(k).bounds();
        let close = |a: [f32; 3], e: [f32; 3]| a.iter().zip(e).all(|(x, y)| (x - y).abs() < 1e-5);
        let (lo, hi) = b(MeshKind::Shaft);
        assert!(close(lo, [-1.0, 0.0, -1.0]) && close(hi, [1.0, 1.0, 1.0]), "{lo:?} {hi:?}");
        let (lo, hi) = b(MeshKind::Cone);
        assert!(close(lo, [-1.0, 0.0, -1.0]) && close(hi, [1.0, 1.0, 1.0]));
        let (lo, hi) = b(MeshKind::PlaneQuad);
        assert!(close(lo, [-0.5, -0.5, 0.0]) && close(hi, [0.5, 0.5, 0.0]));
        let (lo, hi) = b(MeshKind::Disc);
        assert!(close(lo, [-1.0, -1.0, 0.0]) && close(hi, [1.0, 1.0, 0.0]));
        let (lo, hi) = b(MeshKind::Ring);
        let r = 1.0 + RING_TUBE as f32;
        assert!(close(lo, [-r, -r, -RING_TUBE as f32]) && close(hi, [r, r, RING_TUBE as f32]));
        for k in [MeshKind::Shaft, MeshKind::Cone, MeshKind::Cube, MeshKind::PlaneQuad, MeshKind::Disc, MeshKind::Ring]
        {
            let m = mesh(k);
            assert!(m.indices.iter().all(|&i| (i as usize) < m.positions.len()));
            assert_eq!(m.positions.len(), m.normals.len());
            // The plane quad faces +Z.
            if k == MeshKind::PlaneQuad {
                assert!(m.normals.iter().all(|n| (n[2] - 1.0).abs() < 1e-6));
            }
        }
    }

    #[test]
    fn an_axis_cross_has_arms_of_constant_screen_length_along_the_local_axes() {
        let front =
            Camera { eye: Point3::new(1.5, 0.25, 8.0), target: Point3::new(1.5, 0.25, -2.0), ..Camera::default() };
        let mut exact = 0;
        for (camera, q) in [
            (Camera::default(), UnitQuaternion::from_euler_angles(0.4, 0.2, -0.9)),
            (front, UnitQuaternion::identity()),
        ] {
            let view = View::new(camera, 800.0, 600.0, DepthMode::Reversed).unwrap();
            for scale in [Vector3::new(1.0, 1.0, 1.0), Vector3::new(0.01, 3.0, 250.0), Vector3::new(0.0, 1.0, 1.0)] {
                let origin = Point3::new(1.5, 0.25, -2.0);
                let world = Matrix4::new_translation(&origin.coords)
                    * q.to_homogeneous()
                    * Matrix4::new_nonuniform_scaling(&scale);
                let cross = axis_cross(&world, view.world_per_pixel(&origin).unwrap());
                assert_eq!(cross.len(), 3);
                let o = view.world_to_screen(&origin).unwrap();
                for (k, inst) in cross.iter().enumerate() {
                    assert_eq!((inst.mesh, inst.handle), (MeshKind::Shaft, None));
                    let tip = inst.model.transform_point(&Point3::new(0.0, 1.0, 0.0));
                    let base = inst.model.transform_point(&Point3::origin());
                    assert!((base - origin).norm() < 1e-12);
                    // Along the object's axis k (the world axis where its scale is zero).
                    let axis = if scale[k] == 0.0 { Vector3::ith(k, 1.0) } else { q * Vector3::ith(k, 1.0) };
                    assert!((tip - origin).normalize().dot(&axis) > 1.0 - 1e-12, "arm {k}");
                    // 40 px long where the arm lies in the screen plane; never longer.
                    let len = (view.world_to_screen(&tip).unwrap() - o).norm();
                    let facing = 1.0 - axis.dot(&(origin - view.camera().eye).normalize()).powi(2);
                    assert!(len <= AXIS_CROSS_PX * 1.01, "{len}");
                    if facing > 0.99 {
                        assert!((len - AXIS_CROSS_PX).abs() < 1.0, "{len}");
                        exact += 1;
                    }
                }
            }
        }
        assert!(exact >= 4, "the front view checks the X and Y arms exactly");
    }
}
