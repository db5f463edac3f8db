//! Closest points and intersections: line-line (with the parallel case),
//! ray-segment, ray-plane, ray-circle and 2-D point-on-line projection.
//!
//! Every function returns `None` rather than NaN when its input is degenerate.

// `!(x > 0.0)` is deliberate throughout: it is also true for NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Point2, Point3, Unit, Vector2, Vector3};

use super::geom::{Plane, Ray, Segment};

/// Result of [`closest_line_line`]: parameters `s` on `p1 + s d1` and `t` on
/// `p2 + t d2` of a closest pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineLine {
    /// Parameter on the first line.
    pub s: f64,
    /// Parameter on the second line.
    pub t: f64,
    /// The lines are parallel: every `s` has a closest partner; `s = 0` is returned.
    pub parallel: bool,
    /// Distance between the two closest points.
    pub distance: f64,
}

/// Closest points of two infinite lines `p1 + s d1` and `p2 + t d2`
/// (directions need not be unit). `None` if a direction is zero.
pub fn closest_line_line(p1: &Point3<f64>, d1: &Vector3<f64>, p2: &Point3<f64>, d2: &Vector3<f64>) -> Option<LineLine> {
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    if !(a > 0.0 && e > 0.0 && a.is_finite() && e.is_finite()) {
        return None;
    }
    let r = p1 - p2;
    let b = d1.dot(d2);
    let c = d1.dot(&r);
    let f = d2.dot(&r);
    let denom = a * e - b * b;
    // |d1 x d2|^2 = denom; relative test against the direction lengths.
    let (s, t, parallel) = if denom <= 1e-14 * a * e {
        (0.0, f / e, true)
    } else {
        ((b * f - c * e) / denom, (a * f - b * c) / denom, false)
    };
    let distance = ((p1 + d1 * s) - (p2 + d2 * t)).norm();
    (s.is_finite() && t.is_finite()).then_some(LineLine { s, t, parallel, distance })
}

/// Result of [`closest_ray_segment`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RaySegment {
    /// Distance along the ray (>= 0).
    pub t: f64,
    /// Parameter on the segment in [0, 1].
    pub u: f64,
    /// Distance between the closest ray and segment points.
    pub distance: f64,
}

/// Closest points of a ray and a segment. A zero-length segment is a point.
pub fn closest_ray_segment(ray: &Ray, seg: &Segment) -> RaySegment {
    let d = ray.dir.into_inner();
    let e = seg.b - seg.a;
    let ee = e.dot(&e);
    let point_on_ray = |q: &Point3<f64>| (q - ray.origin).dot(&d).max(0.0);
    let finish = |t: f64, u: f64| RaySegment { t, u, distance: (ray.at(t) - seg.at(u)).norm() };
    if !(ee > 1e-300) {
        return finish(point_on_ray(&seg.a), 0.0);
    }
    // Unconstrained line-line solution, then clamp u, re-solve t, clamp t,
    // re-solve u (the standard two-pass clamp is exact for a ray x segment).
    let u_for_t = |t: f64| ((ray.at(t) - seg.a).dot(&e) / ee).clamp(0.0, 1.0);
    let u = match closest_line_line(&ray.origin, &d, &seg.a, &e) {
        Some(ll) if !ll.parallel => ll.t.clamp(0.0, 1.0),
        _ => {
            // Parallel: take the segment end nearest the ray origin side.
            let ua = (seg.a - ray.origin).dot(&d);
            let ub = (seg.b - ray.origin).dot(&d);
            if ua.max(0.0) <= ub.max(0.0) {
                0.0
            } else {
                1.0
            }
        }
    };
    let t = point_on_ray(&seg.at(u));
    let u = u_for_t(t);
    let t = point_on_ray(&seg.at(u));
    finish(t, u)
}

/// Distance along `ray` to where it crosses `plane`, if it does at `t >= 0`.
/// `None` when the ray is parallel to the plane or points away from it.
pub fn ray_plane(ray: &Ray, plane: &Plane) -> Option<f64> {
    let den = plane.normal.dot(&ray.dir);
    if den.abs() < 1e-12 {
        return None;
    }
    let t = -plane.signed_distance(&ray.origin) / den;
    (t >= 0.0 && t.is_finite()).then_some(t)
}

/// A circle in 3-D: centre, unit normal and radius.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    /// Centre.
    pub center: Point3<f64>,
    /// Unit normal of the circle's plane.
    pub normal: Unit<Vector3<f64>>,
    /// Radius.
    pub radius: f64,
}

impl Circle {
    /// Two unit vectors spanning the circle's plane, `e1 x e2 = normal`.
    pub fn basis(&self) -> (Vector3<f64>, Vector3<f64>) {
        orthonormal_basis(&self.normal)
    }

