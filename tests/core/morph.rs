//! Morph-target and skin animation in the editor, without a GPU, on files
//! the test writes (`support::morphed`): the posed triangles that picking
//! and drawing use, at given clip times, against the test's own sums
//! (`base + sum w_i delta_i` with weights interpolated here from the keys;
//! linear-blend skinning `sum w_j * globalJoint_j * inverseBind_j * v`),
//! and the pose never reaching the scene, its saved form or the history.

use crate::support::morphed::*;
use nalgebra::{Matrix4, Point3, Translation3, UnitQuaternion, Vector3};
use viewport::app::open::{open_editor_for, open_scene};
use viewport::draw::LoadedMeshes;
use viewport::editor::{Command, Editor};
use viewport::math::DepthMode;

fn open(path: &std::path::Path) -> (Editor, LoadedMeshes) {
    open_editor_for(open_scene(Some(path)).unwrap(), (320, 240), DepthMode::Reversed).unwrap()
}

/// The vertices object `name` draws (and picks), in its own space: its
/// posed copy, else its mesh as loaded; with the normals.
fn drawn(e: &Editor, loaded: &LoadedMeshes, name: &str) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let i = e.scene().find(name).unwrap();
    match e.posed_mesh(i) {
        Some(p) => (p.data.positions.clone(), p.data.normals.clone()),
        None => {
            let m = loaded.get(&e.scene().objects()[i].mesh).unwrap();
            (m.positions.clone(), m.normals.clone())
        }
    }
}

/// Linear interpolation of two-weight keys at `t` (held outside the keys).
fn linear(times: &[f32], keys: &[[f32; 2]], t: f64) -> [f64; 2] {
    let times: Vec<f64> = times.iter().map(|&x| f64::from(x)).collect();
    let key = |k: usize| keys[k].map(f64::from);
    if t <= times[0] {
        return key(0);
    }
    let last = times.len() - 1;
    if t >= times[last] {
        return key(last);
    }
    let k = (0..last).find(|&k| t < times[k + 1]).unwrap();
    let u = (t - times[k]) / (times[k + 1] - times[k]);
    let (a, b) = (key(k), key(k + 1));
    [a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u]
}

/// The weights of `lin`, `step` and `cubic` at clip time `t` in [0, 2].
fn expected_weights(t: f64) -> [[f64; 2]; 3] {
    let lin = linear(&LIN_TIMES, &LIN_KEYS, t);
    // STEP: the key at or before t.
    let k = STEP_TIMES.iter().rposition(|&x| f64::from(x) <= t).unwrap_or(0);
    let step = STEP_KEYS[k].map(f64::from);
    // CUBICSPLINE over the one interval: Hermite basis, tangents scaled by it.
    let dt = f64::from(CUBIC_TIMES[1] - CUBIC_TIMES[0]);
    let s = (t - f64::from(CUBIC_TIMES[0])) / dt;
    let (h00, h10, h01, h11) = (
        2.0 * s.powi(3) - 3.0 * s * s + 1.0,
        s.powi(3) - 2.0 * s * s + s,
        -2.0 * s.powi(3) + 3.0 * s * s,
        s.powi(3) - s * s,
    );
    let c = |k: usize, i: usize| f64::from(CUBIC_KEYS[k][i]);
    let cubic = [0, 1].map(|i| h00 * c(1, i) + h10 * dt * c(2, i) + h01 * c(4, i) + h11 * dt * c(3, i));
    [lin, step, cubic]
}

/// The quad's vertices and normals at weights `w`, summed here.
fn quad_at(w: [f64; 2]) -> Vec<([f64; 3], [f64; 3])> {
    (0..4)
        .map(|k| {
            let p: [f64; 3] = std::array::from_fn(|c| {
                f64::from(QUAD[k][c]) + w[0] * f64::from(GROW[k][c]) + w[1] * f64::from(WIDEN[k][c])
            });
            let n = Vector3::new(0.0, 0.0, 1.0) + Vector3::from(WIDEN_NORMALS[k].map(f64::from)) * w[1];
            let n = n.normalize();
            (p, [n.x, n.y, n.z])
        })
        .collect()
}

fn check_quad(e: &Editor, loaded: &LoadedMeshes, name: &str, w: [f64; 2], at: &str) {
    let (positions, normals) = drawn(e, loaded, name);
    assert_eq!(positions.len(), 4, "{name}: one vertex per file vertex (smooth normals)");
    for (k, (p, n)) in quad_at(w).iter().enumerate() {
        let got = positions[k].map(f64::from);
        assert!((0..3).all(|c| (got[c] - p[c]).abs() < 1e-6), "{name} at {at}, vertex {k}: {got:?}, expected {p:?}");
        let got = normals[k].map(f64::from);
        assert!((0..3).all(|c| (got[c] - n[c]).abs() < 1e-6), "{name} at {at}, normal {k}: {got:?}, expected {n:?}");
    }
}

