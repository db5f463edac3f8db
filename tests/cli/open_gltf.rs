//! Opening a glTF file as the scene (`docs/spec/assets.md`, "Opening a glTF file"):
//! the node tree becomes the objects (order, names, parents, transforms,
//! empties), `path#N` names one mesh, the starting camera frames the
//! geometry, and `--save-scene` writes a scene that opens the same. Each
//! test writes its own small glTF files; the expected values are computed
//! here from what was written.

use crate::support::cli::{assert_bad_input, viewport_cli, write_file};
use crate::support::image::{dominant, read_png};

use nalgebra::{Matrix4, Point3, Translation3, UnitQuaternion, Vector3};
use serde_json::{json, Value};
use std::path::Path;

/// The four corners of a tetrahedron inscribed in the box `centre` +-
/// `half`: its bounds are the whole box, and seen along z it covers the
/// box's face.
fn tetra(centre: [f32; 3], half: f32) -> Vec<[f32; 3]> {
    [[-1.0, -1.0, -1.0], [1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, 1.0, -1.0]]
        .iter()
        .map(|s: &[f32; 3]| [centre[0] + s[0] * half, centre[1] + s[1] * half, centre[2] + s[2] * half])
        .collect()
}

/// Writes `NAME.gltf` and `NAME.bin` into `dir`: one tetrahedron mesh per
/// entry of `meshes` (name, centre, half size), with `nodes` and `scenes`
/// as given (JSON) and `extra` top-level fields.
pub(crate) fn write_gltf(
    dir: &Path,
    name: &str,
    meshes: &[(&str, [f32; 3], f32)],
    nodes: Value,
    scenes: Value,
    extra: Value,
) {
    let mut bin: Vec<u8> = Vec::new();
    let (mut views, mut accessors, mut mesh_json) = (vec![], vec![], vec![]);
    for (i, (mesh_name, centre, half)) in meshes.iter().enumerate() {
        let positions = tetra(*centre, *half);
        let offset = bin.len();
        bin.extend(positions.iter().flatten().flat_map(|x| x.to_le_bytes()));
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": 48}));
        accessors.push(json!({"bufferView": 2 * i, "componentType": 5126, "count": 4, "type": "VEC3"}));
        let offset = bin.len();
        let indices: [u16; 12] = [0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2];
        bin.extend(indices.iter().flat_map(|x| x.to_le_bytes()));
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": 24}));
        accessors.push(json!({"bufferView": 2 * i + 1, "componentType": 5123, "count": 12, "type": "SCALAR"}));
        let mut m = json!({"primitives": [{"attributes": {"POSITION": 2 * i}, "indices": 2 * i + 1}]});
        if !mesh_name.is_empty() {
            m["name"] = json!(mesh_name);
        }
        mesh_json.push(m);
    }
    let mut doc = json!({
        "asset": {"version": "2.0"},
        "scenes": scenes,
        "nodes": nodes,
        "meshes": mesh_json,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len(), "uri": format!("{name}.bin")}],
    });
    for (k, v) in extra.as_object().unwrap() {
        doc[k] = v.clone();
    }
    std::fs::write(dir.join(format!("{name}.gltf")), doc.to_string()).unwrap();
    std::fs::write(dir.join(format!("{name}.bin")), bin).unwrap();
}

/// Runs the viewport headless on `file` with `--validation`, saving the
/// scene to `saved`, with `extra` arguments (a size other than 320x240, a
/// screenshot); fails on a non-zero exit.
fn open_and_save(file: &Path, saved: &Path, extra: &[&str]) -> Value {
    let size: &[&str] = if extra.contains(&"--size") { &[] } else { &["--size", "320x240"] };
    // The 3D view alone: the pictures are compared pixel by pixel.
    // GPU culling by name: auto is CPU culling on lavapipe.
    let mut args =
        vec![file.to_str().unwrap(), "--headless", "--validation", "--no-ui", "--culling", "gpu", "--save-scene"];
    args.push(saved.to_str().unwrap());
    args.extend_from_slice(size);
    args.extend_from_slice(extra);
    let out = viewport_cli(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&std::fs::read_to_string(saved).unwrap()).unwrap()
}

fn vec3(v: &Value) -> Vector3<f64> {
    Vector3::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap(), v[2].as_f64().unwrap())
}

