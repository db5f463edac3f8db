//! Embedding the gizmo in an engine that has its own camera matrices.
//!
//! One object, one translate gizmo: hover the X arrow, drag it over a few
//! frames, print the object's transform after each update, end the drag.
//! The program checks the gizmo's promise itself: the grabbed point of the
//! arrow stays under the cursor (under its projection onto the arrow's
//! screen line), and exits non-zero if it drifts by 1e-3 px or more.
//!
//! Run with `cargo run --example embed_gizmo -p viewport-gizmo`.

use std::process::ExitCode;

use nalgebra::{Matrix4, Point2, Point3, Vector2, Vector3};
use viewport_gizmo::gizmo::{Axis, Gizmo, GizmoConfig, Handle, Target};
use viewport_gizmo::math::{DepthMode, Transform, View};

fn main() -> ExitCode {
    let (width, height) = (1280.0, 720.0);

    // The engine's camera, as it would hand it to its shaders: a right-handed
    // look-at view matrix and a reversed-Z perspective projection with an
    // infinite far plane in Vulkan clip space (y down, depth 1 at the near
    // plane and 0 at infinity).
    let eye = Point3::new(4.0, 3.0, 6.0);
    let view_matrix = Matrix4::look_at_rh(&eye, &Point3::origin(), &Vector3::y());
    let (fov_y, near) = (60f64.to_radians(), 0.1);
    let f = 1.0 / (0.5 * fov_y).tan();
    #[rustfmt::skip]
    let projection = Matrix4::new(
        f * height / width, 0.0, 0.0,  0.0,
        0.0,                -f,  0.0,  0.0,
        0.0,                0.0, 0.0,  near,
        0.0,                0.0, -1.0, 0.0,
    );
    let view = match View::from_matrices(view_matrix, projection, (width, height), DepthMode::Reversed) {
        Ok(view) => view,
        Err(e) => {
            eprintln!("bad camera: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The engine's own world -> pixel map, used to check the gizmo.
    let to_screen = |p: &Point3<f64>| {
        let c = projection * view_matrix * p.to_homogeneous();
        Point2::new((c.x / c.w + 1.0) * 0.5 * width, (c.y / c.w + 1.0) * 0.5 * height)
    };

    // The selected object: a root object (its parent's world matrix is the identity).
    let start = Transform { position: Vector3::new(0.5, 0.0, -0.5), ..Transform::IDENTITY };
    let targets = [Target::root(start)];
    let mut gizmo = Gizmo::new(GizmoConfig::default()); // translate, world axes

    // Put the cursor on the X arrow, 70% of the way along it.
    let frame = gizmo.frame(&view, &targets).expect("the object is in front of the camera");
    let x_axis = frame.axes[0];
    let grabbed = frame.pivot + x_axis * (0.7 * frame.len);
    let mut cursor = to_screen(&grabbed);
    let hovered = gizmo.hover(&view, &targets, cursor);
    println!("hovering {}", hovered.map_or("nothing".to_string(), |h| h.name()));

    // Mouse down, then a few mouse moves (along the arrow and off it).
    if hovered != Some(Handle::TranslateAxis(Axis::X)) || !gizmo.begin(&view, &targets, cursor) {
        eprintln!("the X arrow could not be grabbed");
        return ExitCode::FAILURE;
    }
    let mut worst: f64 = 0.0;
    for step in 1..=5 {
        cursor += Vector2::new(25.0, -4.0);
        let Some(update) = gizmo.update(&view, cursor, false) else {
            eprintln!("no update for a finite cursor");
            return ExitCode::FAILURE;
        };
        let object = update.transforms[0];
        let p = object.position;
        println!(
            "frame {step}: cursor ({:.1}, {:.1}) -> position ({:.4}, {:.4}, {:.4})",
            cursor.x, cursor.y, p.x, p.y, p.z
        );

        // Where the grabbed point is now, and where the cursor's projection
        // onto the X axis's screen line is.
        let moved = grabbed + (p - start.position);
        let pivot = Point3::from(p);
        let a = to_screen(&pivot);
        let along = (to_screen(&(pivot + x_axis)) - a).normalize();
        let foot = a + along * along.dot(&(cursor - a));
        worst = worst.max((to_screen(&moved) - foot).norm());
    }

    // Mouse up: the gizmo hands back the before/after transforms for undo.
    let Some(done) = gizmo.end() else {
        eprintln!("no drag to end");
        return ExitCode::FAILURE;
    };
    let p = done.after[0].position;
    println!("final position ({:.4}, {:.4}, {:.4}) after dragging {}", p.x, p.y, p.z, done.handle.name());
    println!("grabbed point off the cursor by at most {worst:.2e} px");
    if worst < 1e-3 {
        ExitCode::SUCCESS
    } else {
        eprintln!("the grabbed point left the cursor");
        ExitCode::FAILURE
    }
}
