//! Stable object ids: random duplicate / delete / move / undo /
//! redo / select on a scene with a hierarchy, checked after every step
//! against a reference model kept here as a plain `Vec` of slots.
//!
//! The model says what `docs/spec/editing.md` ("Scene changes") asks, worked out
//! without the editor's code: an object's id is its slot; a delete empties
//! the slots of the selection and its descendants; a duplicate appends the
//! copies (originals in id order) in new slots, each under its original's
//! parent or that parent's copy, named `base.NNN` with the lowest free
//! number; undo and redo go back to the states the model saved. The saved
//! file must list the live slots in order, as (name, parent name,
//! position), and every object must keep its id.

use nalgebra::Vector3;
use proptest::prelude::*;
use viewport::editor::Editor;
use viewport::scene::Scene;

#[derive(Clone, Debug)]
enum Op {
    /// Select the k-th live objects (by the model's count).
    Select(Vec<usize>),
    Duplicate,
    Delete,
    /// Move the k-th live object along X (a typed value: one undo step).
    Move(usize, f64),
    Undo,
    Redo,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => prop::collection::vec(0usize..64, 1..4).prop_map(Op::Select),
        3 => Just(Op::Duplicate),
        2 => Just(Op::Delete),
        1 => (0usize..64, -5.0f64..5.0).prop_map(|(k, dx)| Op::Move(k, dx)),
        3 => Just(Op::Undo),
        2 => Just(Op::Redo),
    ]
}

/// One live slot of the model.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    name: String,
    parent: Option<usize>,
    x: f64,
}

type Slots = Vec<Option<Entry>>;

