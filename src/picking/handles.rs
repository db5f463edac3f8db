//! Hit tests for gizmo handle shapes, measured in screen pixels.
//!
//! A shape is hovered when the cursor is within `hit_px` of its projection
//! on screen (or inside a filled shape). Each test also reports the view
//! depth of the shape point under (or nearest to) the cursor so that the
//! nearest handle along the cursor ray can win; see [`pick_nearest`].

#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Point2, Point3, Vector3, Vector4};

use crate::math::closest::{minimize_on_circle, point_segment_2d, ray_plane};
use crate::math::{Circle, Plane, Ray, Segment, View};

/// An analytic pick shape in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PickShape {
    /// An axis handle: the segment itself.
    Segment(Segment),
    /// A filled parallelogram `center + x a + y b`, `x, y` in [-1, 1].
    Quad { center: Point3<f64>, a: Vector3<f64>, b: Vector3<f64> },
    /// A filled disc (view-plane / uniform-scale handle).
    Disc(Circle),
    /// A circle outline (rotate rings).
    Ring(Circle),
    /// A filled sphere (free-rotate trackball): hit only inside.
    Sphere { center: Point3<f64>, radius: f64 },
}

/// How close the cursor is to a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHit {
    /// Screen distance in pixels from the cursor to the projected shape (0 inside).
    pub screen_dist: f64,
    /// View depth of the shape point under / nearest the cursor.
    pub view_depth: f64,
}

/// Homogeneous screen coordinates `(X, Y, W)` of a clip-space vector, such
/// that the screen position is `(X / W, Y / W)`; linear in the world point.
fn hscreen(view: &View, c: &Vector4<f64>) -> Vector3<f64> {
    Vector3::new(0.5 * view.width() * (c.x + c.w), 0.5 * view.height() * (c.y + c.w), c.w)
}

/// The minimum clip w (view depth for perspective) that counts as visible.
fn min_w(view: &View) -> f64 {
    if view.is_orthographic() {
        f64::NEG_INFINITY
    } else {
        view.near() * 0.5
    }
}

/// Screen distance from `cursor` to segment `a`-`b` clipped to the visible
/// half-space, and the view depth of the segment point nearest on screen.
fn segment_hit(view: &View, cursor: &Point2<f64>, seg: &Segment) -> Option<ShapeHit> {
    let ca = view.world_to_clip(&seg.a);
    let cb = view.world_to_clip(&seg.b);
    let wmin = min_w(view);
    // Clip against w >= wmin (perspective); parameters on the 3-D segment.
    let (mut u0, mut u1) = (0.0, 1.0);
    if !view.is_orthographic() {
        let (wa, wb) = (ca.w - wmin, cb.w - wmin);
        if wa < 0.0 && wb < 0.0 {
            return None;
        }
        if wa < 0.0 {
            u0 = wa / (wa - wb);
        } else if wb < 0.0 {
            u1 = wa / (wa - wb);
        }
    }
    let c0 = ca + (cb - ca) * u0;
    let c1 = ca + (cb - ca) * u1;
    let h0 = hscreen(view, &c0);
    let h1 = hscreen(view, &c1);
    let s0 = Point2::new(h0.x / h0.z, h0.y / h0.z);
    let s1 = Point2::new(h1.x / h1.z, h1.y / h1.z);
    let (dist, u2) = point_segment_2d(&s0, &s1, cursor);
    // Perspective-correct map from the screen parameter back to 3-D.
    let u3 = {
        let den = (1.0 - u2) / h0.z + u2 / h1.z;
        if den > 0.0 {
            (u2 / h1.z) / den
        } else {
            u2
        }
    };
    let p = seg.at(u0 + (u1 - u0) * u3);
    let hit = ShapeHit { screen_dist: dist, view_depth: view.view_depth(&p) };
    (hit.screen_dist.is_finite() && hit.view_depth.is_finite()).then_some(hit)
}

/// Screen distance from the cursor to a projected circle outline, found by
/// minimising over the circle's angle in homogeneous screen space.
fn ring_hit(view: &View, cursor: &Point2<f64>, circle: &Circle) -> Option<ShapeHit> {
    let (e1, e2) = circle.basis();
    let c = hscreen(view, &view.world_to_clip(&circle.center));
    let dir = |v: Vector3<f64>| hscreen(view, &(view.view_proj() * (v * circle.radius).to_homogeneous()));
    let (u, v) = (dir(e1), dir(e2));
    let wmin = min_w(view);
    let (theta, d2) = minimize_on_circle(32, |th| {
        let h = c + u * th.cos() + v * th.sin();
        if !(h.z > wmin) || h.z <= 0.0 {
            return f64::INFINITY;
        }
        let (dx, dy) = (h.x / h.z - cursor.x, h.y / h.z - cursor.y);
        dx * dx + dy * dy
    });
    if !d2.is_finite() {
        return None;
    }
    let p = circle.center + (e1 * theta.cos() + e2 * theta.sin()) * circle.radius;
    Some(ShapeHit { screen_dist: d2.sqrt(), view_depth: view.view_depth(&p) })
}

