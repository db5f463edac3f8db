//! Core benchmarks: gizmo hover + drag per frame, scene picking among 100k
//! and 1M objects (boxes alone, and exact on the triangles through the
//! editor), the incremental BVH update after moving one object, and the
//! triangle BVH build per mesh.
//!
//! Run with `cargo bench --bench core`. Medians are what the README quotes.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::{Matrix4, Point2, Point3, Translation3, UnitQuaternion, Vector2, Vector3};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use viewport::gizmo::{Axis, Gizmo, GizmoConfig, Handle, Mode, Target};
use viewport::math::{Camera, DepthMode, Projection, Ray, Transform, View};
use viewport::picking::SceneIndex;

fn camera() -> Camera {
    Camera {
        eye: Point3::new(6.0, 4.0, 8.0),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: 1000.0 },
    }
}

fn gizmo_frame(c: &mut Criterion) {
    let targets =
        [Target::root(Transform { rotation: UnitQuaternion::from_euler_angles(0.2, 0.4, 0.1), ..Transform::IDENTITY })];
    for (name, mode, handle) in [
        ("gizmo/translate_hover_and_axis_drag", Mode::Translate, Handle::TranslateAxis(Axis::X)),
        ("gizmo/rotate_hover_and_ring_drag", Mode::Rotate, Handle::RotateAxis(Axis::Y)),
        ("gizmo/scale_hover_and_axis_drag", Mode::Scale, Handle::ScaleAxis(Axis::X)),
    ] {
        let view = View::new(camera(), 1280.0, 720.0, DepthMode::Reversed).unwrap();
        let mut drag = Gizmo::new(GizmoConfig { mode, ..GizmoConfig::default() });
        let mut hover = drag.clone();
        let frame = drag.frame(&view, &targets).unwrap();
        let grab = match handle {
            Handle::RotateAxis(_) => {
                let (e1, _) = viewport::math::orthonormal_basis(&nalgebra::Unit::new_normalize(frame.axes[1]));
                frame.pivot + e1 * frame.len
            }
            _ => frame.pivot + frame.axes[0] * (0.7 * frame.len),
        };
        let m0 = view.world_to_screen(&grab).unwrap();
        assert!(drag.begin_with(&view, &targets, handle, m0));
        let mut i = 0u32;
        // One frame of gizmo work with this frame's View: a hover pick and a drag update.
        c.bench_function(name, |b| {
            b.iter(|| {
                i = i.wrapping_add(1);
                let m = m0 + Vector2::new((i % 64) as f64, (i % 37) as f64 * 0.5);
                let h = hover.hover(&view, &targets, black_box(m));
                let u = drag.update(&view, black_box(m), false);
                black_box((h, u))
            })
        });
    }
    // Building the frame's View (matrices and closed-form inverses), shared by
    // everything else in the frame.
    c.bench_function("math/view_new", |b| {
        b.iter(|| black_box(View::new(black_box(camera()), 1280.0, 720.0, DepthMode::Reversed)))
    });
}

/// Per-ray latency percentiles (criterion reports means over many rays; the
/// goal is stated as a per-pick p50).
fn percentiles(index: &SceneIndex, rays: &[Ray], label: &str) {
    let mut t: Vec<f64> = Vec::with_capacity(rays.len() * 5);
    for _ in 0..5 {
        for r in rays {
            let s = std::time::Instant::now();
            black_box(index.pick(black_box(r)));
            t.push(s.elapsed().as_nanos() as f64);
        }
    }
    t.sort_by(f64::total_cmp);
    let q = |p: f64| t[((t.len() - 1) as f64 * p) as usize];
    eprintln!(
        "{label}: per-pick p50 {:.0} ns, p90 {:.0} ns, p99 {:.0} ns, mean {:.0} ns ({})",
        q(0.5),
        q(0.9),
        q(0.99),
        t.iter().sum::<f64>() / t.len() as f64,
        index.stats()
    );
}

/// Local bounds and world matrix per object.
type Boxes = Vec<(Point3<f64>, Point3<f64>, Matrix4<f64>)>;

