//! Cameras for the render tests: random ones around a point, and a
//! top-down view.

use nalgebra::{Point3, Vector3};
use rand::rngs::StdRng;
use rand::Rng;
use viewport::math::{Camera, Projection};

/// A random camera over a field of objects around `centre`: the eye within
/// `spread` m of it on each axis, the target within 20 m of it across the
/// ground, a near plane of 0.1 to 15 m (so it cuts through nearby objects),
/// far 400 m; orthographic (5 to 60 m high) or perspective.
pub fn random_camera(rng: &mut StdRng, centre: Vector3<f64>, spread: f64, orthographic: bool) -> Camera {
    let eye = Point3::from(
        centre
            + Vector3::new(
                rng.gen_range(-spread..spread),
                rng.gen_range(-spread..spread),
                rng.gen_range(-spread..spread),
            ),
    );
    let target = Point3::from(centre + Vector3::new(rng.gen_range(-20.0..20.0), 0.0, rng.gen_range(-20.0..20.0)));
    let near = rng.gen_range(0.1..15.0);
    let projection = if orthographic {
        Projection::Orthographic { height: rng.gen_range(5.0..60.0), near, far: 400.0 }
    } else {
        Projection::Perspective { fov_y: rng.gen_range(0.3..1.4), near, far: 400.0 }
    };
    Camera { eye, target, up: Vector3::y(), projection }
}

/// Looking straight down on the ground point `(x, 0, z)` from `height`
/// above it (screen up is -z), with a 0.9 rad vertical field of view.
pub fn top_down(x: f64, z: f64, height: f64, near: f64, far: f64) -> Camera {
    Camera {
        eye: Point3::new(x, height, z),
        target: Point3::new(x, 0.0, z),
        up: -Vector3::z(),
        projection: Projection::Perspective { fov_y: 0.9, near, far },
    }
}
