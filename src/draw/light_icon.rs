//! The icons of light and camera objects (`docs/spec/lights.md`, "In the
//! window"), always drawn: a light's is a small sun facing the view at its
//! place (a dot and eight rays), with, for directional and spot lights, an
//! arrow along the way the light travels; a camera's a small pyramid from
//! its eye along the way it looks. Sized in pixels of the view they are
//! drawn in, drawn by the overlay pass as the gizmo is.

use nalgebra::{Matrix4, Point3, Vector3, Vector4};

use crate::gizmo::{HandleState, MeshKind, OverlayInstance};
use crate::look::LightKind;
use crate::math::View;

/// The dot's radius, the rays' outer radius and the arrow's length, in
/// pixels.
pub const ICON_DOT_PX: f64 = 4.5;
pub const ICON_RING_PX: f64 = 10.0;
pub const ICON_ARROW_PX: f64 = 34.0;

/// A matrix whose columns are `x`, `y`, `z` and the point `at`.
fn columns(x: Vector3<f64>, y: Vector3<f64>, z: Vector3<f64>, at: Point3<f64>) -> Matrix4<f64> {
    Matrix4::from_columns(&[x.push(0.0), y.push(0.0), z.push(0.0), Vector4::new(at.x, at.y, at.z, 1.0)])
}

fn piece(mesh: MeshKind, model: Matrix4<f64>, color: [f32; 4]) -> OverlayInstance {
    OverlayInstance { mesh, model, color, state: HandleState::Normal, handle: None }
}

/// A camera icon's length along its view and its base's radius, in pixels.
pub const CAMERA_LENGTH_PX: f64 = 16.0;
pub const CAMERA_RADIUS_PX: f64 = 8.0;

/// The icon of a camera whose object has world matrix `world` (it looks
/// along the object's -Z), as `view` shows it, in `color`: a pyramid (a
/// four-sided cone would do; the overlay's cone is round) with its apex at
/// the eye, opening along the view. Empty where the eye is behind a
/// perspective view's eye or the object's axes are degenerate.
pub fn camera_icon(world: &Matrix4<f64>, view: &View, color: [f32; 4]) -> Vec<OverlayInstance> {
    let at = Point3::new(world[(0, 3)], world[(1, 3)], world[(2, 3)]);
    let Some(wpp) = view.world_per_pixel(&at) else { return Vec::new() };
    let look = -world.fixed_view::<3, 1>(0, 2).into_owned();
    let up = world.fixed_view::<3, 1>(0, 1).into_owned();
    let (Some(f), Some(u)) = (look.try_normalize(1e-12), up.try_normalize(1e-12)) else { return Vec::new() };
    let Some(r) = f.cross(&u).try_normalize(1e-12) else { return Vec::new() };
    let (len, radius) = (CAMERA_LENGTH_PX * wpp, CAMERA_RADIUS_PX * wpp);
    // The cone's base at the far end, its apex (canonical +Y) at the eye.
    let x = r * radius;
    let y = -f * len;
    let z = x.cross(&y).normalize() * radius;
    let mut out = vec![piece(MeshKind::Cone, columns(x, y, z, at + f * len), color)];
    let dot = 3.0 * wpp;
    let (vr, vu, vf) = (view.right().into_inner(), view.up().into_inner(), view.forward().into_inner());
    out.push(piece(MeshKind::Disc, columns(vr * dot, vu * dot, vf * dot, at), color));
    out
}

