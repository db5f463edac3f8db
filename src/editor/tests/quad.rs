//! The quad view (`docs/spec/views.md`, "Quad view") through the editor's
//! events: drags keep the grabbed point under the cursor in every view,
//! clicks, boxes and the wheel act on the view under the cursor.
//!
//! Expected positions are computed here from each view's camera and
//! rectangle (ray-plane hits, axis images, projected object centres), not
//! read back from the gizmo or the picking code.

use std::cell::Cell;

use nalgebra::{Point2, Point3, UnitQuaternion, Vector3};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::editor::select::NoFrame;
use crate::editor::Editor;
use crate::gizmo::{Axis, Handle, Mode, RING_EDGE_ON_COS};
use crate::input::{Event, Modifiers, MouseButton};
use crate::math::{closest_line_line, project_point_on_line_2d, ray_plane, Camera, DepthMode, Plane, Projection, View};
use crate::scene::Scene;

/// An odd window size, so that the views' halves differ by a pixel.
const W: f64 = 801.0;
const H: f64 = 601.0;
const TOL_PX: f64 = 1e-3;

fn scene_of(objects: &[(&str, [f64; 3])]) -> Scene {
    let list: Vec<String> = objects
        .iter()
        .map(|(name, p)| format!(r#"{{"name": "{name}", "mesh": "cube", "position": [{}, {}, {}]}}"#, p[0], p[1], p[2]))
        .collect();
    let json = format!(r#"{{"objects": [{}]}}"#, list.join(","));
    Scene::from_json(&json, std::path::Path::new(".")).unwrap()
}

fn move_to(e: &mut Editor, p: Point2<f64>) {
    e.handle(&Event::CursorMoved { x: p.x, y: p.y });
}

/// The four rectangles of a W x H window with a 1 px separator, by hand.
fn rects_by_hand() -> [[f64; 4]; 4] {
    let (lw, th) = (((W as u32 - 1) / 2) as f64, ((H as u32 - 1) / 2) as f64);
    let (rw, bh) = (W - lw - 1.0, H - th - 1.0);
    [[0.0, 0.0, lw, th], [lw + 1.0, 0.0, rw, th], [0.0, th + 1.0, lw, bh], [lw + 1.0, th + 1.0, rw, bh]]
}

/// View `k` built here from the editor's camera for it and the rectangle
/// computed by hand.
fn view_by_hand(e: &Editor, k: usize) -> View {
    let [x, y, w, h] = rects_by_hand()[k];
    View::new(e.views()[k].camera, w, h, e.depth).unwrap().at(x, y)
}

fn inside_rect(r: [f64; 4], p: Point2<f64>) -> bool {
    p.x >= r[0] && p.y >= r[1] && p.x < r[0] + r[2] && p.y < r[1] + r[3]
}

fn centre_of(r: [f64; 4]) -> Point2<f64> {
    Point2::new(r[0] + r[2] / 2.0, r[1] + r[3] / 2.0)
}

#[test]
fn entering_gives_the_ortho_views_the_target_and_the_axis_directions() {
    let mut e = Editor::new(scene_of(&[("a", [1.0, 0.0, 0.0]), ("b", [0.0, 2.0, -1.0])]), W, H);
    e.camera.target = Point3::new(0.5, 0.25, -0.5);
    assert_eq!(e.views().len(), 1);
    assert!(e.toggle_quad());
    let views = e.views();
    assert_eq!(views.len(), 4);
    for (k, r) in rects_by_hand().iter().enumerate() {
        assert_eq!(views[k].rect.map(f64::from), *r, "view {k}");
    }
    for (k, look) in [-Vector3::y(), -Vector3::z(), -Vector3::x()].iter().enumerate() {
        let cam = views[k].camera;
        assert_eq!(cam.target, e.camera.target, "view {k}");
        assert!(((cam.target - cam.eye).normalize() - look).norm() < 1e-12, "view {k} looks along {look:?}");
        assert!(matches!(cam.projection, Projection::Orthographic { .. }));
    }
    assert_eq!(views[3].camera, e.camera);
    assert!(e.toggle_quad());
    assert_eq!(e.views().len(), 1);
}

#[test]
fn the_wheel_zooms_only_the_view_under_the_cursor() {
    let mut e = Editor::new(scene_of(&[("a", [0.0, 0.0, 0.0])]), W, H);
    e.toggle_quad();
    for (k, r) in rects_by_hand().iter().enumerate() {
        let before = e.views();
        move_to(&mut e, centre_of(*r));
        assert_eq!(e.active_view(), k);
        assert!(e.handle(&Event::Scroll { delta: 1.0 }));
        let after = e.views();
        for j in 0..4 {
            assert_eq!(after[j].camera != before[j].camera, j == k, "zoom in view {k}: view {j}");
        }
    }
}

/// Four cubes, no two sharing the two coordinates any orthographic view
/// sees, so each view shows each cube's centre unhidden by another.
const SPREAD: [(&str, [f64; 3]); 4] =
    [("a", [3.0, 0.0, 0.0]), ("b", [0.0, 3.0, 0.0]), ("c", [0.0, 0.0, 3.0]), ("d", [-2.0, -2.0, -2.0])];

fn spread_editor() -> Editor {
    let mut e = Editor::new(scene_of(&SPREAD), W, H);
    e.camera.eye = Point3::new(10.0, 8.0, 12.0);
    e.camera.target = Point3::origin();
    e.toggle_quad();
    e
}

fn click(e: &mut Editor, p: Point2<f64>) {
    move_to(e, p);
    e.handle(&Event::MouseDown { button: MouseButton::Left });
    e.handle(&Event::MouseUp { button: MouseButton::Left });
}

#[test]
fn a_click_selects_what_that_view_shows_there() {
    let mut e = spread_editor();
    // View k is clicked on cube k, seen at a place no other view shows it.
    for (k, (name, p)) in SPREAD.iter().enumerate() {
        e.set_selection(&[]);
        let at = view_by_hand(&e, k).world_to_screen(&Point3::from(*p)).unwrap();
        assert!(inside_rect(rects_by_hand()[k], at), "{name} in view {k}");
        for j in (0..4).filter(|&j| j != k) {
            // The same window point is not over this cube in another view.
            let elsewhere = view_by_hand(&e, j).world_to_screen(&Point3::from(*p)).unwrap();
            assert!((elsewhere - at).norm() > 20.0);
        }
        click(&mut e, at);
        assert_eq!(e.selection(), &[e.scene().find(name).unwrap()], "click in view {k}");
    }
}

#[test]
fn a_box_in_an_ortho_view_selects_by_that_views_projection_and_stays_in_it() {
    let mut e = spread_editor();
    let top = view_by_hand(&e, 0);
    let [rx, ry, rw, rh] = rects_by_hand()[0];
    let a = top.world_to_screen(&Point3::from(SPREAD[0].1)).unwrap();
    // From left of cube a to near the window's right edge, through the
    // Front view, and below a: clamped to the Top view, the box holds what the
    // Top view shows right of its start.
    let start = Point2::new(a.x - 15.0, a.y - 15.0);
    let end = Point2::new(W - 5.0, a.y + 15.0);
    assert!(end.y < ry + rh);
    let want: Vec<usize> = SPREAD
        .iter()
        .filter(|(_, p)| {
            let s = top.world_to_screen(&Point3::from(*p)).unwrap();
            s.x > start.x && s.x < rx + rw && s.y > start.y && s.y < end.y
        })
        .map(|(n, _)| e.scene().find(n).unwrap())
        .collect();
    // The Front view shows some cube inside the unclamped box's span.
    let front = view_by_hand(&e, 1);
    let front_only: Vec<usize> = SPREAD
        .iter()
        .filter(|(_, p)| {
            let s = front.world_to_screen(&Point3::from(*p)).unwrap();
            s.x > rx + rw + 1.0 && s.x < end.x && s.y > start.y && s.y < end.y
        })
        .map(|(n, _)| e.scene().find(n).unwrap())
        .filter(|i| !want.contains(i))
        .collect();
    assert!(!want.is_empty());
    assert!(!front_only.is_empty(), "the Front view shows a cube the box spans");
    move_to(&mut e, start);
    e.handle(&Event::MouseDown { button: MouseButton::Left });
    move_to(&mut e, end);
    let r = e.selection_rect().unwrap();
    assert_eq!(f64::from(r[2]), rx + rw, "the box stops at the Top view's edge");
    e.handle_with_frame(&Event::MouseUp { button: MouseButton::Left }, Modifiers::NONE, &mut NoFrame);
    let mut got = e.selection().to_vec();
    got.sort_unstable();
    let mut want = want;
    want.sort_unstable();
    assert_eq!(got, want);
    assert!(front_only.iter().all(|i| !got.contains(i)));
}

// ---- The drag property in each view ----

/// What one random case checked.
#[derive(Clone, Copy, Debug, Default)]
struct Outcome {
    checked: u32,
    /// Checks made with the cursor outside the drag's view.
    outside: u32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Axis,
    Plane,
    Ring,
}

/// A random unit direction, not within 18 degrees of vertical.
fn direction(rng: &mut StdRng) -> Vector3<f64> {
    loop {
        let v: Vector3<f64> =
            Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
        if let Some(u) = v.try_normalize(1e-3) {
            if v.norm() <= 1.0 && u.y.abs() < 0.95 {
                return u;
            }
        }
    }
}

/// A random camera looking at about `at`: perspective or orthographic.
fn random_camera(rng: &mut StdRng, at: Point3<f64>, ortho: bool) -> Camera {
    let target = at + Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0));
    let eye = target + direction(rng) * rng.gen_range(4.0..20.0);
    let projection = if ortho {
        Projection::Orthographic { height: rng.gen_range(4.0..30.0), near: 0.05, far: 1000.0 }
    } else {
        Projection::Perspective { fov_y: rng.gen_range(30.0f64..90.0).to_radians(), near: 0.05, far: 1000.0 }
    };
    Camera { eye, target, up: Vector3::y(), projection }
}

/// An editor in the quad view with one selected cube and a random camera
/// in every view.
fn random_quad(rng: &mut StdRng, depth: DepthMode, mode: Mode) -> (Editor, usize) {
    let at = [rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0), rng.gen_range(-5.0..5.0)];
    let mut e = Editor::new(scene_of(&[("cube", at)]), W, H);
    e.depth = depth;
    e.gizmo.config.mode = mode;
    e.camera = random_camera(rng, Point3::from(at), false);
    e.toggle_quad();
    if let Some(q) = e.quad.as_mut() {
        for cam in &mut q.ortho {
            *cam = random_camera(rng, Point3::from(at), true);
        }
    }
    e.set_selection(&[0]);
    (e, 0)
}

