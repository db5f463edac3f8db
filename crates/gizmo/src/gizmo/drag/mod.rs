//! The drag rules of `docs/spec/conventions.md`, "What a drag must do".
//!
//! Everything is computed from the state at mouse-down (`m0`, the start
//! transforms, the start pivot and axes) and the cursor now (`m`), so a
//! drag is a pure function of the total cursor motion: snapping rounds the
//! total, cancel restores the start, and nothing accumulates error.
//!
//! - Axis (translate / scale): the axis line's image on screen is computed
//!   in homogeneous screen coordinates. With `(X, Y, W)` the homogeneous
//!   screen position of the pivot and `(XA, YA, WA)` that of the axis
//!   direction, the image line has direction `d = (XA W - X WA, YA W - Y WA)`
//!   and a cursor whose projection lies `t` pixels along it corresponds to
//!   the axis parameter `s = t W^2 / (|d| - t W WA)`, exactly (the inverse
//!   of the perspective map along the line). The point stays in front of the
//!   camera iff the denominator is positive, so clamping `t` to keep the
//!   point's depth in `[near, z_max]` clamps at the vanishing point instead
//!   of flipping behind the camera or running to infinity.
//! - Plane / view plane: ray-plane hits `h0`, `h`; motion `h - h0`. Where the
//!   ray stops hitting the plane (or the hit is too far) the cursor is
//!   bisected back along its path to the last valid position: a clamp, not a
//!   jump.
//! - Ring: signed angle about the axis between the ray-plane hits, unwrapped
//!   across frames. A ring seen nearly edge-on at mouse-down uses a
//!   screen-space tangent drag for the whole drag instead.
//!
//! This file holds a drag's state, its start and the update from the
//! cursor; `typed.rs` places the targets by a typed value or a snapped
//! point instead, `apply.rs` turns a [`Delta`] into the targets' local
//! transforms, `sweep.rs` gives a ring drag's swept sector, and
//! `numeric.rs` the scalar helpers (snapping, angles, bisection).

#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod apply;
mod numeric;
mod sweep;
mod typed;

use nalgebra::{Matrix3, Point2, Point3, Unit, UnitQuaternion, Vector2, Vector3};

pub use super::axis_image::{depth_limit, AxisImage};
use super::geometry::GEOMETRY;
use super::layout::GizmoFrame;
use super::types::{Axis, GizmoConfig, Handle, Pivot, Snap, Target};
use crate::math::closest::ray_plane;
use crate::math::{closest_ray_circle, Circle, Plane, Transform, View};
use numeric::{bisect, depth_ok, snap_along, snap_to, wrap_pi};
pub use sweep::Sweep;

/// A ring whose normal is within this cosine of perpendicular to the cursor
/// ray at mouse-down (about 5.7 degrees from edge-on) drags along its
/// screen-space tangent instead of through the ill-conditioned plane hit.
pub const RING_EDGE_ON_COS: f64 = 0.1;
/// Smallest scale factor a drag produces (no zero or negative scale).
pub const MIN_SCALE_FACTOR: f64 = 1e-3;

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Translate or scale along `dir` through the start pivot; `s_grab` is the
    /// axis parameter under the cursor at mouse-down.
    Axis {
        axis: Axis,
        dir: Vector3<f64>,
        s_grab: f64,
    },
    /// Translate (or scale) in the plane through the start pivot.
    Plane {
        normal: Unit<Vector3<f64>>,
        h0: Point3<f64>,
        last_ok: Point2<f64>,
    },
    /// Rotate by the ray-plane angle.
    Ring {
        axis: Unit<Vector3<f64>>,
        r0: Vector3<f64>,
        prev_raw: f64,
        total: f64,
        last_ok: Point2<f64>,
    },
    /// Rotate by the cursor's motion along the ring's screen tangent.
    Tangent {
        axis: Unit<Vector3<f64>>,
        tangent: Vector2<f64>,
    },
    Free,
    Uniform,
}

