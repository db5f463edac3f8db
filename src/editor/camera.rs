//! Camera controller: orbit about the target, pan, zoom and focus. Every
//! operation keeps the camera valid (it never produces a degenerate camera;
//! an invalid result is discarded).

use nalgebra::{Point3, Unit, UnitQuaternion, Vector3};

use crate::math::{Camera, Projection};

/// Radians per pixel of orbit.
pub const ORBIT_RAD_PER_PX: f64 = 0.005;
/// Zoom factor per wheel notch.
pub const ZOOM_PER_NOTCH: f64 = 0.85;
/// Orbit keeps the view this far (radians) from straight up or down.
const POLE_MARGIN: f64 = 0.01;

/// Replaces `cam` with `next` if `next` is valid.
fn commit(cam: &mut Camera, next: Camera) -> bool {
    if next.validate().is_ok() {
        *cam = next;
        true
    } else {
        false
    }
}

/// Orbit about the target by a cursor motion in pixels: horizontal motion
/// turns about world +Y, vertical motion tilts, short of the poles.
pub fn orbit(cam: &mut Camera, dx: f64, dy: f64) -> bool {
    let offset = cam.eye - cam.target;
    let dist = offset.norm();
    if dist.is_nan() || dist <= 0.0 || !dx.is_finite() || !dy.is_finite() {
        return false;
    }
    let yaw = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -dx * ORBIT_RAD_PER_PX);
    let offset = yaw * offset;
    // Pitch: angle from +Y, kept inside (margin, pi - margin).
    let polar = (offset.y / dist).clamp(-1.0, 1.0).acos();
    let new_polar = (polar - dy * ORBIT_RAD_PER_PX).clamp(POLE_MARGIN, std::f64::consts::PI - POLE_MARGIN);
    let horiz = Vector3::new(offset.x, 0.0, offset.z);
    // Straight above or below (a top or bottom view): the screen's up
    // vector tells which side the eye leaves the pole towards.
    let from_up = || Unit::try_new(Vector3::new(cam.up.x, 0.0, cam.up.z) * -offset.y.signum(), 1e-12);
    let dir = match Unit::try_new(horiz, 1e-12 * dist).or_else(from_up) {
        Some(h) => h.into_inner(),
        None => Vector3::x(),
    };
    let new_offset = (dir * new_polar.sin() + Vector3::y() * new_polar.cos()) * dist;
    commit(cam, Camera { eye: cam.target + new_offset, up: Vector3::y(), ..*cam })
}

/// Orbit about a world point `pivot` (e.g. the surface under the cursor):
/// eye and target turn together about world +Y through the pivot, then
/// tilt about the camera's right axis, short of the poles.
pub fn orbit_about(cam: &mut Camera, pivot: Point3<f64>, dx: f64, dy: f64) -> bool {
    if !dx.is_finite() || !dy.is_finite() || !pivot.iter().all(|v| v.is_finite()) {
        return false;
    }
    let turn = |q: &UnitQuaternion<f64>, p: Point3<f64>| pivot + q * (p - pivot);
    let yaw = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -dx * ORBIT_RAD_PER_PX);
    let (eye, target) = (turn(&yaw, cam.eye), turn(&yaw, cam.target));
    let fwd = target - eye;
    let Some(fwd_unit) = Unit::try_new(fwd, 1e-12) else { return false };
    let Some(right) =
        Unit::try_new(fwd.cross(&Vector3::y()), 1e-12).or_else(|| Unit::try_new(fwd.cross(&cam.up), 1e-12))
    else {
        return false;
    };
    // Polar angle of the view direction from +Y, kept inside the margins.
    let polar = fwd_unit.y.clamp(-1.0, 1.0).acos();
    let new_polar = (polar - dy * ORBIT_RAD_PER_PX).clamp(POLE_MARGIN, std::f64::consts::PI - POLE_MARGIN);
    let pitch = UnitQuaternion::from_axis_angle(&right, polar - new_polar);
    commit(cam, Camera { eye: turn(&pitch, eye), target: turn(&pitch, target), up: Vector3::y(), ..*cam })
}