/// The window pixels of view `k` where the gizmo offers `handle`, on a
/// grid about the pivot's image.
fn handle_pixels(e: &Editor, view: &View, rect: [f64; 4], pivot: &Point3<f64>, handle: Handle) -> Vec<Point2<f64>> {
    let Some(c) = view.world_to_screen(pivot) else { return Vec::new() };
    let targets = e.targets();
    let mut out = Vec::new();
    for i in -40..=40 {
        for j in -40..=40 {
            let q = Point2::new(c.x + f64::from(i) * 4.0 + 0.25, c.y + f64::from(j) * 4.0 + 0.25);
            if inside_rect(rect, q) && e.gizmo.pick(view, &targets, q) == Some(handle) {
                out.push(q);
            }
        }
    }
    out
}

/// A cursor path: points near the start, and points anywhere in the window,
/// one at least in each other view.
fn cursor_path(rng: &mut StdRng, m0: Point2<f64>, k: usize) -> Vec<Point2<f64>> {
    let mut path = Vec::new();
    for _ in 0..4 {
        path.push(m0 + nalgebra::Vector2::new(rng.gen_range(-120.0..120.0), rng.gen_range(-120.0..120.0)));
    }
    for (_, r) in rects_by_hand().iter().enumerate().filter(|&(j, _)| j != k) {
        path.push(Point2::new(rng.gen_range(r[0]..r[0] + r[2]), rng.gen_range(r[1]..r[1] + r[3])));
        // Back near the start between views, so the drag goes both ways.
        path.push(m0 + nalgebra::Vector2::new(rng.gen_range(-60.0..60.0), rng.gen_range(-60.0..60.0)));
    }
    path.push(Point2::new(rng.gen_range(0.0..W), rng.gen_range(0.0..H)));
    path
}