/// The change a drag describes, before it is applied to the targets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Delta {
    /// World-space translation.
    Translate(Vector3<f64>),
    /// World-space rotation about the pivot.
    Rotate(UnitQuaternion<f64>),
    /// Scale factors along the gizmo's three axes, about the pivot.
    Scale([f64; 3]),
}
/// One drag update's result.
#[derive(Clone, Debug, PartialEq)]
pub struct DragUpdate {
    /// The handle being dragged.
    pub handle: Handle,
    /// New local transforms, one per target, in the order given at mouse-down.
    pub transforms: Vec<Transform>,
    /// The world-space change the transforms were computed from.
    pub delta: Delta,
    /// The motion was limited (vanishing point, horizon, depth range,
    /// minimum scale); the grabbed point is then not under the cursor.
    pub clamped: bool,
    /// The ring drag fell back to the screen-space tangent rule.
    pub tangent_fallback: bool,
}

/// An active drag.
#[derive(Clone, Debug)]
pub struct DragState {
    /// The handle being dragged.
    pub handle: Handle,
    /// The cursor at mouse-down (screen pixels).
    pub m0: Point2<f64>,
    /// The targets as they were at mouse-down.
    pub start: Vec<Target>,
    /// The gizmo's placement at mouse-down; the drag works in it throughout.
    pub frame: GizmoFrame,
    kind: Kind,
    start_pos: Vec<Point3<f64>>,
    parent_inv: Vec<Option<Matrix3<f64>>>,
    parent_rot: Vec<UnitQuaternion<f64>>,
    size_px: f64,
    /// The angle (radians) of the value typed into a ring drag, as typed
    /// (a quaternion would keep it within half a turn).
    typed_angle: Option<f64>,
    /// [`Pivot::Individual`]: rotate and scale each target about its own origin.
    individual: bool,
    /// The latest update, if the cursor has moved since mouse-down.
    pub last: Option<DragUpdate>,
}
impl DragState {
    /// Starts a drag of `handle` at cursor `m0`. `None` when the handle
    /// cannot be dragged from here (its image or plane is degenerate).
    pub fn begin(
        view: &View,
        frame: GizmoFrame,
        targets: &[Target],
        handle: Handle,
        m0: Point2<f64>,
        config: &GizmoConfig,
    ) -> Option<DragState> {
        if targets.is_empty() || !(m0.x.is_finite() && m0.y.is_finite()) {
            return None;
        }
        let p = frame.pivot;
        let ray0 = view.cursor_ray(&m0)?;
        let plane_start = |normal: Vector3<f64>| -> Option<Kind> {
            let plane = Plane::from_point_normal(p, normal)?;
            let h0 = ray0.at(ray_plane(&ray0, &plane)?);
            Some(Kind::Plane { normal: plane.normal, h0, last_ok: m0 })
        };
        let ring_start = |axis: Vector3<f64>, radius: f64| -> Option<Kind> {
            let axis = crate::math::geom::unit(axis)?;
            let plane = Plane::from_point_normal(p, axis.into_inner())?;
            let cond = ray0.dir.dot(&axis).abs();
            let hit = ray_plane(&ray0, &plane).map(|t| ray0.at(t) - p);
            match hit {
                Some(r0) if cond >= RING_EDGE_ON_COS && r0.norm() > 1e-9 * frame.len => {
                    Some(Kind::Ring { axis, r0, prev_raw: 0.0, total: 0.0, last_ok: m0 })
                }
                _ => {
                    // Edge-on: the tangent of the projected ring at the grabbed point.
                    let circle = Circle { center: p, normal: axis, radius };
                    let g = closest_ray_circle(&ray0, &circle)?.point;
                    let tan3 = axis.cross(&(g - p)).normalize() * (1e-3 * radius);
                    let tangent = match (view.world_to_screen(&g), view.world_to_screen(&(g + tan3))) {
                        (Some(a), Some(b)) if (b - a).norm() > 1e-12 => (b - a).normalize(),
                        _ => Vector2::x(),
                    };
                    Some(Kind::Tangent { axis, tangent })
                }
            }
        };
        let kind = match handle {
            Handle::TranslateAxis(a) | Handle::ScaleAxis(a) => {
                let dir = frame.axes[a.index()];
                let img = AxisImage::new(view, &p, &dir)?;
                // The same clamp as the updates use, so the first update cannot jump.
                let (lo, hi) = img.t_range(view.near(), depth_limit(view, view.view_depth(&p)));
                let mut s_grab = img.s_of(img.t_of(&m0).clamp(lo, hi).clamp(-1e12, 1e12))?;
                let lever = GEOMETRY.scale_lever * frame.len;
                if matches!(handle, Handle::ScaleAxis(_)) && s_grab.abs() < lever {
                    // Grabbed at the pivot: the ratio s / s0 needs a lever.
                    s_grab = lever * if s_grab < 0.0 { -1.0 } else { 1.0 };
                }
                Kind::Axis { axis: a, dir, s_grab }
            }
            Handle::TranslatePlane(a) | Handle::ScalePlane(a) => plane_start(frame.axes[a.index()])?,
            Handle::TranslateView => plane_start(frame.view_dir)?,
            Handle::RotateAxis(a) => ring_start(frame.axes[a.index()], GEOMETRY.ring_radius * frame.len)?,
            Handle::RotateView => ring_start(frame.view_dir, GEOMETRY.view_ring_radius * frame.len)?,
            Handle::RotateFree => Kind::Free,
            Handle::ScaleUniform => Kind::Uniform,
        };
        let parent_inv = targets
            .iter()
            .map(|t| {
                t.parent_world
                    .fixed_view::<3, 3>(0, 0)
                    .into_owned()
                    .try_inverse()
                    .filter(|m| m.iter().all(|v| v.is_finite()))
            })
            .collect();
        Some(DragState {
            handle,
            m0,
            start: targets.to_vec(),
            frame,
            kind,
            start_pos: targets.iter().map(Target::world_position).collect(),
            parent_inv,
            parent_rot: targets.iter().map(Target::parent_rotation).collect(),
            size_px: config.size_px,
            typed_angle: None,
            individual: config.pivot == Pivot::Individual,
            last: None,
        })
    }