/// Zoom by wheel notches towards a world point `pivot` that stays at the
/// same place on screen: the whole camera is scaled about the pivot
/// (perspective), or the visible height shrinks about it (orthographic).
pub fn zoom_about(cam: &mut Camera, pivot: Point3<f64>, notches: f64) -> bool {
    if !notches.is_finite() || !pivot.iter().all(|v| v.is_finite()) {
        return false;
    }
    let f = ZOOM_PER_NOTCH.powf(notches.clamp(-50.0, 50.0));
    let scale = |p: Point3<f64>| pivot + (p - pivot) * f;
    let next = match cam.projection {
        Projection::Perspective { near, .. } => {
            // Never closer to the pivot than twice the near plane.
            if (cam.eye - pivot).norm() * f < near * 2.0 {
                return false;
            }
            Camera { eye: scale(cam.eye), target: scale(cam.target), ..*cam }
        }
        Projection::Orthographic { height, near, far } => {
            // Shift within the view plane only; the eye keeps its depth.
            let fwd = (cam.target - cam.eye).normalize();
            let lateral = |p: Point3<f64>| {
                let d = p - pivot;
                let along = fwd * fwd.dot(&d);
                pivot + along + (d - along) * f
            };
            Camera {
                eye: lateral(cam.eye),
                target: lateral(cam.target),
                projection: Projection::Orthographic { height: (height * f).clamp(1e-6, 1e7), near, far },
                ..*cam
            }
        }
    };
    commit(cam, next)
}

/// Pan by a cursor motion in pixels for a viewport `height` pixels high: the
/// point under the cursor at the target's depth stays under the cursor.
pub fn pan(cam: &mut Camera, dx: f64, dy: f64, height: f64) -> bool {
    let fwd = cam.target - cam.eye;
    let dist = fwd.norm();
    let Some(right) = Unit::try_new(fwd.cross(&cam.up), 1e-12) else { return false };
    let up = right.cross(&fwd).normalize();
    let wpp = match cam.projection {
        Projection::Perspective { fov_y, .. } => 2.0 * dist * (fov_y * 0.5).tan() / height,
        Projection::Orthographic { height: h, .. } => h / height,
    };
    let d = (-right.into_inner() * dx + up * dy) * wpp;
    if !d.iter().all(|v| v.is_finite()) {
        return false;
    }
    commit(cam, Camera { eye: cam.eye + d, target: cam.target + d, ..*cam })
}

/// Zoom by wheel notches (positive: closer). Perspective moves the eye
/// towards the target; orthographic shrinks the visible height.
pub fn zoom(cam: &mut Camera, notches: f64) -> bool {
    let f = ZOOM_PER_NOTCH.powf(notches.clamp(-50.0, 50.0));
    let next = match cam.projection {
        Projection::Perspective { near, .. } => {
            let offset = cam.eye - cam.target;
            let dist = (offset.norm() * f).clamp(near * 2.0, 1.0e7);
            Camera { eye: cam.target + offset.normalize() * dist, ..*cam }
        }
        Projection::Orthographic { height, near, far } => {
            Camera { projection: Projection::Orthographic { height: (height * f).clamp(1e-6, 1e7), near, far }, ..*cam }
        }
    };
    commit(cam, next)
}

/// Looks at `center` from the current direction, far enough to see a
/// sphere of `radius`.
pub fn focus(cam: &mut Camera, center: Point3<f64>, radius: f64) -> bool {
    let radius = if radius.is_finite() && radius > 0.0 { radius } else { 1.0 };
    let dir = (cam.eye - cam.target).try_normalize(1e-12).unwrap_or(Vector3::z());
    let next = match cam.projection {
        Projection::Perspective { fov_y, near, .. } => {
            let dist = (1.2 * radius / (fov_y * 0.5).sin()).max(near * 4.0);
            Camera { eye: center + dir * dist, target: center, ..*cam }
        }
        Projection::Orthographic { near, far, .. } => Camera {
            eye: center + dir * (radius * 4.0).max(near * 4.0),
            target: center,
            projection: Projection::Orthographic { height: 2.4 * radius, near, far },
            ..*cam
        },
    };
    commit(cam, next)
}