/// Whether a drag may put a point at `p` in `view`: in front of the near
/// plane and within the drag's depth limit (the far plane, and at least 4
/// times the start depth `z0`), with a margin for rounding.
fn reachable(view: &View, p: &Point3<f64>, z0: f64) -> bool {
    let z = view.view_depth(p);
    z >= view.near() * (1.0 + 1e-6) && z <= view.far().max(4.0 * z0) * (1.0 - 1e-6)
}

/// The cursor projected onto the image of the line `p + s dir`.
fn foot_on_image(view: &View, p: &Point3<f64>, dir: &Vector3<f64>, m: &Point2<f64>) -> Option<Point2<f64>> {
    let a = view.world_to_screen(p)?;
    let b = view.world_to_screen(&(p + dir * 0.05))?;
    Some(project_point_on_line_2d(&a, &(b - a), m)?.1)
}

/// The point of the line `p + s dir` under screen point `q` (on its image).
fn line_point_under(view: &View, p: &Point3<f64>, dir: &Vector3<f64>, q: &Point2<f64>) -> Option<Point3<f64>> {
    let ray = view.cursor_ray(q)?;
    let ll = closest_line_line(p, dir, &ray.origin, &ray.dir)?;
    (!ll.parallel).then(|| p + dir * ll.s)
}

