//! The pick tree derives each object's box from the scene when a ray
//! reaches it: its picks must be those of a brute-force f64 test of the ray
//! against every live object's box, each box made here from the object's
//! world matrix (composed here from the local transforms and parent links)
//! and its mesh's bounds, through moves of parents and children, deletes,
//! undos and duplicates.

use nalgebra::{Matrix4, Point3, UnitQuaternion, Vector3};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::editor::Editor;
use crate::math::{Obb, Ray, Transform};
use crate::scene::{MeshRef, Object, Primitive, Scene};

fn random_transform(rng: &mut StdRng, spread: f64) -> Transform {
    Transform {
        position: Vector3::new(
            rng.gen_range(-spread..spread),
            rng.gen_range(-spread..spread),
            rng.gen_range(-spread..spread),
        ),
        rotation: UnitQuaternion::from_euler_angles(
            rng.gen_range(0.0..6.3),
            rng.gen_range(0.0..6.3),
            rng.gen_range(0.0..6.3),
        ),
        scale: Vector3::new(rng.gen_range(0.3..2.0), rng.gen_range(0.3..2.0), rng.gen_range(0.3..2.0)),
    }
}

/// A shown object named `name` drawing `primitive` with `transform`.
fn primitive_object(name: String, primitive: Primitive, transform: Transform) -> Object {
    Object {
        name: name.into(),
        mesh: MeshRef::Primitive(primitive),
        transform,
        color: [0.5; 3],
        hidden: false,
        skin: None,
        extras: None,
        origin: None,
        fixture: None,
        cast_shadows: true,
    }
}

/// 400 objects far from the origin, each under a random earlier one (or a
/// root), of every primitive (planes are flat boxes).
fn random_scene(rng: &mut StdRng) -> Scene {
    let mut scene = Scene::default();
    for i in 0..400 {
        let parent = if i > 0 && rng.gen_bool(0.6) { Some(rng.gen_range(0..i)) } else { None };
        let mut transform = random_transform(rng, if parent.is_some() { 3.0 } else { 25.0 });
        if parent.is_none() {
            transform.position += Vector3::new(2.0e4, -1.0e4, 3.0e4);
        }
        let object = primitive_object(format!("o{i}"), Primitive::ALL[i % Primitive::ALL.len()], transform);
        scene.push(object, parent).unwrap();
    }
    scene
}

/// Object `i`'s world matrix: its parent's (root first) times its own.
fn world(scene: &Scene, i: usize) -> Matrix4<f64> {
    let local = scene.get(i).unwrap().transform.matrix();
    match scene.parent(i) {
        Some(p) => world(scene, p) * local,
        None => local,
    }
}

fn expected_obb(scene: &Scene, i: usize) -> Option<Obb> {
    let MeshRef::Primitive(p) = scene.get(i)?.mesh else { return None };
    let (lo, hi) = p.bounds();
    Obb::from_local_aabb(&Point3::from(lo), &Point3::from(hi), &world(scene, i))
}

/// The nearest entry of `ray` into a live object's box (the lower id on a tie).
fn brute_force(scene: &Scene, ray: &Ray) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (i, _) in scene.iter() {
        let Some(t) = expected_obb(scene, i).and_then(|b| b.intersect_ray(ray)) else { continue };
        if best.is_none_or(|(_, bt)| t < bt) {
            best = Some((i, t));
        }
    }
    best
}

/// Rays at the roots' region; returns how many hit.
fn compare(e: &Editor, rng: &mut StdRng, round: &str) -> usize {
    let scene = e.scene();
    for (i, _) in scene.iter() {
        assert_eq!(e.pick_obb(i), expected_obb(scene, i), "{round}: box of {i}");
    }
    let centre = Vector3::new(2.0e4, -1.0e4, 3.0e4);
    let mut hits = 0;
    for k in 0..600 {
        let o = Point3::from(centre + Vector3::new(rng.gen_range(-60.0..60.0), rng.gen_range(-60.0..60.0), 80.0));
        let target = Point3::from(
            centre + Vector3::new(rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0)),
        );
        let ray = Ray::new(o, target - o).unwrap();
        let got = e.pick_box(&ray).map(|h| (h.id, h.t));
        assert_eq!(got, brute_force(scene, &ray), "{round}: ray {k}");
        hits += got.is_some() as usize;
    }
    hits
}

