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

/// `a` and `b` agree to 1e-6 relative (glTF holds f32 numbers).
fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// Light and camera objects made in a scene file are exported as
/// `KHR_lights_punctual` lights and glTF cameras on their nodes (the
/// extension's units, radians, `zfar` left out for an infinite far plane,
/// `aspectRatio` only where set, an orthographic `ymag` half the height),
/// and scene file -> export -> open -> scene file gives the values back.
#[test]
fn light_and_camera_objects_export_and_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let scene = json!({ "objects": [
        { "name": "sun", "mesh": null, "rotation": [-0.3826834, 0, 0, 0.9238795],
          "light": { "type": "directional", "color": [1, 0.9, 0.8], "intensity": 3.5, "range": 40 } },
        { "name": "lamp", "mesh": null, "position": [2, 3, 0],
          "light": { "type": "point", "color": [0.2, 0.4, 1], "intensity": 40, "range": 7.5 } },
        { "name": "spot", "mesh": null, "position": [0, 4, 0],
          "light": { "type": "spot", "intensity": 60, "inner_cone_deg": 12.5, "outer_cone_deg": 33 } },
        { "name": "shot", "mesh": null, "position": [0, 1, 6],
          "camera": { "fov_y_deg": 35, "near": 0.05, "far": 250, "aspect": 1.7777778 } },
        { "name": "wide", "mesh": null, "camera": { "fov_y_deg": 80 } },
        { "name": "plan", "mesh": null, "camera": { "projection": "orthographic", "height": 20, "near": 0.5, "far": 300, "aspect": 1.5 } },
        { "name": "side", "mesh": null, "camera": { "projection": "orthographic", "height": 6 } },
        { "name": "box", "mesh": "cube", "light": { "type": "point" } }
    ] });
    let path = write_file(dir.path(), "lit.json", &scene.to_string());
    let first = saved(dir.path(), &path, &[]);
    let gltf = dir.path().join("lit.gltf");
    let out = viewport_cli(&[&path, "--headless", "--no-ui", "--size", "32x32", "--export", gltf.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&gltf).unwrap()).unwrap();
    assert!(doc["extensionsUsed"].as_array().unwrap().contains(&json!("KHR_lights_punctual")));
    let node = |name: &str| doc["nodes"].as_array().unwrap().iter().find(|n| n["name"] == name).unwrap().clone();
    let light = |name: &str| {
        doc["extensions"]["KHR_lights_punctual"]["lights"]
            [node(name)["extensions"]["KHR_lights_punctual"]["light"].as_u64().unwrap() as usize]
            .clone()
    };
    let camera = |name: &str| doc["cameras"][node(name)["camera"].as_u64().unwrap() as usize].clone();
    let sun = light("sun");
    assert_eq!((sun["type"].clone(), sun.get("range")), (json!("directional"), None), "no range on a sun");
    assert!(near(f(&sun["intensity"]), 3.5));
    assert!(near(f(&light("lamp")["range"]), 7.5) && light("lamp").get("spot").is_none());
    let spot = light("spot");
    assert_eq!(spot.get("range"), None, "no range where none is set");
    assert!(near(f(&spot["spot"]["innerConeAngle"]), 12.5f64.to_radians()), "{spot}");
    assert!(near(f(&spot["spot"]["outerConeAngle"]), 33f64.to_radians()), "{spot}");
    let shot = camera("shot");
    assert_eq!(shot["type"], "perspective");
    assert!(near(f(&shot["perspective"]["yfov"]), 35f64.to_radians()));
    assert!(near(f(&shot["perspective"]["zfar"]), 250.0) && near(f(&shot["perspective"]["aspectRatio"]), 1.7777778));
    let wide = camera("wide");
    assert!(wide["perspective"].get("zfar").is_none() && wide["perspective"].get("aspectRatio").is_none(), "{wide}");
    let plan = camera("plan");
    assert!(near(f(&plan["orthographic"]["ymag"]), 10.0) && near(f(&plan["orthographic"]["xmag"]), 15.0), "{plan}");
    assert!(near(f(&camera("side")["orthographic"]["xmag"]), 3.0), "xmag = ymag where no aspect is set");
    assert!(node("box")["extensions"]["KHR_lights_punctual"]["light"].is_u64() && node("box")["mesh"].is_u64());
    // Opened again and saved as a scene file: the same lights and cameras.
    let back = saved(dir.path(), gltf.to_str().unwrap(), &[]);
    for name in ["sun", "lamp", "spot", "shot", "wide", "plan", "side", "box"] {
        for field in ["light", "camera"] {
            let (a, b) = (&object(&first, name)[field], &object(&back, name)[field]);
            assert_eq!(a.is_null(), b.is_null(), "{name}.{field}: {a} then {b}");
            for (k, v) in a.as_object().into_iter().flatten() {
                // (A directional light has no range in glTF.)
                if (name, k.as_str()) == ("sun", "range") {
                    assert!(b[k].is_null());
                    continue;
                }
                let w = &b[k];
                let same = match (v, w) {
                    (Value::Number(_), Value::Number(_)) => near(f(v), f(w)),
                    (Value::Array(x), Value::Array(y)) => {
                        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| near(f(p), f(q)))
                    }
                    _ => v == w,
                };
                assert!(same, "{name}.{field}.{k}: {v} then {w}");
            }
        }
    }
}

