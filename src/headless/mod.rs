//! Off-screen runs: the same program without a window. Applies a replay
//! script through the same [`Editor`] and [`session`](crate::session) code
//! as the window, renders the final frame off-screen, and writes the
//! screenshot, scene and trace atomically.

pub mod script;

use std::path::Path;

use crate::editor::Editor;
use crate::render::RgbaImage;
use crate::scene::{write_atomic, SceneError};
use crate::session::{self, Command};
pub use script::{Script, Step, TraceLine, TraceObject};

/// Encodes an RGBA8 image as PNG bytes (sRGB).
pub fn encode_png(image: &RgbaImage) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, image.width, image.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut w = enc.write_header()?;
        w.write_image_data(&image.data)?;
    }
    Ok(out)
}

/// Writes `image` to `path` as PNG, atomically.
pub fn save_png(path: &Path, image: &RgbaImage) -> Result<(), SceneError> {
    let bytes = encode_png(image).map_err(|e| SceneError::file(path, e))?;
    write_atomic(path, &bytes)
}

/// Sets up an editor as a script asks (size, depth, camera, selection, gizmo).
pub fn prepare(editor: &mut Editor, script: &Script) {
    if let Some(d) = script.depth {
        editor.depth = d;
    }
    if let Some(c) = script.camera {
        editor.camera = c;
    }
    if let Some(sel) = &script.select {
        editor.set_selection(sel);
    }
    editor.gizmo.config = script.gizmo;
}

/// The trace line for event `index`: handles and the selected objects.
pub fn trace_line(editor: &Editor, index: usize) -> TraceLine {
    let scene = editor.scene();
    let objects = editor
        .selection()
        .iter()
        .map(|&i| {
            let o = &scene.objects[i];
            let t = &o.transform;
            let q = t.rotation.quaternion();
            let w = scene.world_matrix(i);
            (
                o.name.clone(),
                TraceObject {
                    position: t.position.into(),
                    rotation: [q.i, q.j, q.k, q.w],
                    scale: t.scale.into(),
                    world_position: [w[(0, 3)], w[(1, 3)], w[(2, 3)]],
                },
            )
        })
        .collect();
    TraceLine {
        event: index,
        hovered: editor.hovered_handle().map(|h| h.name()),
        active: editor.active_handle().map(|h| h.name()),
        objects,
    }
}

/// What a replay draws into: frames, and the depth of the last one.
pub trait ReplayTarget {
    type Error;
    /// Draws the editor's current state.
    fn frame(&mut self, editor: &Editor) -> Result<(), Self::Error>;
    /// The last drawn frame's depth under a screen point.
    fn depth_at(&mut self, p: nalgebra::Point2<f64>) -> Result<Option<f64>, Self::Error>;
}

/// Applies every step of `script` to `editor`, drawing into `target` at
/// each frame step; returns one trace line per step.
pub fn replay<T: ReplayTarget>(
    editor: &mut Editor,
    script: &Script,
    target: &mut T,
) -> Result<Vec<TraceLine>, T::Error> {
    let mut trace = Vec::with_capacity(script.steps.len());
    for (i, step) in script.steps.iter().enumerate() {
        match step {
            Step::Input(event, mods) => {
                // A failed depth read (e.g. a lost device) ends the replay.
                let mut failed = None;
                let mut depth_at = |p| {
                    target.depth_at(p).unwrap_or_else(|e| {
                        failed.get_or_insert(e);
                        None
                    })
                };
                let command = session::handle(editor, event, *mods, &mut depth_at);
                if let Some(e) = failed {
                    return Err(e);
                }
                match command {
                    // Saving, screenshots and quitting are the window's business;
                    // a script's outputs are named on the command line.
                    Command::Save | Command::Screenshot | Command::Quit | Command::None | Command::Redraw => {}
                }
            }
            Step::Frame(n) => {
                for _ in 0..*n {
                    target.frame(editor)?;
                }
            }
        }
        trace.push(trace_line(editor, i));
    }
    Ok(trace)
}

/// The trace as JSON lines.
pub fn trace_jsonl(trace: &[TraceLine]) -> String {
    let mut out = String::new();
    for line in trace {
        out.push_str(&serde_json::to_string(line).expect("trace lines serialise"));
        out.push('\n');
    }
    out
}
