//! Editing in a real window (Xvfb) with real X input from xdotool: click an
//! object to select it, drag its translate-X handle, save with Ctrl+S; the
//! saved scene shows the move the drag implies, and a screenshot of the
//! screen shows the gizmo.

use crate::support::image::read_png;
use crate::support::xvfb::{wait_for, WindowApp, Xvfb};
use std::time::Duration;

#[test]
fn click_select_drag_axis_and_save() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene.json");
    // Orthographic front camera: 10 m over 400 px, 1 px = 0.025 m, origin at the centre.
    std::fs::write(
        &scene,
        r#"{ "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 10 },
             "objects": [ { "name": "box", "mesh": "cube", "position": [-1, 1, 0], "color": [0.8, 0.5, 0.2] } ] }"#,
    )
    .unwrap();
    let mut app = WindowApp::start(&x, dir.path(), &scene, "400x400");
    let wid = app.wid.clone();
    let geometry = x.run("xdotool", &["getwindowgeometry", &wid]);
    assert!(geometry.contains("400x400"), "{geometry}");
    let title = |x: &Xvfb| x.run("xdotool", &["getwindowname", &wid]);
    assert!(title(&x).contains("| scene.json |"), "opened unchanged: {}", title(&x));

    let to_screen = |wx: f64, wy: f64| (200.0 + wx / 0.025, 200.0 - wy / 0.025);
    let mv = |p: (f64, f64)| app.move_to(&x, p);
    // Click the box (a corner away from where the gizmo will appear).
    mv(to_screen(-1.3, 0.7));
    x.run("xdotool", &["click", "1"]);
    std::thread::sleep(Duration::from_millis(300));

    // The gizmo sits at the box's centre (-1, 1); its X shaft runs 100 px right.
    let grab = to_screen(-1.0 + 50.0 * 0.025, 1.0);
    mv(grab);
    x.run("xdotool", &["mousedown", "1"]);
    std::thread::sleep(Duration::from_millis(150));
    for step in 1..=4 {
        // 60 px right in total, wandering 20 px off the axis.
        mv((grab.0 + 15.0 * step as f64, grab.1 + 5.0 * step as f64));
    }
    x.run("xdotool", &["mouseup", "1"]);
    std::thread::sleep(Duration::from_millis(300));

    let shot = dir.path().join("screen.png");
    x.run("import", &["-window", "root", shot.to_str().unwrap()]);

    // F12 writes the presented frame into the working directory.
    x.run("xdotool", &["key", "F12"]);
    app.wait_for_output("the F12 screenshot", "wrote");
    let captured = read_png(&dir.path().join("viewport-screenshot-1.png"));
    assert_eq!((captured.width, captured.height), (400, 400));

    // The move is not saved yet: the title stars the file, and the first
    // Ctrl+Q only warns (the program keeps running).
    wait_for("the starred title", || title(&x).contains("| scene.json* |").then_some(()));
    x.run("xdotool", &["key", "ctrl+q"]);
    app.wait_for_output("the unsaved-changes warning", "unsaved changes to");
    std::thread::sleep(Duration::from_millis(300));
    assert!(app.child.try_wait().unwrap().is_none(), "quit with unsaved changes: {}", app.stderr());

    x.run("xdotool", &["key", "ctrl+s"]);
    app.wait_for_output("the save", "saved");
    wait_for("the title without a star", || title(&x).contains("| scene.json |").then_some(()));
    app.quit_cleanly(&x);

    let saved = viewport::scene::Scene::load(&scene).unwrap();
    let p = saved.objects()[0].transform.position;
    // 60 px along X is 1.5 m; the off-axis wander does not count.
    assert!((p.x - 0.5).abs() < 1e-6 && (p.y - 1.0).abs() < 1e-9 && p.z.abs() < 1e-9, "saved position {p:?}");

    // Both screenshots (the X screen, and the window's own F12 capture) show
    // the gizmo: the green Y shaft above the box's new centre.
    let (cx, cy) = to_screen(0.5, 1.0);
    for (what, img) in [("X screen", read_png(&shot)), ("F12 capture", captured)] {
        let greenish = (10..90)
            .filter(|d| {
                let px = img.pixel(cx as u32, (cy - *d as f64) as u32);
                px[1] > 150 && px[1] > px[0] + 40 && px[1] > px[2] + 40
            })
            .count();
        assert!(greenish > 40, "{what}: the Y handle should show above the pivot ({greenish} green pixels)");
        // The selected box is tinted but keeps its hue (orange: red > green > blue).
        let b = img.pixel(to_screen(0.2, 0.7).0 as u32, to_screen(0.2, 0.7).1 as u32);
        assert!(b[0] > b[1] && b[1] > b[2], "{what}: box pixel {b:?}");
    }
}