/// The icon of a light of `kind` whose node has world matrix `world` (it
/// shines along the node's -Z), as `view` shows it. Empty where the place
/// is behind a perspective eye.
pub fn light_icon(kind: &LightKind, world: &Matrix4<f64>, view: &View, color: [f32; 4]) -> Vec<OverlayInstance> {
    let at = Point3::new(world[(0, 3)], world[(1, 3)], world[(2, 3)]);
    let Some(wpp) = view.world_per_pixel(&at) else { return Vec::new() };
    let (right, up, forward) = (view.right().into_inner(), view.up().into_inner(), view.forward().into_inner());
    // A dot facing the eye, and eight short rays around it in the view's
    // plane (a sun), each a thin shaft.
    let dot = ICON_DOT_PX * wpp;
    let mut out = vec![piece(MeshKind::Disc, columns(right * dot, up * dot, forward * dot, at), color)];
    let ray_r = 0.8 * wpp;
    for k in 0..8 {
        let a = f64::from(k) * std::f64::consts::FRAC_PI_4;
        let d = right * a.cos() + up * a.sin();
        let side = forward.cross(&d);
        let start = at + d * (ICON_RING_PX - 3.0) * wpp;
        out.push(piece(MeshKind::Shaft, columns(side * ray_r, d * (3.0 * wpp), forward * ray_r, start), color));
    }
    let travel = -world.fixed_view::<3, 1>(0, 2).into_owned();
    let Some(d) = travel.try_normalize(1e-12).filter(|_| !matches!(kind, LightKind::Point)) else { return out };
    // An arrow from the dot along the light's way: shaft, then cone.
    let side = if d.cross(&up).norm() > 1e-6 { d.cross(&up).normalize() } else { d.cross(&right).normalize() };
    let other = side.cross(&d);
    let len = ICON_ARROW_PX * wpp;
    let shaft_r = 1.0 * wpp;
    out.push(piece(MeshKind::Shaft, columns(side * shaft_r, d * (len - 8.0 * wpp), other * shaft_r, at), color));
    let tip = at + d * (len - 8.0 * wpp);
    out.push(piece(MeshKind::Cone, columns(side * (4.0 * wpp), d * (8.0 * wpp), other * (4.0 * wpp), tip), color));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Camera, DepthMode, Projection};

    fn view() -> View {
        let cam = Camera {
            eye: Point3::new(0.0, 1.0, 8.0),
            target: Point3::origin(),
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.1, far: 100.0 },
        };
        View::new(cam, 800.0, 600.0, DepthMode::Reversed).unwrap()
    }

    /// The screen point of a canonical-mesh point under an instance's model.
    fn screen(v: &View, i: &OverlayInstance, p: [f64; 3]) -> nalgebra::Point2<f64> {
        v.world_to_screen(&i.model.transform_point(&Point3::from(p))).unwrap()
    }

    #[test]
    fn the_sun_is_its_size_in_pixels_and_the_arrow_follows_the_nodes_minus_z() {
        let v = view();
        // A spot at (1, 2, 0) turned -90 degrees about +X: its +Z becomes
        // world +Y, so it shines along -Y.
        let turn = nalgebra::Rotation3::from_axis_angle(&Vector3::x_axis(), -std::f64::consts::FRAC_PI_2);
        let world = Matrix4::new_translation(&Vector3::new(1.0, 2.0, 0.0)) * turn.to_homogeneous();
        let icon = light_icon(&LightKind::Spot { inner: 0.1, outer: 0.4 }, &world, &v, [1.0; 4]);
        let kinds: Vec<MeshKind> = icon.iter().map(|i| i.mesh).collect();
        assert_eq!(kinds[0], MeshKind::Disc);
        assert_eq!(&kinds[9..], [MeshKind::Shaft, MeshKind::Cone]);
        let centre = v.world_to_screen(&Point3::new(1.0, 2.0, 0.0)).unwrap();
        // The dot's edge (canonical radius 1 along its x) is 4.5 px out,
        // each ray's outer end 10 px.
        let edge = screen(&v, &icon[0], [1.0, 0.0, 0.0]);
        assert!(((edge - centre).norm() - ICON_DOT_PX).abs() < 0.05, "{}", (edge - centre).norm());
        for ray in &icon[1..9] {
            let end = screen(&v, ray, [0.0, 1.0, 0.0]);
            assert!(((end - centre).norm() - ICON_RING_PX).abs() < 0.1, "{}", (end - centre).norm());
        }
        let icon = &icon[8..];
        // The cone's apex lies below the centre on screen (world -Y
        // projects downwards; within a pixel sideways, the camera looking
        // slightly down), 34 px away.
        let apex = screen(&v, &icon[2], [0.0, 1.0, 0.0]);
        assert!((apex.x - centre.x).abs() < 1.0 && apex.y > centre.y, "{apex} {centre}");
        assert!(((apex - centre).norm() - ICON_ARROW_PX).abs() < 1.5, "{}", (apex - centre).norm());
        // A point light: the sun alone, no arrow.
        let point = light_icon(&LightKind::Point, &world, &v, [1.0; 4]);
        assert_eq!(point.len(), 9);
        assert!(point[1..].iter().all(|p| p.mesh == MeshKind::Shaft));
    }
}
