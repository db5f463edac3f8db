//! The ground grid far from the origin: the same view shifted by a whole
//! number of the grid's periods draws the same picture, and the coloured
//! axis lines stay at world x = 0 and z = 0. Orthographic front, back and
//! side views draw the grid in the vertical plane facing them. Each frame
//! is also written to `target/tmp/grid/` for a person to look at.

use crate::support::gpu::*;
use crate::support::textured::to_srgb;
use nalgebra::{Point3, Vector3};
use std::path::Path;
use viewport::math::{Camera, DepthMode, Projection};
use viewport::render::{FrameDesc, RgbaImage};
use viewport::scene::Scene;

const W: u32 = 320;
const H: u32 = 200;

/// A grey unit cube on the ground at `at`.
fn cube_at(at: Point3<f64>) -> Scene {
    let json = format!(
        r#"{{ "objects": [ {{ "name": "c", "mesh": "cube", "position": [{}, {}, {}], "color": [0.6, 0.6, 0.6] }} ] }}"#,
        at.x, at.y, at.z
    );
    Scene::from_json(&json, Path::new(".")).unwrap()
}

fn perspective(eye: Point3<f64>, target: Point3<f64>) -> Camera {
    Camera {
        eye,
        target,
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: 200.0 },
    }
}

fn save(img: &RgbaImage, name: &str) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("grid");
    std::fs::create_dir_all(&dir).unwrap();
    viewport::files::save_png(&dir.join(format!("{name}.png")), img.width, img.height, &img.data).unwrap();
}

/// The largest difference of a colour channel at each pixel.
fn differences(a: &RgbaImage, b: &RgbaImage) -> Vec<u8> {
    a.data.chunks(4).zip(b.data.chunks(4)).map(|(p, q)| (0..3).map(|c| p[c].abs_diff(q[c])).max().unwrap()).collect()
}

/// A pixel of an axis line: red (the X axis) or blue (the Z axis) clearly
/// stronger than the other channels (by 20 levels: a pixel half covered by
/// the red line over the background is about (159, 118, 120)); the grid's
/// lines are grey, the cube is grey and the background nearly so (its blue
/// exceeds its red by 11).
fn axis_colour(p: [u8; 4]) -> Option<char> {
    let [r, g, b, _] = p.map(i32::from);
    if r > g + 20 && r > b + 20 {
        Some('x')
    } else if b > r + 20 && b > g + 20 {
        Some('z')
    } else {
        None
    }
}

fn axis_pixels(img: &RgbaImage) -> usize {
    (0..img.height)
        .flat_map(|y| (0..img.width).map(move |x| (x, y)))
        .filter(|&(x, y)| axis_colour(img.pixel(x, y)).is_some())
        .count()
}

/// Pixels clearly brighter than the background: grid lines (and the cube).
fn bright_pixels(img: &RgbaImage) -> usize {
    let bg = to_srgb(f64::from(FrameDesc::BACKGROUND[0]));
    img.data.chunks(4).filter(|p| p[0] > bg + 20).count()
}

/// Renders the cube at `cube` seen from `eye` towards `target`, and again
/// with all three shifted by `shift`, and checks that the two frames agree.
/// `shift` is a whole number of the grid's periods (10 cells of 1 m at
/// these heights; any multiple of 10 m), so the lines fall on the same
/// pixels; the eye and target are given to f64 precision in both frames.
fn same_far_away(
    name: &str,
    depth: DepthMode,
    eye: Point3<f64>,
    target: Point3<f64>,
    cube: Point3<f64>,
    shift: Vector3<f64>,
) -> (RgbaImage, RgbaImage) {
    let mut r = renderer(W, H);
    let near = render(&mut r, &cube_at(cube), perspective(eye, target), depth, true);
    let far = render(&mut r, &cube_at(cube + shift), perspective(eye + shift, target + shift), depth, true);
    assert_no_validation_errors(&r);
    save(&near, &format!("{name}-{depth:?}-near"));
    save(&far, &format!("{name}-{depth:?}-far"));

    // The near frame shows the grid: thousands of line pixels.
    let bright = bright_pixels(&near);
    assert!(bright > 3000, "{name} {depth:?}: only {bright} bright pixels near the origin");
    let d = differences(&near, &far);
    let worst = *d.iter().max().unwrap();
    let off = d.iter().filter(|&&v| v > 4).count();
    // At most 0.1% of the pixels may differ by more than 4 levels of 255
    // (an edge pixel whose coverage rounds the other way).
    assert!(
        off * 1000 <= d.len(),
        "{name} {depth:?}: {off} of {} pixels differ by more than 4 levels (worst {worst}) after a shift of {:?}",
        d.len(),
        shift.as_slice()
    );
    (near, far)
}

