//! Unit tests of the scene index: boxes, exact picks, moves, ties.

use super::*;
use nalgebra::{Translation3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};

fn cube() -> (Point3<f64>, Point3<f64>) {
    (Point3::new(-0.5, -0.5, -0.5), Point3::new(0.5, 0.5, 0.5))
}

fn at(x: f64, y: f64, z: f64) -> Matrix4<f64> {
    Translation3::new(x, y, z).to_homogeneous()
}

#[test]
fn nearest_hit_and_incremental_move() {
    let (lo, hi) = cube();
    let mut idx =
        SceneIndex::build([(lo, hi, at(0.0, 0.0, -5.0)), (lo, hi, at(0.0, 0.0, -10.0)), (lo, hi, at(3.0, 0.0, -2.0))]);
    let ray = Ray::new(Point3::origin(), -Vector3::z()).unwrap();
    assert_eq!(idx.pick(&ray), Some(SceneHit { id: 0, t: 4.5 }));
    // Move object 0 out of the way: object 1 becomes the hit.
    idx.set(0, &lo, &hi, &at(5.0, 0.0, -5.0));
    assert_eq!(idx.pick(&ray), Some(SceneHit { id: 1, t: 9.5 }));
    // Move object 2 in front.
    idx.set(2, &lo, &hi, &at(0.0, 0.0, -2.0));
    assert_eq!(idx.pick(&ray).map(|h| h.id), Some(2));
    // Filter it out, remove it, add a new one.
    assert_eq!(idx.pick_filtered(&ray, |id| id != 2).map(|h| h.id), Some(1));
    idx.remove(2);
    assert_eq!(idx.pick(&ray).map(|h| h.id), Some(1));
    idx.set(5, &lo, &hi, &at(0.0, 0.0, -1.0));
    assert_eq!(idx.len(), 6);
    assert_eq!(idx.pick(&ray).map(|h| h.id), Some(5));
    // Zero scale, or beyond f32 range: not hittable, nothing panics.
    idx.set(5, &lo, &hi, &Matrix4::zeros());
    assert_eq!(idx.pick(&ray).map(|h| h.id), Some(1));
    idx.set(6, &lo, &hi, &at(0.0, 0.0, -1.0e35));
    assert_eq!(idx.pick(&ray).map(|h| h.id), Some(1));
    let mut huge = Matrix4::new_scaling(1.0e34);
    huge[(3, 3)] = 1.0;
    idx.set(0, &lo, &hi, &huge);
    assert_eq!(idx.pick(&ray).map(|h| h.id), Some(1));
    assert!(SceneIndex::new().pick(&ray).is_none());
}

#[test]
fn agrees_with_brute_force_far_from_origin() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let base = Vector3::new(1.0e4, -2.0e4, 1.0e4);
    let (lo, hi) = cube();
    let mk = |rng: &mut rand::rngs::StdRng| {
        let p = base + Vector3::new(rng.gen_range(-50.0..50.0), rng.gen_range(-50.0..50.0), rng.gen_range(-50.0..50.0));
        let r = UnitQuaternion::from_euler_angles(
            rng.gen_range(0.0..6.3),
            rng.gen_range(0.0..6.3),
            rng.gen_range(0.0..6.3),
        );
        let s = Vector3::new(rng.gen_range(0.01..3.0), rng.gen_range(0.01..3.0), rng.gen_range(0.0..3.0));
        Translation3::from(p).to_homogeneous() * r.to_homogeneous() * Matrix4::new_nonuniform_scaling(&s)
    };
    let objects: Vec<_> = (0..2000).map(|_| (lo, hi, mk(&mut rng))).collect();
    let mut idx = SceneIndex::build(objects);
    for round in 0..3 {
        if round > 0 {
            for _ in 0..200 {
                let id = rng.gen_range(0..idx.len());
                let m = mk(&mut rng);
                idx.set(id, &lo, &hi, &m);
            }
        }
        let mut hits = 0;
        for _ in 0..300 {
            let o = Point3::from(base + Vector3::new(rng.gen_range(-80.0..80.0), rng.gen_range(-80.0..80.0), 90.0));
            let target = Point3::from(base + Vector3::new(rng.gen_range(-40.0..40.0), rng.gen_range(-40.0..40.0), 0.0));
            let ray = Ray::new(o, target - o).unwrap();
            let a = idx.pick(&ray);
            let b = idx.pick_brute_force(&ray);
            assert_eq!(a.map(|h| h.t), b.map(|h| h.t));
            hits += a.is_some() as usize;
        }
        assert!(hits > 50, "too few hits to be a meaningful test: {hits}");
    }
}

