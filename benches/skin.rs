//! Skinning benchmark: the CPU cost of posing a skinned model when one of
//! its joints moves (`Fox.glb` of `../shared/real-assets`; nothing is
//! measured when that folder is missing), and one step of its Walk clip
//! playing. Run with `cargo bench --bench skin`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

/// A skinned model: one step of dragging a joint of `Fox.glb` (24 joints;
/// `../shared/real-assets`, when it is there): the
/// transform write, the CPU skinning of the fox in f64 and its new bounds
/// in the pick tree (the triangle BVH is built only when something picks).
fn skin(c: &mut Criterion) {
    let fox = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/real-assets/Fox.glb");
    let Ok(opened) = viewport::app::open::open_scene(Some(&fox)) else { return };
    let size = (1280, 720);
    let (mut e, _) = viewport::app::open::open_editor_for(opened, size, viewport::math::DepthMode::Reversed).unwrap();
    let joint = e.scene().find("b_Spine01_02").expect("the fox's spine joint");
    let fox = e.scene().find("fox").expect("the skinned fox");
    let rest = e.scene().objects()[joint].transform;
    let mut bent = rest;
    bent.rotation *= nalgebra::UnitQuaternion::from_euler_angles(0.0, 0.0, 0.3);
    let mut flip = false;
    c.bench_function("skin/fox_joint_drag_step", |b| {
        b.iter(|| {
            flip = !flip;
            e.set_transform(joint, if flip { bent } else { rest });
            black_box(e.posed_mesh(fox).is_some())
        })
    });
    // One step of the fox's Walk clip playing (1/60 s): every animated
    // joint sampled and written, the fox skinned again on the CPU.
    let walk = e.clip_named("Walk").expect("the fox's Walk clip");
    assert!(e.show_animation(walk, 0.0, true));
    c.bench_function("skin/fox_walk_animation_step", |b| {
        b.iter(|| {
            e.advance(1.0 / 60.0);
            black_box(e.posed_mesh(fox).is_some())
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(3));
    targets = skin
}
criterion_main!(benches);
