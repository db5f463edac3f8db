//! Light and camera objects (`docs/spec/lights.md`, "Lights and cameras
//! are objects") through the binary: the scene file's `light` and `camera`
//! fields read with their defaults and written back with every field, bad
//! values refused naming the object and the field, a glTF file's light and
//! camera nodes opened as such objects (kept when saved as a scene file),
//! and the `scene_lights` rule: the light objects light the frame in
//! place of the built-in sun when the scene has one.

use serde_json::{json, Value};

use crate::support::cli::{assert_bad_input, viewport_cli, write_file};
use crate::support::image::read_png;
use crate::support::replay::object;
use crate::support::rigged::write_rig;

/// Runs `viewport SCENE --headless --save-scene OUT` plus `extra`; returns the saved scene.
fn saved(dir: &std::path::Path, scene: &str, extra: &[&str]) -> Value {
    let out_path = dir.join("out.json");
    let mut args = vec![scene, "--headless", "--no-ui", "--size", "64x48", "--save-scene", out_path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = viewport_cli(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&std::fs::read_to_string(out_path).unwrap()).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn light_and_camera_fields_are_read_with_defaults_and_written_whole() {
    let dir = tempfile::tempdir().unwrap();
    let scene = json!({ "objects": [
        { "name": "sun", "mesh": null, "light": { "type": "directional", "intensity": 3.0 } },
        { "name": "spot", "mesh": null, "position": [0, 4, 0],
          "light": { "type": "spot", "color": [1, 0.5, 0.25], "intensity": 60, "range": 20, "inner_cone_deg": 10 } },
        { "name": "shot", "mesh": null, "camera": { "fov_y_deg": 35, "far": null } },
        { "name": "plan", "mesh": null, "camera": { "projection": "orthographic", "height": 20, "aspect": 1.5 } },
        { "name": "box", "mesh": "cube" }
    ] });
    let path = write_file(dir.path(), "lit.json", &scene.to_string());
    let s = saved(dir.path(), &path, &[]);
    let sun = &object(&s, "sun")["light"];
    assert_eq!(sun["type"], "directional");
    assert_eq!(sun["color"], json!([1.0, 1.0, 1.0]), "default colour written");
    assert_eq!(f(&sun["intensity"]), 3.0);
    assert_eq!(sun["range"], Value::Null, "every field, the null range too");
    assert_eq!((f(&sun["inner_cone_deg"]), f(&sun["outer_cone_deg"])), (0.0, 45.0));
    let spot = &object(&s, "spot")["light"];
    assert_eq!(spot["type"], "spot");
    assert_eq!(spot["color"], json!([1.0, 0.5, 0.25]));
    assert_eq!((f(&spot["intensity"]), f(&spot["range"])), (60.0, 20.0));
    assert_eq!((f(&spot["inner_cone_deg"]), f(&spot["outer_cone_deg"])), (10.0, 45.0));
    let shot = &object(&s, "shot")["camera"];
    assert_eq!(shot["projection"], "perspective");
    assert_eq!((f(&shot["fov_y_deg"]), f(&shot["near"])), (35.0, 0.1));
    assert_eq!((shot["far"].clone(), shot["aspect"].clone()), (Value::Null, Value::Null));
    let plan = &object(&s, "plan")["camera"];
    assert_eq!(plan["projection"], "orthographic");
    assert_eq!((f(&plan["height"]), f(&plan["far"]), f(&plan["aspect"])), (20.0, 1000.0, 1.5));
    assert!(object(&s, "box").get("light").is_none() && object(&s, "box").get("camera").is_none());
    // Saved again, the same file: nothing lost or changed on the way.
    let again = saved(dir.path(), &write_file(dir.path(), "again.json", &s.to_string()), &[]);
    assert_eq!(again, s);

    // Duplicating a light (Shift+D, then Enter) keeps its light.
    let script = json!({ "select": ["spot"], "events": [
        { "key_down": "D", "mods": ["shift"] }, { "key_down": "Enter" } ] });
    let script = write_file(dir.path(), "dup.json", &script.to_string());
    let s = saved(dir.path(), &path, &["--replay", &script]);
    assert_eq!(object(&s, "spot.001")["light"], object(&s, "spot")["light"]);
}

#[test]
fn bad_light_and_camera_values_are_one_line_naming_object_and_field() {
    let dir = tempfile::tempdir().unwrap();
    for (fixture, needle) in [
        (json!({ "light": { "type": "lamp" } }), "light.type"),
        (json!({ "light": { "type": "point", "intensity": -2 } }), "light.intensity"),
        (json!({ "light": { "type": "point", "range": 0 } }), "light.range"),
        (json!({ "light": { "type": "spot", "inner_cone_deg": 40, "outer_cone_deg": 30 } }), "cone"),
        (json!({ "light": { "type": "point", "shadow": true } }), "\"shadow\""),
        (json!({ "camera": { "fov_y_deg": 0 } }), "camera.fov_y_deg"),
        (json!({ "camera": { "projection": "orthographic", "height": -1 } }), "camera.height"),
        (json!({ "camera": { "near": 2, "far": 1 } }), "camera.far"),
        (json!({ "camera": { "projection": "fisheye" } }), "camera.projection"),
    ] {
        let mut o = json!({ "name": "thing", "mesh": null });
        for (k, v) in fixture.as_object().unwrap() {
            o[k] = v.clone();
        }
        let path = write_file(dir.path(), "bad.json", &json!({ "objects": [o] }).to_string());
        let out = viewport_cli(&[&path, "--headless", "--no-ui", "--size", "32x32"]);
        assert_bad_input(&out, needle);
        assert_bad_input(&out, "\"thing\"");
    }
}

#[test]
fn a_gltf_files_light_and_camera_become_objects_a_scene_file_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let rig = write_rig(dir.path(), "rig.gltf");
    let s = saved(dir.path(), rig.path.to_str().unwrap(), &[]);
    // The file's spot (`bulb`: colour [1, 0.5, 0.25], 12 cd, range 20,
    // cones 0.2 and 0.6 rad) on node `lamp`; camera `eye` on node `cam`.
    let lamp = &object(&s, "lamp")["light"];
    assert_eq!(lamp["type"], "spot");
    assert_eq!(lamp["color"], json!([1.0, 0.5, 0.25]));
    assert_eq!((f(&lamp["intensity"]), f(&lamp["range"])), (12.0, 20.0));
    assert!((f(&lamp["inner_cone_deg"]) - 0.2f64.to_degrees()).abs() < 1e-4, "{lamp}");
    assert!((f(&lamp["outer_cone_deg"]) - 0.6f64.to_degrees()).abs() < 1e-4, "{lamp}");
    let cam = &object(&s, "cam")["camera"];
    assert_eq!(cam["projection"], "perspective");
    assert!((f(&cam["fov_y_deg"]) - 0.8f64.to_degrees()).abs() < 1e-4, "{cam}");
    assert!((f(&cam["aspect"]) - 1.5).abs() < 1e-6 && (f(&cam["near"]) - 0.1).abs() < 1e-6, "{cam}");
    assert!((f(&cam["far"]) - 100.0).abs() < 1e-4, "{cam}");
    assert!(object(&s, "strip").get("light").is_none());
}

/// Mean brightness (sum of RGB) of the pixels in a square of `r` px
/// around (x, y).
fn brightness(img: &viewport::render::RgbaImage, x: u32, y: u32, r: u32) -> f64 {
    let mut sum = 0.0;
    let mut n = 0.0;
    for py in y - r..=y + r {
        for px in x - r..=x + r {
            let p = img.pixel(px, py);
            sum += f64::from(p[0]) + f64::from(p[1]) + f64::from(p[2]);
            n += 1.0;
        }
    }
    sum / n
}

#[test]
fn light_objects_light_the_frame_in_place_of_the_sun() {
    let dir = tempfile::tempdir().unwrap();
    // A floor seen from straight above, and a point light object: 0.5 m
    // over the floor's centre (`near`) or 50 m under it (`under`: it
    // lights nothing the camera sees).
    let scene = |light_y: f64| {
        json!({ "camera": { "eye": [0, 10, 0.001], "target": [0, 0, 0], "projection": "orthographic", "height": 10 },
                "objects": [
                    { "name": "floor", "mesh": "cube", "position": [0, -0.5, 0], "scale": [20, 1, 20] },
                    { "name": "lamp", "mesh": null, "position": [0, light_y, 0],
                      "light": { "type": "point", "intensity": 5 } } ] })
    };
    let shot = |name: &str, scene: Value, lighting: Value| {
        let path = write_file(dir.path(), &format!("{name}.json"), &scene.to_string());
        let script = write_file(dir.path(), "s.json", &json!({ "lighting": lighting, "events": [] }).to_string());
        let png = dir.path().join(format!("{name}.png"));
        let out = viewport_cli(&[
            &path,
            "--headless",
            "--no-ui",
            "--size",
            "200x200",
            "--replay",
            &script,
            "--screenshot",
            png.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        read_png(&png)
    };
    let flat = json!({ "environment": "uniform", "environment_color": [0, 0, 0], "grid": false });
    let with = |k: &str, v: Value| {
        let mut l = flat.clone();
        l[k] = v;
        l
    };
    // (The lamp's icon shows at the centre, where the cursor hovers it:
    // samples are taken beside it.)
    // Auto: the lamp under the floor lights the frame in place of the sun: dark.
    let under = shot("under", scene(-50.0), flat.clone());
    // The sun chosen (`false`): the same scene lit.
    let sun = shot("sun", scene(-50.0), with("scene_lights", json!(false)));
    assert!(brightness(&sun, 60, 100, 5) > 60.0, "the sun lights the floor: {}", brightness(&sun, 60, 100, 5));
    assert!(brightness(&under, 60, 100, 5) < 3.0, "no sun where a light object is: {}", brightness(&under, 60, 100, 5));
    // The lamp just over the floor: bright beside it (0.75 m away, 3.4 lux
    // by the inverse square law: 5 cd x 0.5 / (0.5^2 + 0.75^2)^1.5, more
    // than the sun's 3), dark far away (5.7 m: 0.014 lux).
    let near = shot("near", scene(0.5), flat.clone());
    let (beside, edge) = (brightness(&near, 115, 100, 2), brightness(&near, 20, 20, 3));
    assert!(beside > brightness(&sun, 115, 100, 2) && beside > 10.0 * edge.max(1.0), "beside {beside}, edge {edge}");
    // Hidden, the lamp no longer counts: the sun lights again.
    let mut hidden = scene(0.5);
    hidden["objects"][1]["hidden"] = json!(true);
    let hid = shot("hidden", hidden, flat);
    assert!((brightness(&hid, 60, 100, 5) - brightness(&sun, 60, 100, 5)).abs() < 3.0, "a hidden light: the sun again");
}

/// `v` turned by the scene file's quaternion `[x, y, z, w]`.
fn turned(q: &Value, v: [f64; 3]) -> [f64; 3] {
    let c: Vec<f64> = q.as_array().unwrap().iter().map(f).collect();
    let q = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(c[3], c[0], c[1], c[2]));
    let r = q * nalgebra::Vector3::from(v);
    [r.x, r.y, r.z]
}

fn close(a: [f64; 3], b: [f64; 3], tol: f64) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tol)
}