/// Hit test of one shape. `None` when the shape is entirely behind the
/// camera, degenerate, or (for a sphere) not under the cursor.
pub fn shape_hit(view: &View, cursor: &Point2<f64>, ray: &Ray, shape: &PickShape) -> Option<ShapeHit> {
    match shape {
        PickShape::Segment(seg) => segment_hit(view, cursor, seg),
        PickShape::Ring(circle) => ring_hit(view, cursor, circle),
        PickShape::Disc(circle) => {
            let plane = Plane::from_point_normal(circle.center, circle.normal.into_inner())?;
            if let Some(t) = ray_plane(ray, &plane) {
                let p = ray.at(t);
                if (p - circle.center).norm() <= circle.radius {
                    return Some(ShapeHit { screen_dist: 0.0, view_depth: view.view_depth(&p) });
                }
            }
            ring_hit(view, cursor, circle)
        }
        PickShape::Quad { center, a, b } => {
            let n = a.cross(b);
            let plane = Plane::from_point_normal(*center, n)?;
            if let Some(t) = ray_plane(ray, &plane) {
                let p = ray.at(t);
                let d = p - center;
                let (aa, bb) = (a.norm_squared(), b.norm_squared());
                // a and b are orthogonal for gizmo planes; solve generally anyway.
                let ab = a.dot(b);
                let det = aa * bb - ab * ab;
                if det > 0.0 {
                    let (da, db) = (d.dot(a), d.dot(b));
                    let x = (da * bb - db * ab) / det;
                    let y = (db * aa - da * ab) / det;
                    if x.abs() <= 1.0 && y.abs() <= 1.0 {
                        return Some(ShapeHit { screen_dist: 0.0, view_depth: view.view_depth(&p) });
                    }
                }
            }
            let corners = [center - a - b, center + a - b, center + a + b, center - a + b];
            (0..4)
                .filter_map(|i| segment_hit(view, cursor, &Segment::new(corners[i], corners[(i + 1) % 4])))
                .min_by(|x, y| x.screen_dist.total_cmp(&y.screen_dist))
        }
        PickShape::Sphere { center, radius } => {
            let oc = center - ray.origin;
            let tc = oc.dot(&ray.dir);
            let d2 = oc.norm_squared() - tc * tc;
            let r2 = radius * radius;
            if !(d2 <= r2) {
                return None;
            }
            let t = (tc - (r2 - d2).sqrt()).max(0.0);
            Some(ShapeHit { screen_dist: 0.0, view_depth: view.view_depth(&ray.at(t)) })
        }
    }
}

/// How a candidate takes part in the nearest-along-the-ray rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickClass {
    /// Nearest along the cursor ray wins.
    Normal,
    /// The view-plane disc: inside it, it wins over everything else.
    ViewDisc,
    /// Only when nothing else is hovered (the free-rotate trackball).
    Fallback,
}

/// One handle's hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate<H> {
    pub handle: H,
    pub class: PickClass,
    pub hit: ShapeHit,
}

