//! Unit tests of `handles/mod.rs`, kept in their own file so the module stays short.

use super::ring::{ring_hit_conic, ring_hit_with, ring_image, two_best_minima, RING_SAMPLES};
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
fn ring_distance_matches_dense_sampling() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let v = view();
    let mut checked = 0;
    for _ in 0..2000 {
        let n = Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
        let Some(normal) = crate::math::geom::unit(n) else { continue };
        let center = Point3::new(rng.gen_range(-3.0..3.0), rng.gen_range(-2.0..2.0), rng.gen_range(-5.0..5.0));
        let circle = Circle { center, normal, radius: rng.gen_range(0.5..4.0) };
        let cursor = Point2::new(rng.gen_range(0.0..200.0), rng.gen_range(0.0..100.0));
        let ray = v.cursor_ray(&cursor).unwrap();
        let Some(h) = shape_hit(&v, &cursor, &ray, &PickShape::Ring(circle)) else { continue };
        let mut brute = f64::INFINITY;
        for k in 0..4000 {
            let p = circle.point(k as f64 / 4000.0 * std::f64::consts::TAU);
            if v.view_depth(&p) > v.near() {
                if let Some(s) = v.world_to_screen(&p) {
                    brute = brute.min((s - cursor).norm());
                }
            }
        }
        assert!(h.screen_dist <= brute + 1e-6, "{} vs brute {brute}", h.screen_dist);
        assert!(h.screen_dist >= brute - 0.05, "{} vs brute {brute}", h.screen_dist);
        checked += 1;
    }
    assert!(checked > 1500, "{checked}");
}

/// The fast ring search (annulus and Lipschitz rejection, Newton
/// refinement) against the previous sampling + Illinois search, on rings
/// placed like gizmo rings (screen-constant radius) under perspective and
/// orthographic views, near edge-on, and 1e4 m from the origin.
#[test]
fn fast_ring_search_matches_the_reference_search() {
    use crate::math::{Camera, DepthMode, Projection};
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(29);
    const TOL: f64 = 1e-6;
    let (mut compared, mut edge_on, mut closed_form, mut hits, mut misses, mut slow_missed) = (0, 0, 0, 0, 0, 0);
    for case in 0..6000 {
        let far_away = case % 3 == 0;
        let origin = if far_away {
            Vector3::new(rng.gen_range(-1e4..1e4), rng.gen_range(-1e4..1e4), rng.gen_range(-1e4..1e4))
        } else {
            Vector3::zeros()
        };
        let pivot = Point3::from(origin + Vector3::new(rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0), 0.0));
        let dist = rng.gen_range(0.5..60.0);
        let back = crate::math::geom::unit(Vector3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        ));
        let Some(back) = back else { continue };
        let eye = Point3::from(origin) + back.into_inner() * dist;
        let projection = if case % 4 == 1 {
            Projection::Orthographic { height: rng.gen_range(1.0..30.0), near: 0.05, far: 500.0 }
        } else {
            Projection::Perspective { fov_y: rng.gen_range(20f64..100.0).to_radians(), near: 0.05, far: 1000.0 }
        };
        let cam = Camera { eye, target: Point3::from(origin), up: Vector3::y(), projection };
        let Ok(v) = View::new(cam, 1280.0, 720.0, DepthMode::Reversed) else { continue };
        let Some(wpp) = v.world_per_pixel(&pivot) else { continue };
        let mut n = Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
        if case % 2 == 0 {
            // Nearly edge-on: the normal almost perpendicular to the line of sight.
            let f = crate::math::geom::unit(pivot - v.eye()).map_or(v.forward().into_inner(), |u| u.into_inner());
            n -= f * n.dot(&f);
            n += f * (n.norm() * 10f64.powf(rng.gen_range(-9.0..-0.5)) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 });
            edge_on += 1;
        }
        let Some(normal) = crate::math::geom::unit(n) else { continue };
        let circle = Circle { center: pivot, normal, radius: wpp * rng.gen_range(10.0..150.0) };
        // Mostly cursors near the ring's image, some anywhere.
        let cursor = if rng.gen_bool(0.8) {
            let Some(s) = v.world_to_screen(&circle.point(rng.gen_range(0.0..std::f64::consts::TAU))) else {
                continue;
            };
            let r = rng.gen_range(0.0..20f64).powi(2) / 20.0;
            let a: f64 = rng.gen_range(0.0..std::f64::consts::TAU);
            s + Vector2::new(a.cos(), a.sin()) * r
        } else {
            Point2::new(rng.gen_range(0.0..1280.0), rng.gen_range(0.0..720.0))
        };
        let reference = ring_hit_reference(&v, &cursor, &circle, f64::INFINITY);
        let search = ring_hit_with(&v, &cursor, &circle, f64::INFINITY, false);
        let fast = ring_hit(&v, &cursor, &circle, f64::INFINITY);
        let within = ring_hit(&v, &cursor, &circle, 8.0);
        let (basis, img, hw) = ring_image(&v, &cursor, &circle);
        closed_form += ring_hit_conic(&v, &circle, basis, &img, hw, f64::INFINITY).is_some() as usize;
        let Some(f) = fast else {
            assert!(reference.is_none() && search.is_none() && within.is_none(), "case {case}");
            continue;
        };
        assert!(f.screen_dist.is_finite() && f.view_depth.is_finite(), "{f:?}");
        // Never worse than either search; where it is better (a search
        // refined the wrong valley), dense sampling confirms it.
        for (name, slow) in [("reference", reference), ("search", search)] {
            let s = slow.unwrap_or_else(|| panic!("case {case}: {name} found nothing, fast {f:?}"));
            assert!(
                f.screen_dist <= s.screen_dist + TOL,
                "case {case}: fast {} vs {name} {} px",
                f.screen_dist,
                s.screen_dist
            );
            if f.screen_dist < s.screen_dist - TOL {
                let n = 100_000;
                let brute = (0..n)
                    .filter_map(|k| v.world_to_screen(&circle.point(k as f64 / n as f64 * std::f64::consts::TAU)))
                    .map(|s| (s - cursor).norm())
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    f.screen_dist <= brute + TOL && f.screen_dist >= brute - 1e-4,
                    "case {case}: fast {} vs dense sampling {brute} px",
                    f.screen_dist
                );
                slow_missed += 1;
            } else {
                // The same ring point: the same depth.
                assert!(
                    (f.view_depth - s.view_depth).abs() <= 1e-6 * (1.0 + s.view_depth.abs()),
                    "case {case}: depth {} vs {name} {}",
                    f.view_depth,
                    s.view_depth
                );
            }
        }
        // The hit/miss decision at hit_px = 8 away from the threshold.
        let d = f.screen_dist;
        if d < 8.0 - TOL {
            assert_eq!(within, Some(f), "case {case}: a hit at {d} px dropped");
            hits += 1;
        } else if d > 8.0 + TOL {
            assert_eq!(within, None, "case {case}: a miss at {d} px kept");
            misses += 1;
        }
        compared += 1;
    }
    eprintln!(
        "{compared} compared ({edge_on} near edge-on, {closed_form} closed form): {hits} hits, {misses} misses; \
         a search missed the nearest valley {slow_missed} times"
    );
    assert!(
        compared > 5000 && edge_on > 2500 && closed_form > 2500 && compared - closed_form > 1500,
        "{compared} {edge_on} {closed_form}"
    );
    assert!(hits > 1500 && misses > 1500, "{hits} {misses}");
}

