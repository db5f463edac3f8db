//! Property tests of the pixel-perfect drag contract (`docs/spec/conventions.md`,
//! "What a drag must do") over random cameras (perspective and orthographic,
//! axes 5-15 degrees from the view direction, pivots 1e4 m from the origin),
//! random handles, random cursor paths, in both depth modes.
//!
//! The expected screen positions are recomputed here independently from the
//! resulting transforms (projecting two axis points, 2-D projection onto the
//! image line, ray-plane hits), not read back from the gizmo. So is the gizmo
//! frame the expectations start from: pivot, axes and screen-constant length
//! come from the target, camera and config by the rules of `docs/spec/conventions.md`
//! (and must agree with the gizmo's own).
//!
//! An update the gizmo flags as clamped or as a ring's tangent fallback is
//! not held to the pixel check. Where the test's own geometry confirms the
//! flag (the cursor maps to no point the drag may reach: past the vanishing
//! point, behind the near plane, beyond the depth limit, a scale factor
//! outside its range, a ring seen edge-on at mouse-down) the update is
//! "justified" and gets the checks that still apply; otherwise it is
//! "exempt". Cases that cannot start a drag are discarded. Each test prints
//! these rates and bounds them, so a gizmo that flagged its way out of the
//! contract could not pass.

use crate::scenario::{cursor_path, scenario, Scenario};
use nalgebra::{Matrix3, Point2, Point3, Vector2, Vector3};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::cell::Cell;
use viewport_gizmo::gizmo::{Axis, DragUpdate, Gizmo, GizmoFrame, Handle, Mode, Space, Target};
use viewport_gizmo::math::{
    closest_line_line, project_point_on_line_2d, ray_plane, DepthMode, Plane, Projection, View,
};

const TOL_PX: f64 = 1e-3;

/// Seeds of past failures, replayed before the random cases.
const REGRESSIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/properties/gizmo.proptest-regressions");

/// The gizmo's placement, computed here (not by the gizmo).
#[derive(Clone, Copy, Debug)]
struct Frame {
    pivot: Point3<f64>,
    axes: [Vector3<f64>; 3],
    len: f64,
    /// Unit direction from the eye to the pivot (forward when orthographic).
    view_dir: Vector3<f64>,
}

/// The rotation factor of a 3x3 matrix by SVD (`U V^T`), the orthogonal
/// polar factor, with a reflection folded into a rotation.
fn polar_rotation(m: &Matrix3<f64>) -> Matrix3<f64> {
    let m = if m.determinant() < 0.0 { -m } else { *m };
    let svd = m.svd(true, true);
    let r = svd.u.unwrap() * svd.v_t.unwrap();
    // The polar factor leaves a symmetric stretch: R^T M = (R^T M)^T.
    let stretch = r.transpose() * m;
    assert!((stretch - stretch.transpose()).norm() <= 1e-12 * m.norm(), "polar decomposition of {m}");
    assert!((r.determinant() - 1.0).abs() < 1e-12);
    r
}

/// The frame by `docs/spec/conventions.md`: the pivot is the target's world position;
/// the axes are the world axes in world space and the object's world
/// rotation (parent rotation factor times local rotation) in local space;
/// scale handles always use the object's axes (T * R * S scales along
/// them); `len = size_px * world_per_pixel`, with `world_per_pixel =
/// 2 depth tan(fov_y / 2) / height` (depth along the camera's forward axis)
/// or `height_world / height`.
fn expected_frame(s: &Scenario) -> Frame {
    let t = &s.target;
    let pw = t.parent_world;
    let p = pw * t.local.position.push(1.0);
    let pivot = Point3::new(p.x / p.w, p.y / p.w, p.z / p.w);
    let local = s.config.space == Space::Local || s.config.mode == Mode::Scale;
    let axes = if local {
        let parent = polar_rotation(&pw.fixed_view::<3, 3>(0, 0).into_owned());
        let r = parent * t.local.rotation.to_rotation_matrix().into_inner();
        [r.column(0).into_owned(), r.column(1).into_owned(), r.column(2).into_owned()]
    } else {
        [Vector3::x(), Vector3::y(), Vector3::z()]
    };
    let cam = &s.camera;
    let forward = (cam.target - cam.eye).normalize();
    let height = s.size.1;
    let (world_per_pixel, view_dir) = match cam.projection {
        Projection::Perspective { fov_y, .. } => {
            let depth = (pivot - cam.eye).dot(&forward);
            (2.0 * depth * (fov_y / 2.0).tan() / height, (pivot - cam.eye).normalize())
        }
        Projection::Orthographic { height: h, .. } => (h / height, forward),
    };
    Frame { pivot, axes, len: s.config.size_px * world_per_pixel, view_dir }
}