/// An object's local matrix from its saved position, rotation and scale.
fn saved_matrix(o: &Value) -> Matrix4<f64> {
    let r = &o["rotation"];
    let q = nalgebra::Quaternion::new(
        r[3].as_f64().unwrap(),
        r[0].as_f64().unwrap(),
        r[1].as_f64().unwrap(),
        r[2].as_f64().unwrap(),
    );
    Translation3::from(vec3(&o["position"])).to_homogeneous()
        * UnitQuaternion::from_quaternion(q).to_homogeneous()
        * Matrix4::new_nonuniform_scaling(&vec3(&o["scale"]))
}

/// The matrix node 3 carries: translation, rotation about a skew axis, and
/// a non-uniform scale.
fn node3_matrix() -> Matrix4<f64> {
    let axis = nalgebra::Unit::new_normalize(Vector3::new(1.0, 2.0, 3.0));
    Translation3::new(0.5, -1.0, 2.0).to_homogeneous()
        * UnitQuaternion::from_axis_angle(&axis, 0.7).to_homogeneous()
        * Matrix4::new_nonuniform_scaling(&Vector3::new(2.0, 0.5, 1.5))
}

fn column_major(m: &Matrix4<f64>) -> Vec<f64> {
    m.as_slice().to_vec()
}

/// Scene 1 of the file: roots 4, 0, 5; node 0 has children 2 (no name,
/// no mesh) then 1 (mesh "big"); node 2 has child 3 (a matrix). Scene 0 is
/// a decoy the file's `scene` does not open.
fn tree_file(dir: &Path) {
    write_gltf(
        dir,
        "tree",
        &[("", [0.0, 0.0, 0.0], 0.5), ("big", [1.0, 2.0, 0.0], 2.0)],
        json!([
            {"name": "slice", "mesh": 0, "children": [2, 1], "translation": [3, 0, 0]},
            {"mesh": 1, "rotation": [0, 0.6, 0, 0.8], "scale": [1, 2, 1]},
            {"children": [3]},
            {"name": "slice", "mesh": 0, "matrix": column_major(&node3_matrix())},
            {"name": "slice"},
            {}
        ]),
        json!([{"nodes": [5]}, {"nodes": [4, 0, 5]}]),
        json!({"scene": 1}),
    );
}

#[test]
fn nodes_become_objects_in_depth_first_order_with_names_parents_and_empties() {
    let dir = tempfile::tempdir().unwrap();
    tree_file(dir.path());
    let saved = open_and_save(&dir.path().join("tree.gltf"), &dir.path().join("saved.json"), &[]);
    let objects = saved["objects"].as_array().unwrap();
    let rows: Vec<(&str, Value, Value)> =
        objects.iter().map(|o| (o["name"].as_str().unwrap(), o["mesh"].clone(), o["parent"].clone())).collect();
    assert_eq!(
        rows,
        vec![
            ("slice", Value::Null, Value::Null),
            ("slice.001", json!("tree.gltf#0"), Value::Null),
            ("node", Value::Null, json!("slice.001")),
            ("slice.002", json!("tree.gltf#0"), json!("node")),
            ("big", json!("tree.gltf#1"), json!("slice.001")),
            ("node.001", Value::Null, Value::Null),
        ]
    );
    for o in objects {
        assert_eq!(o["color"], json!([1.0, 1.0, 1.0]), "{o}");
    }
    // Translation, rotation and scale as given; the matrix decomposed.
    assert!((vec3(&objects[1]["position"]) - Vector3::new(3.0, 0.0, 0.0)).norm() < 1e-9);
    assert!((vec3(&objects[4]["scale"]) - Vector3::new(1.0, 2.0, 1.0)).norm() < 1e-9);
    let m = saved_matrix(&objects[3]);
    assert!((m - node3_matrix()).amax() < 1e-5, "decomposed {m} vs {}", node3_matrix());
    assert!((vec3(&objects[3]["scale"]) - Vector3::new(2.0, 0.5, 1.5)).norm() < 1e-5);
}

