//! Tests of the outliner's rows: the hierarchy order, folds and the
//! filter.

use super::*;
use crate::math::Transform;
use crate::scene::{MeshRef, Object, Primitive};

/// The order by its definition: an object's row comes after its
/// parent's, and two objects are ordered as their first differing
/// ancestors (the root-to-object paths of places compared element by
/// element).
fn expected(scene: &Scene) -> Vec<Row> {
    let h = scene.hierarchy();
    let path = |i: usize| {
        let mut p: Vec<u64> = h.ancestors(i).map(|a| h.place(a)).collect();
        p.reverse();
        p.push(h.place(i));
        p
    };
    let mut ids: Vec<usize> = scene.iter().map(|(i, _)| i).collect();
    ids.sort_by_key(|&i| path(i));
    ids.into_iter().map(|i| Row { id: i as u32, depth: path(i).len() as u32 - 1 }).collect()
}

fn object(name: &str) -> Object {
    let (mesh, transform) = (MeshRef::Primitive(Primitive::Cube), Transform::IDENTITY);
    Object {
        name: name.into(),
        mesh,
        transform,
        color: [1.0; 3],
        hidden: false,
        skin: None,
        extras: None,
        origin: None,
        fixture: None,
        cast_shadows: true,
    }
}

#[test]
fn rows_follow_the_hierarchy_and_are_made_again_only_when_it_changes() {
    let mut scene = Scene::default();
    let a = scene.push(object("a"), None).unwrap();
    let b = scene.push(object("b"), None).unwrap();
    let c = scene.push(object("c"), Some(b)).unwrap();
    scene.push(object("d"), Some(a)).unwrap();
    scene.push(object("e"), Some(c)).unwrap();
    scene.push(object("f"), Some(b)).unwrap();
    let mut rows = Rows::default();
    let first = rows.of(&scene).to_vec();
    assert_eq!(first, expected(&scene));
    assert_eq!(first.iter().map(|r| r.id).collect::<Vec<_>>(), vec![0, 3, 1, 2, 4, 5]);

    // A move keeps the structure: the same list, not walked again.
    let before = rows.rows.as_ptr();
    scene.object_mut(c).unwrap().transform.position.x = 3.0;
    assert_eq!(rows.of(&scene).as_ptr(), before);

    // Removing a subtree and putting it back change it.
    let gone = scene.remove(&[c]);
    assert_eq!(rows.of(&scene), expected(&scene).as_slice());
    assert_eq!(rows.of(&scene).len(), 4);
    scene.restore(&gone).unwrap();
    assert_eq!(rows.of(&scene), first.as_slice());

    // Another scene with as many objects is another structure.
    let other = Scene::cube_grid(6);
    assert_eq!(rows.of(&other), expected(&other).as_slice());
}

#[test]
fn folded_rows_hide_their_subtrees_and_unfold_for_an_object() {
    let mut scene = Scene::default();
    let a = scene.push(object("a"), None).unwrap();
    let b = scene.push(object("b"), Some(a)).unwrap();
    let c = scene.push(object("c"), Some(b)).unwrap();
    scene.push(object("d"), Some(a)).unwrap();
    let e = scene.push(object("e"), None).unwrap();
    let mut rows = Rows::default();
    let ids = |rows: &[Row]| rows.iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(rows.shown(&scene, "")), [0, 1, 2, 3, 4]);
    rows.toggle(b as u32);
    assert_eq!(ids(rows.shown(&scene, "")), [0, 1, 3, 4]);
    rows.toggle(a as u32);
    assert_eq!(ids(rows.shown(&scene, "")), [0, 4]);
    // The filter keeps c's ancestors, the folds still apply.
    assert_eq!(ids(rows.shown(&scene, "C")), [0]);
    rows.expand_to(&scene, c);
    assert!(!rows.is_collapsed(a as u32) && !rows.is_collapsed(b as u32));
    assert_eq!(ids(rows.shown(&scene, "c")), [0, 1, 2]);
    assert_eq!(ids(rows.shown(&scene, "")), [0, 1, 2, 3, 4]);
    rows.toggle(e as u32);
    assert_eq!(ids(rows.shown(&scene, "")), [0, 1, 2, 3, 4], "a leaf's fold hides nothing");
}

#[test]
fn the_filter_shows_its_matches_and_their_ancestors_in_row_order() {
    // A tree of 300 objects, each under an earlier one or a root, some
    // named lamp; the filter's rows are the full order's rows of the
    // matches and their ancestors, through renames and removals.
    let mut scene = Scene::default();
    let mut seed = 7u64;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for i in 0..300u64 {
        let parent = (i > 0 && next(4) > 0).then(|| next(i) as usize);
        let name = if next(10) == 0 { format!("Lamp{i}") } else { format!("obj{i}") };
        scene.push(object(&name), parent).unwrap();
    }
    let mut rows = Rows::default();
    let check = |rows: &mut Rows, scene: &Scene| {
        let mut keep = HashSet::new();
        for (i, o) in scene.iter() {
            if o.name.to_lowercase().contains("lamp") {
                keep.insert(i);
                keep.extend(scene.hierarchy().ancestors(i));
            }
        }
        let want: Vec<Row> = expected(scene).into_iter().filter(|r| keep.contains(&(r.id as usize))).collect();
        assert!(want.len() > 20, "{} rows", want.len());
        assert_eq!(rows.shown(scene, "LAMP"), want.as_slice());
    };
    check(&mut rows, &scene);
    for i in (0..300).step_by(7) {
        scene.rename(i, &format!("lamp_renamed{i}")).unwrap();
    }
    check(&mut rows, &scene);
    scene.remove(&[3, 50, 120]);
    check(&mut rows, &scene);
}