/// Box selection in a real window: a left drag from empty space over one of
/// two objects draws the rectangle while dragging, and on release selects
/// that object only, which the F12 capture shows by the active outline (a
/// light-yellow ring) around it and none around the other.
#[test]
fn box_select_in_the_window_outlines_what_the_box_covered() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("scene.json");
    std::fs::write(
        &scene,
        r#"{ "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 10 },
             "objects": [ { "name": "left", "mesh": "cube", "position": [-2, 0, 0], "color": [0.2, 0.3, 0.9] },
                          { "name": "right", "mesh": "cube", "position": [2, 0, 0], "color": [0.2, 0.8, 0.3] } ] }"#,
    )
    .unwrap();
    let app = WindowApp::start(&x, dir.path(), &scene, "400x400");
    let to_screen = |wx: f64, wy: f64| (200.0 + wx / 0.025, 200.0 - wy / 0.025);
    let mv = |p: (f64, f64)| app.move_to(&x, p);
    // From empty space above-left of the left cube to below-right of it,
    // well short of the right cube.
    mv(to_screen(-3.5, 1.5));
    x.run("xdotool", &["mousedown", "1"]);
    std::thread::sleep(Duration::from_millis(150));
    for step in 1..=4 {
        let t = step as f64 / 4.0;
        mv(to_screen(-3.5 + 3.0 * t, 1.5 - 3.0 * t));
    }
    // While dragging, the rectangle shows: its border crosses the empty
    // space left of the cube.
    let during = dir.path().join("during.png");
    x.run("import", &["-window", "root", during.to_str().unwrap()]);
    x.run("xdotool", &["mouseup", "1"]);
    std::thread::sleep(Duration::from_millis(300));
    x.run("xdotool", &["key", "F12"]);
    app.wait_for_output("the F12 screenshot", "wrote");
    let img = read_png(&dir.path().join("viewport-screenshot-1.png"));
    app.quit_cleanly(&x);

    // The rectangle's top border (y = 1.5 m, 140 px) left of the cube, lighter
    // than the background there.
    let d = read_png(&during);
    let (bx, by) = to_screen(-3.0, 1.5);
    let p = d.pixel(bx as u32, by as u32);
    assert!(p[0] > 150 && p[1] > 150 && p[2] > 150, "rectangle border pixel {p:?}");

    // Count light-yellow outline pixels in a 3 px band around each cube (the
    // cubes are 1 m = 40 px wide).
    let ring = |cx: f64| {
        let (sx, sy) = to_screen(cx, 0.0);
        let mut n = 0;
        for y in (sy as i32 - 24)..(sy as i32 + 24) {
            for x in (sx as i32 - 24)..(sx as i32 + 24) {
                let (dx, dy) = ((x as f64 + 0.5 - sx).abs(), (y as f64 + 0.5 - sy).abs());
                if dx.max(dy) < 20.0 || dx.max(dy) > 23.0 {
                    continue;
                }
                let q = img.pixel(x as u32, y as u32);
                if q[0] > 200 && q[1] > 170 && q[2] < q[1] {
                    n += 1;
                }
            }
        }
        n
    };
    let (left, right) = (ring(-2.0), ring(2.0));
    assert!(left > 200, "the left cube is outlined ({left} outline pixels)");
    assert_eq!(right, 0, "the right cube is not");
}

/// Ctrl+S on an opened glTF file writes `STEM.scene.json` beside it and
/// leaves the glTF untouched; the saved scene names the file's mesh.
#[test]
fn ctrl_s_on_an_opened_gltf_writes_a_scene_file_beside_it() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let gltf = dir.path().join("tri.gltf");
    // One triangle (data URI) under an unnamed empty root.
    let text = r#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],
        "nodes":[{"children":[1]},{"name":"tri","mesh":0,"translation":[0,1,0]}],
        "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3"}],
        "bufferViews":[{"buffer":0,"byteLength":36}],
        "buffers":[{"byteLength":36,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]}"#;
    std::fs::write(&gltf, text).unwrap();
    let app = WindowApp::start(&x, dir.path(), &gltf, "320x240");
    x.run("xdotool", &["key", "ctrl+s"]);
    app.wait_for_output("the save", "saved");
    app.quit_cleanly(&x);

    assert_eq!(std::fs::read_to_string(&gltf).unwrap(), text, "the glTF is never overwritten");
    let saved = viewport::scene::Scene::load(&dir.path().join("tri.scene.json")).unwrap();
    let names: Vec<&str> = saved.objects().iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["node", "tri"]);
    assert_eq!(saved.objects()[1].mesh.source(), Some("tri.gltf#0"));
    assert_eq!(saved.parent(1), Some(0));
    // Nothing else was written beside it (the save is atomic).
    let mut files: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    files.sort();
    assert_eq!(files, ["stderr.log", "tri.gltf", "tri.scene.json"]);
}
