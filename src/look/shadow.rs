//! Cascaded shadow maps for a directional light (`docs/spec/lights.md`,
//! "Shadows"), as plain math: where each cascade's square orthographic
//! light view goes for a camera. The renderer draws the shadow casters
//! into one layer per cascade and the scene shader reads them.
//!
//! The view out to `shadow_distance` is split into [`CASCADES`] slices
//! (the practical split: a blend of logarithmic and uniform steps). Each
//! cascade covers the sphere around its slice's eight corners, so its size
//! does not change as the camera turns, and its centre is moved to whole
//! texels of the light's fixed frame: a still object's shadow lands on the
//! same texels while the camera moves, and does not shimmer.

use nalgebra::{Matrix4, Point3, Rotation3, Vector3};

use crate::math::{Camera, Projection};

/// Cascades per directional light.
pub const CASCADES: usize = 4;

/// Texels per side of a cascade's map.
pub const SHADOW_MAP_SIZE: u32 = 2048;

/// How the split distances lean from uniform (0) to logarithmic (1).
const SPLIT_LAMBDA: f64 = 0.8;

/// One cascade: the light's orthographic camera (square, looking along the
/// light) and the view distance its slice ends at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascade {
    pub camera: Camera,
    /// The slice's far end: distance along the view direction.
    pub far: f64,
    /// World size of one texel of its map.
    pub texel: f64,
}

/// The light's frame: rows are its right, up and backwards (+Z against
/// the light) axes in world space; fixed for a direction, whatever the
/// camera does.
fn light_frame(direction: &Vector3<f64>) -> Option<Rotation3<f64>> {
    let f = direction.try_normalize(1e-12)?;
    let up = if f.y.abs() > 0.99 { Vector3::z() } else { Vector3::y() };
    Some(Rotation3::look_at_rh(&f, &up))
}

/// The view distances where the slices end, near to far.
pub fn splits(near: f64, far: f64) -> [f64; CASCADES] {
    std::array::from_fn(|i| {
        let t = (i + 1) as f64 / CASCADES as f64;
        let log = near * (far / near).powf(t);
        let uniform = near + (far - near) * t;
        SPLIT_LAMBDA * log + (1.0 - SPLIT_LAMBDA) * uniform
    })
}

/// The eight corners of the camera's view between distances `d0` and `d1`
/// along its direction, for a view of aspect `aspect`.
fn slice_corners(camera: &Camera, aspect: f64, d0: f64, d1: f64) -> [Point3<f64>; 8] {
    let f = camera.forward();
    let right = f.cross(&camera.up).normalize();
    let up = right.cross(&f);
    let half = |d: f64| match camera.projection {
        Projection::Perspective { fov_y, .. } => d * (fov_y / 2.0).tan(),
        Projection::Orthographic { height, .. } => height / 2.0,
    };
    std::array::from_fn(|k| {
        let d = if k < 4 { d0 } else { d1 };
        let (sx, sy) = ([-1.0, 1.0, 1.0, -1.0][k % 4], [-1.0, -1.0, 1.0, 1.0][k % 4]);
        let h = half(d);
        camera.eye + f * d + right * (sx * h * aspect) + up * (sy * h)
    })
}

/// The cascades of a directional light travelling along `direction` for
/// `camera` (seen at `aspect`), out to `distance` metres (or the camera's
/// far plane where that is nearer, for an orthographic or standard-depth
/// view), each with a `size` x `size` map. Casters up to `distance` metres
/// towards the light from a cascade's sphere are inside its view. `None`
/// for a zero direction.
pub fn cascades(
    camera: &Camera,
    aspect: f64,
    direction: [f64; 3],
    distance: f64,
    size: u32,
) -> Option<[Cascade; CASCADES]> {
    let frame = light_frame(&Vector3::from(direction))?;
    let near = camera.projection.near().max(1e-3);
    let far = match camera.projection {
        Projection::Orthographic { far, .. } => far.min(distance),
        Projection::Perspective { .. } => distance,
    }
    .max(near * 2.0);
    let ends = splits(near, far);
    let f = Vector3::from(direction).normalize();
    let mut start = near;
    let mut out = [Cascade { camera: *camera, far: 0.0, texel: 0.0 }; CASCADES];
    for (k, &end) in ends.iter().enumerate() {
        let corners = slice_corners(camera, aspect, start, end);
        let centre = corners.iter().fold(Vector3::zeros(), |s, c| s + c.coords) / 8.0;
        let radius = corners.iter().map(|c| (c.coords - centre).norm()).fold(0.0, f64::max);
        // Whole 1/16 m steps: the size stays put as the camera turns.
        let radius = (radius * 16.0).ceil() / 16.0;
        let texel = 2.0 * radius / f64::from(size);
        // The centre moved to whole texels of the light's frame.
        let local = frame * centre;
        let snapped = Vector3::new((local.x / texel).floor() * texel, (local.y / texel).floor() * texel, local.z);
        let centre = Point3::from(frame.inverse() * snapped);
        let back = radius + distance;
        let projection = Projection::Orthographic { height: 2.0 * radius, near: 0.01, far: back + radius };
        let light = Camera { eye: centre - f * back, target: centre, up: frame.inverse() * Vector3::y(), projection };
        out[k] = Cascade { camera: light, far: end, texel };
        start = end;
    }
    Some(out)
}

