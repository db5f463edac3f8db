//! The window: winit glue around the renderer.

use crate::cli::{Cli, Fatal};
use crate::scene::Scene;

pub fn run_window(_cli: &Cli, _scene: Scene) -> Result<i32, Fatal> {
    Err(Fatal("the window is not implemented yet".into()))
}
