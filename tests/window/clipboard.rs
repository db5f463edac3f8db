//! Copy and paste between two running viewports through the X clipboard
//! (`docs/spec/organise.md`, "Copy and paste"): one Xvfb, two windows on
//! two scene files in two folders. Objects clicked in the first window and
//! copied with Ctrl+C are pasted into the second with Ctrl+V and saved
//! with Ctrl+S; the saved file holds them with unique names, the world
//! transforms they had in the first scene and the parents among them.
//! Plain text in the clipboard (put there by `xclip`) pastes nothing and
//! says so in the second window's status line.

use nalgebra::{Matrix4, Quaternion, Translation3, UnitQuaternion, Vector3};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::image::read_png;
use crate::support::xvfb::{press_until, wait_for, WindowApp, Xvfb};

/// A rotation as a scene file's `[x, y, z, w]`.
fn quat(axis: Vector3<f64>, deg: f64) -> [f64; 4] {
    let q = UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(axis), deg.to_radians());
    [q.i, q.j, q.k, q.w]
}

fn vec3(v: Option<&Value>, default: f64) -> Vector3<f64> {
    match v {
        Some(a) => Vector3::from_iterator(a.as_array().unwrap().iter().map(|c| c.as_f64().unwrap())),
        None => Vector3::repeat(default),
    }
}

/// An object's local matrix from its scene-file fields (T * R * S; the
/// documented defaults for missing fields).
fn local(o: &Value) -> Matrix4<f64> {
    let t = vec3(o.get("position"), 0.0);
    let r = match o.get("rotation") {
        Some(a) => {
            let c: Vec<f64> = a.as_array().unwrap().iter().map(|c| c.as_f64().unwrap()).collect();
            UnitQuaternion::from_quaternion(Quaternion::new(c[3], c[0], c[1], c[2]))
        }
        None => UnitQuaternion::identity(),
    };
    let s = vec3(o.get("scale"), 1.0);
    Translation3::from(t).to_homogeneous() * r.to_homogeneous() * Matrix4::new_nonuniform_scaling(&s)
}

/// Every object's world matrix by name, worked out from a scene file's
/// objects alone (parents by name).
fn worlds(scene: &Value) -> HashMap<String, Matrix4<f64>> {
    let objects = scene["objects"].as_array().unwrap();
    let by_name: HashMap<&str, &Value> = objects.iter().map(|o| (o["name"].as_str().unwrap(), o)).collect();
    let mut out = HashMap::new();
    for o in objects {
        let (mut m, mut up) = (local(o), o);
        while let Some(p) = up.get("parent").and_then(Value::as_str) {
            up = by_name[p];
            m = local(up) * m;
        }
        out.insert(o["name"].as_str().unwrap().to_string(), m);
    }
    out
}

/// `name`'s object in a scene file.
fn object<'a>(scene: &'a Value, name: &str) -> &'a Value {
    scene["objects"].as_array().unwrap().iter().find(|o| o["name"] == name).unwrap_or_else(|| panic!("no {name}"))
}