    /// The point at angle `theta` measured from `basis().0` towards `basis().1`.
    pub fn point(&self, theta: f64) -> Point3<f64> {
        let (e1, e2) = self.basis();
        self.center + (e1 * theta.cos() + e2 * theta.sin()) * self.radius
    }
}

/// Two unit vectors completing `n` to a right-handed orthonormal basis.
pub fn orthonormal_basis(n: &Unit<Vector3<f64>>) -> (Vector3<f64>, Vector3<f64>) {
    // Frisvad / Duff et al. branchless construction.
    let s = if n.z >= 0.0 { 1.0 } else { -1.0 };
    let a = -1.0 / (s + n.z);
    let b = n.x * n.y * a;
    let e1 = Vector3::new(1.0 + s * n.x * n.x * a, s * b, -s * n.x);
    let e2 = Vector3::new(b, s + n.y * n.y * a, -n.y);
    (e1, e2)
}

/// Result of [`closest_ray_circle`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayCircle {
    /// The point of the circle nearest the ray.
    pub point: Point3<f64>,
    /// Its angle (see [`Circle::point`]).
    pub theta: f64,
    /// Distance along the ray of the closest ray point.
    pub t: f64,
    /// Distance between the ray point and the circle point.
    pub distance: f64,
}

/// Minimises `f` over the angle in [0, 2 pi): coarse sampling, then golden
/// section search around the best sample. Ties go to the earlier sample
/// within `tie` (so callers can order samples by preference through `f`).
pub fn minimize_on_circle(samples: usize, mut f: impl FnMut(f64) -> f64) -> (f64, f64) {
    let n = samples.max(8);
    let step = std::f64::consts::TAU / n as f64;
    let (mut best_theta, mut best) = (0.0, f64::INFINITY);
    for i in 0..n {
        let th = i as f64 * step;
        let v = f(th);
        if v < best {
            best = v;
            best_theta = th;
        }
    }
    if !best.is_finite() {
        return (best_theta, best);
    }
    let (mut a, mut b) = (best_theta - step, best_theta + step);
    const INV_PHI: f64 = 0.618_033_988_749_894_9;
    let mut c = b - (b - a) * INV_PHI;
    let mut d = a + (b - a) * INV_PHI;
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..48 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - (b - a) * INV_PHI;
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + (b - a) * INV_PHI;
            fd = f(d);
        }
        if b - a < 1e-13 {
            break;
        }
    }
    let (th, v) = if fc < fd { (c, fc) } else { (d, fd) };
    if v <= best {
        (th.rem_euclid(std::f64::consts::TAU), v)
    } else {
        (best_theta, best)
    }
}

/// The point of `circle` nearest to `ray` (the ring handle's geometry). When
/// several points are equally near (the ray along the axis), the one nearest
/// the ray origin is returned. `None` for a non-positive radius.
pub fn closest_ray_circle(ray: &Ray, circle: &Circle) -> Option<RayCircle> {
    if !(circle.radius > 0.0 && circle.radius.is_finite()) {
        return None;
    }
    let (e1, e2) = circle.basis();
    let d = ray.dir.into_inner();
    let oc = circle.center - ray.origin;
    let r = circle.radius;
    let scale = r + oc.norm();
    // Squared distance plus a tiny bias towards small t to break exact ties.
    let eval = |th: f64| {
        let q = oc + (e1 * th.cos() + e2 * th.sin()) * r;
        let t = q.dot(&d).max(0.0);
        let dist2 = (q - d * t).norm_squared();
        (dist2, t)
    };
    let (mut theta, _) = minimize_on_circle(64, |th| {
        let (d2, t) = eval(th);
        d2 + 1e-12 * scale * t
    });
    // The analytic answer when the ray crosses the plane away from the centre.
    if let Some(plane) = Plane::from_point_normal(circle.center, circle.normal.into_inner()) {
        if let Some(th) = ray_plane(ray, &plane).and_then(|t| {
            let v = ray.at(t) - circle.center;
            let (x, y) = (v.dot(&e1), v.dot(&e2));
            (x.hypot(y) > 1e-9 * r).then(|| y.atan2(x))
        }) {
            if eval(th).0 <= eval(theta).0 {
                theta = th.rem_euclid(std::f64::consts::TAU);
            }
        }
    }
    let (dist2, t) = eval(theta);
    let point = circle.center + (e1 * theta.cos() + e2 * theta.sin()) * r;
    Some(RayCircle { point, theta, t, distance: dist2.max(0.0).sqrt() })
}

