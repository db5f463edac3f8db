//! The scalar helpers of the drag rules: the depth test, angles wrapped
//! into (-pi, pi], snapping to increments (relative or absolute) and the
//! bisection back to the last valid cursor position.

use nalgebra::Point2;

use crate::gizmo::types::Snap;
use crate::math::View;

pub(super) fn depth_ok(view: &View, z: f64, zmax: f64) -> bool {
    z >= view.near() && z <= zmax
}

pub(super) fn wrap_pi(a: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    // The common case (a difference of two atan2 angles) without fmod.
    if (-PI..PI).contains(&a) {
        return a;
    }
    if (PI..3.0 * PI).contains(&a) {
        return a - TAU;
    }
    if (-3.0 * PI..-PI).contains(&a) {
        return a + TAU;
    }
    let t = TAU;
    let r = (a + std::f64::consts::PI).rem_euclid(t) - std::f64::consts::PI;
    if r.is_finite() {
        r
    } else {
        0.0
    }
}

pub(super) fn snap_to(v: f64, inc: f64) -> f64 {
    if inc > 0.0 && inc.is_finite() {
        (v / inc).round() * inc
    } else {
        v
    }
}

/// A translation `d` along a unit axis, snapped: the delta itself rounded
/// to the increment, or with [`Snap::absolute`] the pivot's coordinate
/// along the axis (`start + d`) rounded and the delta that reaches it.
pub(super) fn snap_along(start: f64, d: f64, snap: &Snap) -> f64 {
    if snap.absolute {
        snap_to(start + d, snap.translate) - start
    } else {
        snap_to(d, snap.translate)
    }
}

/// Bisects the screen segment `ok -> m` for the last position where `valid` holds.
pub(super) fn bisect(ok: Point2<f64>, m: Point2<f64>, mut valid: impl FnMut(&Point2<f64>) -> bool) -> Point2<f64> {
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..48 {
        let mid = 0.5 * (lo + hi);
        if valid(&(ok + (m - ok) * mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    ok + (m - ok) * lo
}