/// The six axis views (`docs/spec/editing.md`, "Views").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxisView {
    /// Camera on +Z looking towards -Z (Numpad1).
    Front,
    Back,
    /// Camera on +X (Numpad3).
    Right,
    Left,
    /// Camera on +Y, screen up = -Z (Numpad7).
    Top,
    /// Camera on -Y, screen up = +Z.
    Bottom,
}

impl AxisView {
    pub const ALL: [AxisView; 6] =
        [AxisView::Front, AxisView::Back, AxisView::Right, AxisView::Left, AxisView::Top, AxisView::Bottom];

    /// Unit direction from the target to the eye.
    pub fn eye_direction(self) -> Vector3<f64> {
        match self {
            AxisView::Front => Vector3::z(),
            AxisView::Back => -Vector3::z(),
            AxisView::Right => Vector3::x(),
            AxisView::Left => -Vector3::x(),
            AxisView::Top => Vector3::y(),
            AxisView::Bottom => -Vector3::y(),
        }
    }

    /// The world direction that is up on screen.
    pub fn up(self) -> Vector3<f64> {
        match self {
            AxisView::Top => -Vector3::z(),
            AxisView::Bottom => Vector3::z(),
            _ => Vector3::y(),
        }
    }

    pub fn opposite(self) -> AxisView {
        match self {
            AxisView::Front => AxisView::Back,
            AxisView::Back => AxisView::Front,
            AxisView::Right => AxisView::Left,
            AxisView::Left => AxisView::Right,
            AxisView::Top => AxisView::Bottom,
            AxisView::Bottom => AxisView::Top,
        }
    }

    /// The axis view `cam` looks along, if it is one (within 1e-9).
    pub fn of(cam: &Camera) -> Option<AxisView> {
        let dir = (cam.eye - cam.target).try_normalize(1e-300)?;
        AxisView::ALL.into_iter().find(|v| (dir - v.eye_direction()).norm() < 1e-9)
    }
}

/// Turns the camera to an axis view about its target, keeping the distance.
pub fn axis_view(cam: &mut Camera, view: AxisView) -> bool {
    let dist = (cam.eye - cam.target).norm();
    commit(cam, Camera { eye: cam.target + view.eye_direction() * dist, up: view.up(), ..*cam })
}

/// The height an orthographic view needs to show things at the target as
/// large as a perspective view of vertical field of view `fov_y` does.
pub fn matching_height(cam: &Camera, fov_y: f64) -> f64 {
    2.0 * (cam.eye - cam.target).norm() * (fov_y * 0.5).tan()
}

/// Perspective -> orthographic, keeping the apparent size at the target.
/// Returns the field of view it replaced (to go back with).
pub fn to_orthographic(cam: &mut Camera) -> Option<f64> {
    let Projection::Perspective { fov_y, near, far } = cam.projection else { return None };
    let height = matching_height(cam, fov_y);
    commit(cam, Camera { projection: Projection::Orthographic { height, near, far }, ..*cam }).then_some(fov_y)
}

/// Orthographic -> perspective with field of view `fov_y`, keeping the
/// apparent size at the target: the eye moves along the view direction.
pub fn to_perspective(cam: &mut Camera, fov_y: f64) -> bool {
    let Projection::Orthographic { height, near, far } = cam.projection else { return false };
    let Some(back) = (cam.eye - cam.target).try_normalize(1e-300) else { return false };
    let dist = (height / (2.0 * (fov_y * 0.5).tan())).max(near * 2.0);
    commit(
        cam,
        Camera { eye: cam.target + back * dist, projection: Projection::Perspective { fov_y, near, far }, ..*cam },
    )
}