/// The hovered handle among `candidates`: within `hit_px`; a cursor inside
/// the view disc picks it; otherwise the smallest view depth wins (ties: the
/// smaller screen distance); fallbacks only when nothing else qualifies.
pub fn pick_nearest<H: Copy>(candidates: impl IntoIterator<Item = Candidate<H>>, hit_px: f64) -> Option<H> {
    let mut best: Option<Candidate<H>> = None;
    let mut inside_disc: Option<H> = None;
    let mut fallback: Option<Candidate<H>> = None;
    for c in candidates {
        if !(c.hit.screen_dist <= hit_px) {
            continue;
        }
        match c.class {
            PickClass::ViewDisc if c.hit.screen_dist == 0.0 => inside_disc = Some(c.handle),
            PickClass::Fallback => {
                if fallback.is_none_or(|f| c.hit.view_depth < f.hit.view_depth) {
                    fallback = Some(c);
                }
                continue;
            }
            _ => {}
        }
        let better = match &best {
            None => true,
            Some(b) => {
                let eps = 1e-9 * (1.0 + b.hit.view_depth.abs());
                c.hit.view_depth < b.hit.view_depth - eps
                    || (c.hit.view_depth <= b.hit.view_depth + eps && c.hit.screen_dist < b.hit.screen_dist)
            }
        };
        if better {
            best = Some(c);
        }
    }
    inside_disc.or(best.map(|b| b.handle)).or(fallback.map(|f| f.handle))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Camera, DepthMode, Projection};

    fn view() -> View {
        let cam = Camera {
            eye: Point3::new(0.0, 0.0, 10.0),
            target: Point3::origin(),
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 90f64.to_radians(), near: 0.1, far: 100.0 },
        };
        View::new(cam, 200.0, 100.0, DepthMode::Reversed).unwrap()
    }

    fn hit(v: &View, s: (f64, f64), shape: &PickShape) -> Option<ShapeHit> {
        let c = Point2::new(s.0, s.1);
        shape_hit(v, &c, &v.cursor_ray(&c).unwrap(), shape)
    }

    #[test]
    fn segment_distance_in_pixels() {
        let v = view();
        // 0.2 m per pixel at depth 10: a 10 m segment along x is 50 px long.
        let seg = PickShape::Segment(Segment::new(Point3::origin(), Point3::new(10.0, 0.0, 0.0)));
        let h = hit(&v, (120.0, 56.0), &seg).unwrap();
        assert!((h.screen_dist - 6.0).abs() < 1e-9 && (h.view_depth - 10.0).abs() < 1e-9);
        // Beyond the end: distance to the end point.
        let h = hit(&v, (153.0, 54.0), &seg).unwrap();
        assert!((h.screen_dist - 5.0).abs() < 1e-9);
        // A segment crossing the eye plane is clipped, not wrapped around.
        let seg = PickShape::Segment(Segment::new(Point3::origin(), Point3::new(0.0, 0.0, 20.0)));
        let h = hit(&v, (100.0, 50.0), &seg).unwrap();
        assert!(h.screen_dist < 1e-9);
        // Entirely behind: none.
        let seg = PickShape::Segment(Segment::new(Point3::new(0.0, 0.0, 11.0), Point3::new(1.0, 0.0, 12.0)));
        assert!(hit(&v, (100.0, 50.0), &seg).is_none());
    }

    #[test]
    fn depth_along_a_receding_segment_is_perspective_correct() {
        let v = view();
        let seg = Segment::new(Point3::new(2.0, 0.0, 0.0), Point3::new(2.0, 0.0, -30.0));
        let p = Point3::new(2.0, 0.0, -12.0);
        let s = v.world_to_screen(&p).unwrap();
        let h = hit(&v, (s.x, s.y), &PickShape::Segment(seg)).unwrap();
        assert!(h.screen_dist < 1e-9 && (h.view_depth - 22.0).abs() < 1e-9, "{h:?}");
    }

    #[test]
    fn ring_disc_quad_sphere() {
        let v = view();
        let circle = Circle { center: Point3::origin(), normal: Vector3::z_axis(), radius: 4.0 };
        // Facing the camera: a 20 px radius circle around the centre.
        let h = hit(&v, (100.0 + 23.0, 50.0), &PickShape::Ring(circle)).unwrap();
        assert!((h.screen_dist - 3.0).abs() < 1e-6, "{h:?}");
        let h = hit(&v, (100.0 + 5.0, 50.0), &PickShape::Disc(circle)).unwrap();
        assert_eq!(h.screen_dist, 0.0);
        let h = hit(&v, (100.0 + 25.0, 50.0), &PickShape::Disc(circle)).unwrap();
        assert!((h.screen_dist - 5.0).abs() < 1e-6);
        // Edge-on ring (normal along x): projects to a vertical line from y = 30 to 70.
        let edge = Circle { normal: Vector3::x_axis(), ..circle };
        let h = hit(&v, (104.0, 50.0), &PickShape::Ring(edge)).unwrap();
        assert!((h.screen_dist - 4.0).abs() < 1e-6);
        // Quad [-1, 1]^2 scaled by 2 m: 10 px half size.
        let quad = PickShape::Quad { center: Point3::origin(), a: Vector3::x() * 2.0, b: Vector3::y() * 2.0 };
        assert_eq!(hit(&v, (108.0, 42.0), &quad).unwrap().screen_dist, 0.0);
        assert!((hit(&v, (113.0, 50.0), &quad).unwrap().screen_dist - 3.0).abs() < 1e-9);
        let sphere = PickShape::Sphere { center: Point3::origin(), radius: 2.0 };
        assert!((hit(&v, (100.0, 50.0), &sphere).unwrap().view_depth - 8.0).abs() < 1e-9);
        assert!(hit(&v, (111.0, 50.0), &sphere).is_none());
    }

    #[test]
    fn nearest_along_ray_wins_except_inside_view_disc() {
        let c = |h: u8, class, d: f64, depth: f64| Candidate {
            handle: h,
            class,
            hit: ShapeHit { screen_dist: d, view_depth: depth },
        };
        use PickClass::*;
        // Nearer wins even at a larger screen distance; too far away never.
        assert_eq!(
            pick_nearest([c(1, Normal, 1.0, 5.0), c(2, Normal, 6.0, 4.0), c(3, Normal, 9.0, 1.0)], 8.0),
            Some(2)
        );
        // Inside the view disc: the disc wins over nearer axes.
        assert_eq!(pick_nearest([c(1, Normal, 0.0, 4.0), c(2, ViewDisc, 0.0, 5.0)], 8.0), Some(2));
        // Near (but outside) the disc: ordinary rule.
        assert_eq!(pick_nearest([c(1, Normal, 0.0, 4.0), c(2, ViewDisc, 2.0, 5.0)], 8.0), Some(1));
        // Fallback only alone.
        assert_eq!(pick_nearest([c(1, Normal, 3.0, 9.0), c(2, Fallback, 0.0, 1.0)], 8.0), Some(1));
        assert_eq!(pick_nearest([c(1, Normal, 30.0, 9.0), c(2, Fallback, 0.0, 1.0)], 8.0), Some(2));
        assert_eq!(pick_nearest::<u8>([], 8.0), None);
    }
}