    /// The transforms at mouse-down (what cancel restores).
    pub fn start_transforms(&self) -> Vec<Transform> {
        self.start.iter().map(|t| t.local).collect()
    }

    /// Range of a scalar translation `delta * dir` that keeps every target
    /// (that starts in range) at a view depth in `[near, zmax]`.
    fn delta_range(&self, view: &View, dir: &Vector3<f64>) -> (f64, f64) {
        let f = view.forward();
        let k = dir.dot(&f);
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        if k.abs() < 1e-300 {
            return (lo, hi);
        }
        for p in &self.start_pos {
            let z = view.view_depth(p);
            let zmax = depth_limit(view, z);
            if !depth_ok(view, z, zmax) {
                continue;
            }
            let (a, b) = ((view.near() - z) / k, (zmax - z) / k);
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            lo = lo.max(a);
            hi = hi.min(b);
        }
        if lo <= hi {
            (lo, hi)
        } else {
            (0.0, 0.0)
        }
    }

    /// Whether a world translation keeps every target (that starts in range) in range.
    fn translation_ok(&self, view: &View, d: &Vector3<f64>) -> bool {
        let k = d.dot(&view.forward());
        self.start_pos.iter().all(|p| {
            let z = view.view_depth(p);
            let zmax = depth_limit(view, z);
            !depth_ok(view, z, zmax) || depth_ok(view, z + k, zmax)
        })
    }

