//! Shadows (`docs/spec/lights.md`, "Shadows") measured in the picture, at
//! 1280x720 with the default settings, through the binary on both culling
//! paths: the spec's three cases (a cube over a plane, a plane lit at 70
//! degrees, a cube standing on a plane). What a plane pixel receives of
//! the light is worked out from three pictures of the same view: with
//! shadows (`a`), without (`b`) and without the sun (`c`), all linear
//! (no tone mapping): `(a - c) / (b - c)`. Which pixels lie inside or
//! outside a shadow comes from the test's own geometry: each pixel's ray
//! meets the plane y = 0, the cube's shadow there is its base moved along
//! the light, and the distance in pixels to its outline is measured on
//! the screen.

use serde_json::{json, Value};

use crate::support::replay::screenshot;
use crate::support::textured::to_linear;

const W: u32 = 1280;
const H: u32 = 720;

type V3 = [f64; 3];

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn unit(a: V3) -> V3 {
    let n = dot(a, a).sqrt();
    [a[0] / n, a[1] / n, a[2] / n]
}

/// A perspective camera of 50 degrees looking at the origin from `eye`
/// (+Y up), as the scene file's camera block gives it.
struct Cam {
    eye: V3,
    f: V3,
    r: V3,
    u: V3,
    t: f64,
}

impl Cam {
    fn new(eye: V3) -> Cam {
        let f = unit(sub([0.0; 3], eye));
        let r = unit(cross(f, [0.0, 1.0, 0.0]));
        let u = cross(r, f);
        Cam { eye, f, r, u, t: (25f64).to_radians().tan() }
    }

    /// Pixel centre (x, y)'s ray direction.
    fn ray(&self, x: u32, y: u32) -> V3 {
        let a = f64::from(W) / f64::from(H);
        let sx = (2.0 * (f64::from(x) + 0.5) / f64::from(W) - 1.0) * self.t * a;
        let sy = (1.0 - 2.0 * (f64::from(y) + 0.5) / f64::from(H)) * self.t;
        unit([0, 1, 2].map(|i| self.f[i] + self.r[i] * sx + self.u[i] * sy))
    }

    /// Where world point `p` is on the screen, in pixels.
    fn project(&self, p: V3) -> [f64; 2] {
        let d = sub(p, self.eye);
        let z = dot(d, self.f);
        let a = f64::from(W) / f64::from(H);
        let sx = dot(d, self.r) / z / (self.t * a);
        let sy = dot(d, self.u) / z / self.t;
        [(sx + 1.0) / 2.0 * f64::from(W), (1.0 - sy) / 2.0 * f64::from(H)]
    }

    /// Where pixel (x, y)'s ray meets the plane y = 0, if ahead.
    fn on_ground(&self, x: u32, y: u32) -> Option<V3> {
        let d = self.ray(x, y);
        let t = -self.eye[1] / d[1];
        (t > 0.0).then(|| [0, 1, 2].map(|i| self.eye[i] + d[i] * t))
    }

    fn eye_json(&self) -> Value {
        json!(self.eye)
    }
}

/// Whether the ray from `o` along `d` hits the axis-aligned box.
fn hits_box(o: V3, d: V3, lo: V3, hi: V3) -> bool {
    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
    for i in 0..3 {
        let (a, b) = ((lo[i] - o[i]) / d[i], (hi[i] - o[i]) / d[i]);
        t0 = t0.max(a.min(b));
        t1 = t1.min(a.max(b));
    }
    t0 <= t1
}

/// Screen distance from `p` to the segment `a`-`b`.
fn to_segment(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let ab = [b[0] - a[0], b[1] - a[1]];
    let t = (((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1]) / (ab[0] * ab[0] + ab[1] * ab[1])).clamp(0.0, 1.0);
    ((p[0] - a[0] - t * ab[0]).powi(2) + (p[1] - a[1] - t * ab[1]).powi(2)).sqrt()
}

/// The pictures with shadows, without and without the sun, as linear red.
fn pictures(scene: &Value, sun: V3) -> [Vec<f64>; 3] {
    let lighting = |shadows: bool, sun_on: bool| {
        let mut l = json!({ "environment": "uniform", "environment_color": [0.05, 0.05, 0.05],
            "tone_mapping": "linear", "grid": false, "shadows": shadows,
            "sun": { "direction": sun, "illuminance": 2.0 } });
        if !sun_on {
            l["sun"] = Value::Null;
        }
        l
    };
    let shot = |l: Value| {
        let image = screenshot(scene, &json!({ "size": [W, H], "lighting": l, "events": [] }), &["--culling", "cpu"]);
        (0..H).flat_map(|y| (0..W).map(move |x| (x, y))).map(|(x, y)| to_linear(image.pixel(x, y)[0])).collect()
    };
    [shot(lighting(true, true)), shot(lighting(false, true)), shot(lighting(false, false))]
}