/// `n` random boxes (rotated, non-uniformly scaled unit cubes) in a cube of
/// side proportional to n^(1/3), so the density is the same for every n.
fn random_scene(n: usize, rng: &mut StdRng) -> (Boxes, f64) {
    let side = 4.0 * (n as f64).cbrt();
    let lo = Point3::new(-0.5, -0.5, -0.5);
    let hi = Point3::new(0.5, 0.5, 0.5);
    let objs = (0..n)
        .map(|_| {
            let p = Vector3::new(rng.gen_range(-side..side), rng.gen_range(-side..side), rng.gen_range(-side..side));
            let r = UnitQuaternion::from_euler_angles(
                rng.gen_range(0.0..3.0),
                rng.gen_range(0.0..3.0),
                rng.gen_range(0.0..3.0),
            );
            let s = Vector3::new(rng.gen_range(0.3..2.0), rng.gen_range(0.3..2.0), rng.gen_range(0.3..2.0));
            (lo, hi, Translation3::from(p).to_homogeneous() * r.to_homogeneous() * Matrix4::new_nonuniform_scaling(&s))
        })
        .collect();
    (objs, side)
}

/// Rays from a camera outside the volume through random screen points.
fn camera_rays(side: f64, rng: &mut StdRng) -> Vec<Ray> {
    let cam = Camera {
        eye: Point3::new(side * 1.6, side * 1.1, side * 1.9),
        target: Point3::origin(),
        up: Vector3::y(),
        projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: 1000.0 },
    };
    let view = View::new(cam, 1280.0, 720.0, DepthMode::Reversed).unwrap();
    (0..4096)
        .map(|_| view.cursor_ray(&Point2::new(rng.gen_range(0.0..1280.0), rng.gen_range(0.0..720.0))).unwrap())
        .collect()
}

fn scene_pick(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(42);
    for n in [100_000usize, 1_000_000] {
        let (objs, side) = random_scene(n, &mut rng);
        let mut index = SceneIndex::build(objs);
        let rays = camera_rays(side, &mut rng);
        let hits = rays.iter().filter(|r| index.pick(r).is_some()).count();
        eprintln!("{n} objects: {hits} of {} rays hit", rays.len());
        percentiles(&index, &rays, &format!("pick among {n}"));
        let mut i = 0usize;
        c.bench_function(&format!("scene/pick_{}k", n / 1000), |b| {
            b.iter(|| {
                i = (i + 1) % rays.len();
                black_box(index.pick(black_box(&rays[i])))
            })
        });
        // Incremental update: move one object to a new random place.
        let moves: Vec<(usize, Matrix4<f64>)> = (0..4096)
            .map(|_| {
                let p =
                    Vector3::new(rng.gen_range(-side..side), rng.gen_range(-side..side), rng.gen_range(-side..side));
                (rng.gen_range(0..n), Translation3::from(p).to_homogeneous())
            })
            .collect();
        let (lo, hi) = (Point3::new(-0.5, -0.5, -0.5), Point3::new(0.5, 0.5, 0.5));
        let mut j = 0usize;
        c.bench_function(&format!("scene/update_one_{}k", n / 1000), |b| {
            b.iter(|| {
                j = (j + 1) % moves.len();
                let (id, m) = &moves[j];
                index.set(*id, &lo, &hi, m);
            })
        });
        // The tree stays usable after thousands of moves.
        let hits_after = rays.iter().filter(|r| index.pick(r).is_some()).count();
        eprintln!("{n} objects after updates: {hits_after} hits");
        percentiles(&index, &rays, &format!("pick among {n} after 1000s of moves"));
        c.bench_function(&format!("scene/pick_{}k_after_updates", n / 1000), |b| {
            b.iter(|| {
                i = (i + 1) % rays.len();
                black_box(index.pick(black_box(&rays[i])))
            })
        });
    }
}