#[test]
fn early_outs_never_drop_a_shape_within_reach() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let v = view();
    let mut v3 = || Vector3::new(rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0));
    let mut near_hits = 0;
    for _ in 0..3000 {
        let (c, a, b, n) = (Point3::from(v3() * 2.0), v3(), v3(), v3());
        let Some(normal) = crate::math::geom::unit(n) else { continue };
        let shapes = [
            PickShape::Quad { center: c, a, b },
            PickShape::Ring(Circle { center: c, normal, radius: a.norm() }),
            PickShape::Disc(Circle { center: c, normal, radius: a.norm() }),
        ];
        let Some(s0) = v.world_to_screen(&c) else { continue };
        let cursor = s0 + Vector2::new(v3().x * 15.0, v3().y * 15.0);
        let ray = v.cursor_ray(&cursor).unwrap();
        for sh in &shapes {
            let full = shape_hit(&v, &cursor, &ray, sh);
            let fast = shape_hit_within(&v, &cursor, &ray, sh, 8.0);
            match (full, fast) {
                (Some(f), None) => assert!(f.screen_dist > 8.0, "{sh:?}: dropped a hit at {} px", f.screen_dist),
                (f, g) => assert_eq!(f, g),
            }
            near_hits += full.is_some_and(|f| f.screen_dist <= 8.0) as usize;
        }
    }
    assert!(near_hits > 500, "{near_hits}");
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
    assert_eq!(pick_nearest([c(1, Normal, 1.0, 5.0), c(2, Normal, 6.0, 4.0), c(3, Normal, 9.0, 1.0)], 8.0), Some(2));
    // Inside the view disc: the disc wins over nearer axes.
    assert_eq!(pick_nearest([c(1, Normal, 0.0, 4.0), c(2, ViewDisc, 0.0, 5.0)], 8.0), Some(2));
    // Near (but outside) the disc: ordinary rule.
    assert_eq!(pick_nearest([c(1, Normal, 0.0, 4.0), c(2, ViewDisc, 2.0, 5.0)], 8.0), Some(1));
    // Fallback only alone.
    assert_eq!(pick_nearest([c(1, Normal, 3.0, 9.0), c(2, Fallback, 0.0, 1.0)], 8.0), Some(1));
    assert_eq!(pick_nearest([c(1, Normal, 30.0, 9.0), c(2, Fallback, 0.0, 1.0)], 8.0), Some(2));
    assert_eq!(pick_nearest::<u8>([], 8.0), None);
}