/// The scene: a 20 m x 20 m ground and a 1 m cube whose lowest face is at
/// `bottom`, seen from `cam`.
fn scene(cam: &Cam, bottom: f64) -> Value {
    json!({
        "camera": { "eye": cam.eye_json(), "target": [0, 0, 0], "fov_y_deg": 50 },
        "objects": [
            { "name": "ground", "mesh": "plane", "scale": [20, 1, 20], "color": [0.8, 0.8, 0.8] },
            { "name": "box", "mesh": "cube", "position": [0, bottom + 0.5, 0], "color": [0.8, 0.5, 0.3] }
        ]
    })
}

#[test]
fn a_cube_over_a_plane_shadows_its_outline_and_nothing_else() {
    // Light straight down: the shadow is the cube's base on the plane.
    let e = 35f64.to_radians();
    let cam = Cam::new([0.0, 12.0 * e.sin(), 12.0 * e.cos()]);
    let [a, b, c] = pictures(&scene(&cam, 1.0), [0.0, -1.0, 0.0]);
    let corners = [[-0.5, 0.0, -0.5], [0.5, 0.0, -0.5], [0.5, 0.0, 0.5], [-0.5, 0.0, 0.5]].map(|p| cam.project(p));
    let (mut inside, mut outside, mut bad) = (0, 0, Vec::new());
    for y in 0..H {
        for x in 0..W {
            let Some(p) = cam.on_ground(x, y) else { continue };
            // Plane pixels only: not the cube, not past the plane's edge.
            if p[0].abs() > 9.5
                || p[2].abs() > 9.5
                || hits_box(cam.eye, cam.ray(x, y), [-0.5, 1.0, -0.5], [0.5, 2.0, 0.5])
            {
                continue;
            }
            let px = [f64::from(x) + 0.5, f64::from(y) + 0.5];
            let edge = (0..4).map(|k| to_segment(px, corners[k], corners[(k + 1) % 4])).fold(f64::INFINITY, f64::min);
            if edge <= 3.0 {
                continue;
            }
            let k = (y * W + x) as usize;
            let direct = b[k] - c[k];
            assert!(direct > 0.2, "the sun lights the plane: {direct} at ({x}, {y})");
            let received = (a[k] - c[k]) / direct;
            if p[0].abs() < 0.5 && p[2].abs() < 0.5 {
                inside += 1;
                if received > 0.10 {
                    bad.push(format!("inside ({x}, {y}) {p:.3?}: {received:.3} of the light"));
                }
            } else {
                outside += 1;
                if (a[k] - b[k]).abs() > 0.02 * b[k] + 0.5 / 255.0 {
                    bad.push(format!("outside ({x}, {y}): {} against {}", a[k], b[k]));
                }
            }
        }
    }
    assert!(inside > 1000 && outside > 100_000, "{inside} inside, {outside} outside");
    assert!(bad.is_empty(), "{} bad of {}:\n{}", bad.len(), inside + outside, bad[..bad.len().min(20)].join("\n"));
    // The GPU culling path draws the same shadows (its model-view is
    // formed in f32 on the GPU: a few edge pixels may differ).
    let l = json!({ "environment": "uniform", "environment_color": [0.05, 0.05, 0.05], "tone_mapping": "linear",
        "grid": false, "sun": { "direction": [0, -1, 0], "illuminance": 2.0 } });
    let gpu =
        screenshot(&scene(&cam, 1.0), &json!({ "size": [W, H], "lighting": l, "events": [] }), &["--culling", "gpu"]);
    let differ = (0..H)
        .flat_map(|y| (0..W).map(move |x| (x, y)))
        .filter(|&(x, y)| (to_linear(gpu.pixel(x, y)[0]) - a[(y * W + x) as usize]).abs() > 0.02)
        .count();
    assert!(differ < 200, "{differ} pixels differ between the culling paths");
}

#[test]
fn a_plane_lit_at_70_degrees_shows_no_acne() {
    let e = 35f64.to_radians();
    let cam = Cam::new([0.0, 12.0 * e.sin(), 12.0 * e.cos()]);
    let plane = json!({
        "camera": { "eye": cam.eye_json(), "target": [0, 0, 0], "fov_y_deg": 50 },
        "objects": [{ "name": "ground", "mesh": "plane", "scale": [20, 1, 20], "color": [0.8, 0.8, 0.8] }]
    });
    let t = 70f64.to_radians();
    let [a, b, _] = pictures(&plane, [t.sin() * 0.6, -t.cos(), t.sin() * 0.8]);
    let (mut total, mut off) = (0, 0);
    for y in 0..H {
        for x in 0..W {
            let Some(p) = cam.on_ground(x, y) else { continue };
            if p[0].abs() > 9.5 || p[2].abs() > 9.5 {
                continue;
            }
            let k = (y * W + x) as usize;
            total += 1;
            if (a[k] - b[k]).abs() > 0.02 * b[k] + 0.5 / 255.0 {
                off += 1;
            }
        }
    }
    assert!(total > 200_000, "{total}");
    assert!(off as f64 <= 0.005 * total as f64, "{off} of {total} plane pixels differ by more than 2 %");
}