/// Exact picks through the editor (object boxes, then each candidate's
/// triangle BVH in its own space), among 100k and 1M rotated, non-uniformly
/// scaled tori and spheres; per-pick percentiles over rays that hit and miss.
fn exact_pick(c: &mut Criterion) {
    use viewport::editor::Editor;
    use viewport::scene::{MeshRef, Object, Primitive, Scene};
    let mut rng = StdRng::seed_from_u64(43);
    for n in [100_000usize, 1_000_000] {
        let side = 4.0 * (n as f64).cbrt();
        let objects: Vec<Object> = (0..n)
            .map(|i| Object {
                name: format!("o{i}").into(),
                mesh: MeshRef::Primitive(if i % 2 == 0 { Primitive::Torus } else { Primitive::Sphere }),
                transform: Transform {
                    position: Vector3::new(
                        rng.gen_range(-side..side),
                        rng.gen_range(-side..side),
                        rng.gen_range(-side..side),
                    ),
                    rotation: UnitQuaternion::from_euler_angles(
                        rng.gen_range(0.0..3.0),
                        rng.gen_range(0.0..3.0),
                        rng.gen_range(0.0..3.0),
                    ),
                    scale: Vector3::new(rng.gen_range(0.3..2.0), rng.gen_range(0.3..2.0), rng.gen_range(0.3..2.0)),
                },
                color: [0.8; 3],
                hidden: false,
                skin: None,
                extras: None,
                origin: None,
                fixture: None,
                cast_shadows: true,
            })
            .collect();
        let mut editor = Editor::new(Scene::from_objects(None, objects), 1280.0, 720.0);
        editor.camera = Camera {
            eye: Point3::new(side * 1.6, side * 1.1, side * 1.9),
            target: Point3::origin(),
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: 1000.0 },
        };
        let cursors: Vec<Point2<f64>> =
            (0..4096).map(|_| Point2::new(rng.gen_range(0.0..1280.0), rng.gen_range(0.0..720.0))).collect();
        // The triangle trees are built on first use, as in the editor.
        let hits = cursors.iter().filter(|p| editor.surface_at(**p, |_| true).is_some()).count();
        let mut t: Vec<f64> = Vec::with_capacity(cursors.len() * 5);
        for _ in 0..5 {
            for p in &cursors {
                let s = std::time::Instant::now();
                black_box(editor.surface_at(black_box(*p), |_| true));
                t.push(s.elapsed().as_nanos() as f64);
            }
        }
        t.sort_by(f64::total_cmp);
        let q = |p: f64| t[((t.len() - 1) as f64 * p) as usize];
        eprintln!(
            "exact pick among {n}: {hits} of {} cursors hit; per-pick p50 {:.0} ns, p90 {:.0} ns, p99 {:.0} ns, mean {:.0} ns",
            cursors.len(),
            q(0.5),
            q(0.9),
            q(0.99),
            t.iter().sum::<f64>() / t.len() as f64
        );
        let mut i = 0usize;
        c.bench_function(&format!("scene/exact_pick_{}k", n / 1000), |b| {
            b.iter(|| {
                i = (i + 1) % cursors.len();
                black_box(editor.surface_at(black_box(cursors[i]), |_| true))
            })
        });
    }
}

/// Building the triangle BVH of a mesh (once per mesh, on first pick).
fn mesh_bvh_build(c: &mut Criterion) {
    use viewport::mesh::MeshData;
    use viewport::picking::MeshBvh;
    use viewport::scene::Primitive;
    let fine_torus = MeshData::torus(0.5, 0.15, 400, 120);
    for (name, mesh) in [
        ("cube_12_tris", Primitive::Cube.mesh()),
        ("sphere_2304_tris", Primitive::Sphere.mesh()),
        ("torus_2304_tris", Primitive::Torus.mesh()),
        ("torus_96000_tris", fine_torus),
    ] {
        assert!(!mesh.indices.is_empty());
        c.bench_function(&format!("mesh_bvh/build_{name}"), |b| b.iter(|| black_box(MeshBvh::build(black_box(&mesh)))));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(60).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = gizmo_frame, scene_pick, exact_pick, mesh_bvh_build
}
criterion_main!(benches);