/// 100 m from both axes (beyond the grid's fade, 66 m at 3 m up), shifted by
/// (1e6, 0, 1e6): the same lines, and no axis line in either frame,
/// although x = 1e6 + 100 and z = 1e6 + 100 lie on major lines in view.
#[test]
fn the_grid_far_from_the_origin_matches_the_grid_near_it() {
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let (near, far) = same_far_away(
            "offset",
            depth,
            Point3::new(100.3, 3.0, 104.2),
            Point3::new(100.2, 0.0, 99.6),
            Point3::new(101.5, 0.5, 99.0),
            Vector3::new(1e6, 0.0, 1e6),
        );
        for (which, img) in [("near", &near), ("far", &far)] {
            assert_eq!(
                axis_pixels(img),
                0,
                "{depth:?}: an axis line drawn in the {which} frame, away from x = 0 and z = 0"
            );
        }
    }
}

/// Looking at the X axis (z = 0) from 100 m along it, and 1e6 m further
/// along: the red line lies on z = 0 in both frames (its points project
/// onto red pixels), and the frames agree.
#[test]
fn the_x_axis_stays_on_z_0_far_from_the_origin() {
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let eye = Point3::new(100.3, 3.0, 4.2);
        let target = Point3::new(100.2, 0.0, -0.4);
        let shift = Vector3::new(1e6, 0.0, 0.0);
        let (near, far) = same_far_away("x-axis", depth, eye, target, Point3::new(102.0, 0.5, -2.0), shift);
        for (which, img, dx) in [("near", &near, 0.0), ("far", &far, shift.x)] {
            let camera = perspective(eye + Vector3::new(dx, 0.0, 0.0), target + Vector3::new(dx, 0.0, 0.0));
            let mut seen = 0;
            for i in 0..=40 {
                let p = Point3::new(dx + 96.0 + 0.2 * f64::from(i), 0.0, 0.0);
                let (x, y) = project(&camera, depth, W, H, p);
                if x < 0.0 || y < 0.0 || x >= f64::from(W) || y >= f64::from(H) {
                    continue;
                }
                seen += 1;
                let got = img.pixel(x as u32, y as u32);
                assert_eq!(axis_colour(got), Some('x'), "{depth:?} {which}: {p} on the X axis shows {got:?}");
            }
            assert!(seen > 20, "{depth:?} {which}: only {seen} points of the axis in view");
            // The Z axis (x = 0) is 100 m away, beyond the fade: no blue.
            let blue = (0..H)
                .flat_map(|y| (0..W).map(move |x| (x, y)))
                .filter(|&(x, y)| axis_colour(img.pixel(x, y)) == Some('z'))
                .count();
            assert_eq!(blue, 0, "{depth:?} {which}: a Z axis line where x is not 0");
        }
    }
}

/// An orthographic camera `distance` m from the origin along `back` (the
/// view looks along -`back`), its view centred on `centre`, showing 8 m of
/// height: 25 pixels per metre at 320 x 200.
fn side_view(back: Vector3<f64>, centre: Point3<f64>, distance: f64) -> Camera {
    // The eye on the line through `centre` along `back`, `distance` from
    // the plane through the origin perpendicular to `back`.
    let eye = centre + back * (distance - centre.coords.dot(&back));
    Camera {
        eye,
        target: eye - back,
        up: Vector3::y(),
        projection: Projection::Orthographic { height: 8.0, near: 0.05, far: 1000.0 },
    }
}