#[test]
fn the_starting_camera_frames_the_drawn_geometry_from_the_default_direction() {
    let dir = tempfile::tempdir().unwrap();
    tree_file(dir.path());
    let saved = open_and_save(&dir.path().join("tree.gltf"), &dir.path().join("saved.json"), &[]);
    // World box of every drawn vertex, from the node tree as written.
    let world = |path: &[Matrix4<f64>]| path.iter().fold(Matrix4::identity(), |a, m| a * m);
    let node0 = Translation3::new(3.0, 0.0, 0.0).to_homogeneous();
    let node1 = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(0.8, 0.0, 0.6, 0.0)).to_homogeneous()
        * Matrix4::new_nonuniform_scaling(&Vector3::new(1.0, 2.0, 1.0));
    let drawn = [
        (world(&[node0]), tetra([0.0; 3], 0.5)),
        (world(&[node0, Matrix4::identity(), node3_matrix()]), tetra([0.0; 3], 0.5)),
        (world(&[node0, node1]), tetra([1.0, 2.0, 0.0], 2.0)),
    ];
    let mut lo = Point3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let mut hi = -lo;
    for (m, points) in &drawn {
        for p in points {
            let w = m.transform_point(&Point3::new(p[0] as f64, p[1] as f64, p[2] as f64));
            lo = lo.inf(&w);
            hi = hi.sup(&w);
        }
    }
    let centre = nalgebra::center(&lo, &hi);
    let radius = 0.5 * (hi - lo).norm();

    let cam = &saved["camera"];
    let (eye, target) = (vec3(&cam["eye"]), vec3(&cam["target"]));
    assert!((target - centre.coords).norm() < 1e-5, "target {target} vs box centre {centre}");
    let default_dir = Vector3::new(6.0, 4.0, 8.0).normalize();
    let distance = (eye - target).norm();
    assert!(((eye - target) / distance - default_dir).norm() < 1e-9, "direction");
    // The sphere around the box spans 75-90 % of the view height.
    let half_fov = (cam["fov_y_deg"].as_f64().unwrap() * 0.5).to_radians();
    let fill = (radius / distance).asin().tan() / half_fov.tan();
    assert!((0.75..=0.9).contains(&fill), "the sphere fills {fill} of the view height");
    let (near, far) = (cam["near"].as_f64().unwrap(), cam["far"].as_f64().unwrap());
    assert!(near > 0.0 && near <= distance / 100.0, "near {near} for distance {distance}");
    assert!(far >= 2.0 * (distance + radius), "far {far} for distance {distance}");
}

#[test]
fn save_scene_round_trips_from_any_folder() {
    let dir = tempfile::tempdir().unwrap();
    tree_file(dir.path());
    let sub = dir.path().join("out");
    std::fs::create_dir(&sub).unwrap();
    let first = open_and_save(&dir.path().join("tree.gltf"), &sub.join("a.json"), &[]);
    assert_eq!(first["objects"][1]["mesh"], json!("../tree.gltf#0"), "paths relative to the written file");
    // Opening the saved scene gives the same objects and camera.
    let second = open_and_save(&sub.join("a.json"), &dir.path().join("b.json"), &[]);
    assert_eq!(second["camera"], first["camera"]);
    let (a, b) = (first["objects"].as_array().unwrap(), second["objects"].as_array().unwrap());
    assert_eq!(a.len(), b.len());
    for (a, b) in a.iter().zip(b) {
        assert_eq!(a["name"], b["name"]);
        assert_eq!(a["parent"], b["parent"]);
        assert_eq!(a["color"], b["color"]);
        assert_eq!(a["mesh"].as_str().map(|m| m.trim_start_matches("../")), b["mesh"].as_str(), "{a} vs {b}");
        // Reading renormalises the quaternion: equal up to rounding.
        assert!((saved_matrix(a) - saved_matrix(b)).amax() < 1e-12, "{a} vs {b}");
    }
    assert_eq!(second["objects"][3]["mesh"], json!("tree.gltf#0"));
}

#[test]
fn a_sheared_node_matrix_is_refused_naming_the_node() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = Matrix4::<f64>::identity();
    m[(0, 1)] = 0.3;
    write_gltf(
        dir.path(),
        "shear",
        &[("", [0.0; 3], 0.5)],
        json!([{"name": "crooked", "mesh": 0, "matrix": column_major(&m)}]),
        json!([{"nodes": [0]}]),
        json!({}),
    );
    let png = write_file(dir.path(), "existing.png", "keep me");
    let saved = write_file(dir.path(), "existing.json", "keep me too");
    let file = dir.path().join("shear.gltf");
    let out = viewport_cli(&[file.to_str().unwrap(), "--headless", "--screenshot", &png, "--save-scene", &saved]);
    assert_bad_input(&out, "crooked");
    assert_eq!(std::fs::read_to_string(&png).unwrap(), "keep me");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "keep me too");
}