/// Growing by appended ids and shrinking from the end (duplicate and its
/// undo) keeps the index equal to one built from scratch.
#[test]
fn appending_and_truncating_agree_with_a_fresh_build() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(23);
    let (lo, hi) = cube();
    let mut place = || at(rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0));
    let worlds: Vec<Matrix4<f64>> = (0..400).map(|_| place()).collect();
    let mut idx = SceneIndex::build(worlds[..300].iter().map(|m| (lo, hi, *m)));
    for (i, m) in worlds.iter().enumerate().skip(300) {
        idx.set(i, &lo, &hi, m);
    }
    idx.truncate(340);
    assert_eq!(idx.len(), 340);
    let fresh = SceneIndex::build(worlds[..340].iter().map(|m| (lo, hi, *m)));
    let mut rng = rand::rngs::StdRng::seed_from_u64(24);
    let mut hits = 0;
    for _ in 0..2000 {
        let o = Point3::new(rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0), 60.0);
        let t = Point3::new(rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0));
        let ray = Ray::new(o, t - o).unwrap();
        let (a, b) = (idx.pick(&ray), fresh.pick(&ray));
        assert_eq!(a.map(|h| h.id), b.map(|h| h.id));
        assert!(a.is_none_or(|h| h.id < 340));
        hits += a.is_some() as usize;
    }
    assert!(hits > 100, "{hits}");
}

/// Removing ids from the middle and setting them again (delete and its
/// undo: ids are stable) keeps the index picking like one built from
/// scratch each time, with the removed ids unhittable (a zero matrix).
#[test]
fn removing_and_setting_ids_again_agree_with_fresh_builds() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(31);
    let (lo, hi) = cube();
    let worlds: Vec<Matrix4<f64>> = (0..500)
        .map(|_| at(rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0)))
        .collect();
    let mut idx = SceneIndex::build(worlds.iter().map(|m| (lo, hi, *m)));
    let gone: Vec<usize> = (0..500).filter(|i| i % 7 == 3 || (200..230).contains(i)).collect();
    let without: Vec<Matrix4<f64>> =
        worlds.iter().enumerate().map(|(i, m)| if gone.contains(&i) { Matrix4::zeros() } else { *m }).collect();
    let compare = |idx: &SceneIndex, fresh: &[Matrix4<f64>], seed: u64| {
        let fresh_idx = SceneIndex::build(fresh.iter().map(|m| (lo, hi, *m)));
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut hits = 0;
        for _ in 0..2000 {
            let o = Point3::new(rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0), 60.0);
            let t = Point3::new(rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0));
            let ray = Ray::new(o, t - o).unwrap();
            assert_eq!(idx.pick(&ray).map(|h| h.id), fresh_idx.pick(&ray).map(|h| h.id));
            assert_eq!(idx.pick(&ray).map(|h| h.t), idx.pick_brute_force(&ray).map(|h| h.t));
            hits += idx.pick(&ray).is_some() as usize;
        }
        hits
    };
    // Half one by one, half at once.
    let (one, many) = gone.split_at(gone.len() / 2);
    for &i in one {
        idx.remove(i);
    }
    idx.remove_many(many);
    assert_eq!(idx.len(), 500, "ids stay");
    assert!(gone.iter().all(|&i| idx.obb(i).is_none()));
    assert!(compare(&idx, &without, 1) > 100);
    let back: Vec<_> = gone.iter().map(|&i| (i, lo, hi, worlds[i])).collect();
    idx.set_many(&back);
    assert!(compare(&idx, &worlds, 2) > 100);
    // And objects keep moving incrementally afterwards; removed ids can be
    // truncated away (an undone duplicate).
    idx.set(250, &lo, &hi, &at(100.0, 0.0, 0.0));
    let mut moved = worlds.clone();
    moved[250] = at(100.0, 0.0, 0.0);
    assert!(compare(&idx, &moved, 3) > 100);
    for i in 480..500 {
        idx.remove(i);
    }
    idx.truncate(480);
    assert!(compare(&idx, &moved[..480], 4) > 100);
    // Removing every object leaves nothing to hit; setting them brings them back.
    for i in 0..480 {
        idx.remove(i);
    }
    assert_eq!(compare(&idx, &vec![Matrix4::zeros(); 480], 5), 0);
    for (i, m) in moved[..480].iter().enumerate() {
        idx.set(i, &lo, &hi, m);
    }
    assert!(compare(&idx, &moved[..480], 6) > 100);
    // All at once both ways (a rebuild), then a few back one by one.
    idx.remove_many(&(0..480).collect::<Vec<_>>());
    assert_eq!(compare(&idx, &vec![Matrix4::zeros(); 480], 7), 0);
    let all: Vec<_> = (0..480).map(|i| (i, lo, hi, moved[i])).collect();
    idx.set_many(&all[..470]);
    idx.set_many(&all[470..]);
    assert!(compare(&idx, &moved[..480], 8) > 100);
}