/// The matrix from world space to a cascade's map: x and y in [0, 1]
/// across it (x right, y down, as the map's texels), z its depth in
/// [0, 1] (standard depth: 0 at the light's near plane).
pub fn world_to_map(c: &Cascade) -> Matrix4<f64> {
    let clip = c.camera.projection_matrix(1.0, crate::math::DepthMode::Standard) * c.camera.view_matrix();
    #[rustfmt::skip]
    let to_uv = Matrix4::new(
        0.5, 0.0, 0.0, 0.5,
        0.0, 0.5, 0.0, 0.5,
        0.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 1.0,
    );
    to_uv * clip
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector4;

    fn camera(eye: [f64; 3], target: [f64; 3]) -> Camera {
        Camera {
            eye: Point3::from(eye),
            target: Point3::from(target),
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.1, far: 1000.0 },
        }
    }

    fn map_point(c: &Cascade, p: Point3<f64>) -> Vector3<f64> {
        let m = world_to_map(c) * Vector4::new(p.x, p.y, p.z, 1.0);
        Vector3::new(m.x / m.w, m.y / m.w, m.z / m.w)
    }

    #[test]
    fn every_point_of_a_slice_is_inside_its_cascades_map() {
        let cam = camera([3.0, 4.0, 12.0], [0.0, 0.0, 0.0]);
        let dir = [-0.3, -1.0, -0.2];
        let cs = cascades(&cam, 16.0 / 9.0, dir, 100.0, 2048).unwrap();
        let mut start = 0.1;
        for c in &cs {
            for p in slice_corners(&cam, 16.0 / 9.0, start, c.far) {
                let m = map_point(c, p);
                assert!((0.0..=1.0).contains(&m.x) && (0.0..=1.0).contains(&m.y), "{m:?}");
                assert!(m.z > 0.0 && m.z < 1.0, "{m:?}");
                // A caster 50 m towards the light is in the map too.
                let up = p - Vector3::from(dir).normalize() * 50.0;
                let z = map_point(c, up).z;
                assert!(z > 0.0 && z < m.z, "{z} before {}", m.z);
            }
            start = c.far;
        }
        assert!((cs[CASCADES - 1].far - 100.0).abs() < 1e-9);
        assert!(cs.windows(2).all(|w| w[0].far < w[1].far && w[0].texel < w[1].texel));
    }

    #[test]
    fn a_still_point_keeps_its_texel_offset_as_the_camera_moves_sideways() {
        // Moving the camera (and what it looks at) sideways by less than a
        // texel, or by several: a fixed world point's position within its
        // texel never changes, since the map moves by whole texels.
        let dir = [-0.4, -1.0, -0.6];
        let p = Point3::new(0.37, 0.0, -0.81);
        let frac = |x: f64| x - x.floor();
        let at = |dx: f64| {
            let cam = camera([3.0 + dx, 4.0, 12.0], [dx, 0.0, 0.0]);
            let c = cascades(&cam, 1.5, dir, 100.0, 2048).unwrap()[2];
            let m = map_point(&c, p) * f64::from(SHADOW_MAP_SIZE);
            (frac(m.x), frac(m.y), c.texel)
        };
        let (x0, y0, t) = at(0.0);
        for dx in [0.3 * t, 0.9 * t, 7.3 * t, 0.37] {
            let (x, y, _) = at(dx);
            assert!((x - x0).abs() < 1e-6 && (y - y0).abs() < 1e-6, "{dx}: ({x}, {y}) against ({x0}, {y0})");
        }
    }

    #[test]
    fn a_light_straight_down_and_an_orthographic_view_work() {
        let mut cam = camera([0.0, 10.0, 0.1], [0.0, 0.0, 0.0]);
        assert!(cascades(&cam, 1.0, [0.0, -1.0, 0.0], 100.0, 1024).is_some());
        cam.projection = Projection::Orthographic { height: 20.0, near: 0.1, far: 50.0 };
        let cs = cascades(&cam, 1.0, [0.0, -1.0, 0.0], 100.0, 1024).unwrap();
        assert!((cs[CASCADES - 1].far - 50.0).abs() < 1e-9);
        assert!(cascades(&cam, 1.0, [0.0; 3], 100.0, 1024).is_none());
    }
}