/// root <- arm <- hand, root <- leg, lamp, lamp.002 <- bulb.
fn start() -> (Scene, Slots) {
    let rows: [(&str, Option<usize>, f64); 7] = [
        ("root", None, 0.0),
        ("arm", Some(0), 1.0),
        ("hand", Some(1), 2.0),
        ("leg", Some(0), 3.0),
        ("lamp", None, 4.0),
        ("lamp.002", None, 5.0),
        ("bulb", Some(5), 6.0),
    ];
    let objects: Vec<String> = rows
        .iter()
        .map(|(name, parent, x)| {
            let parent = parent.map_or(String::new(), |p| format!(r#","parent":"{}""#, rows[p].0));
            format!(r#"{{"name":"{name}","mesh":"cube","position":[{x},0,0]{parent}}}"#)
        })
        .collect();
    let json = format!(r#"{{"objects":[{}]}}"#, objects.join(","));
    let scene = Scene::from_json(&json, std::path::Path::new(".")).unwrap();
    let slots = rows.iter().map(|&(n, p, x)| Some(Entry { name: n.into(), parent: p, x })).collect();
    (scene, slots)
}

fn live(slots: &Slots) -> Vec<usize> {
    (0..slots.len()).filter(|&i| slots[i].is_some()).collect()
}

/// Whether slot `j` is live and at or below one of `ids`.
fn below(slots: &Slots, ids: &[usize], j: usize) -> bool {
    let mut at = slots[j].as_ref().map(|_| j);
    while let Some(k) = at {
        if ids.contains(&k) {
            return true;
        }
        at = slots[k].as_ref().and_then(|e| e.parent);
    }
    false
}

/// The name of a copy: `base.NNN`, the lowest number from 001 that no
/// live object and no earlier copy has.
fn model_copy_name(name: &str, taken: &[String]) -> String {
    let base = match name.rsplit_once('.') {
        Some((b, n)) if n.len() == 3 && n.chars().all(|c| c.is_ascii_digit()) && !b.is_empty() => b,
        _ => name,
    };
    (1..).map(|k| format!("{base}.{k:03}")).find(|c| !taken.contains(c)).unwrap()
}

/// The saved file of the model: live slots in order.
fn model_file(slots: &Slots) -> Vec<(String, Option<String>, f64)> {
    slots
        .iter()
        .flatten()
        .map(|e| (e.name.clone(), e.parent.map(|p| slots[p].as_ref().unwrap().name.clone()), e.x))
        .collect()
}

/// The editor's scene as saved and read back.
fn saved_file(e: &Editor) -> Vec<(String, Option<String>, f64)> {
    let json = e.scene().to_json();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let parent = o.get("parent").and_then(|p| p.as_str()).map(str::to_string);
            (o["name"].as_str().unwrap().to_string(), parent, o["position"][0].as_f64().unwrap())
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn ids_stay_put_and_saved_files_follow_the_model(ops in prop::collection::vec(op(), 1..30)) {
        let (scene, mut model) = start();
        let mut e = Editor::new(scene, 640.0, 480.0);
        let mut selection: Vec<usize> = Vec::new();
        // Each step: the model on the other side of it, and for a duplicate
        // or delete the selections before and after it (a move keeps it).
        type Step = (Slots, Option<(Vec<usize>, Vec<usize>)>);
        let mut undo: Vec<Step> = Vec::new();
        let mut redo: Vec<Step> = Vec::new();
        for op in &ops {
            match op {
                Op::Select(ks) => {
                    let ids = live(&model);
                    if ids.is_empty() {
                        continue;
                    }
                    selection.clear();
                    for k in ks {
                        let id = ids[k % ids.len()];
                        if !selection.contains(&id) {
                            selection.push(id);
                        }
                    }
                    e.set_selection(&selection);
                }
                Op::Duplicate => {
                    let did = e.duplicate();
                    prop_assert_eq!(did, !selection.is_empty());
                    if !did {
                        continue;
                    }
                    let before = model.clone();
                    let originals: Vec<usize> = (0..before.len()).filter(|&j| below(&before, &selection, j)).collect();
                    let base = before.len();
                    let mut taken: Vec<String> = before.iter().flatten().map(|e| e.name.clone()).collect();
                    for &j in &originals {
                        let o = before[j].clone().unwrap();
                        let name = model_copy_name(&o.name, &taken);
                        taken.push(name.clone());
                        let parent = o.parent.map(|p| originals.iter().position(|&q| q == p).map_or(p, |k| base + k));
                        model.push(Some(Entry { name, parent, x: o.x }));
                    }
                    let after: Vec<usize> =
                        selection.iter().map(|s| base + originals.iter().position(|o| o == s).unwrap()).collect();
                    undo.push((before, Some((selection.clone(), after.clone()))));
                    redo.clear();
                    selection = after;
                }
                Op::Delete => {
                    let did = e.delete();
                    prop_assert_eq!(did, !selection.is_empty());
                    if !did {
                        continue;
                    }
                    let before = model.clone();
                    for (j, slot) in model.iter_mut().enumerate() {
                        if below(&before, &selection, j) {
                            *slot = None;
                        }
                    }
                    undo.push((before, Some((selection.clone(), Vec::new()))));
                    redo.clear();
                    selection.clear();
                }
                Op::Move(k, dx) => {
                    let ids = live(&model);
                    if ids.is_empty() {
                        continue;
                    }
                    let id = ids[k % ids.len()];
                    let t = e.scene().objects()[id].transform;
                    let after = viewport::math::Transform { position: t.position + Vector3::new(*dx, 0.0, 0.0), ..t };
                    prop_assert!(e.commit_transform(id, t, after));
                    if after != t {
                        undo.push((model.clone(), None));
                        redo.clear();
                        model[id].as_mut().unwrap().x = after.position.x;
                    }
                }
                Op::Undo => {
                    prop_assert_eq!(e.undo(), !undo.is_empty());
                    if let Some((m, sel)) = undo.pop() {
                        if let Some((before, _)) = &sel {
                            selection = before.clone();
                        }
                        redo.push((std::mem::replace(&mut model, m), sel));
                    }
                }
                Op::Redo => {
                    prop_assert_eq!(e.redo(), !redo.is_empty());
                    if let Some((m, sel)) = redo.pop() {
                        if let Some((_, after)) = &sel {
                            selection = after.clone();
                        }
                        undo.push((std::mem::replace(&mut model, m), sel));
                    }
                }
            }
            prop_assert_eq!(e.selection(), &selection[..], "selection after {:?}", op);
            // Every live slot of the model holds its object under its id.
            for (id, entry) in model.iter().enumerate() {
                let got = e.scene().get(id).map(|o| o.name.to_string());
                prop_assert_eq!(got.as_ref(), entry.as_ref().map(|m| &m.name), "id {} after {:?}", id, op);
            }
            prop_assert!(e.scene().id_bound() >= model.len());
            prop_assert!((model.len()..e.scene().id_bound()).all(|id| e.scene().get(id).is_none()));
            prop_assert_eq!(e.scene().len(), model.iter().flatten().count());
            // The saved file: live objects in id order, parents by name.
            let file = saved_file(&e);
            let expect = model_file(&model);
            prop_assert_eq!(file.len(), expect.len());
            for (g, m) in file.iter().zip(&expect) {
                prop_assert_eq!((&g.0, &g.1), (&m.0, &m.1), "after {:?}", op);
                prop_assert!((g.2 - m.2).abs() < 1e-9, "{} at x {} not {}", g.0, g.2, m.2);
            }
            // Names are found through the name index.
            for (id, entry) in model.iter().enumerate() {
                if let Some(m) = entry {
                    prop_assert_eq!(e.scene().find(&m.name), Some(id));
                }
            }
        }
    }
}