/// The frustum walk finds exactly the boxes a brute-force test over all
/// of them keeps, on random scenes and cameras (both depth modes, near
/// planes cutting boxes, far from the origin), also after incremental
/// moves and removals.
#[test]
fn the_frustum_walk_keeps_what_brute_force_keeps() {
    use crate::math::{Camera, DepthMode, Projection, View};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let (mut in_view, mut out_of_view) = (0, 0);
    for round in 0..40 {
        let origin = if round % 4 == 3 { Vector3::new(3.0e5, -2.0e5, 1.0e5) } else { Vector3::zeros() };
        let n = rng.gen_range(1..400);
        let boxes: Vec<(Point3<f64>, Point3<f64>, Matrix4<f64>)> = (0..n)
            .map(|_| {
                let t = origin
                    + Vector3::new(rng.gen_range(-60.0..60.0), rng.gen_range(-60.0..60.0), rng.gen_range(-60.0..60.0));
                let q = UnitQuaternion::from_euler_angles(rng.gen(), rng.gen(), rng.gen());
                let h = Vector3::new(rng.gen_range(0.1..4.0), rng.gen_range(0.1..4.0), rng.gen_range(0.1..4.0));
                (Point3::from(-h), Point3::from(h), Translation3::from(t).to_homogeneous() * q.to_homogeneous())
            })
            .collect();
        let mut index = SceneIndex::build(boxes.iter().cloned());
        // Move and drop some, as editing does.
        for id in 0..n.min(20) {
            let (lo, hi, m) = &boxes[(id * 7) % n];
            index.set(id, lo, hi, &(Translation3::new(5.0, 0.0, -3.0).to_homogeneous() * m));
        }
        if n > 10 {
            index.truncate(n - 5);
        }
        let eye = Point3::from(
            origin + Vector3::new(rng.gen_range(-80.0..80.0), rng.gen_range(-80.0..80.0), rng.gen_range(-80.0..80.0)),
        );
        let target = Point3::from(origin + Vector3::new(rng.gen_range(-10.0..10.0), 0.0, rng.gen_range(-10.0..10.0)));
        let projection = if round % 2 == 0 {
            Projection::Perspective { fov_y: rng.gen_range(0.3..1.5), near: rng.gen_range(0.5..20.0), far: 500.0 }
        } else {
            Projection::Orthographic { height: rng.gen_range(5.0..80.0), near: rng.gen_range(0.5..20.0), far: 500.0 }
        };
        let camera = Camera { eye, target, up: Vector3::y(), projection };
        for depth in [DepthMode::Reversed, DepthMode::Standard] {
            let Ok(view) = View::new(camera, 800.0, 600.0, depth) else { continue };
            let frustum = view.frustum();
            let mut walked = Vec::new();
            index.visit_in_frustum(&frustum, |id| walked.push(id));
            let mut kept: Vec<usize> = walked
                .into_iter()
                .filter(|&id| {
                    let (lo, hi) = index.obb(id).unwrap().aabb();
                    frustum.intersects_aabb(&lo, &hi)
                })
                .collect();
            kept.sort_unstable();
            let brute: Vec<usize> = (0..index.len())
                .filter(|&id| {
                    index.obb(id).is_some_and(|b| {
                        let (lo, hi) = b.aabb();
                        frustum.intersects_aabb(&lo, &hi)
                    })
                })
                .collect();
            assert_eq!(kept, brute, "round {round}, {depth:?}");
            in_view += brute.len();
            out_of_view += index.len() - brute.len();
        }
    }
    assert!(in_view > 500 && out_of_view > 500, "{in_view} kept, {out_of_view} culled");
}

