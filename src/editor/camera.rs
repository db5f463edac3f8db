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
    let dir = match Unit::try_new(horiz, 1e-12 * dist) {
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
    let Some(right) = Unit::try_new(fwd.cross(&Vector3::y()), 1e-12) else { return false };
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
