//! The built-in scenes: the demo (`assets/demo.json`, compiled in) and the
//! cube grids of the scale benchmarks.

use std::path::Path;

use nalgebra::{Point3, Vector3};

use super::mesh_ref::MeshRef;
use super::object::Object;
use super::primitives::Primitive;
use super::Scene;
use crate::math::{Camera, Projection, Transform};

impl Scene {
    /// `n` unit cubes on a square grid in the ground plane, 2 m apart, in
    /// rows of `ceil(sqrt(n))`, with a camera that sees the whole grid: the
    /// scenes the scale benchmarks use (`make bench-scenes` writes them).
    pub fn cube_grid(n: usize) -> Scene {
        let side = (n as f64).sqrt().ceil().max(1.0) as usize;
        let objects = (0..n)
            .map(|i| Object {
                name: format!("cube{i}").into(),
                mesh: MeshRef::Primitive(Primitive::Cube),
                transform: Transform {
                    position: Vector3::new((i % side) as f64 * 2.0, 0.0, (i / side) as f64 * 2.0),
                    ..Transform::IDENTITY
                },
                color: [0.8, 0.8, 0.8],
                hidden: false,
                skin: None,
                extras: None,
                origin: None,
                fixture: None,
                cast_shadows: true,
            })
            .collect();
        let extent = side as f64 * 2.0;
        let camera = Camera {
            eye: Point3::new(extent * 0.5, extent * 0.6, extent * 1.3),
            target: Point3::new(extent * 0.5, 0.0, extent * 0.5),
            up: Vector3::y(),
            projection: Projection::Perspective { fov_y: 50f64.to_radians(), near: 0.05, far: extent * 4.0 },
        };
        Scene::from_objects(Some(camera), objects)
    }

    /// The built-in demo scene (`assets/demo.json`, compiled in).
    pub fn demo() -> Scene {
        Scene::from_json(DEMO_SCENE_JSON, Path::new("assets")).expect("the built-in demo scene is valid")
    }
}

/// The demo scene's JSON, as shipped in `assets/demo.json`.
pub const DEMO_SCENE_JSON: &str = include_str!("../../assets/demo.json");