/// Numpad0 looks through a camera object: with nothing selected the
/// scene's first camera object, else the active one; the trace names it
/// (`view_camera`) and the view is its camera (its world place, -Z ahead,
/// its field of view or height); a zoom leaves it for the editor camera as
/// it was; Ctrl+Alt+Numpad0 moves the active camera object to the view,
/// one undo step.
#[test]
fn numpad0_looks_through_a_camera_object_and_ctrl_alt_numpad0_moves_one_there() {
    use crate::support::replay::{run, vec3};
    // `shot` under a parent 3 m up, turned 90 degrees about +Y: its world
    // eye is (1, 5, 0) and it looks along -X.
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let scene = json!({
        "camera": { "eye": [6, 4, 8], "target": [0, 0, 0] },
        "objects": [
            { "name": "rig", "mesh": null, "position": [0, 3, 0] },
            { "name": "box", "mesh": "cube" },
            { "name": "shot", "mesh": null, "parent": "rig", "position": [1, 2, 0],
              "rotation": [0, h, 0, h], "camera": { "fov_y_deg": 40, "near": 0.2 } },
            { "name": "plan", "mesh": null, "position": [0, 30, 0], "rotation": [-h, 0, 0, h],
              "camera": { "projection": "orthographic", "height": 12 } }
        ]
    });
    let close = |a: [f64; 3], b: [f64; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    let r = run(
        &scene,
        &json!({ "size": [320, 240], "events": [
        { "key_down": "Numpad0" }, { "add": "camera" }, { "scroll": 1.0 }
    ] }),
    );
    let through = &r.trace[0];
    // A camera added while looking through `shot` takes the view as drawn:
    // shot's eye, looking along -X (not the editor camera's (6, 4, 8)),
    // and the view stays shot's.
    let added = &r.trace[1];
    assert_eq!(added["view_camera"], "shot", "{added}");
    assert!(close(vec3(&added["objects"]["camera"]["position"]), [1.0, 5.0, 0.0]), "{added}");
    assert!(close(turned(&added["objects"]["camera"]["rotation"], [0.0, 0.0, -1.0]), [-1.0, 0.0, 0.0]), "{added}");
    assert_eq!(through["view_camera"], "shot", "{through}");
    let cam = &through["views"][0]["camera"];
    assert!(close(vec3(&cam["eye"]), [1.0, 5.0, 0.0]), "{cam}");
    let ahead = {
        let (e, t) = (vec3(&cam["eye"]), vec3(&cam["target"]));
        let d = [t[0] - e[0], t[1] - e[1], t[2] - e[2]];
        let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        [d[0] / n, d[1] / n, d[2] / n]
    };
    assert!(close(ahead, [-1.0, 0.0, 0.0]), "looks along its world -Z: {ahead:?}");
    assert!((cam["fov_y_deg"].as_f64().unwrap() - 40.0).abs() < 1e-9 && cam["projection"] == "perspective");
    // The editor camera itself did not move.
    assert_eq!(vec3(&through["camera"]["eye"]), [6.0, 4.0, 8.0]);
    // What is drawn is the camera's view: the picture of a scene whose
    // editor camera is that camera, pixel for pixel.
    let shot = crate::support::replay::screenshot(
        &scene,
        &json!({ "size": [160, 120], "events": [{ "key_down": "Numpad0" }] }),
        &[],
    );
    let mut same = scene.clone();
    same["camera"] = json!({ "eye": [1, 5, 0], "target": [-9, 5, 0], "fov_y_deg": 40, "near": 0.2 });
    let expected = crate::support::replay::screenshot(&same, &json!({ "size": [160, 120], "events": [] }), &[]);
    assert!(shot.data == expected.data, "the view through the camera is drawn");
    let editor_view = crate::support::replay::screenshot(&scene, &json!({ "size": [160, 120], "events": [] }), &[]);
    assert!(editor_view.data != expected.data, "the test can fail");
    // A zoom leaves the camera view and zooms the editor camera.
    let after = &r.trace[2];
    assert_eq!(after["view_camera"], Value::Null);
    let eye = vec3(&after["views"][0]["camera"]["eye"]);
    let d = |p: [f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    assert!(d(eye) < d([6.0, 4.0, 8.0]) - 1e-6, "zoomed from the editor camera: {eye:?}");
    assert!(close(eye.map(|x| x / d(eye)), [6.0, 4.0, 8.0].map(|x| x / d([6.0, 4.0, 8.0]))), "{eye:?}");

    // The active object's camera (orthographic, looking down), then
    // Ctrl+Alt+Numpad0 after a zoom: `plan` moves to the editor's eye,
    // looking where it looks; Ctrl+Z puts it back.
    let r = run(
        &scene,
        &json!({ "size": [320, 240], "select": ["plan"], "events": [
        { "key_down": "Numpad0" }, { "scroll": 1.0 },
        { "key_down": "Numpad0", "mods": ["ctrl", "alt"] },
        { "key_down": "Z", "mods": ["ctrl"] }
    ] }),
    );
    let plan = &r.trace[0]["views"][0]["camera"];
    assert_eq!((r.trace[0]["view_camera"].clone(), plan["projection"].clone()), (json!("plan"), json!("orthographic")));
    assert!((plan["height"].as_f64().unwrap() - 12.0).abs() < 1e-9 && close(vec3(&plan["eye"]), [0.0, 30.0, 0.0]));
    let zoomed = vec3(&r.trace[1]["views"][0]["camera"]["eye"]);
    let moved = &r.trace[2];
    assert_eq!(moved["view_camera"], "plan", "it looks through the camera it moved");
    assert!(close(vec3(&moved["objects"]["plan"]["position"]), zoomed), "{moved}");
    // Its -Z now points at the editor camera's target (the origin).
    let q = moved["objects"]["plan"]["rotation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect::<Vec<_>>();
    let ahead = turned(&json!(q), [0.0, 0.0, -1.0]);
    assert!(close(ahead, zoomed.map(|x| -x / d(zoomed))), "{ahead:?}");
    assert!(close(vec3(&moved["views"][0]["camera"]["eye"]), zoomed));
    assert!(close(vec3(&r.trace[3]["objects"]["plan"]["position"]), [0.0, 30.0, 0.0]), "undone");
    // Without any camera object, Numpad0 says so and changes nothing.
    let bare = json!({ "objects": [{ "name": "box", "mesh": "cube" }] });
    let r =
        crate::support::replay::run_ui(&bare, &json!({ "size": [480, 320], "events": [{ "key_down": "Numpad0" }] }));
    assert_eq!(r.trace[0]["view_camera"], Value::Null);
    assert!(r.trace[0]["ui"].to_string().contains("No camera object"), "{}", r.trace[0]["ui"]);
}

/// The centre of the control `name` in a trace line's UI rects.
fn control(line: &Value, name: &str) -> [f64; 2] {
    let r = line["ui"]["rects"].get(name).unwrap_or_else(|| panic!("no control {name} in {}", line["ui"]["rects"]));
    let v: Vec<f64> = r.as_array().unwrap().iter().map(f).collect();
    [(v[0] + v[2]) / 2.0, (v[1] + v[3]) / 2.0]
}

fn click_at(p: [f64; 2]) -> Vec<Value> {
    vec![json!({ "mouse_move": p }), json!({ "mouse_down": "left" }), json!({ "mouse_up": "left" })]
}

/// Clicks the field `name` (laid out as `layout` says), types `text` and
/// presses Enter.
fn type_into(layout: &Value, name: &str, text: &str) -> Vec<Value> {
    let mut events = click_at(control(layout, name));
    events.push(json!({ "text": text }));
    events.push(json!({ "key_down": "Enter" }));
    events
}

/// The side panel's Light and Camera sections: a typed intensity (an
/// expression), cone angles the file's rule refuses (the status line says
/// why, nothing changes), the type buttons and the "infinite" boxes, each
/// one undo step; for a camera its field of view, near and far.
#[test]
fn the_panel_edits_a_light_and_a_camera_one_undo_step_each() {
    use crate::support::replay::run_ui;
    let scene = json!({ "objects": [
        { "name": "box", "mesh": "cube" },
        { "name": "spot", "mesh": null, "position": [0, 3, 0],
          "light": { "type": "spot", "intensity": 60, "range": 20, "inner_cone_deg": 10, "outer_cone_deg": 30 } },
        { "name": "shot", "mesh": null, "position": [0, 1, 6], "camera": { "fov_y_deg": 50, "far": 80 } }
    ] });
    let script = |select: &str, events: Vec<Value>| json!({ "size": [900, 700], "select": [select], "ui": { "panel": true }, "events": events });
    let layout = |select: &str| run_ui(&scene, &script(select, vec![json!({ "mouse_move": [1, 1] })])).trace[0].clone();
    let light = |r: &crate::support::replay::Run| object(&r.scene, "spot")["light"].clone();

    let spot = layout("spot");
    let mut events = type_into(&spot, "light.intensity", "2*40");
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    let r = run_ui(&scene, &script("spot", events.clone()));
    assert_eq!(f(&object(&r.scene, "spot")["light"]["intensity"]), 60.0, "undone");
    events.truncate(events.len() - 1);
    let r = run_ui(&scene, &script("spot", events));
    assert_eq!(f(&light(&r)["intensity"]), 80.0);

    // An outer cone inside the inner one is refused, saying why.
    let r = run_ui(&scene, &script("spot", type_into(&spot, "light.outer_cone_deg", "5")));
    assert_eq!(f(&light(&r)["outer_cone_deg"]), 30.0);
    assert!(r.trace.last().unwrap()["ui"].to_string().contains("cone angles"), "{}", r.trace.last().unwrap()["ui"]);
    let r = run_ui(&scene, &script("spot", type_into(&spot, "light.outer_cone_deg", "40")));
    assert_eq!(f(&light(&r)["outer_cone_deg"]), 40.0);

    // The "infinite" box, then the Point button; undo takes back one each.
    let mut events = click_at(control(&spot, "light.range_infinite"));
    events.extend(click_at(control(&spot, "light.type.point")));
    let r = run_ui(&scene, &script("spot", events.clone()));
    assert_eq!((light(&r)["range"].clone(), light(&r)["type"].clone()), (Value::Null, json!("point")));
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    let r = run_ui(&scene, &script("spot", events));
    assert_eq!((light(&r)["range"].clone(), light(&r)["type"].clone()), (Value::Null, json!("spot")));

    // The camera: field of view, then an infinite far plane.
    let shot = layout("shot");
    let mut events = type_into(&shot, "camera.fov_y_deg", "35");
    events.extend(click_at(control(&shot, "camera.far_infinite")));
    let r = run_ui(&scene, &script("shot", events.clone()));
    let cam = &object(&r.scene, "shot")["camera"];
    assert_eq!((f(&cam["fov_y_deg"]), cam["far"].clone()), (35.0, Value::Null));
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    let r = run_ui(&scene, &script("shot", events));
    let cam = &object(&r.scene, "shot")["camera"];
    assert_eq!((f(&cam["fov_y_deg"]), f(&cam["far"])), (35.0, 80.0));
    // A field of view of 180 degrees is refused as the file's rule says.
    let r = run_ui(&scene, &script("shot", type_into(&shot, "camera.fov_y_deg", "180")));
    assert_eq!(f(&object(&r.scene, "shot")["camera"]["fov_y_deg"]), 50.0);
}

/// Light and camera objects are drawn with an icon, picked by a click
/// within 12 px of its centre (before any surface) and taken by a box
/// holding its centre; a hidden one has none. In a front orthographic view
/// 10 m high at 400x400 a point (x, y) is at (200 + 40 x, 200 - 40 y).
#[test]
fn light_and_camera_icons_are_drawn_clicked_and_boxed() {
    use crate::support::replay::{run, screenshot};
    let scene = |lamp_hidden: bool, with_camera: bool| {
        let mut objects = vec![
            json!({ "name": "box", "mesh": "cube", "position": [-3, 0, 0] }),
            json!({ "name": "lamp", "mesh": null, "position": [2, 1, 0], "hidden": lamp_hidden,
                    "light": { "type": "point", "intensity": 5 } }),
        ];
        if with_camera {
            objects.push(json!({ "name": "shot", "mesh": null, "position": [-1, -3, 0], "camera": {} }));
        }
        json!({ "camera": { "eye": [0, 0, 10], "target": [0, 0, 0], "projection": "orthographic", "height": 10 },
                "objects": objects })
    };
    let click = |x: f64, y: f64| {
        vec![json!({ "mouse_move": [x, y] }), json!({ "mouse_down": "left" }), json!({ "mouse_up": "left" })]
    };
    let drag = |a: [f64; 2], b: [f64; 2]| {
        vec![
            json!({ "mouse_move": a }),
            json!({ "mouse_down": "left" }),
            json!({ "mouse_move": [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0] }),
            json!({ "mouse_move": b }),
            json!({ "mouse_up": "left" }),
        ]
    };
    let (lamp, shot) = ([280.0, 160.0], [160.0, 320.0]);
    // (15 px off first: once the lamp is selected its gizmo is there.)
    let mut events = click(lamp[0] + 15.0, lamp[1]); // 15 px off: nothing
    events.extend(click(lamp[0] + 5.0, lamp[1] + 4.0)); // 6.4 px off: the lamp
    events.extend(click(shot[0], shot[1])); // the camera
    events.extend(click(80.0, 200.0)); // the cube's surface
    events.extend(drag([250.0, 130.0], [310.0, 190.0])); // the lamp's centre alone
    events.extend(drag([40.0, 130.0], [300.0, 340.0])); // all three
    let r = run(&scene(false, true), &json!({ "size": [400, 400], "events": events }));
    let sel = |k: usize| r.trace[k]["selection"].clone();
    assert_eq!(sel(2), json!([]));
    assert_eq!(sel(5), json!(["lamp"]));
    assert_eq!(sel(8), json!(["shot"]));
    assert_eq!(sel(11), json!(["box"]));
    assert_eq!(sel(16), json!(["lamp"]));
    let mut all: Vec<String> = serde_json::from_value(sel(21)).unwrap();
    all.sort();
    assert_eq!(all, ["box", "lamp", "shot"]);
    // A hidden light has no icon to click or box.
    let mut events = click(lamp[0], lamp[1]);
    events.extend(drag([250.0, 130.0], [310.0, 190.0]));
    let r = run(&scene(true, true), &json!({ "size": [400, 400], "events": events }));
    assert_eq!((r.trace[2]["selection"].clone(), r.trace[7]["selection"].clone()), (json!([]), json!([])));
    // The camera's icon is drawn about its centre (within 24 px) and
    // nowhere else: the picture with the camera object against the one
    // without.
    let script = json!({ "size": [400, 400], "events": [] });
    let (with, without) =
        (screenshot(&scene(false, true), &script, &[]), screenshot(&scene(false, false), &script, &[]));
    let (mut near, mut far) = (0, 0);
    for y in 0..400u32 {
        for x in 0..400u32 {
            let k = 4 * (y * 400 + x) as usize;
            if with.data[k..k + 3] != without.data[k..k + 3] {
                let d = ((x as f64 + 0.5 - shot[0]).powi(2) + (y as f64 + 0.5 - shot[1]).powi(2)).sqrt();
                if d <= 24.0 {
                    near += 1;
                } else {
                    far += 1;
                }
            }
        }
    }
    assert!(near > 30 && far == 0, "{near} pixels of the icon about its centre, {far} elsewhere");
}

/// Past the eight lights a frame takes, the lights nearest the camera win:
/// a strong lamp near the cube, last in scene order after eight weak far
/// ones, still lights it (the picture is brighter there than without it).
#[test]
fn past_the_limit_the_lights_nearest_the_camera_light_the_frame() {
    use crate::support::replay::screenshot;
    let scene = |near: bool| {
        let mut objects = vec![json!({ "name": "box", "mesh": "cube" })];
        for k in 0..8 {
            objects.push(json!({ "name": format!("far{k}"), "mesh": null, "position": [100 + k, 50, 100],
                                 "light": { "type": "point", "intensity": 1 } }));
        }
        if near {
            objects.push(json!({ "name": "near", "mesh": null, "position": [0, 1.5, 2],
                                 "light": { "type": "point", "intensity": 40 } }));
        }
        json!({ "camera": { "eye": [0, 1, 6], "target": [0, 0, 0] }, "objects": objects })
    };
    let script = json!({ "size": [160, 120], "events": [] });
    let (lit, unlit) = (screenshot(&scene(true), &script, &[]), screenshot(&scene(false), &script, &[]));
    let (a, b) = (brightness(&lit, 80, 62, 3), brightness(&unlit, 80, 62, 3));
    assert!(a > 1.3 * b + 10.0, "the near lamp lights the cube: {a} against {b}");
}

/// A flat 4 x 2 Radiance file of constant radiance `l` (RGBE: mantissa
/// 128 with exponent 128 + k holds 2^(k-1)... written for l = 0.5).
fn write_half_hdr(path: &std::path::Path) {
    let mut bytes = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 4\n".to_vec();
    // 128 x 2^(128 - 136) = 0.5.
    for _ in 0..8 {
        bytes.extend_from_slice(&[128, 128, 128, 128]);
    }
    std::fs::write(path, bytes).unwrap();
}

/// The scene file's `lighting` object (`docs/spec/lights.md`, "The
/// environment behind the scene"): read with the scene (a `.hdr` path
/// from the scene's folder), changed by script `lighting` events one undo
/// step each, saved whole with the path rewritten from the new file's
/// folder, and read back as it was saved.
#[test]
fn the_scene_files_lighting_is_read_changed_undone_and_saved() {
    let dir = tempfile::tempdir().unwrap();
    write_half_hdr(&dir.path().join("half.hdr"));
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let scene = json!({
        "lighting": { "environment": "half.hdr", "background": "environment", "background_blur": 0.25,
                      "environment_rotation_deg": 30, "exposure_ev": -0.5 },
        "objects": [{ "name": "box", "mesh": "cube" }]
    });
    let scene_path = write_file(dir.path(), "lit.json", &scene.to_string());
    let script = json!({ "events": [
        { "lighting": { "environment_rotation_deg": 90 } },
        { "lighting": { "background": [0.1, 0.2, 0.3], "environment": "uniform" } },
        { "key_down": "Z", "mods": ["ctrl"] },
        { "key_down": "Z", "mods": ["ctrl"] },
        { "key_down": "Z", "mods": ["ctrl", "shift"] },
    ] });
    let script_path = write_file(dir.path(), "s.json", &script.to_string());
    let (trace_path, out_path) = (dir.path().join("trace.jsonl"), dir.path().join("sub/out.json"));
    let out = viewport_cli(&[
        &scene_path,
        "--headless",
        "--no-ui",
        "--size",
        "64x48",
        "--replay",
        &script_path,
        "--trace",
        trace_path.to_str().unwrap(),
        "--save-scene",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace: Vec<Value> =
        std::fs::read_to_string(&trace_path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let l = |k: usize| trace[k]["lighting"].clone();
    let hdr = std::fs::canonicalize(dir.path().join("half.hdr")).unwrap();
    assert_eq!(l(0)["environment"], json!(hdr.to_str().unwrap()), "{}", l(0));
    assert_eq!((f(&l(0)["environment_rotation_deg"]), f(&l(0)["exposure_ev"])), (90.0, -0.5));
    assert_eq!((l(0)["background"].clone(), f(&l(0)["background_blur"])), (json!("environment"), 0.25));
    assert_eq!(l(1)["environment"], "uniform");
    assert!(close(vec3_of(&l(1)["background"]), [0.1, 0.2, 0.3], 1e-6), "{}", l(1));
    // Each event was one step: the first undo takes the background and
    // environment back, the second the turn; redo gives the turn again.
    assert_eq!(
        (l(2)["background"].clone(), l(2)["environment"].clone()),
        (json!("environment"), l(0)["environment"].clone())
    );
    assert_eq!(f(&l(2)["environment_rotation_deg"]), 90.0);
    assert_eq!(f(&l(3)["environment_rotation_deg"]), 30.0);
    assert_eq!(f(&l(4)["environment_rotation_deg"]), 90.0);
    // Saved in sub/: every field, the file's path from there.
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    let saved = &s["lighting"];
    assert_eq!(saved["environment"], "../half.hdr", "{saved}");
    assert_eq!((f(&saved["environment_rotation_deg"]), f(&saved["exposure_ev"])), (90.0, -0.5));
    for field in
        ["shading", "environment_color", "environment_intensity", "sun", "tone_mapping", "grid", "scene_lights"]
    {
        assert!(saved.get(field).is_some(), "{field} written: {saved}");
    }
    // Opened again (no script), it saves the same object.
    let again = saved_to(&out_path, &dir.path().join("sub/again.json"));
    assert_eq!(&again["lighting"], saved);
    // A scene without a lighting object saves none.
    let plain = write_file(dir.path(), "plain.json", &json!({ "objects": [] }).to_string());
    assert!(saved_to(std::path::Path::new(&plain), &dir.path().join("plain-out.json")).get("lighting").is_none());
}

/// Opens `scene` headless and saves it to `out`; returns the saved file.
fn saved_to(scene: &std::path::Path, out: &std::path::Path) -> Value {
    let o = viewport_cli(&[
        scene.to_str().unwrap(),
        "--headless",
        "--no-ui",
        "--size",
        "32x24",
        "--save-scene",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

fn vec3_of(v: &Value) -> [f64; 3] {
    let a: Vec<f64> = v.as_array().unwrap_or_else(|| panic!("not an array: {v}")).iter().map(f).collect();
    [a[0], a[1], a[2]]
}

#[test]
fn bad_lighting_values_in_a_scene_file_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for (lighting, needle) in [
        (json!({ "background": "sky" }), "lighting.background"),
        (json!({ "background_blur": 2 }), "lighting.background_blur"),
        (json!({ "environment_rotation_deg": "left" }), "invalid type"),
        (json!({ "environment": "missing.hdr" }), "lighting.environment"),
        (json!({ "sunlight": 1 }), "unknown field `sunlight`"),
    ] {
        let scene = json!({ "lighting": lighting, "objects": [] });
        let path = write_file(dir.path(), "bad.json", &scene.to_string());
        let out = viewport_cli(&[&path, "--headless", "--no-ui", "--size", "32x24"]);
        assert_bad_input(&out, needle);
    }
}

/// The toolbar's World menu: the environments it lists (`assets/sky.hdr`
/// among them), the background switch, each choice one undo step.
#[test]
fn the_world_menu_chooses_the_environment_and_the_background_one_undo_step_each() {
    use crate::support::replay::run_ui;
    let scene = json!({ "objects": [{ "name": "box", "mesh": "cube" }] });
    let size = json!([1400, 700]);
    // The button first, to lay out the menu and find its rows.
    let open = run_ui(&scene, &json!({ "size": size, "events": [{ "mouse_move": [1, 300] }] }));
    let mut events = click_at(control(&open.trace[0], "environment"));
    // (Its first pass lays the menu out narrower than it settles.)
    events.push(json!({ "mouse_move": [1, 300] }));
    let menu = run_ui(&scene, &json!({ "size": size, "events": events.clone() }));
    let shown = &menu.trace[3];
    events.extend(click_at(control(shown, "environment.uniform")));
    events.extend(click_at(control(shown, "environment.file0")));
    events.extend(click_at(control(shown, "environment.background")));
    events.push(json!({ "mouse_move": [700, 400] }));
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    events.push(json!({ "key_down": "Z", "mods": ["ctrl"] }));
    let r = run_ui(&scene, &json!({ "size": size, "events": events }));
    let l = |k: usize| r.trace[k]["lighting"].clone();
    assert_eq!(l(3)["environment"], "studio");
    assert_eq!(l(6)["environment"], "uniform", "{}", l(6));
    let sky = l(9)["environment"].as_str().unwrap().to_string();
    assert!(sky.ends_with("sky.hdr"), "{sky}");
    assert_eq!(l(9)["background"], Value::Null);
    assert_eq!(l(12)["background"], "environment", "{}", l(12));
    // Undo: the background, then the file.
    assert_eq!((l(14)["background"].clone(), l(14)["environment"].clone()), (Value::Null, json!(sky)));
    assert_eq!(l(15)["environment"], "uniform");
}

/// A camera object whose `aspect` is set, looked through in a view of
/// another shape: its frame (the largest of that aspect, centred) shows
/// exactly the camera's own view (the picture a script camera of its
/// values draws at the frame's size), and the rest of the view is darkened.
#[test]
fn a_camera_with_its_own_aspect_is_framed_and_the_rest_darkened() {
    use crate::support::replay::screenshot;
    use crate::support::textured::to_srgb;
    let objects = json!([
        { "name": "box", "mesh": "cube", "position": [0, 1, 0] },
        { "name": "ball", "mesh": "sphere", "position": [2.5, 1, -2] },
        { "name": "square", "mesh": null, "position": [0, 2, 8], "camera": { "fov_y_deg": 40, "aspect": 1.0 } }
    ]);
    let scene = json!({ "camera": { "eye": [6, 4, 8], "target": [0, 0, 0] }, "objects": objects });
    let l = json!({ "grid": false });
    let through = screenshot(
        &scene,
        &json!({ "size": [320, 240], "lighting": l, "select": ["square"],
        "events": [{ "key_down": "Numpad0" }] }),
        &[],
    );
    let mut direct = scene.clone();
    direct["camera"] = json!({ "eye": [0, 2, 8], "target": [0, 2, -2], "fov_y_deg": 40 });
    let want = screenshot(&direct, &json!({ "size": [240, 240], "lighting": l, "events": [] }), &[]);
    // The frame: x from 40 to 280.
    let mut differ = 0;
    for y in 0..240 {
        for x in 0..240 {
            let (a, b) = (through.pixel(x + 40, y), want.pixel(x, y));
            if (0..3).any(|c| (i32::from(a[c]) - i32::from(b[c])).abs() > 2) {
                differ += 1;
            }
        }
    }
    assert!(differ < 60, "{differ} of 57600 frame pixels differ from the camera's own picture");
    // Outside: the background at 45 % (blended in linear light).
    let bg = [0.035, 0.04, 0.05];
    for (x, y) in [(5, 5), (20, 200), (300, 100), (319, 239)] {
        let got = through.pixel(x, y);
        for c in 0..3 {
            let dark = i32::from(to_srgb(bg[c] * 0.45));
            assert!((i32::from(got[c]) - dark).abs() <= 1, "({x}, {y}): {got:?}, want {dark}");
        }
    }
    let inside = through.pixel(45, 3);
    assert!((i32::from(inside[0]) - i32::from(to_srgb(bg[0]))).abs() <= 1, "{inside:?}");
}