/// Boxes with a hidden flag each, as the editor's scene gives them: a
/// hidden id has no box.
struct Hideable {
    obbs: Vec<Option<Obb>>,
    hidden: Vec<bool>,
}

impl Boxes for Hideable {
    fn obb(&self, id: usize) -> Option<Obb> {
        if self.hidden[id] {
            return None;
        }
        self.obbs[id]
    }
}

/// Parked leaves (hidden objects) are passed by rays and frustum walks;
/// taken back they hit again; a box changed while parked (told with
/// `set`) lands where it moved to. Every answer is checked against brute
/// force over the visible boxes.
#[test]
fn parked_leaves_are_skipped_and_come_back_where_their_boxes_are() {
    use crate::math::{Camera, DepthMode, Projection, View};
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let (lo, hi) = cube();
    let n = 400;
    let mut boxes = Hideable {
        obbs: (0..n)
            .map(|_| {
                let m = at(rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0));
                placed_obb(&lo, &hi, &m)
            })
            .collect(),
        hidden: vec![false; n],
    };
    let mut tree = BoxTree::build(n, &boxes);
    let camera = Camera {
        eye: Point3::new(0.0, 10.0, 60.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 0.5, near: 0.5, far: 500.0 },
    };
    let frustum = View::new(camera, 800.0, 600.0, DepthMode::Reversed).unwrap().frustum();
    let check = |tree: &BoxTree, boxes: &Hideable, seed: u64| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut hits = 0;
        for _ in 0..1500 {
            let o = Point3::new(rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0), 60.0);
            let t = Point3::new(rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0), rng.gen_range(-20.0..20.0));
            let ray = Ray::new(o, t - o).unwrap();
            let got = tree.pick_with(boxes, &ray, |_, t, _| Some(t));
            assert_eq!(got.map(|h| (h.id, h.t)), tree.pick_brute_force(boxes, &ray).map(|h| (h.id, h.t)));
            if let Some(h) = got {
                assert!(!boxes.hidden[h.id], "a hidden object was hit");
                hits += 1;
            }
        }
        let mut walked = Vec::new();
        tree.visit_in_frustum(&frustum, |id| walked.push(id));
        assert!(walked.iter().all(|&id| !boxes.hidden[id]), "the frustum walk gave a hidden object");
        let mut kept: Vec<usize> = walked
            .into_iter()
            .filter(|&id| {
                let (lo, hi) = boxes.obb(id).unwrap().aabb();
                frustum.intersects_aabb(&lo, &hi)
            })
            .collect();
        kept.sort_unstable();
        let brute: Vec<usize> = (0..n)
            .filter(|&id| {
                boxes.obb(id).is_some_and(|b| {
                    let (lo, hi) = b.aabb();
                    frustum.intersects_aabb(&lo, &hi)
                })
            })
            .collect();
        assert_eq!(kept, brute);
        hits
    };
    assert!(check(&tree, &boxes, 1) > 100);
    // Hide a third.
    let hidden: Vec<usize> = (0..n).filter(|i| i % 3 == 1).collect();
    for &i in &hidden {
        boxes.hidden[i] = true;
        tree.park(i);
    }
    assert!(check(&tree, &boxes, 2) > 50);
    // Some hidden ones move while hidden (the owner tells the tree).
    for &i in hidden.iter().take(20) {
        boxes.obbs[i] = placed_obb(&lo, &hi, &at(rng.gen_range(-20.0..20.0), 0.0, rng.gen_range(-20.0..20.0)));
        tree.set(i, &boxes);
    }
    assert!(check(&tree, &boxes, 3) > 50);
    // Show them all again: the same answers as a tree built afresh.
    boxes.hidden.iter_mut().for_each(|h| *h = false);
    tree.unpark_many(&hidden, &boxes);
    assert!(check(&tree, &boxes, 4) > 100);
    let fresh = BoxTree::build(n, &boxes);
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    for _ in 0..500 {
        let o = Point3::new(rng.gen_range(-30.0..30.0), rng.gen_range(-30.0..30.0), 60.0);
        let ray = Ray::new(o, Point3::origin() - o).unwrap();
        let a = tree.pick_with(&boxes, &ray, |_, t, _| Some(t)).map(|h| h.id);
        assert_eq!(a, fresh.pick_with(&boxes, &ray, |_, t, _| Some(t)).map(|h| h.id));
    }
    // Parked, then removed (deleted while hidden): a rebuild-free unpark
    // does not bring a removed leaf back.
    boxes.hidden[0] = true;
    tree.park(0);
    tree.remove(0);
    boxes.obbs[0] = None;
    boxes.hidden[0] = false;
    tree.unpark_many(&[0], &boxes);
    assert!(check(&tree, &boxes, 5) > 100);
}

