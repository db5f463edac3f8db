//! Shared generators for the property tests: random cameras (including axes a
//! few degrees from the view direction, orthographic, pivots far from the
//! origin), random targets and parents.

use nalgebra::{Matrix4, Point2, Point3, Translation3, UnitQuaternion, Vector3};
use rand::rngs::StdRng;
use rand::Rng;
use viewport_gizmo::gizmo::{Axis, GizmoConfig, GizmoFrame, Mode, Space, Target};
use viewport_gizmo::math::{Camera, DepthMode, Projection, Transform, View};

pub fn unit_vec(rng: &mut StdRng) -> Vector3<f64> {
    loop {
        let v = Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
        let n = v.norm();
        if n > 0.1 && n <= 1.0 {
            return v / n;
        }
    }
}

pub fn rand_rot(rng: &mut StdRng) -> UnitQuaternion<f64> {
    UnitQuaternion::from_axis_angle(
        &nalgebra::Unit::new_normalize(unit_vec(rng)),
        rng.gen_range(0.0..std::f64::consts::TAU),
    )
}

/// A scenario: one target (possibly parented), a camera, a viewport.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub target: Target,
    pub camera: Camera,
    pub size: (f64, f64),
    pub config: GizmoConfig,
}

impl Scenario {
    pub fn view(&self, depth: DepthMode) -> View {
        View::new(self.camera, self.size.0, self.size.1, depth).expect("scenario camera is valid")
    }
}

/// A random scenario. With `steep_axis`, the view direction at the pivot is
/// 5-15 degrees from that gizmo axis (either sign).
pub fn scenario(rng: &mut StdRng, mode: Mode, steep_axis: Option<Axis>) -> Option<Scenario> {
    let far_away = rng.gen_bool(0.3);
    let base = if far_away {
        Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)).normalize() * 1.0e4
    } else {
        Vector3::new(rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0))
    };
    let parent_world = if rng.gen_bool(0.4) {
        let s = Vector3::new(rng.gen_range(0.3..3.0), rng.gen_range(0.3..3.0), rng.gen_range(0.3..3.0));
        Translation3::from(base + unit_vec(rng) * 3.0).to_homogeneous()
            * rand_rot(rng).to_homogeneous()
            * Matrix4::new_nonuniform_scaling(&s)
    } else {
        Matrix4::identity()
    };
    let mut target = Target::new(Transform::IDENTITY, parent_world);
    // Local transform such that the world position is near `base`.
    let inv = parent_world.try_inverse()?;
    let local_pos = inv.transform_point(&Point3::from(base));
    target.local = Transform {
        position: local_pos.coords,
        rotation: rand_rot(rng),
        scale: Vector3::new(rng.gen_range(0.2..4.0), rng.gen_range(0.2..4.0), rng.gen_range(0.2..4.0)),
    };
    let space = if rng.gen_bool(0.5) { Space::World } else { Space::Local };
    let config = GizmoConfig { mode, space, ..GizmoConfig::default() };
    let pivot = target.world_position();
    let ortho = rng.gen_bool(0.3);
    let dist = 10f64.powf(rng.gen_range(0.3..2.5));
    let size = (rng.gen_range(320.0..2560.0f64).round(), rng.gen_range(240.0..1440.0f64).round());
    // Direction from the eye towards the pivot.
    let dir = match steep_axis {
        Some(a) => {
            let tmp = View::new(Camera::default(), 100.0, 100.0, DepthMode::Reversed).ok()?;
            let frame = GizmoFrame::new(&tmp, &[target], &config)?;
            let axis = frame.axes[a.index()];
            let perp = axis.cross(&unit_vec(rng)).normalize();
            let ang = rng.gen_range(5.0..15.0f64).to_radians();
            let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
            (axis * ang.cos() + perp * ang.sin()) * sign
        }
        None => unit_vec(rng),
    };
    let eye = pivot - dir * dist;
    let projection = if ortho {
        Projection::Orthographic { height: dist * rng.gen_range(0.3..2.0), near: 0.05, far: dist * 20.0 + 1000.0 }
    } else {
        Projection::Perspective { fov_y: rng.gen_range(20.0..100.0f64).to_radians(), near: 0.05, far: 1000.0 }
    };
    // Aim near (not exactly at) the pivot.
    let target_pt = pivot + unit_vec(rng).cross(&dir) * (dist * rng.gen_range(0.0..0.15));
    let up = unit_vec(rng);
    let camera = Camera { eye, target: target_pt, up, projection };
    camera.validate().ok()?;
    let s = Scenario { target, camera, size, config };
    // The pivot must be well inside the view for a drag to start there.
    let v = s.view(DepthMode::Reversed);
    let ps = v.world_to_screen(&pivot)?;
    (ps.x > 0.0 && ps.y > 0.0 && ps.x < size.0 && ps.y < size.1 && v.view_depth(&pivot) > 1.0).then_some(s)
}

/// A random cursor path: steps around `m0`, some far outside the viewport.
pub fn cursor_path(rng: &mut StdRng, m0: Point2<f64>, n: usize) -> Vec<Point2<f64>> {
    (0..n)
        .map(|_| {
            let r = if rng.gen_bool(0.1) { 5000.0 } else { 300.0 };
            m0 + nalgebra::Vector2::new(rng.gen_range(-r..r), rng.gen_range(-r..r))
        })
        .collect()
}