#[test]
fn the_add_menu_makes_lights_and_a_camera_where_the_user_points() {
    let dir = tempfile::tempdir().unwrap();
    // A floor whose top is y = 0, seen from a perspective camera; the
    // cursor at the centre of the view points at the target (0, 0, 0).
    let (eye, target) = ([4.0, 6.0, 8.0], [0.0, 0.0, 0.0]);
    let scene = json!({ "camera": { "eye": eye, "target": target, "fov_y_deg": 40 },
        "objects": [ { "name": "floor", "mesh": "cube", "position": [0, -0.5, 0], "scale": [20, 1, 20] } ] });
    let path = write_file(dir.path(), "floor.json", &scene.to_string());
    let events = json!([
        { "mouse_move": [100, 75] },
        { "add": "point_light" }, { "add": "spot_light" }, { "add": "sun" }, { "add": "camera" },
        { "add": "point_light" }, { "key_down": "Z", "mods": ["ctrl"] },
    ]);
    let script = write_file(dir.path(), "s.json", &json!({ "size": [200, 150], "events": events }).to_string());
    let s = saved(dir.path(), &path, &["--replay", &script]);
    let names: Vec<&str> = s["objects"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["floor", "point_light", "spot_light", "sun", "camera"], "the last add undone");
    let pos = |n: &str| -> [f64; 3] {
        let p: Vec<f64> = object(&s, n)["position"].as_array().unwrap().iter().map(f).collect();
        [p[0], p[1], p[2]]
    };
    // Lights 2 m above the point under the cursor (the target), the spot
    // shining straight down; the built-in sun's illuminance (3 lux) at
    // that point: 3 x 2^2 = 12 cd.
    assert!(close(pos("point_light"), [0.0, 2.0, 0.0], 1e-6), "{:?}", pos("point_light"));
    assert!(close(pos("spot_light"), [0.0, 2.0, 0.0], 1e-6), "{:?}", pos("spot_light"));
    assert_eq!(object(&s, "point_light")["light"]["type"], "point");
    assert_eq!(f(&object(&s, "point_light")["light"]["intensity"]), 12.0);
    assert!(close(turned(&object(&s, "spot_light")["rotation"], [0.0, 0.0, -1.0]), [0.0, -1.0, 0.0], 1e-9));
    // The sun at the point, shining along the built-in sun's direction.
    let d = [-0.4f64, -1.0, -0.6];
    let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
    assert!(close(pos("sun"), [0.0, 0.0, 0.0], 1e-6));
    assert!(close(turned(&object(&s, "sun")["rotation"], [0.0, 0.0, -1.0]), d.map(|c| c / n), 1e-9));
    assert_eq!(f(&object(&s, "sun")["light"]["intensity"]), 3.0);
    // The camera at the eye, looking at the target with +Y up, 40 degrees.
    assert!(close(pos("camera"), eye, 1e-9));
    let look = [target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]];
    let l = (look[0] * look[0] + look[1] * look[1] + look[2] * look[2]).sqrt();
    let rot = &object(&s, "camera")["rotation"];
    assert!(close(turned(rot, [0.0, 0.0, -1.0]), look.map(|c| c / l), 1e-9));
    assert!(turned(rot, [0.0, 1.0, 0.0])[1] > 0.5, "+Y stays up");
    assert!((f(&object(&s, "camera")["camera"]["fov_y_deg"]) - 40.0).abs() < 1e-9);
}
