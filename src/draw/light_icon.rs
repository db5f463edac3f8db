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
    let Some((at, f, _, r)) = frame_of(world) else { return Vec::new() };
    let Some(wpp) = view.world_per_pixel(&at) else { return Vec::new() };
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

/// How thick (px) the lines of a selected light's cone or range and a
/// selected camera's frustum are drawn.
pub const LINE_PX: f64 = 1.0;
/// How far (m) a selected spot's cone reaches where it has no range, and
/// how far a selected camera's frustum is drawn (Blender's display size).
pub const SHAPE_REACH: f64 = 1.0;
/// Straight pieces a circle is drawn with.
const CIRCLE_PIECES: usize = 48;

/// A line from `a` to `b` of [`LINE_PX`] in `view` (as thick as the view
/// shows it at its middle); `None` where the middle is behind the eye.
fn line(a: Point3<f64>, b: Point3<f64>, view: &View, color: [f32; 4]) -> Option<OverlayInstance> {
    let d = b - a;
    let r = LINE_PX * view.world_per_pixel(&nalgebra::center(&a, &b))?;
    let dir = d.try_normalize(1e-12)?;
    let side = if dir.cross(&Vector3::y()).norm() > 1e-6 { dir.cross(&Vector3::y()) } else { dir.cross(&Vector3::x()) };
    let side = side.normalize();
    let other = side.cross(&dir);
    Some(piece(MeshKind::Shaft, columns(side * r, d, other * r, a), color))
}

/// The lines of a circle about `centre` in the plane of `u` and `v`
/// (orthonormal), of radius `radius`.
fn circle(
    centre: Point3<f64>,
    u: Vector3<f64>,
    v: Vector3<f64>,
    radius: f64,
    view: &View,
    color: [f32; 4],
) -> Vec<OverlayInstance> {
    let at = |k: usize| {
        let a = std::f64::consts::TAU * k as f64 / CIRCLE_PIECES as f64;
        centre + (u * a.cos() + v * a.sin()) * radius
    };
    (0..CIRCLE_PIECES).filter_map(|k| line(at(k), at(k + 1), view, color)).collect()
}

/// A place and three directions: ahead, up, right.
type Axes = (Point3<f64>, Vector3<f64>, Vector3<f64>, Vector3<f64>);

/// The object's world axes: place, then its -Z, +Y and +X made
/// orthonormal (`None` where they are degenerate).
fn frame_of(world: &Matrix4<f64>) -> Option<Axes> {
    let at = Point3::new(world[(0, 3)], world[(1, 3)], world[(2, 3)]);
    let f = (-world.fixed_view::<3, 1>(0, 2).into_owned()).try_normalize(1e-12)?;
    let up = world.fixed_view::<3, 1>(0, 1).into_owned();
    let r = f.cross(&up).try_normalize(1e-12)?;
    Some((at, f, r.cross(&f), r))
}

/// What a selected light shows besides its icon (`docs/spec/lights.md`):
/// a spot its outer cone (to its range, or [`SHAPE_REACH`] where it has
/// none: four lines from the light and the rim), a point light with a
/// range its range sphere (three great circles). Distances are in world
/// units, the light's scale aside.
pub fn light_shape(
    light: &crate::scene::fixture::LightObject,
    world: &Matrix4<f64>,
    view: &View,
    color: [f32; 4],
) -> Vec<OverlayInstance> {
    use crate::scene::fixture::LightType;
    let Some((at, f, up, right)) = frame_of(world) else { return Vec::new() };
    match light.kind {
        LightType::Spot => {
            let reach = light.range.unwrap_or(SHAPE_REACH);
            let half = light.outer_cone_deg.to_radians();
            let (centre, radius) = (at + f * (reach * half.cos()), reach * half.sin());
            let mut out = circle(centre, right, up, radius, view, color);
            for k in 0..4 {
                let a = std::f64::consts::FRAC_PI_2 * k as f64;
                out.extend(line(at, centre + (right * a.cos() + up * a.sin()) * radius, view, color));
            }
            out
        }
        LightType::Point => match light.range {
            Some(r) => [(right, up), (up, f), (f, right)]
                .into_iter()
                .flat_map(|(u, v)| circle(at, u, v, r, view, color))
                .collect(),
            None => Vec::new(),
        },
        LightType::Directional => Vec::new(),
    }
}