/// The gizmo's own frame must be the one the conventions give.
fn assert_frame_agrees(want: &Frame, got: &GizmoFrame) {
    let scale = 1.0 + want.pivot.coords.norm();
    assert!((want.pivot - got.pivot).norm() <= 1e-9 * scale, "pivot {:?} vs {:?}", want.pivot, got.pivot);
    // Both take a scaled parent's rotation factor from an SVD.
    for (a, b) in want.axes.iter().zip(&got.axes) {
        assert!((a - b).norm() <= 1e-9, "axis {a:?} vs {b:?}");
    }
    assert!((want.len - got.len).abs() <= 1e-9 * want.len, "length {} vs {}", want.len, got.len);
    assert!((want.view_dir - got.view_dir).norm() <= 1e-9, "view dir {:?} vs {:?}", want.view_dir, got.view_dir);
}

/// The axis a drag follows: the test's own, computed from the conventions
/// (the gizmo's must agree to 1e-9, see `assert_frame_agrees`).
fn drag_axis(want: &Frame, got: &GizmoFrame, a: Axis) -> Vector3<f64> {
    let (w, g) = (want.axes[a.index()], got.axes[a.index()]);
    assert!((w - g).norm() <= 1e-9, "axis {w:?} vs {g:?}");
    w
}

/// What one case did with its updates: held to the cursor (`checked`),
/// flagged by the gizmo and confirmed by the test (`justified`), flagged
/// without the test seeing a reason (`exempt`).
#[derive(Clone, Copy, Default)]
struct Outcome {
    checked: usize,
    justified: usize,
    exempt: usize,
}

/// Per-test tallies over all cases.
#[derive(Default)]
struct Tally {
    cases: Cell<usize>,
    discarded: Cell<usize>,
    checked: Cell<usize>,
    justified: Cell<usize>,
    exempt: Cell<usize>,
}

impl Tally {
    fn add(&self, o: Outcome) {
        let inc = |c: &Cell<usize>, n: usize| c.set(c.get() + n);
        inc(&self.cases, 1);
        inc(&self.discarded, (o.checked == 0) as usize);
        inc(&self.checked, o.checked);
        inc(&self.justified, o.justified);
        inc(&self.exempt, o.exempt);
    }
}

/// Smallest and largest scale factor a drag may produce (the gizmo's
/// documented range: no zero, negative or unbounded scale).
const SCALE_RANGE: (f64, f64) = (viewport_gizmo::gizmo::MIN_SCALE_FACTOR, 1e6);

/// Whether the drag may put a point at world position `p`: in front of the
/// near plane and no deeper than the drag's depth limit (the far plane, and
/// at least 4 times the depth `z0` the thing started at: drag.rs
/// `depth_limit`), with a relative margin for rounding at the boundary.
fn reachable(view: &View, p: &Point3<f64>, z0: f64) -> bool {
    let z = view.view_depth(p);
    let limit = view.far().max(4.0 * z0);
    z >= view.near() * (1.0 + 1e-9) && z <= limit * (1.0 - 1e-9)
}

/// Whether `x` lies inside `(lo, hi)` with a relative margin.
fn inside(x: f64, (lo, hi): (f64, f64)) -> bool {
    x >= lo * (1.0 + 1e-9) && x <= hi * (1.0 - 1e-9)
}