#[test]
fn morph_weights_channels_pose_the_vertices_as_the_keys_say() {
    let dir = tempfile::tempdir().unwrap();
    let (mut e, loaded) = open(&write_morph_quads(dir.path(), "quads"));
    let clip = e.clip_named("Morph").expect("the clip of weights channels is listed");
    let own = OWN.map(f64::from);
    // At rest: the mesh's defaults, and `own` at its node's weights.
    for name in ["lin", "step", "cubic"] {
        check_quad(&e, &loaded, name, DEFAULTS.map(f64::from), "rest");
    }
    check_quad(&e, &loaded, "own", own, "rest");
    let lin = e.scene().find("lin").unwrap();
    assert_eq!(e.morph_weights(lin), Some(vec![0.0, 0.0]));

    let transforms: Vec<_> = e.scene().objects().iter().map(|o| o.transform).collect();
    let saved = e.scene_to_save();
    let mark = e.edit_mark();
    for t in [0.0, 0.25, 0.5, 0.99, 1.0, 1.25, 1.5, 1.999] {
        assert!(e.show_animation(clip, t, false));
        let [l, s, c] = expected_weights(t);
        let at = format!("{t} s");
        check_quad(&e, &loaded, "lin", l, &at);
        check_quad(&e, &loaded, "step", s, &at);
        check_quad(&e, &loaded, "cubic", c, &at);
        check_quad(&e, &loaded, "own", own, &at);
        let w = e.morph_weights(lin).unwrap();
        assert!((w[0] - l[0]).abs() < 1e-9 && (w[1] - l[1]).abs() < 1e-9, "{w:?} vs {l:?}");
    }
    // Playing: 45 frames of 1/60 s from 0.5 s is 1.25 s; past the end it loops.
    assert!(e.show_animation(clip, 0.5, true));
    for _ in 0..45 {
        e.advance(1.0 / 60.0);
    }
    check_quad(&e, &loaded, "lin", expected_weights(1.25)[0], "1.25 s played");
    e.advance(1.5);
    check_quad(&e, &loaded, "step", expected_weights(0.75)[1], "looped to 0.75 s");

    // The pose is a preview: transforms, the saved scene and the history
    // are untouched.
    let now: Vec<_> = e.scene().objects().iter().map(|o| o.transform).collect();
    assert_eq!(now, transforms);
    assert_eq!(e.scene_to_save(), saved);
    assert_eq!(e.edit_mark(), mark);
    assert!(!e.history().can_undo());
    // Back to rest: the defaults (no posed copy), `own` still its node's.
    assert!(e.execute(&Command::StopAnimation));
    assert!(e.posed_mesh(lin).is_none());
    check_quad(&e, &loaded, "lin", DEFAULTS.map(f64::from), "rest again");
    check_quad(&e, &loaded, "own", own, "rest again");

    // An edit stops playback and returns to the rest weights.
    assert!(e.show_animation(clip, 1.5, true));
    assert!(e.posed_mesh(lin).is_some());
    e.set_selection(&[lin]);
    assert!(e.execute(&Command::Duplicate));
    assert!(e.animation().is_none());
    check_quad(&e, &loaded, "lin", DEFAULTS.map(f64::from), "after an edit");
    check_quad(&e, &loaded, "lin.001", DEFAULTS.map(f64::from), "the copy");
    assert!(e.undo());
    assert!(!e.history().can_undo(), "playback added no undo step");
}

/// glTF 2.0 section 3.7.3: `jointMatrix_j = globalJoint_j *
/// inverseBind_j`, the skinned vertex `sum w_j * jointMatrix_j * v`, in
/// world space (the skinned node's own transform does not move it).
fn skinned_at(angle: f64) -> Vec<Point3<f64>> {
    let t = |v: [f32; 3]| Translation3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2])).to_homogeneous();
    let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle).to_homogeneous();
    let root = t(ROOT_AT);
    let bone = root * t(BONE_AT) * turn;
    let bind_bone = [ROOT_AT[0] + BONE_AT[0], ROOT_AT[1] + BONE_AT[1], ROOT_AT[2] + BONE_AT[2]];
    let inverse = |at: [f32; 3]| t(at.map(|x| -x));
    let joints: [Matrix4<f64>; 2] = [root * inverse(ROOT_AT), bone * inverse(bind_bone)];
    strip_vertices()
        .into_iter()
        .map(|(v, w)| {
            let v = Point3::from(v.map(f64::from));
            let w = f64::from(w);
            let a = joints[0].transform_point(&v);
            let b = joints[1].transform_point(&v);
            Point3::from(a.coords * (1.0 - w) + b.coords * w)
        })
        .collect()
}

#[test]
fn a_two_bone_skin_follows_its_animated_joint() {
    let dir = tempfile::tempdir().unwrap();
    let (mut e, _) = open(&write_bone_strip(dir.path(), "bend"));
    let clip = e.clip_named("Bend").unwrap();
    let strip = e.scene().find("strip").unwrap();
    let world = |e: &Editor| {
        let m = e.scene().world_matrix(strip);
        let posed = e.posed_mesh(strip).expect("a skinned object is posed");
        posed.data.positions.iter().map(|p| m.transform_point(&Point3::from(p.map(f64::from)))).collect::<Vec<_>>()
    };
    let bone = e.scene().find("bone").unwrap();
    let rest_bone = e.scene().objects()[bone].transform;
    let saved = e.scene_to_save();
    let quarter = std::f64::consts::FRAC_PI_2;
    // LINEAR slerp about one axis: the angle runs linearly. The clip lasts
    // 1 s and loops: 1.25 s shows 0.25 s.
    let length = f64::from(BEND_TIMES[1]);
    for t in [0.0, 0.25, 0.5, 0.8, 0.999, 1.25] {
        assert!(e.show_animation(clip, t, false));
        let want = skinned_at(quarter * t.rem_euclid(length) / length);
        let got = world(&e);
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).norm() < 1e-5, "at {t} s, vertex {k}: {g}, expected {w}");
        }
    }
    // The posed joint is a preview: the saved scene keeps the rest pose.
    assert_eq!(e.scene_to_save(), saved);
    assert!(!e.history().can_undo());
    assert!(e.execute(&Command::StopAnimation));
    assert_eq!(e.scene().objects()[bone].transform, rest_bone);
    for (g, w) in world(&e).iter().zip(skinned_at(0.0)) {
        assert!((g - w).norm() < 1e-5);
    }
}