#[test]
fn picks_on_derived_boxes_agree_with_brute_force_through_edits() {
    let mut rng = StdRng::seed_from_u64(61);
    let mut e = Editor::new(random_scene(&mut rng), 800.0, 600.0);
    assert!(compare(&e, &mut rng, "loaded") > 100);
    // Moves of single objects, parents among them (their subtrees follow).
    for _ in 0..60 {
        let i = rng.gen_range(0..400);
        let mut t = e.scene().get(i).unwrap().transform;
        t.position += Vector3::new(rng.gen_range(-4.0..4.0), rng.gen_range(-4.0..4.0), rng.gen_range(-4.0..4.0));
        t.rotation = UnitQuaternion::from_euler_angles(rng.gen(), rng.gen(), rng.gen()) * t.rotation;
        assert!(e.set_transform(i, t));
    }
    assert!(compare(&e, &mut rng, "moved") > 100);
    // A delete of some objects with their subtrees: dead slots are never hit.
    let doomed: Vec<usize> = (0..400).filter(|i| i % 9 == 4).collect();
    e.set_selection(&doomed);
    assert!(e.delete());
    assert!(e.scene().len() <= 400 - doomed.len());
    assert!(compare(&e, &mut rng, "deleted") > 50);
    // Moves after the delete, then its undo, then a duplicate of moved objects.
    let live: Vec<usize> = e.scene().ids().collect();
    for &i in live.iter().step_by(11) {
        let mut t = e.scene().get(i).unwrap().transform;
        t.scale *= 1.5;
        assert!(e.set_transform(i, t));
    }
    assert!(compare(&e, &mut rng, "moved after delete") > 50);
    assert!(e.undo());
    assert_eq!(e.scene().len(), 400);
    assert!(compare(&e, &mut rng, "undone") > 100);
    e.set_selection(&[3, 17, 150]);
    assert!(e.duplicate());
    assert!(e.scene().id_bound() > 400);
    let copies = e.selection().to_vec();
    for &i in &copies {
        let mut t = e.scene().get(i).unwrap().transform;
        t.position.x += 2.5;
        assert!(e.set_transform(i, t));
    }
    assert!(compare(&e, &mut rng, "duplicated") > 100);
}

/// Closed primitives are single-sided: every triangle must wind
/// counter-clockwise seen from outside (its corners' normals' side), or it
/// would vanish from view and from picking.
#[test]
fn closed_primitives_wind_counter_clockwise_seen_from_outside() {
    for p in Primitive::ALL {
        let m = p.mesh();
        for (n, t) in m.indices.chunks(3).enumerate() {
            let v = |i: usize| Vector3::from(m.positions[t[i] as usize]).cast::<f64>();
            let geometric = (v(1) - v(0)).cross(&(v(2) - v(0)));
            let normals: Vector3<f64> = t.iter().map(|&i| Vector3::from(m.normals[i as usize]).cast::<f64>()).sum();
            // Degenerate triangles (at a sphere's poles) have no side.
            if geometric.norm() > 1e-9 {
                assert!(geometric.dot(&normals) > 0.0, "{p:?} triangle {n} winds clockwise");
            }
        }
    }
}

/// A ray meets a single-sided primitive from outside only (a cube's faces
/// from within let it through), a `plane` from both sides.
#[test]
fn rays_pass_through_the_back_of_single_sided_primitives() {
    let mut scene = Scene::default();
    for (name, primitive, x) in [("cube", Primitive::Cube, 0.0), ("plane", Primitive::Plane, 5.0)] {
        let object = primitive_object(
            name.to_string(),
            primitive,
            Transform { position: Vector3::new(x, 0.0, 0.0), ..Transform::default() },
        );
        scene.push(object, None).unwrap();
    }
    let e = Editor::new(scene, 800.0, 600.0);
    let ray = |o: [f64; 3], d: [f64; 3]| Ray::new(Point3::from(o), Vector3::from(d)).unwrap();
    // The cube (unit, centred at the origin) from outside: its front face at 0.5.
    let (id, t) = e.ray_hit(&ray([0.0, 0.0, 3.0], [0.0, 0.0, -1.0]), |_| true).unwrap();
    assert_eq!(id, 0);
    assert!((t - 2.5).abs() < 1e-6, "{t}");
    // From its centre outwards only back faces are met.
    assert_eq!(e.ray_hit(&ray([0.0, 0.0, 0.0], [0.0, 0.0, 1.0]), |_| true), None);
    assert_eq!(e.ray_hit(&ray([0.0, 0.2, 0.1], [0.3, -1.0, 0.2]), |_| true), None);
    // The plane (y = 0) from above and from below.
    for (y, d) in [(2.0, -1.0), (-2.0, 1.0)] {
        let (id, t) = e.ray_hit(&ray([5.0, y, 0.0], [0.0, d, 0.0]), |_| true).unwrap();
        assert_eq!(id, 1);
        assert!((t - 2.0).abs() < 1e-6, "{t}");
    }
}