fn plane_hit(view: &View, plane: &Plane, m: &Point2<f64>) -> Option<Point3<f64>> {
    let ray = view.cursor_ray(m)?;
    Some(ray.at(ray_plane(&ray, plane)?))
}

/// The cube's world position and rotation.
fn pose(e: &Editor, i: usize) -> (Point3<f64>, UnitQuaternion<f64>) {
    let t = &e.scene().objects()[i].transform;
    (Point3::from(t.position), t.rotation)
}

/// Where the grabbed point should be seen after the cursor moved to `m`,
/// and where it is seen, or `None` where the drag may not follow `m` (the
/// test's own geometry finds no reachable point under it).
struct Expect<'a> {
    view: &'a View,
    kind: Kind,
    axis: Vector3<f64>,
    p0: Point3<f64>,
    r0: UnitQuaternion<f64>,
    m0: Point2<f64>,
    z0: f64,
}

impl Expect<'_> {
    fn check(&self, m: &Point2<f64>, (p, r): (Point3<f64>, UnitQuaternion<f64>)) -> Option<(Point2<f64>, Point2<f64>)> {
        let v = self.view;
        match self.kind {
            Kind::Axis => {
                let g0 = line_point_under(v, &self.p0, &self.axis, &foot_on_image(v, &self.p0, &self.axis, &self.m0)?)?;
                let want = foot_on_image(v, &self.p0, &self.axis, m)?;
                let g = line_point_under(v, &self.p0, &self.axis, &want)?;
                if !(reachable(v, &g, self.z0) && reachable(v, &(self.p0 + (g - g0)), self.z0)) {
                    return None;
                }
                Some((v.world_to_screen(&(g0 + (p - self.p0)))?, want))
            }
            Kind::Plane => {
                let plane = Plane::from_point_normal(self.p0, self.axis)?;
                let (h0, h) = (plane_hit(v, &plane, &self.m0)?, plane_hit(v, &plane, m)?);
                let ok = reachable(v, &h, self.z0) && reachable(v, &(self.p0 + (h - h0)), self.z0);
                ok.then(|| v.world_to_screen(&(h0 + (p - self.p0)))).flatten().map(|got| (got, *m))
            }
            Kind::Ring => {
                let plane = Plane::from_point_normal(self.p0, self.axis)?;
                let (h0, h) = (plane_hit(v, &plane, &self.m0)?, plane_hit(v, &plane, m)?);
                let (d0, d) = (h0 - self.p0, h - self.p0);
                if d.norm() < 1e-6 * d0.norm() {
                    return None;
                }
                // The start contact point turned as the cube turned, at the
                // cursor's distance from the pivot.
                let g = self.p0 + (r * self.r0.inverse()) * d0 * (d.norm() / d0.norm());
                v.world_to_screen(&g).map(|got| (got, *m))
            }
        }
    }
}

