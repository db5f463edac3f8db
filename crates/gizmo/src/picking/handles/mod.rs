//! Hit tests for gizmo handle shapes, measured in screen pixels.
//!
//! A shape is hovered when the cursor is within `hit_px` of its projection
//! on screen (or inside a filled shape). Each test also reports the view
//! depth of the shape point under (or nearest to) the cursor so that the
//! nearest handle along the cursor ray can win; see [`pick_nearest`].

#![allow(clippy::neg_cmp_op_on_partial_ord)]

use nalgebra::{Point2, Point3, Vector2, Vector3};

use crate::math::closest::{point_segment_2d, ray_plane};
use crate::math::{Circle, Plane, Ray, Segment, View};
use ring::ring_hit;

/// An analytic pick shape in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PickShape {
    /// An axis handle: the segment itself.
    Segment(Segment),
    /// A filled parallelogram `center + x a + y b`, `x, y` in [-1, 1].
    Quad {
        /// Centre of the parallelogram.
        center: Point3<f64>,
        /// Half-edge along the first side.
        a: Vector3<f64>,
        /// Half-edge along the second side.
        b: Vector3<f64>,
    },
    /// A filled disc (view-plane / uniform-scale handle).
    Disc(Circle),
    /// A circle outline (rotate rings).
    Ring(Circle),
    /// A filled sphere (free-rotate trackball): hit only inside.
    Sphere {
        /// Centre.
        center: Point3<f64>,
        /// Radius.
        radius: f64,
    },
}

/// How close the cursor is to a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHit {
    /// Screen distance in pixels from the cursor to the projected shape (0 inside).
    pub screen_dist: f64,
    /// View depth of the shape point under / nearest the cursor.
    pub view_depth: f64,
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
    let h0 = view.clip_to_hscreen(&c0);
    let h1 = view.clip_to_hscreen(&c1);
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