/// Runs `case` on 1000 accepted random inputs (a case that checked nothing
/// is rejected and replaced), then prints and bounds the discard and
/// exemption rates.
fn property<S: Strategy>(
    name: &str,
    strategy: S,
    max_discarded: f64,
    max_exempt: f64,
    case: impl Fn(S::Value) -> Outcome,
) {
    let tally = Tally::default();
    let config = Config {
        cases: 1000,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(REGRESSIONS))),
        ..Config::default()
    };
    let result = TestRunner::new(config).run(&strategy, |v| {
        let o = case(v);
        tally.add(o);
        prop_assume!(o.checked > 0);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    let (cases, discarded) = (tally.cases.get(), tally.discarded.get());
    let (checked, justified, exempt) = (tally.checked.get(), tally.justified.get(), tally.exempt.get());
    let updates = (checked + justified + exempt) as f64;
    let discard_rate = discarded as f64 / cases as f64;
    let (justified_rate, exempt_rate) = (justified as f64 / updates, exempt as f64 / updates);
    println!(
        "{name}: {cases} cases, {discarded} discarded ({:.2} %); updates: {checked} checked, {justified} clamped as the test's geometry confirms ({:.2} %), {exempt} exempt ({:.3} %)",
        discard_rate * 100.0,
        justified_rate * 100.0,
        exempt_rate * 100.0
    );
    assert!(discard_rate <= max_discarded, "{name}: {:.2} % of the cases were discarded", discard_rate * 100.0);
    assert!(exempt_rate <= max_exempt, "{name}: {:.3} % of the updates were exempt", exempt_rate * 100.0);
}

fn axis_of(i: u8) -> Axis {
    Axis::ALL[(i % 3) as usize]
}

/// The world position and rotation of the target after an update.
fn world_after(start: &Target, u: &DragUpdate) -> Target {
    Target::new(u.transforms[0], start.parent_world)
}

/// Cursor projected onto the screen image of the line `p + s dir` (computed
/// from two projected line points).
fn foot_on_image(view: &View, p: &Point3<f64>, dir: &Vector3<f64>, len: f64, m: &Point2<f64>) -> Option<Point2<f64>> {
    let a = view.world_to_screen(p)?;
    let b = view.world_to_screen(&(p + dir * (0.05 * len)))?;
    Some(project_point_on_line_2d(&a, &(b - a), m)?.1)
}

/// The axis point under a screen point on the axis image (the cursor ray
/// through it meets the axis line).
fn axis_point_under(view: &View, p: &Point3<f64>, dir: &Vector3<f64>, q: &Point2<f64>) -> Option<Point3<f64>> {
    let ray = view.cursor_ray(q)?;
    let ll = closest_line_line(p, dir, &ray.origin, &ray.dir)?;
    (!ll.parallel).then(|| p + dir * ll.s)
}

struct Run {
    updates: Vec<(Point2<f64>, DragUpdate)>,
    /// The gizmo's own frame (only compared with the expected one, and used
    /// for the 1e-9 check that a ring turns about the gizmo's axis).
    gizmo_frame: GizmoFrame,
}

/// Starts `handle` at the cursor `m0`, replays `path`, and checks that the
/// gizmo's frame is the expected one.
fn run(s: &Scenario, depth: DepthMode, handle: Handle, m0: Point2<f64>, path: &[Point2<f64>]) -> Option<Run> {
    let view = s.view(depth);
    let mut g = Gizmo::new(s.config);
    let gizmo_frame = g.frame(&view, &[s.target])?;
    assert_frame_agrees(&expected_frame(s), &gizmo_frame);
    if !g.begin_with(&view, &[s.target], handle, m0) {
        return None;
    }
    let updates = path.iter().map(|m| (*m, g.update(&view, *m, false).expect("finite cursor updates"))).collect();
    Some(Run { updates, gizmo_frame })
}

/// The same drag in reversed and standard depth; the two must agree.
fn run_both_modes(s: &Scenario, handle: Handle, m0: Point2<f64>, path: &[Point2<f64>]) -> Option<(Run, Run)> {
    let rev = run(s, DepthMode::Reversed, handle, m0, path)?;
    let std = run(s, DepthMode::Standard, handle, m0, path)?;
    assert_modes_agree(&rev, &std);
    Some((rev, std))
}

fn assert_modes_agree(a: &Run, b: &Run) {
    for ((_, ua), (_, ub)) in a.updates.iter().zip(&b.updates) {
        for (ta, tb) in ua.transforms.iter().zip(&ub.transforms) {
            let scale = 1.0 + ta.position.norm();
            assert!((ta.position - tb.position).norm() <= 1e-9 * scale, "{ta:?} vs {tb:?}");
            assert!(ta.rotation.angle_to(&tb.rotation) <= 1e-9);
            assert!((ta.scale - tb.scale).norm() <= 1e-9 * (1.0 + ta.scale.norm()));
        }
        assert_eq!(ua.clamped, ub.clamped);
    }
}

fn check_finite_in_front(view: &View, start: &Target, u: &DragUpdate) {
    let t = world_after(start, u);
    assert!(t.local.is_finite());
    let z = view.view_depth(&t.world_position());
    assert!(z >= view.near() * (1.0 - 1e-9), "object moved behind the camera: depth {z}");
}

fn scenario_for(seed: u64, mode: Mode, steep: Option<Axis>) -> Option<(Scenario, StdRng)> {
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..20 {
        if let Some(s) = scenario(&mut rng, mode, steep) {
            return Some((s, rng));
        }
    }
    None
}

fn axis_drag_case(seed: u64, axis_i: u8, steep: bool, scale: bool) -> Outcome {
    let mut out = Outcome::default();
    let a = axis_of(axis_i);
    let mode = if scale { Mode::Scale } else { Mode::Translate };
    let Some((s, mut rng)) = scenario_for(seed, mode, steep.then_some(a)) else {
        return out;
    };
    let handle = if scale { Handle::ScaleAxis(a) } else { Handle::TranslateAxis(a) };
    let f = expected_frame(&s);
    let dir = f.axes[a.index()];
    let frac = rng.gen_range(0.25..1.0);
    let off = rng.gen_range(-6.0..6.0);
    // Grab beside the axis image, `frac` of the way along the handle.
    let v0 = s.view(DepthMode::Reversed);
    let grab = || {
        let q = v0.world_to_screen(&(f.pivot + dir * (frac * f.len)))?;
        let p = v0.world_to_screen(&f.pivot)?;
        let n = (q - p).try_normalize(1e-9)?;
        Some(q + Vector2::new(-n.y, n.x) * off)
    };
    let Some(m0) = grab() else {
        return out;
    };
    let path = cursor_path(&mut rng, m0, 6);
    let Some((rev, std)) = run_both_modes(&s, handle, m0, &path) else {
        return out;
    };
    for (depth, r) in [(DepthMode::Reversed, &rev), (DepthMode::Standard, &std)] {
        let view = s.view(depth);
        let dir = drag_axis(&f, &r.gizmo_frame, a);
        let foot0 = foot_on_image(&view, &f.pivot, &dir, f.len, &m0).unwrap();
        let g0 = axis_point_under(&view, &f.pivot, &dir, &foot0).unwrap();
        let z0 = view.view_depth(&f.pivot);
        let s0 = (g0 - f.pivot).dot(&dir);
        for (m, u) in &r.updates {
            check_finite_in_front(&view, &s.target, u);
            if u.clamped {
                // Where the cursor's projection maps to on the axis, by the
                // test's own geometry; the clamp is confirmed if that point
                // (or the object moved there) is out of reach.
                let g = foot_on_image(&view, &f.pivot, &dir, f.len, m)
                    .and_then(|q| axis_point_under(&view, &f.pivot, &dir, &q));
                let ok = g.is_some_and(|g| {
                    reachable(&view, &g, z0)
                        && if scale {
                            inside((g - f.pivot).dot(&dir) / s0, SCALE_RANGE)
                        } else {
                            reachable(&view, &(f.pivot + (g - g0)), z0)
                        }
                });
                if ok {
                    out.exempt += 1;
                } else {
                    out.justified += 1;
                    // A scale whose exact factor leaves the range sits at that end.
                    let want = g.filter(|g| reachable(&view, g, z0)).map(|g| (g - f.pivot).dot(&dir) / s0);
                    if let (true, Some(want)) = (scale, want) {
                        let k = a.index();
                        let fac = u.transforms[0].scale[k] / s.target.local.scale[k];
                        let end = if want < SCALE_RANGE.0 { SCALE_RANGE.0 } else { SCALE_RANGE.1 };
                        assert!(
                            inside(want, SCALE_RANGE) || (fac - end).abs() <= 1e-9 * end,
                            "factor {want} clamped to {fac}"
                        );
                    }
                }
                continue;
            }
            let after = world_after(&s.target, u);
            let g = if scale {
                let k = a.index();
                let fac = u.transforms[0].scale[k] / s.target.local.scale[k];
                f.pivot + (g0 - f.pivot) * fac
            } else {
                g0 + (after.world_position() - s.target.world_position())
            };
            let want = foot_on_image(&view, &f.pivot, &dir, f.len, m).unwrap();
            let got = view.world_to_screen(&g).expect("grabbed point in front");
            assert!((got - want).norm() <= TOL_PX, "{handle:?} off by {} px (m {m:?})", (got - want).norm());
            out.checked += 1;
        }
    }
    out
}

/// Two unit vectors spanning the plane perpendicular to `n`.
fn perpendiculars(n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let helper = if n.x.abs() < 0.6 { Vector3::x() } else { Vector3::y() };
    let x = n.cross(&helper).normalize();
    (x, n.cross(&x).normalize())
}

fn plane_drag_case(seed: u64, axis_i: u8, view_plane: bool) -> Outcome {
    let mut out = Outcome::default();
    let a = axis_of(axis_i);
    let Some((s, mut rng)) = scenario_for(seed, Mode::Translate, None) else {
        return out;
    };
    let handle = if view_plane { Handle::TranslateView } else { Handle::TranslatePlane(a) };
    let f = expected_frame(&s);
    let (fx, fy) = (rng.gen_range(-0.9..0.9), rng.gen_range(-0.9..0.9));
    let v0 = s.view(DepthMode::Reversed);
    // Input selection only: skip plane handles the gizmo hides (edge-on).
    if !view_plane && GizmoFrame::new(&v0, &[s.target], &s.config).unwrap().visibility(handle) <= 0.0 {
        return out;
    }
    let p = if view_plane {
        let (x, y) = perpendiculars(&f.view_dir);
        f.pivot + (x * fx + y * fy) * (0.1 * f.len)
    } else {
        let (i, j) = a.plane_axes();
        let (u, v) = (f.axes[i.index()], f.axes[j.index()]);
        f.pivot + (u + v) * (0.3 * f.len) + (u * fx + v * fy) * (0.1 * f.len)
    };
    let Some(m0) = v0.world_to_screen(&p) else {
        return out;
    };
    let path = cursor_path(&mut rng, m0, 6);
    let Some((rev, std)) = run_both_modes(&s, handle, m0, &path) else {
        return out;
    };
    for (depth, r) in [(DepthMode::Reversed, &rev), (DepthMode::Standard, &std)] {
        let view = s.view(depth);
        let normal = if view_plane { f.view_dir } else { drag_axis(&f, &r.gizmo_frame, a) };
        let plane = Plane::from_point_normal(f.pivot, normal).unwrap();
        let r0 = view.cursor_ray(&m0).unwrap();
        let h0 = r0.at(ray_plane(&r0, &plane).unwrap());
        let z0 = view.view_depth(&f.pivot);
        for (m, u) in &r.updates {
            check_finite_in_front(&view, &s.target, u);
            if u.clamped {
                // Confirmed if the cursor ray misses the plane, or the hit
                // (or the object moved with it) is out of reach.
                let ray = view.cursor_ray(m).unwrap();
                let ok = ray_plane(&ray, &plane)
                    .map(|t| ray.at(t))
                    .is_some_and(|h| reachable(&view, &h, z0) && reachable(&view, &(f.pivot + (h - h0)), z0));
                if ok {
                    out.exempt += 1;
                } else {
                    out.justified += 1;
                }
                continue;
            }
            let g = h0 + (world_after(&s.target, u).world_position() - s.target.world_position());
            let got = view.world_to_screen(&g).unwrap();
            assert!((got - m).norm() <= TOL_PX, "{handle:?} off by {} px", (got - m).norm());
            out.checked += 1;
        }
    }
    out
}

fn ring_drag_case(seed: u64, axis_i: u8, steep: bool) -> Outcome {
    let mut out = Outcome::default();
    let a = axis_of(axis_i);
    let Some((s, mut rng)) = scenario_for(seed, Mode::Rotate, steep.then_some(a)) else {
        return out;
    };
    let handle = Handle::RotateAxis(a);
    let f = expected_frame(&s);
    let theta = rng.gen_range(0.0..std::f64::consts::TAU);
    let (e1, e2) = perpendiculars(&f.axes[a.index()]);
    let v0 = s.view(DepthMode::Reversed);
    let Some(m0) = v0.world_to_screen(&(f.pivot + (e1 * theta.cos() + e2 * theta.sin()) * f.len)) else {
        return out;
    };
    let path = cursor_path(&mut rng, m0, 6);
    let Some((rev, std)) = run_both_modes(&s, handle, m0, &path) else {
        return out;
    };
    let q_start = s.target.world_rotation();
    for (depth, r) in [(DepthMode::Reversed, &rev), (DepthMode::Standard, &std)] {
        let view = s.view(depth);
        let axis = drag_axis(&f, &r.gizmo_frame, a);
        let plane = Plane::from_point_normal(f.pivot, axis).unwrap();
        let r0 = view.cursor_ray(&m0).unwrap();
        let h0 = r0.at(ray_plane(&r0, &plane).unwrap());
        // A ring is edge-on when its axis is within RING_EDGE_ON_COS of
        // perpendicular to the cursor ray at mouse-down.
        let cos0 = r0.dir.normalize().dot(&axis).abs();
        let edge_on = cos0 < viewport_gizmo::gizmo::RING_EDGE_ON_COS * (1.0 + 1e-9);
        for (m, u) in &r.updates {
            check_finite_in_front(&view, &s.target, u);
            if u.clamped || u.tangent_fallback {
                // Confirmed: a fallback on an edge-on ring, or a clamp where
                // the cursor ray misses the ring's plane or hits its centre.
                let ray = view.cursor_ray(m).unwrap();
                let misses = ray_plane(&ray, &plane).is_none_or(|t| (ray.at(t) - f.pivot).norm() <= 1e-6 * f.len);
                let confirmed = if u.tangent_fallback { edge_on } else { misses };
                if confirmed {
                    out.justified += 1;
                } else {
                    out.exempt += 1;
                }
                continue;
            }
            let ray = view.cursor_ray(m).unwrap();
            let h = ray.at(ray_plane(&ray, &plane).expect("unclamped ring drag hits the plane"));
            let q = world_after(&s.target, u).world_rotation() * q_start.inverse();
            let g = f.pivot + (q * (h0 - f.pivot)) * ((h - f.pivot).norm() / (h0 - f.pivot).norm());
            let got = view.world_to_screen(&g).unwrap();
            assert!((got - m).norm() <= TOL_PX, "ring off by {} px", (got - m).norm());
            // The rotation is about the ring's axis: exactly the gizmo's, and
            // the expected one to the gizmo's rotation-factor accuracy.
            let off = |axis: &Vector3<f64>| q.axis().map_or(0.0, |x| x.into_inner().cross(axis).norm());
            assert!(off(&r.gizmo_frame.axes[a.index()]) < 1e-9);
            assert!(off(&f.axes[a.index()]) < 1e-5);
            out.checked += 1;
        }
    }
    out
}

// Bounds on the discard and exemption rates (each test prints its own). With
// the gizmo as it is: 0-6 % of the cases discarded, and no exempt update
// (every clamp and fallback the gizmo flags is confirmed by the geometry).
const MAX_DISCARDED: f64 = 0.15;
const MAX_EXEMPT: f64 = 0.005;

#[test]
fn translate_axis_follows_cursor_projection() {
    let strategy = (any::<u64>(), 0u8..3, any::<bool>());
    property("translate axis", strategy, MAX_DISCARDED, MAX_EXEMPT, |(seed, axis, steep)| {
        axis_drag_case(seed, axis, steep, false)
    });
}

#[test]
fn scale_axis_follows_cursor_projection() {
    let strategy = (any::<u64>(), 0u8..3, any::<bool>());
    property("scale axis", strategy, MAX_DISCARDED, MAX_EXEMPT, |(seed, axis, steep)| {
        axis_drag_case(seed, axis, steep, true)
    });
}

#[test]
fn translate_plane_follows_cursor() {
    property("translate plane", (any::<u64>(), 0u8..3), MAX_DISCARDED, MAX_EXEMPT, |(seed, axis)| {
        plane_drag_case(seed, axis, false)
    });
}

#[test]
fn translate_view_plane_follows_cursor() {
    property("translate view plane", any::<u64>(), MAX_DISCARDED, MAX_EXEMPT, |seed| plane_drag_case(seed, 0, true));
}

#[test]
fn rotate_ring_follows_cursor() {
    let strategy = (any::<u64>(), 0u8..3, any::<bool>());
    property("rotate ring", strategy, MAX_DISCARDED, MAX_EXEMPT, |(seed, axis, steep)| {
        ring_drag_case(seed, axis, steep)
    });
}
