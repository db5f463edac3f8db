//! Export to glTF (`docs/spec/roundtrip.md`, "Export") through the real
//! binary: the written file is read back here with the `gltf` crate and
//! compared with the scene file it came from, then opened by the viewport,
//! which must show the same objects and the same picture.

use crate::support::cli::{assert_bad_input, viewport_cli, write_file};
use crate::support::image::read_png;

use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use serde_json::{json, Value};
use std::path::Path;

/// The demo's objects, an empty with a child, and a scaled child of a
/// rotated parent: names, hierarchy, every transform field and colours.
fn scene_json() -> Value {
    json!({
        "camera": { "eye": [6, 4, 8], "target": [0, 0.5, 0], "up": [0, 1, 0], "fov_y_deg": 50, "near": 0.05, "far": 1000 },
        "objects": [
            { "name": "crate", "mesh": "cube", "position": [0, 0.5, 0], "color": [0.8, 0.5, 0.2] },
            { "name": "ball", "mesh": "sphere", "position": [2.2, 0.5, -1.0], "color": [0.15, 0.45, 0.9] },
            { "name": "arm", "mesh": "cube", "position": [1.5, 0.25, 2.0],
              "rotation": [0, 0.3826834, 0, 0.9238795], "scale": [2.0, 0.5, 0.5], "color": [0.6, 0.6, 0.65] },
            { "name": "tip", "mesh": "cone", "parent": "arm", "position": [0.5, 1.5, 0],
              "scale": [0.5, 2.0, 2.0], "color": [0.9, 0.15, 0.15] },
            { "name": "pivot", "mesh": null, "position": [-2, 0, 0] },
            { "name": "ring", "mesh": "torus", "parent": "pivot", "position": [0.5, 0.15, 2.0], "color": [0.85, 0.8, 0.1] },
            { "name": "crate2", "mesh": "cube", "position": [-1, 0.5, -2], "color": [0.8, 0.5, 0.2] }
        ]
    })
}

/// A script that only sets the camera the screenshots share.
fn camera_script(dir: &Path) -> String {
    let script = json!({ "camera": scene_json()["camera"], "events": [] });
    write_file(dir, "camera.json", &script.to_string())
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn vec3(v: Option<&Value>, default: [f64; 3]) -> Vector3<f64> {
    v.map_or(Vector3::from(default), |v| Vector3::new(f(&v[0]), f(&v[1]), f(&v[2])))
}

fn quat(v: Option<&Value>) -> UnitQuaternion<f64> {
    v.map_or(UnitQuaternion::identity(), |v| {
        UnitQuaternion::from_quaternion(Quaternion::new(f(&v[3]), f(&v[0]), f(&v[1]), f(&v[2])))
    })
}

/// The largest difference of any channel between two screenshots.
fn max_diff(a: &Path, b: &Path) -> u8 {
    let (a, b) = (read_png(a), read_png(b));
    assert_eq!((a.width, a.height), (b.width, b.height));
    a.data.iter().zip(&b.data).map(|(x, y)| x.abs_diff(*y)).max().unwrap()
}

/// A 320x180 headless run of `input` in `depth` mode through `script`, with
/// validation, a screenshot to `shot` and `extra` arguments.
fn shot_run(input: &str, depth: &str, script: &str, shot: &Path, extra: &[&str]) -> std::process::Output {
    let size_depth =
        ["--size", "320x180", "--depth", depth, "--replay", script, "--screenshot", shot.to_str().unwrap()];
    let args: Vec<&str> =
        [input, "--headless", "--validation"].into_iter().chain(size_depth).chain(extra.iter().copied()).collect();
    viewport_cli(&args)
}

#[test]
fn an_exported_scene_holds_its_objects_and_reopens_with_the_same_picture() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write_file(dir.path(), "scene.json", &scene_json().to_string());
    let script = camera_script(dir.path());
    for ext in ["glb", "gltf"] {
        let out = dir.path().join(format!("out.{ext}"));
        for depth in ["reversed", "standard"] {
            let shot = dir.path().join(format!("scene-{depth}.png"));
            let run = shot_run(&scene, depth, &script, &shot, &["--export", out.to_str().unwrap()]);
            assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
            assert!(!String::from_utf8_lossy(&run.stderr).contains("warning"), "primitives export without warnings");
        }
        if ext == "gltf" {
            assert!(dir.path().join("out.bin").exists(), "the .gltf's buffer is written beside it");
        }

        // Read back with the gltf crate: nodes in scene order, names,
        // children, TRS, meshes and colours as the scene file says.
        let (doc, buffers, _) = gltf::import(&out).unwrap();
        let objects = scene_json()["objects"].as_array().unwrap().clone();
        let nodes: Vec<gltf::Node> = doc.nodes().collect();
        assert_eq!(nodes.len(), objects.len());
        let index_of = |name: &str| objects.iter().position(|o| o["name"] == name).unwrap();
        for (node, o) in nodes.iter().zip(&objects) {
            assert_eq!(node.name(), o["name"].as_str());
            let (t, r, s) = node.transform().decomposed();
            let (t, s) = (Vector3::new(t[0], t[1], t[2]).cast::<f64>(), Vector3::new(s[0], s[1], s[2]).cast::<f64>());
            let r = UnitQuaternion::from_quaternion(Quaternion::new(r[3], r[0], r[1], r[2]).cast::<f64>());
            assert!((t - vec3(o.get("position"), [0.0; 3])).norm() < 1e-6, "{:?}", o["name"]);
            assert!((s - vec3(o.get("scale"), [1.0; 3])).norm() < 1e-6, "{:?}", o["name"]);
            assert!(r.angle_to(&quat(o.get("rotation"))) < 1e-6, "{:?}", o["name"]);
            let children: Vec<usize> = node.children().map(|c| c.index()).collect();
            let expected: Vec<usize> = (0..objects.len())
                .filter(|&c| objects[c].get("parent").is_some_and(|p| index_of(p.as_str().unwrap()) == node.index()))
                .collect();
            assert_eq!(children, expected, "{:?}", o["name"]);
            match (node.mesh(), o["mesh"].as_str()) {
                (None, None) => {}
                (Some(mesh), Some(_)) => {
                    let p = mesh.primitives().next().unwrap();
                    let color = p.material().pbr_metallic_roughness().base_color_factor();
                    let want = o["color"].as_array().unwrap();
                    for k in 0..3 {
                        assert!((color[k] as f64 - f(&want[k])).abs() < 1e-6);
                    }
                    let reader = p.reader(|b| Some(&buffers[b.index()]));
                    let triangles = reader.read_indices().unwrap().into_u32().count() / 3;
                    assert!(triangles >= 12, "{:?}: {triangles} triangles", o["name"]);
                }
                other => panic!("{:?}: {other:?}", o["name"]),
            }
        }
        // The two crates share their mesh and material; roots are the
        // objects without a parent.
        assert_eq!(nodes[0].mesh().unwrap().index(), nodes[6].mesh().unwrap().index());
        let roots: Vec<usize> = doc.default_scene().unwrap().nodes().map(|n| n.index()).collect();
        assert_eq!(roots, vec![0, 1, 2, 4, 6]);
        assert!(doc.extensions_used().next().is_none());

        // The viewport opens it: the same objects and parents, the same
        // picture in both depth modes.
        for depth in ["reversed", "standard"] {
            let shot = dir.path().join(format!("reopened-{ext}-{depth}.png"));
            let saved = dir.path().join(format!("reopened-{ext}.json"));
            let run =
                shot_run(out.to_str().unwrap(), depth, &script, &shot, &["--save-scene", saved.to_str().unwrap()]);
            assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
            let diff = max_diff(&dir.path().join(format!("scene-{depth}.png")), &shot);
            assert!(diff <= 2, "{ext}, {depth}: pixels differ by {diff} levels");
            let reopened: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
            let names: Vec<&str> =
                reopened["objects"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap()).collect();
            let want: Vec<&str> = objects.iter().map(|o| o["name"].as_str().unwrap()).collect();
            assert_eq!(names, want);
            for (a, b) in reopened["objects"].as_array().unwrap().iter().zip(&objects) {
                let parent = |o: &Value| o.get("parent").filter(|p| !p.is_null()).cloned();
                assert_eq!(parent(a), parent(b), "{:?}", b["name"]);
            }
        }
    }
}