/// Projects `p` onto the 2-D line `origin + t * dir`: returns `t` and the
/// projected point. `None` when `dir` is (nearly) zero.
pub fn project_point_on_line_2d(
    origin: &Point2<f64>,
    dir: &Vector2<f64>,
    p: &Point2<f64>,
) -> Option<(f64, Point2<f64>)> {
    let dd = dir.dot(dir);
    if !(dd > 1e-24 && dd.is_finite()) {
        return None;
    }
    let t = dir.dot(&(p - origin)) / dd;
    t.is_finite().then(|| (t, origin + dir * t))
}

/// Distance from `p` to the 2-D segment `a`-`b`, and the parameter in [0, 1].
pub fn point_segment_2d(a: &Point2<f64>, b: &Point2<f64>, p: &Point2<f64>) -> (f64, f64) {
    let e = b - a;
    let ee = e.dot(&e);
    let u = if ee > 0.0 { (e.dot(&(p - a)) / ee).clamp(0.0, 1.0) } else { 0.0 };
    ((a + e * u - p).norm(), u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn p(x: f64, y: f64, z: f64) -> Point3<f64> {
        Point3::new(x, y, z)
    }
    fn v(x: f64, y: f64, z: f64) -> Vector3<f64> {
        Vector3::new(x, y, z)
    }
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn line_line_skew_hand_computed() {
        // x axis and a line parallel to y through (2, 0, 3): closest at (2,0,0)-(2,0,3).
        let ll = closest_line_line(&p(0.0, 0.0, 0.0), &v(1.0, 0.0, 0.0), &p(2.0, 5.0, 3.0), &v(0.0, 2.0, 0.0)).unwrap();
        assert!(!ll.parallel);
        assert!(close(ll.s, 2.0) && close(ll.t, -2.5) && close(ll.distance, 3.0));
        // Intersecting lines: distance 0.
        let ll = closest_line_line(&p(0.0, 0.0, 0.0), &v(1.0, 1.0, 0.0), &p(4.0, 0.0, 0.0), &v(0.0, 1.0, 0.0)).unwrap();
        assert!(close(ll.s, 4.0) && close(ll.t, 4.0) && close(ll.distance, 0.0));
    }

    #[test]
    fn line_line_parallel_and_degenerate() {
        let ll =
            closest_line_line(&p(0.0, 0.0, 0.0), &v(1.0, 0.0, 0.0), &p(3.0, 4.0, 0.0), &v(-2.0, 0.0, 0.0)).unwrap();
        assert!(ll.parallel);
        // s = 0 -> origin; its partner on line 2 is (0, 4, 0) = p2 + t d2 with t = 1.5.
        assert!(close(ll.s, 0.0) && close(ll.t, 1.5) && close(ll.distance, 4.0));
        assert!(closest_line_line(&p(0.0, 0.0, 0.0), &Vector3::zeros(), &p(1.0, 0.0, 0.0), &v(0.0, 1.0, 0.0)).is_none());
    }

    #[test]
    fn ray_segment_cases() {
        let ray = Ray::new(p(0.0, 0.0, 0.0), v(0.0, 0.0, -1.0)).unwrap();
        // Crossing segment 2 m to the side at depth 5.
        let s = closest_ray_segment(&ray, &Segment::new(p(-1.0, 2.0, -5.0), p(1.0, 2.0, -5.0)));
        assert!(close(s.t, 5.0) && close(s.u, 0.5) && close(s.distance, 2.0));
        // Segment behind the origin: clamps to t = 0.
        let s = closest_ray_segment(&ray, &Segment::new(p(-1.0, 1.0, 5.0), p(1.0, 1.0, 5.0)));
        assert!(close(s.t, 0.0) && close(s.u, 0.5) && close(s.distance, 26f64.sqrt()));
        // Segment end clamp: segment from x = 3 to x = 4 at depth 2.
        let s = closest_ray_segment(&ray, &Segment::new(p(3.0, 0.0, -2.0), p(4.0, 0.0, -2.0)));
        assert!(close(s.t, 2.0) && close(s.u, 0.0) && close(s.distance, 3.0));
        // Parallel segment at distance 1, from depth 2 to 6: nearest end is any; distance 1.
        let s = closest_ray_segment(&ray, &Segment::new(p(1.0, 0.0, -2.0), p(1.0, 0.0, -6.0)));
        assert!(close(s.distance, 1.0) && close(s.t, 2.0) && close(s.u, 0.0));
        // Parallel segment partly behind the origin: nearest point is at t = 0.
        let s = closest_ray_segment(&ray, &Segment::new(p(0.0, 1.0, 3.0), p(0.0, 1.0, -3.0)));
        assert!(close(s.distance, 1.0));
        // Degenerate segment (a point).
        let s = closest_ray_segment(&ray, &Segment::new(p(0.0, 3.0, -4.0), p(0.0, 3.0, -4.0)));
        assert!(close(s.t, 4.0) && close(s.distance, 3.0));
    }

    #[test]
    fn ray_plane_cases() {
        let plane = Plane::from_point_normal(p(0.0, 0.0, -10.0), v(0.0, 0.0, 1.0)).unwrap();
        let ray = Ray::new(p(0.0, 0.0, 0.0), v(0.0, 0.6, -0.8)).unwrap();
        assert!(close(ray_plane(&ray, &plane).unwrap(), 12.5));
        // Edge-on (parallel) and pointing away.
        assert_eq!(ray_plane(&Ray::new(p(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0)).unwrap(), &plane), None);
        assert_eq!(ray_plane(&Ray::new(p(0.0, 0.0, 0.0), v(0.0, 0.0, 1.0)).unwrap(), &plane), None);
    }

    #[test]
    fn ray_circle_cases() {
        let circle = Circle { center: p(0.0, 0.0, -10.0), normal: Vector3::z_axis(), radius: 2.0 };
        // Ray hits the plane at (4, 0, -10): the nearest circle point is (2, 0, -10), distance 2.
        let ray = Ray::new(p(4.0, 0.0, 0.0), v(0.0, 0.0, -1.0)).unwrap();
        let rc = closest_ray_circle(&ray, &circle).unwrap();
        assert!((rc.point - p(2.0, 0.0, -10.0)).norm() < 1e-9 && close(rc.distance, 2.0) && close(rc.t, 10.0));
        // Ray through the circle itself: distance 0.
        let ray = Ray::new(p(0.0, 2.0, 0.0), v(0.0, 0.0, -1.0)).unwrap();
        let rc = closest_ray_circle(&ray, &circle).unwrap();
        assert!((rc.point - p(0.0, 2.0, -10.0)).norm() < 1e-6 && rc.distance < 1e-9);
        // Along the axis: every point is at distance r; any is correct.
        let ray = Ray::new(p(0.0, 0.0, 0.0), v(0.0, 0.0, -1.0)).unwrap();
        let rc = closest_ray_circle(&ray, &circle).unwrap();
        assert!(close(rc.distance, 2.0) && close(rc.t, 10.0));
        // Edge-on: the ray lies in the circle's plane and passes the centre;
        // it crosses the circle twice, the nearer crossing wins.
        let ray = Ray::new(p(-10.0, 0.0, -10.0), v(1.0, 0.0, 0.0)).unwrap();
        let rc = closest_ray_circle(&ray, &circle).unwrap();
        assert!((rc.point - p(-2.0, 0.0, -10.0)).norm() < 1e-6, "{rc:?}");
        assert!(rc.distance < 1e-9 && (rc.t - 8.0).abs() < 1e-6);
        // Edge-on, passing outside at height 3: nearest point is the top (0, 3 -> 2).
        let ray = Ray::new(p(-10.0, 3.0, -10.0), v(1.0, 0.0, 0.0)).unwrap();
        let rc = closest_ray_circle(&ray, &circle).unwrap();
        assert!((rc.point - p(0.0, 2.0, -10.0)).norm() < 1e-6 && close(rc.distance, 1.0));
        assert!(closest_ray_circle(&ray, &Circle { radius: 0.0, ..circle }).is_none());
        // minimize_on_circle finds the minimum of a smooth function.
        let (th, _) = minimize_on_circle(16, |t| -(t - PI / 3.0).cos());
        assert!((th - PI / 3.0).abs() < 1e-7);
    }

    #[test]
    fn basis_is_orthonormal() {
        for n in [v(0.0, 0.0, 1.0), v(0.0, 0.0, -1.0), v(1.0, 2.0, 3.0), v(-1.0, 0.0, -1e-9)] {
            let n = Unit::new_normalize(n);
            let (a, b) = orthonormal_basis(&n);
            assert!(close(a.norm(), 1.0) && close(b.norm(), 1.0) && close(a.dot(&b), 0.0));
            assert!((a.cross(&b) - n.into_inner()).norm() < 1e-9);
        }
    }

    #[test]
    fn point_on_line_2d() {
        let (t, q) =
            project_point_on_line_2d(&Point2::new(1.0, 1.0), &Vector2::new(2.0, 0.0), &Point2::new(4.0, 7.0)).unwrap();
        assert!(close(t, 1.5) && q == Point2::new(4.0, 1.0));
        assert!(project_point_on_line_2d(&Point2::new(1.0, 1.0), &Vector2::zeros(), &Point2::new(4.0, 7.0)).is_none());
        let (d, u) = point_segment_2d(&Point2::new(0.0, 0.0), &Point2::new(10.0, 0.0), &Point2::new(13.0, 4.0));
        assert!(close(d, 5.0) && close(u, 1.0));
    }
}