#[test]
fn a_file_of_neither_format_is_one_line_naming_the_accepted_formats() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("junk.glb", "hello, not a model"), ("list.json", "[1, 2, 3]")] {
        let file = write_file(dir.path(), name, text);
        let out = viewport_cli(&[&file, "--headless", "--screenshot", &dir.path().join("x.png").to_string_lossy()]);
        assert_bad_input(&out, "neither a scene file (JSON) nor a glTF 2.0 file");
        assert!(String::from_utf8_lossy(&out.stderr).contains(name));
    }
    assert!(!dir.path().join("x.png").exists());
}

#[test]
fn hash_n_in_a_scene_file_draws_that_mesh_alone_in_mesh_space() {
    let dir = tempfile::tempdir().unwrap();
    // Mesh 0 is 1 m across, mesh 1 4 m; the node transforms (which move
    // and scale them) must not apply to `#N`.
    write_gltf(
        dir.path(),
        "two",
        &[("small", [0.0; 3], 0.5), ("large", [0.0; 3], 2.0)],
        json!([{"mesh": 0, "translation": [10, 0, 0]}, {"mesh": 1, "scale": [3, 3, 3]}]),
        json!([{"nodes": [0, 1]}]),
        json!({}),
    );
    let scene = json!({
        "camera": {"eye": [0, 0, 20], "target": [0, 0, 0], "projection": "orthographic", "height": 10},
        "objects": [
            {"name": "a", "mesh": "two.gltf#0", "position": [-3, 0, 0], "color": [0, 0, 1]},
            {"name": "b", "mesh": "two.gltf#1", "position": [2, 0, 0], "color": [0, 1, 0]}
        ]
    });
    let scene_path = dir.path().join("scene.json");
    std::fs::write(&scene_path, scene.to_string()).unwrap();
    let png = dir.path().join("shot.png");
    let saved = open_and_save(
        &scene_path,
        &dir.path().join("saved.json"),
        &["--size", "400x400", "--screenshot", png.to_str().unwrap()],
    );
    assert_eq!(saved["objects"][0]["mesh"], json!("two.gltf#0"));
    assert_eq!(saved["objects"][1]["mesh"], json!("two.gltf#1"));
    // 40 px per metre: the small mesh covers a 40 px square around x = -3 m,
    // the large one a 160 px square around x = 2 m. The small one is blue:
    // this front view's grid draws the X axis (y = 0) in red, and its Z axis
    // is not in view.
    let img = read_png(&png);
    let (mut blue, mut green) = (vec![], vec![]);
    for y in 0..img.height {
        for x in 0..img.width {
            match dominant(img.pixel(x, y)) {
                Some(2) => blue.push((x as f64, y as f64)),
                Some(1) => green.push((x as f64, y as f64)),
                _ => {}
            }
        }
    }
    let mean_x = |v: &[(f64, f64)]| v.iter().map(|p| p.0).sum::<f64>() / v.len() as f64;
    assert!((blue.len() as f64 - 1600.0).abs() < 300.0, "{} blue pixels", blue.len());
    assert!((green.len() as f64 - 25600.0).abs() < 2500.0, "{} green pixels", green.len());
    assert!((mean_x(&blue) - 80.0).abs() < 3.0, "blue centre {}", mean_x(&blue));
    assert!((mean_x(&green) - 280.0).abs() < 3.0, "green centre {}", mean_x(&green));
}

/// Points and lines are left out with one warning naming the file.
#[test]
fn point_and_line_primitives_are_left_out_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write_gltf(
        dir.path(),
        "lines",
        &[("", [0.0, 0.0, 0.0], 0.5), ("", [2.0, 0.0, 0.0], 0.5)],
        json!([{ "mesh": 0 }, { "mesh": 1 }]),
        json!([{ "nodes": [0, 1] }]),
        json!({}),
    );
    let path = dir.path().join("lines.gltf");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["meshes"][1]["primitives"][0]["mode"] = json!(1);
    std::fs::write(&path, doc.to_string()).unwrap();
    let out = viewport_cli(&[path.to_str().unwrap(), "--headless", "--validation", "--size", "64x64"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("left out")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("lines.gltf") && warnings[0].contains("1 point or line primitive(s)"), "{stderr}");
}