/// The front, back, right and left orthographic views (looking along -z,
/// +z, -x, +x) draw the grid in the plane through the origin that faces
/// them, as the ground grid is drawn: 1 m cells (minor lines brighten the
/// background, cell centres leave it alone), the horizontal axis in the
/// plane (X: red, Z: blue) on y = 0 and the Y axis in green. Also 1e6 m to
/// the side in that plane, the lines stay on whole metres, and from 500 m
/// away they look as from 10 m (an orthographic view has no distance).
#[test]
fn orthographic_side_views_draw_the_grid_in_the_plane_facing_them() {
    let bg = FrameDesc::BACKGROUND.map(|c| to_srgb(f64::from(c)));
    // A minor line at least half covers its pixel: 0.35 x 0.5 of grey 0.45.
    let line = to_srgb(f64::from(FrameDesc::BACKGROUND[0]) + 0.175 * (0.45 - 0.035));
    let empty = Scene::from_json(r#"{ "objects": [] }"#, Path::new(".")).unwrap();
    let mut r = renderer(W, H);
    // (name, towards the eye, the plane's horizontal axis, its colour index).
    let views = [
        ("front", Vector3::z(), Vector3::x(), 0),
        ("back", -Vector3::z(), Vector3::x(), 0),
        ("right", Vector3::x(), Vector3::z(), 2),
        ("left", -Vector3::x(), Vector3::z(), 2),
    ];
    for (name, back, across, axis) in views {
        for (shift, distance) in [(0.0, 10.0), (0.0, 500.0), (1e6, 10.0)] {
            // Centred 0.3 m beside the vertical axis (shifted by 1e6 m
            // along the plane), 1.2 m up.
            let centre = Point3::from(across * (shift + 0.3) + Vector3::new(0.0, 1.2, 0.0));
            let camera = side_view(back, centre, distance);
            let depth = DepthMode::Reversed;
            let img = render(&mut r, &empty, camera, depth, true);
            save(&img, &format!("side-{name}-{shift}-{distance}"));
            let pixel = |a: f64, y: f64| {
                let p = Point3::from(across * a + Vector3::new(0.0, y, 0.0));
                let (sx, sy) = project(&camera, depth, W, H, p);
                assert!(sx >= 0.0 && sy >= 0.0 && sx < f64::from(W) && sy < f64::from(H), "{p} is off the image");
                img.pixel(sx as u32, sy as u32)
            };
            let at = format!("{name} view, shift {shift}, {distance} m away");
            for k in -5..=5 {
                for m in -2..=4 {
                    let (a, y) = (shift + f64::from(k), f64::from(m));
                    // A cell's centre: half a metre (12 px) from every line.
                    let got = pixel(a + 0.5, y + 0.5);
                    assert_eq!(&got[..3], &bg[..], "{at}: the centre of cell ({a}, {y}) shows {got:?}");
                    // A vertical line, away from the Y axis, and a horizontal
                    // one, away from y = 0: grey, brighter than the background.
                    for (what, got, skip) in
                        [("vertical", pixel(a, y + 0.5), a == 0.0), ("horizontal", pixel(a + 0.5, y), m == 0)]
                    {
                        if !skip {
                            // Grey over the background, whose blue exceeds its red by 10.
                            let grey = got[..3].iter().max().unwrap() - got[..3].iter().min().unwrap() <= 10;
                            assert!(
                                got[0] >= line - 1 && grey,
                                "{at}: the {what} line through ({a}, {y}) shows {got:?}, want grey of at least {line}"
                            );
                        }
                    }
                }
                // y = 0: the horizontal world axis in its colour.
                let got = pixel(shift + f64::from(k) + 0.5, 0.0).map(i32::from);
                let others = (0..3).filter(|&c| c != axis).map(|c| got[c]).max().unwrap();
                assert!(got[axis] > others + 20, "{at}: y = 0 at {} shows {got:?}, want channel {axis}", k);
            }
            // The vertical axis (the world's Y) in green, only where the
            // coordinate across is truly 0.
            for m in -2..=4 {
                let got = pixel(shift, f64::from(m) + 0.5).map(i32::from);
                let green = got[1] > got[0] + 20 && got[1] > got[2] + 20;
                assert_eq!(green, shift == 0.0, "{at}: the line through ({shift}, {m}.5) shows {got:?}");
            }
        }
    }
    assert_no_validation_errors(&r);
}

/// In a front view the grid facing it lies behind every object, not in
/// the plane through the origin: a cube behind that plane and one in front
/// of it look the same with the grid as without it, though grid lines
/// (a major line, the Y axis) cross both, and the background around them
/// still shows the lines. Both depth modes.
#[test]
fn a_side_view_grid_shows_on_the_background_only() {
    let scene = Scene::from_json(
        r#"{ "objects": [
            { "name": "behind", "mesh": "cube", "position": [0, 1, -3], "color": [0.8, 0.5, 0.2] },
            { "name": "front", "mesh": "cube", "position": [2, 1, 3], "color": [0.2, 0.5, 0.8] } ] }"#,
        Path::new("."),
    )
    .unwrap();
    let camera = side_view(Vector3::z(), Point3::new(1.0, 1.2, 0.0), 10.0);
    let mut r = renderer(W, H);
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        let with = render(&mut r, &scene, camera, depth, true);
        let without = render(&mut r, &scene, camera, depth, false);
        save(&with, &format!("side-objects-{depth:?}"));
        // The middle 16 x 16 pixels of each cube's 25-pixel square, where
        // the lines x = 0 / x = 2 and y = 1 cross it.
        for centre in [Point3::new(0.0, 1.0, -3.0), Point3::new(2.0, 1.0, 3.0)] {
            let (cx, cy) = project(&camera, depth, W, H, centre);
            for y in cy as u32 - 8..cy as u32 + 8 {
                for x in cx as u32 - 8..cx as u32 + 8 {
                    assert_eq!(
                        with.pixel(x, y),
                        without.pixel(x, y),
                        "{depth:?}: the grid shows over the cube at {centre} (pixel {x}, {y})"
                    );
                }
            }
        }
        // Beside the cubes the lines are there: the vertical line x = 1.
        let (lx, ly) = project(&camera, depth, W, H, Point3::new(1.0, 2.5, 0.0));
        assert_ne!(with.pixel(lx as u32, ly as u32), without.pixel(lx as u32, ly as u32), "{depth:?}: no grid line");
    }
    assert_no_validation_errors(&r);
}