    /// Advances the drag to cursor `m`. Returns the new local transforms;
    /// `None` (and no change) for a non-finite cursor.
    pub fn update(&mut self, view: &View, m: Point2<f64>, snap: Option<&Snap>) -> Option<DragUpdate> {
        if !(m.x.is_finite() && m.y.is_finite()) {
            return self.last.clone();
        }
        let p = self.frame.pivot;
        let len = self.frame.len;
        let z0 = view.view_depth(&p);
        let zmax = depth_limit(view, z0);
        let mut clamped = false;
        let mut tangent_fallback = false;
        let is_scale = matches!(self.handle, Handle::ScaleAxis(_) | Handle::ScalePlane(_) | Handle::ScaleUniform);
        let clamp_factor = |f: f64, clamped: &mut bool| {
            let f = snap.map_or(f, |s| 1.0 + snap_to(f - 1.0, s.scale));
            if !(f >= MIN_SCALE_FACTOR) {
                *clamped = true;
                MIN_SCALE_FACTOR
            } else if f > 1e6 {
                *clamped = true;
                1e6
            } else {
                f
            }
        };
        let delta = match self.kind {
            Kind::Axis { axis, dir, s_grab } => {
                let Some(img) = AxisImage::new(view, &p, &dir) else {
                    return self.last.clone();
                };
                let t = img.t_of(&m);
                let (lo, hi) = img.t_range(view.near(), zmax);
                let tc = t.clamp(lo, hi).clamp(-1e12, 1e12);
                clamped |= tc != t;
                let s = img.s_of(tc)?;
                if is_scale {
                    let mut f = [1.0; 3];
                    f[axis.index()] = clamp_factor(s / s_grab, &mut clamped);
                    Delta::Scale(f)
                } else {
                    let mut d = s - s_grab;
                    if let Some(sn) = snap {
                        d = snap_along(p.coords.dot(&dir), d, sn);
                    }
                    let (lo, hi) = self.delta_range(view, &dir);
                    let dc = d.clamp(lo, hi);
                    clamped |= dc != d;
                    Delta::Translate(dir * dc)
                }
            }
            Kind::Plane { normal, h0, last_ok } => {
                let plane = Plane { normal, d: -normal.dot(&h0.coords) };
                let hit = |q: &Point2<f64>| {
                    let ray = view.cursor_ray(q)?;
                    let h = ray.at(ray_plane(&ray, &plane)?);
                    (view.view_depth(&h) <= zmax).then_some(h)
                };
                let valid = |q: &Point2<f64>| hit(q).is_some_and(|h| is_scale || self.translation_ok(view, &(h - h0)));
                let q = if valid(&m) {
                    m
                } else {
                    clamped = true;
                    bisect(last_ok, m, valid)
                };
                if let Kind::Plane { last_ok, .. } = &mut self.kind {
                    *last_ok = q;
                }
                let h = hit(&q).unwrap_or(h0);
                if is_scale {
                    let Handle::ScalePlane(n) = self.handle else {
                        return self.last.clone();
                    };
                    let (i, j) = n.plane_axes();
                    let diag = self.frame.axes[i.index()] + self.frame.axes[j.index()];
                    let den = (h0 - p).dot(&diag);
                    let lever = GEOMETRY.scale_lever * len;
                    let den = if den.abs() < lever { lever * if den < 0.0 { -1.0 } else { 1.0 } } else { den };
                    let fac = clamp_factor((h - p).dot(&diag) / den, &mut clamped);
                    let mut f = [1.0; 3];
                    f[i.index()] = fac;
                    f[j.index()] = fac;
                    Delta::Scale(f)
                } else {
                    let mut d = h - h0;
                    if let Some(sn) = snap {
                        let axes = &self.frame.axes;
                        let snapped: Vector3<f64> =
                            axes.iter().map(|a| a * snap_along(p.coords.dot(a), d.dot(a), sn)).sum();
                        if self.translation_ok(view, &snapped) {
                            d = snapped;
                        }
                    }
                    Delta::Translate(d)
                }
            }
            Kind::Ring { axis, r0, prev_raw, total, last_ok } => {
                let plane = Plane { normal: axis, d: -axis.dot(&p.coords) };
                let radial = |q: &Point2<f64>| {
                    let ray = view.cursor_ray(q)?;
                    let r = ray.at(ray_plane(&ray, &plane)?) - p;
                    (r.norm() > 1e-9 * len).then_some(r)
                };
                let (q, r) = match radial(&m) {
                    Some(r) => (m, r),
                    None => {
                        clamped = true;
                        let q = bisect(last_ok, m, |q| radial(q).is_some());
                        (q, radial(&q).unwrap_or(r0))
                    }
                };
                let raw = axis.dot(&r0.cross(&r)).atan2(r0.dot(&r));
                let total = total + wrap_pi(raw - prev_raw);
                self.kind = Kind::Ring { axis, r0, prev_raw: raw, total, last_ok: q };
                let angle = snap.map_or(total, |s| snap_to(total, s.rotate_deg.to_radians()));
                Delta::Rotate(UnitQuaternion::from_axis_angle(&axis, angle))
            }
            Kind::Tangent { axis, tangent } => {
                tangent_fallback = true;
                let angle = (m - self.m0).dot(&tangent) / self.size_px;
                let angle = snap.map_or(angle, |s| snap_to(angle, s.rotate_deg.to_radians()));
                Delta::Rotate(UnitQuaternion::from_axis_angle(&axis, angle))
            }
            Kind::Free => {
                let dm = m - self.m0;
                let axis = view.up().into_inner() * dm.x + view.right().into_inner() * dm.y;
                let angle = dm.norm() / self.size_px;
                let angle = snap.map_or(angle, |s| snap_to(angle, s.rotate_deg.to_radians()));
                match crate::math::geom::unit(axis) {
                    Some(axis) if angle.is_finite() => Delta::Rotate(UnitQuaternion::from_axis_angle(&axis, angle)),
                    _ => Delta::Rotate(UnitQuaternion::identity()),
                }
            }
            Kind::Uniform => {
                let dm = m - self.m0;
                let f = clamp_factor(((dm.x - dm.y) / self.size_px).clamp(-700.0, 700.0).exp(), &mut clamped);
                Delta::Scale([f; 3])
            }
        };
        let update =
            DragUpdate { handle: self.handle, transforms: self.apply(&delta), delta, clamped, tangent_fallback };
        self.last = Some(update.clone());
        Some(update)
    }
}

#[cfg(test)]
mod tests {
    use super::numeric::wrap_pi;

    #[test]
    fn wrap_pi_fast_cases_match_the_general_formula() {
        use rand::{Rng, SeedableRng};
        use std::f64::consts::{PI, TAU};
        let general = |a: f64| (a + PI).rem_euclid(TAU) - PI;
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let edges = [0.0, PI, -PI, 3.0 * PI, -3.0 * PI, TAU, -TAU, 1e-300, 7.0, -20.0, 1e9];
        let random = (0..20_000).map(|i| rng.gen_range(-10.0..10.0) * if i % 2 == 0 { 1.0 } else { 0.5 });
        for a in edges.into_iter().chain(random) {
            let (w, g) = (wrap_pi(a), general(a));
            assert!((-PI..=PI).contains(&w), "{a}: {w}");
            // The same angle (modulo rounding), and the same branch away from +-pi.
            let d = (w - g).abs();
            assert!(d < 1e-12 * (1.0 + a.abs()) || (d - TAU).abs() < 1e-12 * (1.0 + a.abs()), "{a}: {w} vs {g}");
        }
        assert_eq!(wrap_pi(f64::NAN), 0.0);
        assert_eq!(wrap_pi(f64::INFINITY), 0.0);
    }
}