/// The previous ring search (sampling plus an Illinois search on the
/// derivative), kept as the reference the fast path is tested against.
fn ring_hit_reference(view: &View, cursor: &Point2<f64>, circle: &Circle, max_px: f64) -> Option<ShapeHit> {
    let (e1, e2) = circle.basis();
    let c = view.world_to_hscreen(&circle.center);
    let dir = |v: Vector3<f64>| view.vector_to_hscreen(&(v * circle.radius));
    let (u, v) = (dir(e1), dir(e2));
    let wmin = min_w(view).max(0.0);
    // Conservative bound on the screen radius when the whole ring is in front.
    let w_lo = c.z - u.z.hypot(v.z);
    if w_lo > wmin && c.z > 0.0 {
        let cs = Vector2::new(c.x / c.z, c.y / c.z);
        let a = Vector2::new(u.x * c.z - c.x * u.z, u.y * c.z - c.y * u.z);
        let b = Vector2::new(v.x * c.z - c.x * v.z, v.y * c.z - c.y * v.z);
        let r_max = (a.norm_squared() + b.norm_squared()).sqrt() / (c.z * w_lo);
        if (cursor.coords - cs).norm() - r_max > max_px {
            return None;
        }
    }
    // f(t) = |P(t) - m|^2 and f'(t), from cos t, sin t.
    let eval = |ct: f64, st: f64| -> Option<(f64, f64)> {
        let h = c + u * ct + v * st;
        if !(h.z > wmin) {
            return None;
        }
        let dh = v * ct - u * st;
        let (px, py) = (h.x / h.z, h.y / h.z);
        let (dx, dy) = (px - cursor.x, py - cursor.y);
        let dpx = (dh.x - px * dh.z) / h.z;
        let dpy = (dh.y - py * dh.z) / h.z;
        Some((dx * dx + dy * dy, 2.0 * (dx * dpx + dy * dpy)))
    };
    let step = std::f64::consts::TAU / RING_SAMPLES as f64;
    let (cd, sd) = (step.cos(), step.sin());
    let mut cs = [(1.0f64, 0.0f64); RING_SAMPLES];
    for k in 1..RING_SAMPLES {
        let (pc, ps) = cs[k - 1];
        cs[k] = (pc * cd - ps * sd, ps * cd + pc * sd);
    }
    let mut vals = [None; RING_SAMPLES];
    for k in 0..RING_SAMPLES {
        vals[k] = eval(cs[k].0, cs[k].1);
    }
    let minima = two_best_minima(|k| vals[k].map_or(f64::INFINITY, |(f, _)| f));
    let (k0, mut f_best) = minima[0]?;
    let mut theta = k0 as f64 * step;
    for (k, _) in minima.into_iter().flatten() {
        let centre = k as f64 * step;
        let km = (k + RING_SAMPLES - 1) % RING_SAMPLES;
        let kp = (k + 1) % RING_SAMPLES;
        let (Some((_, ga)), Some((_, gb)), Some((_, g0))) = (vals[km], vals[kp], vals[k]) else { continue };
        // The half-bracket where f' changes sign.
        let (mut a, mut fa, mut b, mut fb) =
            if g0 > 0.0 { (centre - step, ga, centre, g0) } else { (centre, g0, centre + step, gb) };
        if !(fa <= 0.0 && fb >= 0.0) {
            continue;
        }
        // Illinois false position on f'.
        let mut side = 0;
        for _ in 0..40 {
            let t = if fb != fa { (a * fb - b * fa) / (fb - fa) } else { 0.5 * (a + b) };
            let t = if t > a && t < b { t } else { 0.5 * (a + b) };
            let (st, ct) = t.sin_cos();
            let Some((f, g)) = eval(ct, st) else { break };
            if f < f_best {
                f_best = f;
                theta = t;
            }
            if g.abs() < 1e-12 * (1.0 + f) || b - a < 1e-12 {
                break;
            }
            if g > 0.0 {
                b = t;
                fb = g;
                if side == 1 {
                    fa *= 0.5;
                }
                side = 1;
            } else {
                a = t;
                fa = g;
                if side == -1 {
                    fb *= 0.5;
                }
                side = -1;
            }
        }
    }
    let p = circle.center + (e1 * theta.cos() + e2 * theta.sin()) * circle.radius;
    Some(ShapeHit { screen_dist: f_best.max(0.0).sqrt(), view_depth: view.view_depth(&p) })
}