/// One random drag in view `k`: starts `kind` about `axis` there, moves the
/// cursor through every view and checks the grabbed point after each move.
fn drag_case(seed: u64, k: usize, depth: DepthMode, kind: Kind, a: Axis) -> Outcome {
    let mut out = Outcome::default();
    let mut rng = StdRng::seed_from_u64(seed);
    let mode = if kind == Kind::Ring { Mode::Rotate } else { Mode::Translate };
    let (mut e, i) = random_quad(&mut rng, depth, mode);
    let handle = match kind {
        Kind::Axis => Handle::TranslateAxis(a),
        Kind::Plane => Handle::TranslatePlane(a),
        Kind::Ring => Handle::RotateAxis(a),
    };
    let rect = rects_by_hand()[k];
    let view = e.view_of(k).unwrap();
    let (p0, r0) = pose(&e, i);
    let pixels = handle_pixels(&e, &view, rect, &p0, handle);
    if pixels.is_empty() {
        return out;
    }
    let m0 = pixels[rng.gen_range(0..pixels.len())];
    let axis = Vector3::ith(a.index(), 1.0);
    if kind == Kind::Ring && view.cursor_ray(&m0).unwrap().dir.normalize().dot(&axis).abs() < RING_EDGE_ON_COS * 1.01 {
        // A ring seen edge-on turns by the tangent rule instead.
        return out;
    }
    move_to(&mut e, m0);
    assert_eq!(e.active_view(), k);
    e.handle(&Event::MouseDown { button: MouseButton::Left });
    match e.active_handle() {
        Some(h) => assert_eq!(h, handle, "the drag begins on the handle under the cursor"),
        // The gizmo may refuse a start it cannot follow (a plane seen
        // nearly edge-on): such a case checks nothing and is replaced.
        None => return out,
    }
    let expect = Expect { view: &view, kind, axis, p0, r0, m0, z0: view.view_depth(&p0) };
    for m in cursor_path(&mut rng, m0, k) {
        move_to(&mut e, m);
        assert_eq!(e.active_view(), k, "a drag stays in its view");
        let Some((got, want)) = expect.check(&m, pose(&e, i)) else { continue };
        assert!(
            (got - want).norm() <= TOL_PX,
            "{kind:?} {a:?} in view {k}, {depth:?}: off by {} px at {m:?}",
            (got - want).norm()
        );
        out.checked += 1;
        out.outside += u32::from(!inside_rect(rect, m));
    }
    e.handle(&Event::MouseUp { button: MouseButton::Left });
    out
}

/// Runs `cases` random drags of `kind` (views, axes and depth modes drawn
/// at random); a case that checked nothing is replaced. Some checks must
/// have had the cursor outside the drag's view.
fn drag_property(kind: Kind, cases: u32) {
    let (outside, checked, tried) = (Cell::new(0), Cell::new(0), Cell::new(0));
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let strategy = (any::<u64>(), 0usize..4, any::<bool>(), 0usize..3);
    let result = TestRunner::new(config).run(&strategy, |(seed, k, standard, a)| {
        let depth = if standard { DepthMode::Standard } else { DepthMode::Reversed };
        let o = drag_case(seed, k, depth, kind, [Axis::X, Axis::Y, Axis::Z][a]);
        outside.set(outside.get() + o.outside);
        checked.set(checked.get() + o.checked);
        tried.set(tried.get() + 1);
        prop_assume!(o.checked > 0);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{kind:?}: {e}");
    }
    println!(
        "{kind:?}: {} cases tried, {} checks, {} with the cursor in another view",
        tried.get(),
        checked.get(),
        outside.get()
    );
    assert!(checked.get() >= 4 * cases, "{kind:?}: only {} checks", checked.get());
    assert!(outside.get() > cases, "{kind:?}: only {} checks with the cursor in another view", outside.get());
}

#[test]
fn an_axis_drag_follows_the_cursor_in_every_view() {
    drag_property(Kind::Axis, 64);
}

#[test]
fn a_plane_drag_follows_the_cursor_in_every_view() {
    drag_property(Kind::Plane, 64);
}

#[test]
fn a_ring_drag_follows_the_cursor_in_every_view() {
    drag_property(Kind::Ring, 64);
}

#[test]
fn every_view_is_dragged_in_both_depth_modes() {
    // The random property draws views and modes; here each pair is run
    // until a case checks something, so none is left out by chance.
    for k in 0..4 {
        for depth in [DepthMode::Standard, DepthMode::Reversed] {
            let checked = (0..64u64).any(|seed| drag_case(seed, k, depth, Kind::Plane, Axis::Y).checked > 0);
            assert!(checked, "no plane drag checked in view {k}, {depth:?}");
        }
    }
}