#[test]
fn a_cube_standing_on_a_plane_has_its_shadow_at_its_foot() {
    // Light from the upper left back: the shadow falls to +x and +z of
    // the cube, towards the camera. Plane pixels next to the base edges on that side (1 to 3
    // px away on the screen, within the shadow's extent) get at most half
    // the light: no lit gap between the cube and its shadow.
    let e = 35f64.to_radians();
    let cam = Cam::new([4.0, 12.0 * e.sin(), 12.0 * e.cos()]);
    let sun = unit([0.6, -1.0, 0.5]);
    let [a, b, c] = pictures(&scene(&cam, 0.0), sun);
    // The base edges the shadow leaves from: x = 0.5 (z in [-0.5, 0.5])
    // and z = 0.5 (x in [-0.5, 0.5]).
    let edges = [([0.5, 0.0, -0.5], [0.5, 0.0, 0.5]), ([-0.5, 0.0, 0.5], [0.5, 0.0, 0.5])];
    let (mut checked, mut bad) = (0, Vec::new());
    for y in 0..H {
        for x in 0..W {
            let Some(p) = cam.on_ground(x, y) else { continue };
            let ray = cam.ray(x, y);
            if hits_box(cam.eye, ray, [-0.5, 0.0, -0.5], [0.5, 1.0, 0.5]) {
                continue;
            }
            // In the shadow: the point seen back along the light hits the cube.
            let back = sun.map(|s| -s);
            if !hits_box(p, back, [-0.5, 0.0, -0.5], [0.5, 1.0, 0.5]) {
                continue;
            }
            let px = [f64::from(x) + 0.5, f64::from(y) + 0.5];
            let near = edges
                .iter()
                .map(|(e0, e1)| to_segment(px, cam.project(*e0), cam.project(*e1)))
                .fold(f64::INFINITY, f64::min);
            if !(1.0..=3.0).contains(&near) {
                continue;
            }
            let k = (y * W + x) as usize;
            checked += 1;
            let received = (a[k] - c[k]) / (b[k] - c[k]);
            if received > 0.5 {
                bad.push(format!("({x}, {y}) {p:.3?}: {received:.3} of the light"));
            }
        }
    }
    assert!(checked > 100, "{checked} pixels at the foot");
    assert!(bad.is_empty(), "{} lit of {checked}:\n{}", bad.len(), bad[..bad.len().min(20)].join("\n"));
}

/// `cast_shadows: false` (the scene file's field, the side panel's box):
/// the cube casts nothing; the box sets it for the selection, one undo
/// step, and the file keeps it.
#[test]
fn an_object_that_casts_no_shadow_leaves_the_plane_lit_and_the_panel_sets_it() {
    use crate::support::replay::run_ui;
    let e = 35f64.to_radians();
    let cam = Cam::new([0.0, 12.0 * e.sin(), 12.0 * e.cos()]);
    let mut s = scene(&cam, 1.0);
    s["objects"][1]["cast_shadows"] = json!(false);
    let [a, b, c] = pictures(&s, [0.0, -1.0, 0.0]);
    let mut checked = 0;
    for (x, y) in [(640, 360), (630, 365), (650, 355)] {
        let p = cam.on_ground(x, y).unwrap();
        if p[0].abs() < 0.4 && p[2].abs() < 0.4 && !hits_box(cam.eye, cam.ray(x, y), [-0.5, 1.0, -0.5], [0.5, 2.0, 0.5])
        {
            let k = (y * W + x) as usize;
            let received = (a[k] - c[k]) / (b[k] - c[k]);
            assert!(received > 0.95, "({x}, {y}) under the cube: {received}");
            checked += 1;
        }
    }
    assert!(checked > 0, "a pixel of the would-be shadow is seen");
    // The panel's box, on the selected cube; then undone.
    let plain = scene(&cam, 1.0);
    let first = run_ui(
        &plain,
        &json!({ "size": [1280, 720], "select": ["box"], "ui": { "panel": true },
        "events": [{ "mouse_move": [5, 300] }] }),
    );
    let at = first.trace[0]["ui"]["rects"]["cast_shadows"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", first.trace[0]["ui"]["rects"]))
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect::<Vec<_>>();
    let click = [(at[0] + at[2]) / 2.0, (at[1] + at[3]) / 2.0];
    let events = json!([{ "mouse_move": click }, { "mouse_down": "left" }, { "mouse_up": "left" }]);
    let off =
        run_ui(&plain, &json!({ "size": [1280, 720], "select": ["box"], "ui": { "panel": true }, "events": events }));
    assert_eq!(crate::support::replay::object(&off.scene, "box")["cast_shadows"], json!(false), "{}", off.saved);
    let mut undone = events.as_array().unwrap().clone();
    undone.push(json!({ "mouse_move": [640, 600] }));
    undone.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    let back =
        run_ui(&plain, &json!({ "size": [1280, 720], "select": ["box"], "ui": { "panel": true }, "events": undone }));
    assert_eq!(crate::support::replay::object(&back.scene, "box").get("cast_shadows"), None, "{}", back.saved);
}