/// The centres of the runs of pixels along `line` that differ from
/// `background` by more than 8 levels in some channel.
fn line_centres(pixels: &[[u8; 4]], background: [u8; 4]) -> Vec<f64> {
    let mut centres = Vec::new();
    let mut run: Option<usize> = None;
    for (i, p) in pixels.iter().chain(std::iter::once(&background)).enumerate() {
        let on = (0..3).any(|c| p[c].abs_diff(background[c]) > 8);
        match (on, run) {
            (true, None) => run = Some(i),
            (false, Some(start)) => {
                centres.push((start + i - 1) as f64 / 2.0);
                run = None;
            }
            _ => {}
        }
    }
    centres
}

/// The grid at every zoom (`docs/spec/views.md`): top views 10 m, 600 m and
/// 50 km high each show grid lines 10 to 100 px apart around the centre,
/// across and down the picture, in both depth modes. The view is centred
/// away from the axes, so only grid lines are found.
#[test]
fn top_views_at_any_height_show_lines_10_to_100_px_apart() {
    let (w, h) = (400, 300);
    let mut r = renderer(w, h);
    let empty = Scene::default();
    for depth in [DepthMode::Reversed, DepthMode::Standard] {
        for height in [10.0, 600.0, 50_000.0] {
            let centre = Point3::new(0.37 * height, 0.0, 0.29 * height);
            let camera = Camera {
                eye: centre + Vector3::new(0.0, 50.0, 0.0),
                target: centre,
                up: -Vector3::z(),
                projection: Projection::Orthographic { height, near: 0.05, far: 1000.0 },
            };
            let img = render(&mut r, &empty, camera, depth, true);
            save(&img, &format!("grid-top-{height}-{depth:?}"));
            let background = img.pixel(0, 0);
            // The middle 200 px of the middle row and of the middle column.
            let row: Vec<[u8; 4]> = (w / 2 - 100..w / 2 + 100).map(|x| img.pixel(x, h / 2)).collect();
            let column: Vec<[u8; 4]> = (h / 2 - 100..h / 2 + 100).map(|y| img.pixel(w / 2, y)).collect();
            for (which, pixels) in [("row", row), ("column", column)] {
                let centres = line_centres(&pixels, background);
                assert!(centres.len() >= 2, "{height} m {depth:?} {which}: lines at {centres:?}");
                let gaps: Vec<f64> = centres.windows(2).map(|p| p[1] - p[0]).collect();
                for g in &gaps {
                    assert!((9.0..=101.0).contains(g), "{height} m {depth:?} {which}: lines {gaps:?} px apart");
                }
            }
        }
    }
    assert_no_validation_errors(&r);
}