/// A mirrored single-sided object keeps its outside: glTF turns the winding
/// with the determinant, and the ray in the mesh's space turns with it.
#[test]
fn a_mirrored_cube_is_still_picked_from_outside_only() {
    let mut scene = Scene::default();
    let object = primitive_object(
        "mirrored".to_string(),
        Primitive::Cube,
        Transform { scale: Vector3::new(-1.0, 1.0, 1.0), ..Transform::default() },
    );
    scene.push(object, None).unwrap();
    let e = Editor::new(scene, 800.0, 600.0);
    let ray = |o: [f64; 3], d: [f64; 3]| Ray::new(Point3::from(o), Vector3::from(d)).unwrap();
    assert!(e.ray_hit(&ray([3.0, 0.1, 0.0], [-1.0, 0.0, 0.0]), |_| true).is_some());
    assert!(e.ray_hit(&ray([0.0, 0.1, 0.0], [-1.0, 0.0, 0.0]), |_| true).is_none());
}

/// Copies standing where their original stands share a leaf of the pick
/// tree (a pile of twins): a pick on their triangles must answer as the
/// objects tried one at a time do (the nearest hit, on a tie the lowest
/// id, refused ids passed by), through adds at one point, duplicates in
/// place, a move off and back, hides, deletes, undos and redos.
#[test]
fn piles_of_copies_pick_as_the_objects_one_by_one() {
    let mut scene = Scene::default();
    for i in 0..60 {
        let (mesh, x) = if i % 3 == 2 { (Primitive::Sphere, 0.3) } else { (Primitive::Cube, 0.0) };
        let object = primitive_object(
            format!("o{i}"),
            mesh,
            Transform { position: Vector3::new(x, 0.0, 0.0), ..Transform::default() },
        );
        scene.push(object, None).unwrap();
    }
    let mut e = Editor::new(scene, 800.0, 600.0);
    let mut rng = StdRng::seed_from_u64(3);
    let check = |e: &Editor, rng: &mut StdRng, round: &str| {
        let ids: Vec<usize> = e.scene().ids().collect();
        let mut hits = 0;
        for k in 0..40 {
            let o = Point3::new(rng.gen_range(-1.5..1.8), rng.gen_range(-1.0..1.0), 4.0);
            let to = Point3::new(rng.gen_range(-0.3..0.6), rng.gen_range(-0.3..0.3), 0.0);
            let ray = Ray::new(o, to - o).unwrap();
            for skip in [1, 3, 4] {
                let keep = |i: usize| skip == 1 || !i.is_multiple_of(skip);
                let mut expect: Option<(usize, f64)> = None;
                for &i in ids.iter().filter(|&&i| keep(i) && !e.scene().is_hidden(i)) {
                    // Object `i`'s own triangles, without the tree.
                    let (Some(mesh), Some(inv)) = (e.mesh_of(i), e.scene().world_inverse(i)) else { continue };
                    let dir = inv.transform_vector(&ray.dir.into_inner());
                    if let Some(t) = mesh.ray(&inv.transform_point(&ray.origin), &dir, f64::INFINITY) {
                        if expect.is_none_or(|(_, bt)| t < bt) {
                            expect = Some((i, t));
                        }
                    }
                }
                assert_eq!(e.ray_hit(&ray, keep), expect, "{round}: ray {k}, every {skip}th refused");
                hits += expect.is_some() as usize;
            }
        }
        assert!(hits > 30, "{round}: {hits} hits");
    };
    check(&e, &mut rng, "opened");
    for _ in 0..5 {
        assert!(e.add_object(MeshRef::Primitive(Primitive::Cube), Point3::origin()));
    }
    check(&e, &mut rng, "added");
    e.set_selection(&[0, 1, 5, 62]);
    assert!(e.duplicate());
    let copies = e.selection().to_vec();
    assert!(copies.iter().all(|&c| c >= 65));
    assert_eq!(e.scene().get(copies[2]).unwrap().transform, e.scene().get(5).unwrap().transform);
    check(&e, &mut rng, "duplicated");
    let was = e.scene().get(1).unwrap().transform;
    assert!(e.set_transform(1, Transform { position: Vector3::new(0.1, 0.2, 0.0), ..was }));
    check(&e, &mut rng, "moved off");
    assert!(e.set_transform(1, was));
    check(&e, &mut rng, "moved back");
    e.set_selection(&[0, 3, 4, 65]);
    assert!(e.hide_selected());
    check(&e, &mut rng, "hidden");
    e.set_selection(&[1, 6, 7, 8, 2]);
    assert!(e.delete());
    check(&e, &mut rng, "deleted");
    assert!(e.undo() && e.undo());
    check(&e, &mut rng, "undone");
    assert!(e.redo());
    check(&e, &mut rng, "redone");
}