/// Boxes at a few places with a shape number each: ids at the same place
/// with the same shape are twins; `hidden` ids give no box.
struct Shaped {
    places: Vec<Option<usize>>,
    shapes: Vec<u8>,
    hidden: Vec<bool>,
    spots: Vec<Obb>,
}

impl Boxes for Shaped {
    fn obb(&self, id: usize) -> Option<Obb> {
        if self.hidden[id] {
            return None;
        }
        self.places[id].map(|p| self.spots[p])
    }

    fn twins(&self, a: usize, b: usize) -> bool {
        self.places[a].is_some() && self.places[a] == self.places[b] && self.shapes[a] == self.shapes[b]
    }
}

/// Piles of twins (copies at one place) answer every pick and frustum walk
/// as separate leaves would: through random adds, moves, removals, hides,
/// shows, truncations and rebuilds, a pick with an exact test that refuses
/// some ids is checked against brute force (nearest, then the lowest id),
/// and a walk over everything must give each shown id exactly once.
#[test]
fn piles_of_twins_answer_as_separate_leaves() {
    use crate::math::{Camera, DepthMode, Projection, View};
    let mut rng = rand::rngs::StdRng::seed_from_u64(21);
    let (lo, hi) = cube();
    // Six places along a line in front of the rays, some overlapping.
    let spots: Vec<Obb> =
        (0..6).map(|k| placed_obb(&lo, &hi, &at(0.3 * k as f64, 0.0, -1.5 * k as f64)).unwrap()).collect();
    let n = 300;
    let mut boxes = Shaped {
        places: (0..n).map(|_| Some(rng.gen_range(0..6))).collect(),
        shapes: (0..n).map(|_| rng.gen_range(0..2)).collect(),
        hidden: vec![false; n],
        spots,
    };
    let mut tree = BoxTree::build(n, &boxes);
    let camera = Camera {
        eye: Point3::new(0.0, 0.0, 50.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 1.2, near: 0.1, far: 1000.0 },
    };
    let frustum = View::new(camera, 800.0, 600.0, DepthMode::Reversed).unwrap().frustum();
    let check = |tree: &BoxTree, boxes: &Shaped, seed: u64| {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let refused = rng.gen_range(2..6);
        let keep = |id: usize| !id.is_multiple_of(refused);
        let len = tree.len();
        for _ in 0..300 {
            let o = Point3::new(rng.gen_range(-1.0..2.0), rng.gen_range(-0.6..0.6), 20.0);
            let ray = Ray::new(o, Point3::new(rng.gen_range(-0.4..1.8), rng.gen_range(-0.4..0.4), -4.0) - o).unwrap();
            let got = tree.pick_kept(boxes, &ray, keep, |_, t, _| Some(t));
            let mut brute: Option<SceneHit> = None;
            for id in (0..len).filter(|&id| keep(id)) {
                if let Some(t) = boxes.obb(id).and_then(|b| b.intersect_ray(&ray)) {
                    if brute.is_none_or(|b| t < b.t) {
                        brute = Some(SceneHit { id, t });
                    }
                }
            }
            assert_eq!(got, brute);
        }
        let mut walked = Vec::new();
        tree.visit_in_frustum(&frustum, |id| walked.push(id));
        walked.sort_unstable();
        let shown: Vec<usize> = (0..len).filter(|&id| boxes.obb(id).is_some()).collect();
        assert_eq!(walked, shown, "each shown id once");
    };
    check(&tree, &boxes, 1);
    // The build piled neighbouring twins.
    assert!(tree.leaves() < n, "{} leaves", tree.leaves());
    // Copies made together (neighbouring ids) are one leaf after a build;
    // ids added one by one join it.
    let copies =
        Shaped { places: vec![Some(2); 50], shapes: vec![1; 50], hidden: vec![false; 50], spots: boxes.spots.clone() };
    let mut together = BoxTree::build(40, &copies);
    assert_eq!(together.leaves(), 1);
    for id in 40..50 {
        together.set(id, &copies);
    }
    assert_eq!(together.leaves(), 1);
    check(&together, &copies, 2);
    for round in 0..60u64 {
        let len = tree.len();
        match round % 6 {
            // Moves (some to where twins stand) and shape changes.
            0 => {
                for _ in 0..30 {
                    let id = rng.gen_range(0..len);
                    if boxes.places[id].is_some() && !boxes.hidden[id] {
                        boxes.places[id] = Some(rng.gen_range(0..6));
                        boxes.shapes[id] = rng.gen_range(0..2);
                        tree.set(id, &boxes);
                    }
                }
            }
            // Adds past the end, one by one.
            1 => {
                for _ in 0..rng.gen_range(1..40) {
                    let id = boxes.places.len();
                    boxes.places.push(Some(rng.gen_range(0..6)));
                    boxes.shapes.push(rng.gen_range(0..2));
                    boxes.hidden.push(false);
                    tree.set(id, &boxes);
                }
            }
            // Removals (keepers among them, of whole piles at times).
            2 => {
                let ids: Vec<usize> = (0..len).filter(|_| rng.gen_bool(0.1)).collect();
                for &id in &ids {
                    boxes.places[id] = None;
                }
                tree.remove_many(&ids, &boxes);
            }
            // Hides, then shows of some of the hidden.
            3 => {
                for id in (0..len).filter(|_| rng.gen_bool(0.2)) {
                    if boxes.places[id].is_some() && !boxes.hidden[id] {
                        boxes.hidden[id] = true;
                        tree.park(id);
                    }
                }
            }
            4 => {
                let shown: Vec<usize> = (0..len).filter(|&id| boxes.hidden[id] && rng.gen_bool(0.5)).collect();
                for &id in &shown {
                    boxes.hidden[id] = false;
                }
                tree.unpark_many(&shown, &boxes);
            }
            // Truncation, or adds back at the removed ids.
            _ => {
                if round % 12 == 5 {
                    let keep = len - rng.gen_range(0..len / 8);
                    boxes.places.truncate(keep);
                    boxes.shapes.truncate(keep);
                    boxes.hidden.truncate(keep);
                    tree.truncate(keep, &boxes);
                } else {
                    let gone: Vec<usize> = (0..len).filter(|&id| boxes.places[id].is_none()).take(20).collect();
                    for id in gone {
                        boxes.places[id] = Some(rng.gen_range(0..6));
                        tree.set(id, &boxes);
                    }
                }
            }
        }
        check(&tree, &boxes, 100 + round);
    }
    // A tree built afresh over the same boxes agrees.
    check(&BoxTree::build(tree.len(), &boxes), &boxes, 7);
}