#[test]
fn a_bad_export_path_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &Path| viewport_cli(&["--headless", "--size", "64x64", "--export", out.to_str().unwrap()]);
    let listing = |d: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name()).collect();
        v.sort();
        v
    };

    // Another extension: refused before anything is opened.
    let obj = dir.path().join("out.obj");
    assert_bad_input(&run(&obj), "must end in .glb or .gltf");
    assert!(listing(dir.path()).is_empty());

    // A folder that does not exist.
    let missing = dir.path().join("nothere").join("out.glb");
    assert_bad_input(&run(&missing), "nothere");
    assert!(listing(dir.path()).is_empty());

    // A read-only file stays as it was.
    let ro = dir.path().join("ro.gltf");
    std::fs::write(&ro, "keep").unwrap();
    let mut perm = std::fs::metadata(&ro).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&ro, perm).unwrap();
    assert_bad_input(&run(&ro), "read-only");
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), "keep");
    assert_eq!(listing(dir.path()), vec![std::ffi::OsString::from("ro.gltf")]);
}

#[test]
fn a_script_exports_the_selection_with_its_descendants_where_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write_file(dir.path(), "scene.json", &scene_json().to_string());
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let script = json!({
        "select": ["arm", "ring"],
        "events": [{"export": "out/sel.glb", "selection": true}, {"export": "out/all.gltf"}]
    });
    let script = write_file(dir.path(), "script.json", &script.to_string());
    let run = viewport_cli(&[&scene, "--headless", "--size", "64x64", "--replay", &script]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));

    let (doc, _, _) = gltf::import(dir.path().join("out/sel.glb")).unwrap();
    let names: Vec<&str> = doc.nodes().map(|n| n.name().unwrap()).collect();
    assert_eq!(names, vec!["arm", "tip", "ring"]);
    let roots: Vec<&str> = doc.default_scene().unwrap().nodes().map(|n| n.name().unwrap()).collect();
    assert_eq!(roots, vec!["arm", "ring"]);
    // The ring's parent (pivot at x = -2) stayed behind: the ring is a root
    // where it was in the world.
    let ring = doc.nodes().nth(2).unwrap();
    let t = Vector3::from(ring.transform().decomposed().0).cast::<f64>();
    assert!((t - Vector3::new(-1.5, 0.15, 2.0)).norm() < 1e-6, "{t:?}");

    let (doc, _, _) = gltf::import(dir.path().join("out/all.gltf")).unwrap();
    assert_eq!(doc.nodes().count(), 7);

    // Another extension in a script: refused before anything runs.
    let bad = write_file(dir.path(), "bad.json", r#"{"events": [{"frame": 1}, {"export": "x.obj"}]}"#);
    assert_bad_input(&viewport_cli(&[&scene, "--headless", "--replay", &bad]), "event 1");
    assert!(!dir.path().join("x.obj").exists());
}