/// The field of view a camera that started orthographic gets when it
/// switches to perspective (the scene format's default).
pub const DEFAULT_FOV_DEG: f64 = 50.0;

/// Fly speed in metres per second (`docs/spec/editing.md`, "Views").
pub const FLY_SPEED: f64 = 5.0;
/// Fly speed factor while Shift is held.
pub const FLY_FAST: f64 = 3.0;
/// Fly speed factor per wheel notch.
pub const FLY_WHEEL: f64 = 1.25;
/// Fly turn per pixel of cursor motion.
pub const FLY_DEG_PER_PX: f64 = 0.2;

/// Moves eye and target together by `local` metres: x right, y world up,
/// z forward (along the view direction).
pub fn fly_move(cam: &mut Camera, local: Vector3<f64>) -> bool {
    let fwd = (cam.target - cam.eye).normalize();
    let Some(right) = Unit::try_new(fwd.cross(&cam.up), 1e-12) else { return false };
    let d = right.into_inner() * local.x + Vector3::y() * local.y + fwd * local.z;
    if !d.iter().all(|v| v.is_finite()) {
        return false;
    }
    commit(cam, Camera { eye: cam.eye + d, target: cam.target + d, ..*cam })
}

/// Turns the view about the eye by a cursor motion in pixels: right turns
/// right (about world +Y), down looks down, short of the poles.
pub fn fly_turn(cam: &mut Camera, dx: f64, dy: f64) -> bool {
    if !dx.is_finite() || !dy.is_finite() {
        return false;
    }
    let offset = cam.target - cam.eye;
    let dist = offset.norm();
    let step = FLY_DEG_PER_PX.to_radians();
    let yaw = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -dx * step);
    let f = yaw * (offset / dist);
    let Some(right) = Unit::try_new(f.cross(&Vector3::y()), 1e-9) else { return false };
    let polar = f.y.clamp(-1.0, 1.0).acos();
    let new_polar = (polar + dy * step).clamp(POLE_MARGIN, std::f64::consts::PI - POLE_MARGIN);
    let f = UnitQuaternion::from_axis_angle(&right, polar - new_polar) * f;
    commit(cam, Camera { target: cam.eye + f * dist, up: Vector3::y(), ..*cam })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbit_keeps_distance_and_stops_short_of_the_pole() {
        let mut c = Camera::default();
        let d0 = (c.eye - c.target).norm();
        assert!(orbit(&mut c, 120.0, 0.0));
        assert!(((c.eye - c.target).norm() - d0).abs() < 1e-9);
        assert!(orbit(&mut c, 0.0, 1.0e6));
        assert!(c.validate().is_ok());
        assert!(((c.eye - c.target).norm() - d0).abs() < 1e-9);
        let polar = ((c.eye - c.target).y / d0).acos();
        assert!(polar >= POLE_MARGIN - 1e-12);
    }

    #[test]
    fn pan_moves_eye_and_target_together() {
        let mut c = Camera::default();
        let off = c.eye - c.target;
        assert!(pan(&mut c, 10.0, -5.0, 720.0));
        assert!((c.eye - c.target - off).norm() < 1e-12);
        assert!(!pan(&mut c, f64::NAN, 0.0, 720.0));
    }

    #[test]
    fn zoom_and_focus() {
        let mut c = Camera::default();
        let d0 = (c.eye - c.target).norm();
        assert!(zoom(&mut c, 1.0));
        assert!(((c.eye - c.target).norm() - d0 * ZOOM_PER_NOTCH).abs() < 1e-9);
        for _ in 0..1000 {
            zoom(&mut c, 10.0);
        }
        assert!(c.validate().is_ok());
        assert!(focus(&mut c, Point3::new(5.0, 0.0, 0.0), 1.0));
        assert_eq!(c.target, Point3::new(5.0, 0.0, 0.0));
        assert!(c.validate().is_ok());
    }
}