/// A selected camera's frustum (`docs/spec/lights.md`): four lines from
/// the eye to the corners of its view's rectangle [`SHAPE_REACH`] ahead,
/// and that rectangle, of the camera's aspect (`aspect` where it sets none:
/// the view's), with a small triangle over its top edge for "up".
pub fn camera_shape(
    camera: &crate::scene::fixture::CameraObject,
    aspect: f64,
    world: &Matrix4<f64>,
    view: &View,
    color: [f32; 4],
) -> Vec<OverlayInstance> {
    let Some((at, f, up, right)) = frame_of(world) else { return Vec::new() };
    let aspect = camera.aspect.unwrap_or(aspect);
    let half_h = if camera.orthographic {
        camera.height / 2.0
    } else {
        SHAPE_REACH * (camera.fov_y_deg.to_radians() / 2.0).tan()
    };
    let centre = at + f * SHAPE_REACH;
    let corner = |sx: f64, sy: f64| centre + right * (sx * half_h * aspect) + up * (sy * half_h);
    let corners = [corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)];
    let mut out = Vec::new();
    for k in 0..4 {
        out.extend(line(corners[k], corners[(k + 1) % 4], view, color));
        // An orthographic camera's box has parallel sides.
        let from = if camera.orthographic { corners[k] - f * SHAPE_REACH } else { at };
        out.extend(line(from, corners[k], view, color));
    }
    let top = centre + up * (half_h * 1.1);
    let tip = centre + up * (half_h * 1.1 + half_h * 0.4);
    out.extend(line(top - right * (half_h * 0.4), tip, view, color));
    out.extend(line(tip, top + right * (half_h * 0.4), view, color));
    out.extend(line(top + right * (half_h * 0.4), top - right * (half_h * 0.4), view, color));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Camera, DepthMode, Projection};
    use crate::scene::fixture::{CameraObject, LightObject, LightType};

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

    /// The ends of a line instance (canonical shaft from y = 0 to 1).
    fn ends(i: &OverlayInstance) -> (Point3<f64>, Point3<f64>) {
        (i.model.transform_point(&Point3::origin()), i.model.transform_point(&Point3::new(0.0, 1.0, 0.0)))
    }

    /// A spot at (1, 2, 0) shining straight down (turned -90 degrees about
    /// +X), outer cone 30 degrees, range 4: every rim point is 4 m from the
    /// light and 30 degrees off the axis (computed here from the angles),
    /// and the four side lines start at the light.
    #[test]
    fn a_spots_cone_reaches_its_range_at_its_outer_angle() {
        let turn = nalgebra::Rotation3::from_axis_angle(&Vector3::x_axis(), -std::f64::consts::FRAC_PI_2);
        let world = Matrix4::new_translation(&Vector3::new(1.0, 2.0, 0.0)) * turn.to_homogeneous();
        let mut l = LightObject::new(LightType::Spot);
        l.outer_cone_deg = 30.0;
        l.range = Some(4.0);
        let lines = light_shape(&l, &world, &view(), [1.0; 4]);
        assert_eq!(lines.len(), CIRCLE_PIECES + 4);
        let apex = Point3::new(1.0, 2.0, 0.0);
        let axis = Vector3::new(0.0, -1.0, 0.0);
        for i in &lines[..CIRCLE_PIECES] {
            let (a, _) = ends(i);
            let d = a - apex;
            assert!((d.norm() - 4.0).abs() < 1e-9, "{}", d.norm());
            assert!((d.normalize().dot(&axis).acos().to_degrees() - 30.0).abs() < 1e-9);
        }
        for i in &lines[CIRCLE_PIECES..] {
            let (a, b) = ends(i);
            assert!((a - apex).norm() < 1e-9 && ((b - apex).norm() - 4.0).abs() < 1e-9);
        }
        // Lines are about a pixel thick where they are seen.
        let v = view();
        let (a, b) = ends(&lines[0]);
        let r = i_radius(&lines[0]);
        let mid = nalgebra::center(&a, &b);
        assert!((r / v.world_per_pixel(&mid).unwrap() - LINE_PX).abs() < 1e-9);
        // A point light without a range shows nothing; with one, three
        // circles of that radius about it.
        let point = LightObject::new(LightType::Point);
        assert!(light_shape(&point, &world, &v, [1.0; 4]).is_empty());
        let ranged = LightObject { range: Some(2.5), ..point };
        let circles = light_shape(&ranged, &world, &v, [1.0; 4]);
        assert_eq!(circles.len(), 3 * CIRCLE_PIECES);
        assert!(circles.iter().all(|i| ((ends(i).0 - apex).norm() - 2.5).abs() < 1e-9));
    }

    /// The radius of a line instance (its model's first column).
    fn i_radius(i: &OverlayInstance) -> f64 {
        i.model.fixed_view::<3, 1>(0, 0).norm()
    }

    /// A camera at the origin looking along -Z, 60 degrees high, aspect 2:
    /// its rectangle 1 m ahead is tan(30) m high each way and twice as
    /// wide, and the four side lines start at the eye.
    #[test]
    fn a_cameras_frustum_is_its_field_of_view_and_aspect() {
        let mut c = CameraObject::new(false);
        c.fov_y_deg = 60.0;
        c.aspect = Some(2.0);
        let lines = camera_shape(&c, 1.0, &Matrix4::identity(), &view(), [1.0; 4]);
        let h = 30f64.to_radians().tan();
        let eye = Point3::origin();
        let mut corners = 0;
        for i in &lines {
            let (a, b) = ends(i);
            if (a - eye).norm() < 1e-12 {
                corners += 1;
                assert!(
                    (b.z + 1.0).abs() < 1e-12 && (b.y.abs() - h).abs() < 1e-12 && (b.x.abs() - 2.0 * h).abs() < 1e-12,
                    "{b}"
                );
            }
        }
        assert_eq!(corners, 4);
    }
}