/// A glTF file opened and exported: its meshes, materials (an extension
/// included), samplers and texture image are copied as they are in the
/// file: the image bytes are identical, the accessors' data the same, and
/// the export opens to the same picture. An object colour other than white
/// multiplies a copy of the material's base colour.
#[test]
fn a_gltf_file_exports_its_meshes_materials_and_images_as_they_are() {
    use crate::support::textured::{lit, quadrants, unlit, Doc, Image, ImageAt, Quad};
    let dir = tempfile::tempdir().unwrap();
    let png = quadrants(8, [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 255]]);
    let doc = Doc {
        quads: vec![Quad::new([-1.1, 0.0, 0.0], 1.0, Some(0)), Quad::new([1.1, 0.0, 0.0], 1.0, Some(1))],
        materials: vec![unlit([1.0; 4], Some((0, 0))), lit([0.2, 0.6, 0.9, 1.0], None)],
        textures: vec![json!({"source": 0, "sampler": 0})],
        samplers: vec![json!({"magFilter": 9728, "minFilter": 9728})],
        images: vec![Image { bytes: Some(png.clone()), at: ImageAt::File("tex.png".into()) }],
        lights: vec![],
    };
    let source = doc.write(dir.path(), "quads.gltf");
    let src = source.to_str().unwrap();
    let script =
        json!({ "camera": { "eye": [0, 0, 4], "target": [0, 0, 0], "up": [0, 1, 0], "fov_y_deg": 60 }, "events": [] });
    let script = write_file(dir.path(), "camera.json", &script.to_string());
    let shot = |input: &str, png: &str| {
        let out = dir.path().join(png);
        let run = viewport_cli(&[
            input,
            "--headless",
            "--validation",
            "--size",
            "320x180",
            "--replay",
            &script,
            "--screenshot",
            out.to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        out
    };
    let out = dir.path().join("out.glb");
    let run = viewport_cli(&[src, "--headless", "--size", "64x64", "--export", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(!String::from_utf8_lossy(&run.stderr).contains("warning"), "{}", String::from_utf8_lossy(&run.stderr));

    let (a, a_buffers, _) = gltf::import(&source).unwrap();
    let (b, b_buffers, _) = gltf::import(&out).unwrap();
    // The image's bytes, unchanged (never decoded and encoded again).
    let image = b.images().next().unwrap();
    let gltf::image::Source::View { view, mime_type } = image.source() else { panic!("embedded in the .glb") };
    assert_eq!(mime_type, "image/png");
    assert_eq!(&b_buffers[view.buffer().index()][view.offset()..view.offset() + view.length()], &png[..]);
    // Meshes and their accessors' data, materials and the sampler.
    assert_eq!(a.meshes().count(), b.meshes().count());
    for (ma, mb) in a.meshes().zip(b.meshes()) {
        for (pa, pb) in ma.primitives().zip(mb.primitives()) {
            let (ra, rb) = (pa.reader(|x| Some(&a_buffers[x.index()])), pb.reader(|x| Some(&b_buffers[x.index()])));
            assert_eq!(
                ra.read_positions().unwrap().collect::<Vec<_>>(),
                rb.read_positions().unwrap().collect::<Vec<_>>()
            );
            let uv_a = ra.read_tex_coords(0).map(|t| t.into_f32().collect::<Vec<_>>());
            let uv_b = rb.read_tex_coords(0).map(|t| t.into_f32().collect::<Vec<_>>());
            assert_eq!(uv_a, uv_b);
            assert_eq!(
                ra.read_indices().map(|i| i.into_u32().collect::<Vec<_>>()),
                rb.read_indices().map(|i| i.into_u32().collect::<Vec<_>>())
            );
            let (xa, xb) = (pa.material(), pb.material());
            assert_eq!(
                xa.pbr_metallic_roughness().base_color_factor(),
                xb.pbr_metallic_roughness().base_color_factor()
            );
            assert_eq!(xa.unlit(), xb.unlit());
            assert_eq!(
                xa.pbr_metallic_roughness().base_color_texture().is_some(),
                xb.pbr_metallic_roughness().base_color_texture().is_some()
            );
        }
    }
    // As a .gltf: the image is a side file with the same bytes.
    let out_gltf = dir.path().join("side.gltf");
    let run = viewport_cli(&[src, "--headless", "--size", "64x64", "--export", out_gltf.to_str().unwrap()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let (g, _, _) = gltf::import(&out_gltf).unwrap();
    let gltf::image::Source::Uri { uri, .. } = g.images().next().unwrap().source() else { panic!("a side file") };
    assert_eq!(uri, "side_0.png");
    assert_eq!(std::fs::read(dir.path().join("side_0.png")).unwrap(), png);
    let sampler = b.textures().next().unwrap().sampler();
    assert_eq!(sampler.mag_filter(), Some(gltf::texture::MagFilter::Nearest));
    let used: Vec<&str> = b.extensions_used().collect();
    assert_eq!(used, vec!["KHR_materials_unlit"]);
    // The same picture.
    let diff = max_diff(&shot(src, "source.png"), &shot(out.to_str().unwrap(), "export.png"));
    assert!(diff <= 2, "pixels differ by {diff} levels");

    // A scene using the lit quad's mesh with a colour: the copy's factor is
    // the product; the file's material itself is unchanged in a white use.
    let scene = json!({"objects": [
        {"name": "tinted", "mesh": format!("{src}#1"), "color": [0.5, 0.5, 1.0]},
        {"name": "plain", "mesh": format!("{src}#1"), "position": [0, 2, 0], "color": [1, 1, 1]}
    ]});
    let scene = write_file(dir.path(), "scene.json", &scene.to_string());
    let out = dir.path().join("tinted.gltf");
    let run = viewport_cli(&[&scene, "--headless", "--size", "64x64", "--export", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let (c, _, _) = gltf::import(&out).unwrap();
    let factor = |n: usize| {
        c.nodes()
            .nth(n)
            .unwrap()
            .mesh()
            .unwrap()
            .primitives()
            .next()
            .unwrap()
            .material()
            .pbr_metallic_roughness()
            .base_color_factor()
    };
    let (t, p) = (factor(0), factor(1));
    assert!((t[0] - 0.1).abs() < 1e-6 && (t[1] - 0.3).abs() < 1e-6 && (t[2] - 0.9).abs() < 1e-6, "{t:?}");
    assert_eq!(p, [0.2, 0.6, 0.9, 1.0]);
}

/// A scene object's `extras` (any JSON, the user's game data) survive
/// saving, a duplicate, export as the node's glTF `extras`, and reopening
/// the export.
#[test]
fn extras_survive_save_duplicate_export_and_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let extras = json!({"game": {"hp": 3, "tags": ["door", "red"]}, "note": null});
    let scene = json!({"objects": [{"name": "a", "mesh": "cube", "extras": extras}, {"name": "b", "mesh": "sphere"}]});
    let scene = write_file(dir.path(), "scene.json", &scene.to_string());
    let script = json!({"select": ["a"], "events": [{"key_down": "D", "mods": ["ctrl"]}]});
    let script = write_file(dir.path(), "script.json", &script.to_string());
    let (saved, out) = (dir.path().join("saved.json"), dir.path().join("out.glb"));
    let run = viewport_cli(&[
        &scene,
        "--headless",
        "--size",
        "64x64",
        "--replay",
        &script,
        "--save-scene",
        saved.to_str().unwrap(),
        "--export",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let objects = saved["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 3, "a, b and a's copy");
    assert_eq!(objects[0]["extras"], extras);
    assert_eq!(objects[2]["extras"], extras, "the copy keeps them");
    assert!(objects[1].get("extras").is_none());

    let (doc, _, _) = gltf::import(&out).unwrap();
    let node_extras = |n: usize| -> Option<Value> {
        doc.nodes().nth(n).unwrap().extras().as_ref().map(|r| serde_json::from_str(r.get()).unwrap())
    };
    assert_eq!(node_extras(0), Some(extras.clone()));
    assert_eq!(node_extras(1), None);
    assert_eq!(node_extras(2), Some(extras.clone()));

    let again = dir.path().join("again.json");
    let run = viewport_cli(&[
        out.to_str().unwrap(),
        "--headless",
        "--size",
        "64x64",
        "--save-scene",
        again.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let again: Value = serde_json::from_str(&std::fs::read_to_string(&again).unwrap()).unwrap();
    assert_eq!(again["objects"][0]["extras"], extras);
    assert_eq!(again["objects"][2]["extras"], extras);
}

/// Ctrl+E opens the export dialog; its path field takes Ctrl+A and typed
/// text, Enter writes (the selection only when its box is ticked), and
/// Escape closes it without writing.
#[test]
fn the_export_dialog_writes_what_its_field_names() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write_file(dir.path(), "scene.json", &scene_json().to_string());
    let out = dir.path().join("dialog.glb");
    let script = |events: Value| {
        let s = json!({"select": ["arm"], "events": events});
        write_file(dir.path(), "script.json", &s.to_string())
    };
    let ctrl = |k: &str| json!({"key_down": k, "mods": ["ctrl"]});
    let run = |s: &str| {
        let run = viewport_cli(&[
            &scene,
            "--headless",
            "--size",
            "800x450",
            "--replay",
            s,
            "--trace",
            dir.path().join("t.jsonl").to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        String::from_utf8_lossy(&run.stderr).into_owned()
    };

    // Escape closes the dialog: Enter afterwards writes nothing.
    run(&script(
        json!([ctrl("E"), ctrl("A"), {"text": out.to_str().unwrap()}, {"key_down": "Escape"}, {"key_down": "Enter"}]),
    ));
    assert!(!out.exists());

    // The whole scene.
    let stderr = run(&script(json!([ctrl("E"), ctrl("A"), {"text": out.to_str().unwrap()}, {"key_down": "Enter"}])));
    assert!(stderr.contains("exported"), "{stderr}");
    let (doc, _, _) = gltf::import(&out).unwrap();
    assert_eq!(doc.nodes().count(), 7);

    // Selection only: the box, found where the first run's trace says.
    let trace = std::fs::read_to_string(dir.path().join("t.jsonl")).unwrap();
    let first: Value = serde_json::from_str(trace.lines().next().unwrap()).unwrap();
    let r = &first["ui"]["rects"]["export.selection"];
    let (x, y) = (
        (r[0].as_f64().unwrap() + r[2].as_f64().unwrap()) / 2.0,
        (r[1].as_f64().unwrap() + r[3].as_f64().unwrap()) / 2.0,
    );
    let sel = dir.path().join("sel.glb");
    // Ticking and writing in one script: click the box, click into the
    // field, replace its text, Enter.
    let p = &first["ui"]["rects"]["export.path"];
    let (px, py) = (
        (p[0].as_f64().unwrap() + p[2].as_f64().unwrap()) / 2.0,
        (p[1].as_f64().unwrap() + p[3].as_f64().unwrap()) / 2.0,
    );
    run(&script(json!([
        ctrl("E"), {"mouse_move": [x, y]}, {"mouse_down": "left"}, {"mouse_up": "left"},
        {"mouse_move": [px, py]}, {"mouse_down": "left"}, {"mouse_up": "left"},
        ctrl("A"), {"text": sel.to_str().unwrap()}, {"key_down": "Enter"},
    ])));
    let (doc, _, _) = gltf::import(&sel).unwrap();
    let names: Vec<&str> = doc.nodes().map(|n| n.name().unwrap()).collect();
    assert_eq!(names, vec!["arm", "tip"]);
}

/// The export dialog remembers, for the rest of the session, the last path
/// exported to and its "selection only" box, and every path field opens
/// with its text selected, so that typed text replaces it.
#[test]
fn the_export_dialog_starts_with_the_last_path_and_box_and_typing_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write_file(dir.path(), "scene.json", &scene_json().to_string());
    let ctrl = |k: &str| json!({"key_down": k, "mods": ["ctrl"]});
    let run = |events: Value| {
        let script = write_file(dir.path(), "script.json", &json!({"select": ["arm"], "events": events}).to_string());
        let trace = dir.path().join("t.jsonl");
        let run = viewport_cli(&[
            &scene,
            "--headless",
            "--size",
            "800x450",
            "--replay",
            &script,
            "--trace",
            trace.to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let lines: Vec<Value> =
            std::fs::read_to_string(&trace).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        lines
    };
    let centre = |r: &Value| {
        let c = |a: usize, b: usize| (r[a].as_f64().unwrap() + r[b].as_f64().unwrap()) / 2.0;
        [c(0, 2), c(1, 3)]
    };
    let node_names = |p: &Path| {
        let (doc, _, _) = gltf::import(p).unwrap();
        let mut v: Vec<String> = doc.nodes().map(|n| n.name().unwrap().to_string()).collect();
        v.sort();
        v
    };

    // Typing into a freshly opened field replaces the prefilled path
    // (appended, it would name `scene.glb/tmp/...`).
    let typed = dir.path().join("typed.glb");
    run(json!([ctrl("E"), {"text": typed.to_str().unwrap()}, {"key_down": "Enter"}]));
    assert_eq!(node_names(&typed).len(), 7, "the whole scene, at the typed path");

    // Where the box is (the dialog's first pass in the trace).
    let first = run(json!([ctrl("E")]));
    let tick = centre(&first[0]["ui"]["rects"]["export.selection"]);
    let write = centre(&first[0]["ui"]["rects"]["export.write"]);

    // The selection (`arm` with `tip`) to props.glb: the path typed, the
    // box ticked, the button pressed. Then Ctrl+D (the copies `arm.001`,
    // `tip.001` become the selection) and Ctrl+E, Enter alone: the same
    // file, the box still ticked.
    let props = dir.path().join("props.glb");
    let default = dir.path().join("scene.glb");
    run(json!([
        ctrl("E"), {"text": props.to_str().unwrap()},
        {"mouse_move": tick}, {"mouse_down": "left"}, {"mouse_up": "left"},
        {"mouse_move": write}, {"mouse_down": "left"}, {"mouse_up": "left"},
        ctrl("D"),
        ctrl("E"), {"key_down": "Enter"},
    ]));
    assert_eq!(node_names(&props), ["arm.001", "tip.001"], "the second export: the same path, selection only");
    assert!(!default.exists(), "STEM.glb was not written");
}

/// Runs the Khronos glTF-Validator (`tools/gltf-validate.js`) on `file` and
/// fails on any error. It is the npm package that `make check-assets`
/// installs: `GLTF_VALIDATOR_MODULES` names its `node_modules`, else
/// `target/gltf-validator/node_modules` is tried. Without it (or without
/// node) the check is skipped with a note; the callers check the
/// structure themselves as well.
/// Exports `source` headless to `out`: it succeeds, warns of nothing, and
/// the validator passes the file.
pub(crate) fn export_without_warnings(source: &Path, out: &Path) {
    let run =
        viewport_cli(&[source.to_str().unwrap(), "--headless", "--size", "64x64", "--export", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert_valid_gltf(out);
}

fn assert_valid_gltf(file: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let modules = std::env::var_os("GLTF_VALIDATOR_MODULES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target/gltf-validator/node_modules"));
    if !modules.join("gltf-validator").is_dir() {
        eprintln!("note: no glTF-Validator at {}: {} not validated", modules.display(), file.display());
        return;
    }
    let script = root.join("tools").join("gltf-validate.js");
    let out = match std::process::Command::new("node").arg(script).arg(file).env("NODE_PATH", &modules).output() {
        Ok(out) => out,
        Err(e) => {
            eprintln!("note: cannot run node ({e}): {} not validated", file.display());
            return;
        }
    };
    assert!(
        out.status.success(),
        "{}: the validator finds errors: {}{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The node called `name` in `doc`.
fn node_named<'a>(doc: &'a gltf::Document, name: &str) -> gltf::Node<'a> {
    doc.nodes().find(|n| n.name() == Some(name)).unwrap_or_else(|| panic!("no node {name:?}"))
}

/// The names of the nodes a skin's joints are.
fn joint_names(skin: &gltf::Skin<'_>) -> Vec<String> {
    skin.joints().map(|j| j.name().unwrap_or("").to_string()).collect()
}

/// A node's `extras` as JSON.
fn extras_of(node: &gltf::Node<'_>) -> Option<Value> {
    node.extras().as_ref().map(|r| serde_json::from_str(r.get()).unwrap())
}

/// The channels of `animation` as (target node name, path, interpolation,
/// key times, values as f32 rows).
type Channel = (String, gltf::animation::Property, gltf::animation::Interpolation, Vec<f32>, Vec<Vec<f32>>);

fn channels(animation: &gltf::Animation<'_>, buffers: &[gltf::buffer::Data]) -> Vec<Channel> {
    use gltf::animation::util::ReadOutputs;
    animation
        .channels()
        .map(|c| {
            let reader = c.reader(|b| Some(&buffers[b.index()]));
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            let values: Vec<Vec<f32>> = match reader.read_outputs().unwrap() {
                ReadOutputs::Translations(t) => t.map(|v| v.to_vec()).collect(),
                ReadOutputs::Rotations(r) => r.into_f32().map(|v| v.to_vec()).collect(),
                ReadOutputs::Scales(s) => s.map(|v| v.to_vec()).collect(),
                ReadOutputs::MorphTargetWeights(w) => w.into_f32().map(|v| vec![v]).collect(),
            };
            let target = c.target();
            let name = target.node().name().unwrap_or("").to_string();
            (name, target.property(), c.sampler().interpolation(), times, values)
        })
        .collect()
}

fn rows<const N: usize>(v: &[[f32; N]]) -> Vec<Vec<f32>> {
    v.iter().map(|r| r.to_vec()).collect()
}

fn f32_of(v: &Value) -> f32 {
    v.as_f64().unwrap() as f32
}

/// `docs/spec/roundtrip.md`, "Export": a glTF opened and exported keeps its
/// hierarchy, its skin (joints on the joint nodes, the file's inverse bind
/// matrices and skeleton), its animations with their samplers' data, its
/// camera and light on the nodes that had them, and nodes' extras; the
/// file names exactly the extensions it uses and the validator passes it.
/// A selection without the joints writes the mesh without its skin, with a
/// warning.
#[test]
fn an_opened_gltf_exports_its_skin_animations_camera_light_and_extras() {
    use crate::support::rigged::write_rig;
    use gltf::animation::{Interpolation, Property};
    let dir = tempfile::tempdir().unwrap();
    let rig = write_rig(dir.path(), "rig");
    for ext in ["glb", "gltf"] {
        let out = dir.path().join(format!("out.{ext}"));
        export_without_warnings(&rig.path, &out);

        let (doc, buffers, _) = gltf::import(&out).unwrap();
        let names: Vec<&str> = doc.nodes().map(|n| n.name().unwrap()).collect();
        assert_eq!(names, vec!["rig", "strip", "root", "tip", "cam", "lamp"]);
        let children = |name: &str| -> Vec<String> {
            node_named(&doc, name).children().map(|c| c.name().unwrap().to_string()).collect()
        };
        assert_eq!(children("rig"), vec!["strip", "root"]);
        assert_eq!(children("root"), vec!["tip"]);

        // The skin: joints on the joint nodes, the file's matrices.
        let strip = node_named(&doc, "strip");
        let skin = strip.skin().expect("the strip keeps its skin");
        assert_eq!(joint_names(&skin), vec!["root", "tip"]);
        assert_eq!(skin.skeleton().and_then(|s| s.name()), Some("root"));
        let matrices: Vec<[f32; 16]> = skin
            .reader(|b| Some(&buffers[b.index()]))
            .read_inverse_bind_matrices()
            .unwrap()
            .map(|m| std::array::from_fn(|k| m[k / 4][k % 4]))
            .collect();
        assert_eq!(matrices, rig.inverse_bind.to_vec());
        assert_eq!(doc.skins().count(), 1);
        for n in doc.nodes().filter(|n| n.name() != Some("strip")) {
            assert!(n.skin().is_none(), "{:?}", n.name());
        }

        // The animations: their channels on the nodes of the same names,
        // with the data and interpolation written.
        let animations: Vec<gltf::Animation> = doc.animations().collect();
        let animation_names: Vec<Option<&str>> = animations.iter().map(|a| a.name()).collect();
        assert_eq!(animation_names, vec![Some("wave"), Some("blink")]);
        let wave: Vec<Channel> = vec![
            ("root".into(), Property::Translation, Interpolation::Linear, rig.times.clone(), rows(&rig.translations)),
            ("tip".into(), Property::Rotation, Interpolation::Step, rig.times.clone(), rows(&rig.rotations)),
        ];
        assert_eq!(channels(&animations[0], &buffers), wave);
        let blink: Vec<Channel> =
            vec![("lamp".into(), Property::Scale, Interpolation::Linear, rig.blink_times.clone(), rows(&rig.scales))];
        assert_eq!(channels(&animations[1], &buffers), blink);

        // The camera on `cam`, the light on `lamp`, nothing on the others.
        let camera = node_named(&doc, "cam").camera().expect("cam keeps its camera");
        assert_eq!(camera.name(), rig.camera["name"].as_str());
        let gltf::camera::Projection::Perspective(p) = camera.projection() else { panic!("a perspective camera") };
        let want = &rig.camera["perspective"];
        assert_eq!(p.yfov(), f32_of(&want["yfov"]));
        assert_eq!(p.znear(), f32_of(&want["znear"]));
        assert_eq!(p.zfar(), Some(f32_of(&want["zfar"])));
        assert_eq!(p.aspect_ratio(), Some(f32_of(&want["aspectRatio"])));
        let light = node_named(&doc, "lamp").light().expect("lamp keeps its light");
        assert_eq!(light.name(), rig.light["name"].as_str());
        let spot = &rig.light["spot"];
        match light.kind() {
            gltf::khr_lights_punctual::Kind::Spot { inner_cone_angle, outer_cone_angle } => {
                assert_eq!(inner_cone_angle, f32_of(&spot["innerConeAngle"]));
                assert_eq!(outer_cone_angle, f32_of(&spot["outerConeAngle"]));
            }
            _ => panic!("a spot light"),
        }
        let color: Vec<f32> = rig.light["color"].as_array().unwrap().iter().map(f32_of).collect();
        assert_eq!(light.color().to_vec(), color);
        assert_eq!(light.intensity(), f32_of(&rig.light["intensity"]));
        assert_eq!(light.range(), Some(f32_of(&rig.light["range"])));
        assert_eq!(doc.lights().unwrap().count(), 1, "only the light a node uses");
        assert_eq!(doc.cameras().count(), 1);
        for n in doc.nodes() {
            assert_eq!(n.camera().is_some(), n.name() == Some("cam"), "{:?}", n.name());
            assert_eq!(n.light().is_some(), n.name() == Some("lamp"), "{:?}", n.name());
        }
        let used: Vec<&str> = doc.extensions_used().collect();
        assert_eq!(used, vec!["KHR_lights_punctual"]);
        assert!(doc.extensions_required().next().is_none());

        // Extras of nodes.
        assert_eq!(extras_of(&node_named(&doc, "rig")), Some(rig.rig_extras.clone()));
        assert_eq!(extras_of(&node_named(&doc, "lamp")), Some(rig.lamp_extras.clone()));
        assert_eq!(extras_of(&node_named(&doc, "strip")), None);

        // The export opens again with its skin.
        let saved = dir.path().join(format!("again-{ext}.json"));
        let again = viewport_cli(&[
            out.to_str().unwrap(),
            "--headless",
            "--validation",
            "--size",
            "64x64",
            "--save-scene",
            saved.to_str().unwrap(),
        ]);
        assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
        let strip = saved["objects"].as_array().unwrap().iter().find(|o| o["name"] == "strip").unwrap();
        assert_eq!(strip["skin"]["joints"], json!(["root", "tip"]));
    }

    // The strip alone: its joints stay behind, so its skin is left off
    // with a warning, and the file is still valid.
    let script = json!({"select": ["strip"], "events": [{"export": "sel.glb", "selection": true}]});
    let script = write_file(dir.path(), "sel.json", &script.to_string());
    let run = viewport_cli(&[rig.path.to_str().unwrap(), "--headless", "--size", "64x64", "--replay", &script]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("warning") && stderr.contains("skin 0 left out"), "{stderr}");
    let sel = dir.path().join("sel.glb");
    assert_valid_gltf(&sel);
    let (doc, _, _) = gltf::import(&sel).unwrap();
    let names: Vec<&str> = doc.nodes().map(|n| n.name().unwrap()).collect();
    assert_eq!(names, vec!["strip"]);
    assert!(doc.nodes().next().unwrap().mesh().is_some() && doc.skins().count() == 0);
    assert_eq!(doc.animations().count(), 0, "no channel targets the strip");
}

/// Deleting nodes that animations move drops their channels and keeps the
/// others; an animation left without channels is dropped, and a light no
/// longer written leaves `extensionsUsed`. The deleted joint's entry of the
/// skin went to its ancestor joint (`docs/spec/roundtrip.md`, "Every saved
/// file reopens"): the export writes that joint once, with its inverse bind
/// matrix, and the mesh's joint indices and weights follow.
#[test]
fn deleting_animated_nodes_drops_their_channels_from_the_export() {
    use crate::support::rigged::write_rig;
    use gltf::animation::{Interpolation, Property};
    let dir = tempfile::tempdir().unwrap();
    let rig = write_rig(dir.path(), "rig");
    let script = json!({"select": ["tip", "lamp"], "events": [{"key_down": "Delete"}, {"export": "out.glb"}]});
    let script = write_file(dir.path(), "delete.json", &script.to_string());
    let run = viewport_cli(&[rig.path.to_str().unwrap(), "--headless", "--size", "64x64", "--replay", &script]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let out = dir.path().join("out.glb");
    assert_valid_gltf(&out);

    let (doc, buffers, _) = gltf::import(&out).unwrap();
    let names: Vec<&str> = doc.nodes().map(|n| n.name().unwrap()).collect();
    assert_eq!(names, vec!["rig", "strip", "root", "cam"]);
    // `wave` keeps the root's channel with its data; `blink` moved only the
    // lamp and is gone.
    let animations: Vec<gltf::Animation> = doc.animations().collect();
    assert_eq!(animations.len(), 1);
    assert_eq!(animations[0].name(), Some("wave"));
    let wave: Vec<Channel> =
        vec![("root".into(), Property::Translation, Interpolation::Linear, rig.times.clone(), rows(&rig.translations))];
    assert_eq!(channels(&animations[0], &buffers), wave);
    // No light written: no extension named.
    assert!(doc.extensions_used().next().is_none());
    assert!(doc.lights().is_none_or(|mut l| l.next().is_none()));
    assert!(node_named(&doc, "cam").camera().is_some());

    // The skin: root once, with root's matrix; the tip's vertices follow
    // root, the shared row wholly.
    let strip = node_named(&doc, "strip");
    let skin = strip.skin().expect("the strip keeps its skin");
    assert_eq!(joint_names(&skin), vec!["root"]);
    let matrices: Vec<[f32; 16]> = skin
        .reader(|b| Some(&buffers[b.index()]))
        .read_inverse_bind_matrices()
        .unwrap()
        .map(|m| std::array::from_fn(|k| m[k / 4][k % 4]))
        .collect();
    assert_eq!(matrices, vec![rig.inverse_bind[0]]);
    let primitive = strip.mesh().unwrap().primitives().next().unwrap();
    let reader = primitive.reader(|b| Some(&buffers[b.index()]));
    let joints: Vec<[u16; 4]> = reader.read_joints(0).unwrap().into_u16().collect();
    let weights: Vec<[f32; 4]> = reader.read_weights(0).unwrap().into_f32().collect();
    let want_weights: Vec<[f32; 4]> = rig.weights.iter().map(|w| [w.iter().sum(), 0.0, 0.0, 0.0]).collect();
    assert_eq!(joints, vec![[0u16; 4]; rig.joints.len()]);
    assert_eq!(weights, want_weights);
}

/// A whole glTF file used as an object's mesh (a bare path) is written as
/// the file's meshes, copied with their materials and images, on child
/// nodes placed where the file puts them; a second object using the same
/// file shares the meshes. The export opens to the same picture.
#[test]
fn a_whole_file_mesh_exports_as_the_files_meshes_on_child_nodes() {
    use crate::support::textured::{lit, quadrants, unlit, Doc, Image, ImageAt, Quad};
    let dir = tempfile::tempdir().unwrap();
    let png = quadrants(8, [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 0, 255]]);
    let quads = vec![Quad::new([-1.1, 0.0, 0.0], 0.5, Some(0)), Quad::new([1.1, 0.5, 0.0], 0.5, Some(1))];
    let doc = Doc {
        quads: quads.clone(),
        materials: vec![unlit([1.0; 4], Some((0, 0))), lit([0.2, 0.6, 0.9, 1.0], None)],
        textures: vec![json!({"source": 0, "sampler": 0})],
        samplers: vec![json!({"magFilter": 9728, "minFilter": 9728})],
        images: vec![Image { bytes: Some(png.clone()), at: ImageAt::File("tex.png".into()) }],
        lights: vec![],
    };
    doc.write(dir.path(), "quads.gltf");
    let camera = json!({ "eye": [0, 0, 6], "target": [0, 0, 0], "up": [0, 1, 0], "fov_y_deg": 60 });
    let scene = json!({"camera": camera, "objects": [
        {"name": "model", "mesh": "quads.gltf", "position": [0, 1, 0], "color": [1, 1, 1]},
        {"name": "again", "mesh": "quads.gltf", "position": [0, -1, 0], "color": [1, 1, 1]}
    ]});
    let scene = write_file(dir.path(), "scene.json", &scene.to_string());
    let script = write_file(dir.path(), "camera.json", &json!({"camera": camera, "events": []}).to_string());
    let (out, a_png, b_png) = (dir.path().join("out.glb"), dir.path().join("a.png"), dir.path().join("b.png"));
    let shot = |input: &str, png: &Path, extra: &[&str]| {
        let args = [input, "--headless", "--validation", "--no-ui", "--size", "320x180", "--replay", &script];
        let run = viewport_cli(&[&args[..], &["--screenshot", png.to_str().unwrap()], extra].concat());
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert!(run.status.success(), "{stderr}");
        assert!(!stderr.contains("warning"), "{stderr}");
    };
    shot(&scene, &a_png, &["--export", out.to_str().unwrap()]);
    assert_valid_gltf(&out);

    let (b, buffers, _) = gltf::import(&out).unwrap();
    let (a, _, _) = gltf::import(dir.path().join("quads.gltf")).unwrap();
    let names: Vec<&str> = b.nodes().map(|n| n.name().unwrap()).collect();
    assert_eq!(names, vec!["model", "again", "quad0", "quad1", "quad0", "quad1"]);
    let mut meshes_of = Vec::new();
    for object in ["model", "again"] {
        let node = node_named(&b, object);
        assert!(node.mesh().is_none(), "{object}: the meshes are on its children");
        let children: Vec<gltf::Node> = node.children().collect();
        assert_eq!(children.len(), quads.len());
        for ((child, quad), source) in children.iter().zip(&quads).zip(a.nodes()) {
            assert_eq!(child.name(), source.name());
            assert_eq!(child.transform().decomposed().0, quad.translation);
            let (pa, pb) = (
                source.mesh().unwrap().primitives().next().unwrap(),
                child.mesh().unwrap().primitives().next().unwrap(),
            );
            let (ma, mb) = (pa.material(), pb.material());
            assert_eq!(
                ma.pbr_metallic_roughness().base_color_factor(),
                mb.pbr_metallic_roughness().base_color_factor()
            );
            assert_eq!(ma.unlit(), mb.unlit());
            assert_eq!(
                ma.pbr_metallic_roughness().base_color_texture().is_some(),
                mb.pbr_metallic_roughness().base_color_texture().is_some()
            );
        }
        meshes_of.push(children.iter().map(|c| c.mesh().unwrap().index()).collect::<Vec<_>>());
    }
    assert_eq!(meshes_of[0], meshes_of[1], "the two objects share the copied meshes");
    assert_eq!(b.meshes().count(), quads.len());
    let image = b.images().next().unwrap();
    let gltf::image::Source::View { view, .. } = image.source() else { panic!("embedded in the .glb") };
    assert_eq!(&buffers[view.buffer().index()][view.offset()..view.offset() + view.length()], &png[..]);
    let used: Vec<&str> = b.extensions_used().collect();
    assert_eq!(used, vec!["KHR_materials_unlit"]);

    shot(out.to_str().unwrap(), &b_png, &[]);
    let diff = max_diff(&a_png, &b_png);
    assert!(diff <= 2, "pixels differ by {diff} levels");
}

/// A copied mesh whose positions are quantized (normalised bytes) needs
/// `KHR_mesh_quantization`: the export names it as used and required, as
/// its file did; a mesh of floats from the same file does not.
#[test]
fn a_quantized_mesh_is_exported_with_its_extension() {
    let dir = tempfile::tempdir().unwrap();
    // Mesh 0: one triangle of normalised unsigned bytes; mesh 1: floats.
    let bytes: Vec<u8> = [[0u8, 0, 0, 0], [255, 0, 0, 0], [0, 255, 0, 0]].concat();
    let floats: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.].iter().flat_map(|x| x.to_le_bytes()).collect();
    let bin = [bytes, floats].concat();
    let doc = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_mesh_quantization"],
        "extensionsRequired": ["KHR_mesh_quantization"],
        "buffers": [{"byteLength": bin.len(), "uri": "q.bin"}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 12, "byteStride": 4, "target": 34962},
            {"buffer": 0, "byteOffset": 12, "byteLength": 36, "target": 34962}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [255, 255, 0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}, {"primitives": [{"attributes": {"POSITION": 1}}]}],
        "nodes": [{"mesh": 0}, {"mesh": 1}],
        "scenes": [{"nodes": [0, 1]}],
        "scene": 0
    });
    std::fs::write(dir.path().join("q.bin"), &bin).unwrap();
    write_file(dir.path(), "q.gltf", &doc.to_string());
    for (mesh, quantized) in [("q.gltf#0", true), ("q.gltf#1", false), ("q.gltf", true)] {
        let scene = json!({"objects": [{"name": "m", "mesh": mesh}]});
        let scene = write_file(dir.path(), "scene.json", &scene.to_string());
        let out = dir.path().join("out.glb");
        let run = viewport_cli(&[&scene, "--headless", "--size", "32x32", "--export", out.to_str().unwrap()]);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        assert_valid_gltf(&out);
        let bytes = std::fs::read(&out).unwrap();
        let glb = gltf::Glb::from_slice(&bytes).unwrap();
        let json: Value = serde_json::from_slice(&glb.json).unwrap();
        let want = if quantized { json!(["KHR_mesh_quantization"]) } else { Value::Null };
        assert_eq!(json["extensionsUsed"], want, "{mesh}");
        assert_eq!(json["extensionsRequired"], want, "{mesh}");
    }
}

/// Hidden objects are exported too, `"hidden": true` joining their nodes'
/// other extras (`docs/spec/roundtrip.md`): one hidden in the scene file,
/// one hidden by H in the script, one shown.
#[test]
fn hidden_objects_export_with_hidden_in_their_extras() {
    let dir = tempfile::tempdir().unwrap();
    let scene = json!({"objects": [
        {"name": "a", "mesh": "cube", "hidden": true, "extras": {"note": 1}},
        {"name": "b", "mesh": "sphere"},
        {"name": "c", "mesh": "cube", "position": [2, 0, 0]}]});
    let scene = write_file(dir.path(), "scene.json", &scene.to_string());
    let script = json!({"select": ["b"], "events": [{"key_down": "H"}, {"key_up": "H"}]});
    let script = write_file(dir.path(), "script.json", &script.to_string());
    let out = dir.path().join("out.glb");
    let args = [&scene, "--headless", "--size", "64x64", "--replay", &script, "--export", out.to_str().unwrap()];
    let run = viewport_cli(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let (doc, _, _) = gltf::import(&out).unwrap();
    assert_eq!(extras_of(&node_named(&doc, "a")), Some(json!({"note": 1, "hidden": true})));
    assert_eq!(extras_of(&node_named(&doc, "b")), Some(json!({"hidden": true})));
    assert_eq!(extras_of(&node_named(&doc, "c")), None);
}

/// `docs/spec/materials.md`: every texture keeps its own `texCoord` and
/// `KHR_texture_transform` through an export (`.glb` and `.gltf`), not only
/// the base colour texture: the exported texture infos are the source's,
/// `TEXCOORD_1` is written with its data, the extension is declared, and
/// the export reads back to the same per-texture UV sets and transforms
/// (checked against the values written here).
#[test]
fn every_textures_uv_set_and_transform_survive_export() {
    use crate::support::textured::{png_rgba, Doc, Image, ImageAt, Quad};
    use viewport::scene::gltf::GltfFile;
    use viewport::scene::material::{UvMap, UvTransform};
    let dir = tempfile::tempdir().unwrap();
    let info = |index: usize, set: u32, transform: Option<Value>| {
        let mut v = json!({"index": index, "texCoord": set});
        if let Some(t) = transform {
            v["extensions"] = json!({"KHR_texture_transform": t});
        }
        v
    };
    let mut normal = info(0, 1, Some(json!({"rotation": 0.7, "scale": [2.0, 2.0]})));
    normal["scale"] = json!(0.8);
    let mut occlusion = info(0, 0, Some(json!({"offset": [0.5, 0.0], "texCoord": 1})));
    occlusion["strength"] = json!(0.5);
    let material = json!({
        "pbrMetallicRoughness": {
            "baseColorTexture": info(0, 0, Some(json!({"offset": [0.1, 0.2], "rotation": 0.3, "scale": [2.0, 0.5]}))),
            "metallicRoughnessTexture": info(0, 1, None),
        },
        "emissiveTexture": info(0, 0, Some(json!({"offset": [-0.25, 0.5], "rotation": -1.2, "scale": [1.5, 3.0], "texCoord": 1}))),
        "emissiveFactor": [1.0, 1.0, 1.0],
        "normalTexture": normal,
        "occlusionTexture": occlusion,
    });
    let uv1 = [[0.5, 0.25], [0.75, 0.25], [0.75, 0.5], [0.5, 0.5]];
    let doc = Doc {
        quads: vec![Quad { uv1: Some(uv1), ..Quad::new([0.0; 3], 1.0, Some(0)) }],
        materials: vec![material.clone()],
        textures: vec![json!({"source": 0})],
        samplers: vec![],
        images: vec![Image { bytes: Some(png_rgba(2, 2, &[128; 16])), at: ImageAt::DataUri }],
        lights: vec![],
    };
    let source = doc.write(dir.path(), "uvs.gltf");
    let mut text: Value = serde_json::from_str(&std::fs::read_to_string(&source).unwrap()).unwrap();
    text["extensionsUsed"] = json!(["KHR_texture_transform"]);
    std::fs::write(&source, text.to_string()).unwrap();

    // What the file says, per texture: (texCoord, transform) in the order
    // base colour, metallic-roughness, emissive, occlusion, normal.
    let t = |offset: [f32; 2], rotation: f32, scale: [f32; 2]| Some(UvTransform { offset, rotation, scale });
    let want = [
        UvMap { set: 0, transform: t([0.1, 0.2], 0.3, [2.0, 0.5]) },
        UvMap { set: 1, transform: None },
        UvMap { set: 1, transform: t([-0.25, 0.5], -1.2, [1.5, 3.0]) },
        UvMap { set: 1, transform: t([0.5, 0.0], 0.0, [1.0, 1.0]) },
        UvMap { set: 1, transform: t([0.0, 0.0], 0.7, [2.0, 2.0]) },
    ];
    let maps = |path: &Path| -> Vec<Option<UvMap>> {
        let looks = GltfFile::read(path).unwrap().looks();
        let mut m = looks.materials[0];
        m.textures_mut().into_iter().map(|t| t.map(|t| t.uv)).collect()
    };
    assert_eq!(maps(&source), want.map(Some).to_vec(), "the source reads as written");
    let pointers = [
        "/pbrMetallicRoughness/baseColorTexture",
        "/pbrMetallicRoughness/metallicRoughnessTexture",
        "/emissiveTexture",
        "/occlusionTexture",
        "/normalTexture",
    ];
    for ext in ["glb", "gltf"] {
        let out = dir.path().join(format!("out.{ext}"));
        export_without_warnings(&source, &out);
        let bytes = std::fs::read(&out).unwrap();
        let json: Value = if ext == "glb" {
            serde_json::from_slice(&gltf::binary::Glb::from_slice(&bytes).unwrap().json).unwrap()
        } else {
            serde_json::from_slice(&bytes).unwrap()
        };
        let primitive = &json["meshes"][0]["primitives"][0];
        let exported = &json["materials"][primitive["material"].as_u64().unwrap() as usize];
        for p in pointers {
            let (a, b) = (material.pointer(p).unwrap(), exported.pointer(p).unwrap());
            assert_eq!(a["texCoord"], b["texCoord"], "{ext} {p}");
            assert_eq!(
                a.pointer("/extensions/KHR_texture_transform"),
                b.pointer("/extensions/KHR_texture_transform"),
                "{ext} {p}"
            );
        }
        assert_eq!(exported["normalTexture"]["scale"], json!(0.8));
        assert_eq!(exported["occlusionTexture"]["strength"], json!(0.5));
        let used: Vec<&str> = json["extensionsUsed"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert!(used.contains(&"KHR_texture_transform"), "{used:?}");
        // TEXCOORD_1 goes with its data.
        let (doc, buffers, _) = gltf::import(&out).unwrap();
        let p = doc.meshes().next().unwrap().primitives().next().unwrap();
        let reader = p.reader(|b| Some(&buffers[b.index()]));
        let got: Vec<[f32; 2]> = reader.read_tex_coords(1).expect("TEXCOORD_1").into_f32().collect();
        assert_eq!(got, uv1.to_vec());
        // And reads back to the same UV maps.
        assert_eq!(maps(&out), want.map(Some).to_vec(), "{ext}");
    }
}