/// The clipboard's text as `xclip` reads it (`None` while nothing owns it).
fn clipboard(x: &Xvfb) -> Option<String> {
    let out = Command::new("timeout")
        .args(["5", "xclip", "-o", "-selection", "clipboard"])
        .env("DISPLAY", &x.display)
        .output()
        .expect("timeout and xclip (make test installs the xclip package)");
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// How many times the program has written an F12 capture.
fn captures(app: &WindowApp) -> usize {
    app.stderr().matches("viewport: wrote ").count()
}

/// The rightmost column of the status line (the bottom 22 px at UI scale
/// 1) where something is drawn on its background: how far its text reaches.
fn status_text_end(png: &Path) -> u32 {
    let img = read_png(png);
    let (w, h) = (img.width, img.height);
    let bg = img.pixel(w - 3, h - 11);
    let differs = |p: [u8; 4]| (0..3).map(|c| (p[c] as i32 - bg[c] as i32).abs()).sum::<i32>() > 90;
    (0..w).rev().find(|&x| (h - 20..h - 2).any(|y| differs(img.pixel(x, y)))).unwrap_or(0)
}

#[test]
fn copy_in_one_window_paste_in_another_keeps_world_transforms() {
    let x = Xvfb::start();
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // One triangle (a glTF file beside the first scene): its path must
    // still name that file from the second scene's folder.
    let tri = dir_a.path().join("tri.gltf");
    std::fs::write(&tri, crate::support::cli::TRIANGLE_GLTF).unwrap();
    // Orthographic front camera over 400 px: 1 px = 0.025 m, origin at the centre.
    let camera = json!({ "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 10 });
    // `arm` hangs under a rotated, unevenly scaled `base`; it has no
    // rotation of its own, so its world transform (base's rotation, the
    // scales multiplied) is still a plain translate-rotate-scale once it is
    // copied without its parent. `hand` (the glTF triangle) hangs under `arm`.
    let scene_a = json!({ "camera": camera, "objects": [
        { "name": "base", "mesh": "cube", "position": [-2, 1, 0],
          "rotation": quat(Vector3::z(), 30.0), "scale": [2, 1, 1.5], "color": [0.3, 0.3, 0.8] },
        { "name": "arm", "mesh": "cube", "parent": "base", "position": [1, 0.5, 0],
          "scale": [0.5, 0.8, 1], "color": [0.8, 0.4, 0.2] },
        { "name": "hand", "mesh": "tri.gltf", "parent": "arm", "position": [0, 1.2, 0.1],
          "rotation": quat(Vector3::new(1.0, 0.3, 0.0), 40.0), "scale": [0.5, 0.7, 0.5] },
        { "name": "crate", "mesh": "cube", "position": [2, -2, 0.5],
          "rotation": quat(Vector3::y(), 20.0), "color": [0.2, 0.8, 0.3] },
        { "name": "lamp", "mesh": "sphere", "position": [2, 2.5, 0] } ] });
    // The second scene holds `arm`, `crate` and `crate.001` already.
    let scene_b = json!({ "camera": camera, "objects": [
        { "name": "crate", "mesh": "cube", "position": [0, 0, -3] },
        { "name": "arm", "mesh": "cylinder", "parent": "crate", "position": [0, 1, 0], "scale": [0.5, 0.5, 0.5] },
        { "name": "crate.001", "mesh": "cube", "position": [3, 0, -3], "rotation": quat(Vector3::x(), 10.0) } ] });
    let (file_a, file_b) = (dir_a.path().join("a.json"), dir_b.path().join("b.json"));
    std::fs::write(&file_a, scene_a.to_string()).unwrap();
    std::fs::write(&file_b, scene_b.to_string()).unwrap();
    let (worlds_a, worlds_b) = (worlds(&scene_a), worlds(&scene_b));

    // The second window first, with its UI (the status line), moved right
    // of where the first one opens so that clicks meet the first only.
    let b = WindowApp::start_with_ui(&x, dir_b.path(), &file_b, "640x400");
    x.run("xdotool", &["windowmove", "--sync", &b.wid, "600", "0"]);
    let title_b = || x.run("xdotool", &["getwindowname", &b.wid]);

    // Plain text in the clipboard, owned by xclip (in the foreground, so
    // that it is this test's child).
    let text = "just some words, not a scene";
    let mut xclip = Command::new("xclip")
        .args(["-selection", "clipboard", "-quiet"])
        .env("DISPLAY", &x.display)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xclip (make test installs the xclip package)");
    xclip.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    wait_for("xclip to own the clipboard", || (clipboard(&x)? == text).then_some(()));

    // Ctrl+V of that text: nothing changes (no star in the title) and the
    // status line says so. Its text is drawn, so it is measured in an F12
    // capture: the notice ("The clipboard holds no scene to paste (...)")
    // reaches far further right than the usual counts ("0 selected |
    // 3 objects | 1.23 ms") captured just before.
    let shot = |app: &WindowApp, dir: &Path| {
        let n = captures(app) + 1;
        press_until(&x, &app.wid, "F12", "the F12 capture", || (captures(app) >= n).then_some(()));
        dir.join(format!("viewport-screenshot-{n}.png"))
    };
    let before = status_text_end(&shot(&b, dir_b.path()));
    assert!(before > 50, "the status line shows the counts (text up to x = {before})");
    // A lost key press shows as an unchanged status line: pressed again
    // (a plain-text paste changes nothing, so a repeat is harmless).
    wait_for("the paste's notice in the status line", || {
        x.run("xdotool", &["windowfocus", "--sync", &b.wid]);
        x.run("xdotool", &["key", "ctrl+v"]);
        let end = status_text_end(&shot(&b, dir_b.path()));
        (end > before + 150).then_some(())
    });
    assert!(title_b().contains("| b.json |"), "nothing changed: {}", title_b());

    // The first window, on top where it opens (0, 0).
    let a = WindowApp::start(&x, dir_a.path(), &file_a, "400x400");
    let to_screen = |m: &Matrix4<f64>| (200.0 + m[(0, 3)] / 0.025, 200.0 - m[(1, 3)] / 0.025);
    // Click `arm` (its centre; `hand` comes with it), Shift+click `crate`.
    a.move_to(&x, to_screen(&worlds_a["arm"]));
    x.run("xdotool", &["click", "1"]);
    a.move_to(&x, to_screen(&worlds_a["crate"]));
    x.run("xdotool", &["keydown", "shift", "click", "1", "keyup", "shift"]);
    std::thread::sleep(Duration::from_millis(200));
    // Ctrl+C: the clipboard (read through xclip) holds a scene file of the
    // selected objects and their descendants.
    let copied = press_until(&x, &a.wid, "ctrl+c", "the copy", || {
        serde_json::from_str::<Value>(&clipboard(&x)?).ok().filter(|v| v.get("objects").is_some())
    });
    let mut names: Vec<&str> =
        copied["objects"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["arm", "crate", "hand"], "copied: {copied}");
    // It lost the clipboard (and exits on that); stopped in any case.
    let _ = xclip.kill();
    let _ = xclip.wait();

    // Ctrl+V in the second window while the first (the clipboard's owner)
    // still runs, then Ctrl+S.
    press_until(&x, &b.wid, "ctrl+v", "the paste", || title_b().contains("| b.json* |").then_some(()));
    press_until(&x, &b.wid, "ctrl+s", "the save", || title_b().contains("| b.json |").then_some(()));
    b.quit_cleanly(&x);
    a.quit_cleanly(&x);

    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file_b).unwrap()).unwrap();
    let mut names: Vec<&str> =
        saved["objects"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    names.sort();
    // Each copy once (the plain-text paste added nothing), names that
    // collide made unique with the lowest free number.
    assert_eq!(names, ["arm", "arm.001", "crate", "crate.001", "crate.002", "hand"], "saved: {saved}");
    let saved_worlds = worlds(&saved);
    let close = |m: &Matrix4<f64>, n: &Matrix4<f64>| (m - n).amax() < 1e-9;
    // The second scene's own objects are as they were.
    for (name, m) in &worlds_b {
        assert!(close(&saved_worlds[name], m), "{name} moved: {} vs {m}", saved_worlds[name]);
    }
    // The pasted ones where the first scene had them.
    for (pasted, original) in [("arm.001", "arm"), ("hand", "hand"), ("crate.002", "crate")] {
        let (m, n) = (&saved_worlds[pasted], &worlds_a[original]);
        assert!(close(m, n), "{pasted}'s world transform {m} is not {original}'s {n}");
    }
    // The parent among the copied objects kept; the copied roots (`arm`
    // lost its parent, which was not copied) are roots.
    assert_eq!(object(&saved, "hand").get("parent"), Some(&json!("arm.001")));
    for root in ["arm.001", "crate.002"] {
        assert!(object(&saved, root).get("parent").is_none_or(Value::is_null), "{root} is a root: {saved}");
    }
    // The glTF mesh still names the first folder's file.
    let mesh = object(&saved, "hand")["mesh"].as_str().unwrap();
    assert_eq!(
        std::fs::canonicalize(dir_b.path().join(mesh)).unwrap(),
        std::fs::canonicalize(&tri).unwrap(),
        "hand's mesh {mesh}"
    );
    // Its colour kept (held as f32, so written back as the nearest f32).
    let color = vec3(object(&saved, "crate.002").get("color"), 0.0);
    assert!((color - Vector3::new(0.2, 0.8, 0.3)).amax() < 1e-6, "crate.002's colour {color}");
}