/// A filled parallelogram, in screen space when all its corners are in
/// front of the camera (inside test and edge distances in 2-D), otherwise
/// through the ray-plane hit and clipped edges.
fn quad_hit(
    view: &View,
    cursor: &Point2<f64>,
    ray: &Ray,
    center: &Point3<f64>,
    a: &Vector3<f64>,
    b: &Vector3<f64>,
    max_px: f64,
) -> Option<ShapeHit> {
    let corners = [center - a - b, center + a - b, center + a + b, center - a + b];
    // Clip coordinates are linear: three products give all four corners.
    let cc = view.world_to_clip(center);
    let ca = view.view_proj() * a.to_homogeneous();
    let cb = view.view_proj() * b.to_homogeneous();
    let clip = [cc - ca - cb, cc + ca - cb, cc + ca + cb, cc - ca + cb];
    // Early out: a bound on the screen distance of any corner from the centre.
    let (hc, ha, hb) = (view.clip_to_hscreen(&cc), view.clip_to_hscreen(&ca), view.clip_to_hscreen(&cb));
    let w_lo = hc.z - ha.z.abs() - hb.z.abs();
    if w_lo > 0.0 && hc.z > 0.0 && max_px.is_finite() {
        let cs = Vector2::new(hc.x / hc.z, hc.y / hc.z);
        let ea = Vector2::new(ha.x * hc.z - hc.x * ha.z, ha.y * hc.z - hc.y * ha.z);
        let eb = Vector2::new(hb.x * hc.z - hc.x * hb.z, hb.y * hc.z - hc.y * hb.z);
        let bound = (ea.norm() + eb.norm()) / (hc.z * w_lo);
        if (cursor.coords - cs).norm() - bound > max_px {
            return None;
        }
    }
    let plane_depth = || {
        let plane = Plane::from_point_normal(*center, a.cross(b))?;
        let t = ray_plane(ray, &plane)?;
        Some(view.view_depth(&ray.at(t)))
    };
    let wmin = min_w(view);
    if clip.iter().all(|c| c.w > wmin && c.w > 0.0) {
        let h = clip.map(|c| view.clip_to_hscreen(&c));
        let s = h.map(|h| Point2::new(h.x / h.z, h.y / h.z));
        // Inside a convex quad: all edge cross products of one sign.
        let side = |i: usize| {
            let (p, q) = (s[i], s[(i + 1) % 4]);
            (q - p).perp(&(cursor - p))
        };
        let sides = [side(0), side(1), side(2), side(3)];
        if sides.iter().all(|&x| x >= 0.0) || sides.iter().all(|&x| x <= 0.0) {
            return plane_depth().map(|d| ShapeHit { screen_dist: 0.0, view_depth: d });
        }
        let mut best: Option<(f64, usize, f64)> = None;
        for i in 0..4 {
            let (d, u) = point_segment_2d(&s[i], &s[(i + 1) % 4], cursor);
            if best.is_none_or(|(bd, _, _)| d < bd) {
                best = Some((d, i, u));
            }
        }
        let (dist, i, u2) = best?;
        let (w0, w1) = (h[i].z, h[(i + 1) % 4].z);
        let u3 = (u2 / w1) / ((1.0 - u2) / w0 + u2 / w1);
        let p = corners[i] + (corners[(i + 1) % 4] - corners[i]) * u3;
        return Some(ShapeHit { screen_dist: dist, view_depth: view.view_depth(&p) });
    }
    if let Some(d) = plane_depth() {
        let plane = Plane::from_point_normal(*center, a.cross(b))?;
        let t = ray_plane(ray, &plane)?;
        let off = ray.at(t) - center;
        let (aa, bb, ab) = (a.norm_squared(), b.norm_squared(), a.dot(b));
        let det = aa * bb - ab * ab;
        if det > 0.0 {
            let (da, db) = (off.dot(a), off.dot(b));
            let (x, y) = ((da * bb - db * ab) / det, (db * aa - da * ab) / det);
            if x.abs() <= 1.0 && y.abs() <= 1.0 {
                return Some(ShapeHit { screen_dist: 0.0, view_depth: d });
            }
        }
    }
    (0..4)
        .filter_map(|i| segment_hit(view, cursor, &Segment::new(corners[i], corners[(i + 1) % 4])))
        .min_by(|x, y| x.screen_dist.total_cmp(&y.screen_dist))
}

/// Hit test of one shape. `None` when the shape is entirely behind the
/// camera, degenerate, or (for a sphere) not under the cursor.
pub fn shape_hit(view: &View, cursor: &Point2<f64>, ray: &Ray, shape: &PickShape) -> Option<ShapeHit> {
    shape_hit_within(view, cursor, ray, shape, f64::INFINITY)
}

/// Like [`shape_hit`], but may return `None` early for shapes that are
/// surely farther than `max_px` from the cursor.
pub fn shape_hit_within(
    view: &View,
    cursor: &Point2<f64>,
    ray: &Ray,
    shape: &PickShape,
    max_px: f64,
) -> Option<ShapeHit> {
    match shape {
        PickShape::Segment(seg) => segment_hit(view, cursor, seg),
        PickShape::Ring(circle) => ring_hit(view, cursor, circle, max_px),
        PickShape::Disc(circle) => {
            let plane = Plane::from_point_normal(circle.center, circle.normal.into_inner())?;
            if let Some(t) = ray_plane(ray, &plane) {
                let p = ray.at(t);
                if (p - circle.center).norm() <= circle.radius {
                    return Some(ShapeHit { screen_dist: 0.0, view_depth: view.view_depth(&p) });
                }
            }
            ring_hit(view, cursor, circle, max_px)
        }
        PickShape::Quad { center, a, b } => quad_hit(view, cursor, ray, center, a, b, max_px),
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
    /// The handle (any identifier the caller uses).
    pub handle: H,
    /// How it competes with the others.
    pub class: PickClass,
    /// How close the cursor is to its shape.
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

mod ring;

#[cfg(test)]
mod tests;
