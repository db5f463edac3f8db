//! Off-screen runs: the same program without a window. Applies a replay
//! script through the same [`Editor`], UI and program dispatch
//! ([`crate::app::dispatch()`]) as the window, renders the final frame
//! off-screen, and writes the screenshot, scene and trace atomically.

mod error;
pub mod script;
mod trace;

pub use error::{Error, ReplayError};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::app::dispatch::{dispatch, export_editor, Host, Program};
use crate::app::document::Document;
use crate::app::open::{open_for, read_import, Options, ReadImport};
use crate::draw::{GpuSync, LoadedMeshes, RenderProbe, SceneMeshes};
use crate::editor::{Editor, FrameProbe, Outcome};
use crate::files::{save_png, write_atomic};
use crate::input::{Event, MouseButton};
use crate::render::{ContextDesc, Renderer};
use crate::scene::gltf::export;
use crate::scene::{camera_to_file, Scene};
use crate::ui::Ui;
use script::ClipName;
pub use script::{Script, Step, TraceLine, TraceObject, TraceView};

/// What a headless run writes, besides the options it opens with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    /// A replay script to apply before the final frame.
    pub replay: Option<PathBuf>,
    /// One JSON line per script event (needs `replay`).
    pub trace: Option<PathBuf>,
    /// The final frame as PNG.
    pub screenshot: Option<PathBuf>,
    /// The resulting scene.
    pub save_scene: Option<PathBuf>,
    /// The resulting scene as glTF (`.glb` or `.gltf`).
    pub export: Option<PathBuf>,
}

/// Reads and validates a replay script against `scene`.
pub fn read_script(path: &Path, scene: &Scene) -> Result<Script, Error> {
    let text =
        std::fs::read_to_string(path).map_err(|source| Error::ReadScript { path: path.to_path_buf(), source })?;
    let mut script =
        Script::from_json(&text, scene).map_err(|source| Error::Script { path: path.to_path_buf(), source })?;
    // `import` paths are relative to the script file.
    let dir = path.parent().unwrap_or(Path::new(""));
    for step in &mut script.steps {
        match step {
            Step::Input(Event::Drop { path }, _) | Step::Export { path, .. } => *path = dir.join(&*path),
            _ => {}
        }
    }
    // So are `.hdr` environments; the files are read (and prefiltered) now.
    let events = script.steps.iter_mut().filter_map(|s| match s {
        Step::Lighting(l) => Some(&mut **l),
        _ => None,
    });
    for l in script.lighting.iter_mut().chain(events) {
        l.relative_to(dir);
        l.over(&crate::look::Lighting::default()).map_err(|problem| Error::Script {
            path: path.to_path_buf(),
            source: crate::headless::script::ScriptError::Setting(problem),
        })?;
    }
    Ok(script)
}

/// A headless run: everything is read and validated before the GPU is
/// touched; the script (if any) is replayed through the same editor and
/// session code as the window; the outputs are written only after the final
/// frame rendered, each atomically. Returns the number of validation errors.
pub fn run(options: &Options, outputs: &Outputs) -> Result<u32, Error> {
    if let Some(path) = &outputs.export {
        export::check_target(path)?;
    }
    let opened = open_for(options)?;
    let script = match &outputs.replay {
        Some(path) => Some(read_script(path, &opened.scene)?),
        None => None,
    };
    // Files the script imports are read now too, before the GPU.
    let mut imports = HashMap::new();
    for step in script.iter().flat_map(|s| &s.steps) {
        if let Step::Input(Event::Drop { path }, _) = step {
            if !imports.contains_key(path) {
                imports.insert(path.clone(), Rc::new(read_import(path)?));
            }
        }
    }
    let size = script.as_ref().and_then(|s| s.size).unwrap_or(options.size);
    let (doc, mut editor, loaded) = Document::open(opened, size, options.depth)?;
    editor.lighting = options.lighting.or(editor.scene().lighting).unwrap_or_default();
    editor.keymap = options.keymap.clone();
    if let Some(s) = &script {
        prepare(&mut editor, s);
    }
    // The UI: scale 1 and no side panel unless the script asks.
    let mut ui = if options.ui {
        Ui::new(
            script.as_ref().map_or(1.0, |s| s.ui_scale),
            size.0 as f64,
            size.1 as f64,
            script.as_ref().is_some_and(|s| s.panel),
        )
    } else {
        Ui::off(size.0 as f64, size.1 as f64)
    };
    ui.scale_gizmo(&mut editor);
    ui.settle(&mut editor);
    doc.dress(&mut ui);
    let mut program = Program {
        editor,
        ui,
        doc,
        clipboard: crate::app::clipboard::Clipboard::own(),
        autosaver: None,
        autosave_secs: 0.0,
    };

    let mut renderer =
        Renderer::headless(&ContextDesc { validation: options.validation, samples: options.samples }, size.0, size.1)?;
    let culling = renderer.culling(options.culling);
    eprintln!("viewport: using {}", renderer.device_info().describe(&culling));
    let mut meshes = SceneMeshes::upload_loaded(&mut renderer, &loaded)?;
    let mut gpu = culling.gpu.then(GpuSync::default);
    let trace = match &script {
        Some(s) => {
            let probe = RenderProbe::new(&mut renderer);
            let mut target = Offscreen { probe, meshes: &mut meshes, imports: &imports, gpu: gpu.as_mut() };
            replay(&mut program, s, &mut target)?
        }
        None => Vec::new(),
    };
    let Program { mut editor, mut ui, .. } = program;
    let mut last = meshes.frame_for(&editor, &mut renderer, gpu.as_mut())?;
    last.ui = Some(ui.draw(&mut editor));
    renderer.draw(&last)?;
    let image = renderer.read_color()?;

    if let Some(path) = &outputs.trace {
        write_atomic(path, trace_jsonl(&trace).as_bytes())?;
    }
    if let Some(path) = &outputs.save_scene {
        editor.scene_to_save().save(path)?;
    }
    if let Some(path) = &outputs.export {
        export_editor(&editor, false, path)?;
    }
    if let Some(path) = &outputs.screenshot {
        save_png(path, image.width, image.height, &image.data)?;
    }
    renderer.wait_idle()?;
    Ok(renderer.validation().errors())
}

/// The headless renderer as a replay target.
struct Offscreen<'a> {
    probe: RenderProbe<'a>,
    meshes: &'a mut SceneMeshes,
    /// The script's imports, read before the run.
    imports: &'a HashMap<PathBuf, Rc<ReadImport>>,
    /// With GPU culling: what the renderer holds of the scene.
    gpu: Option<&'a mut GpuSync>,
}

impl FrameProbe for Offscreen<'_> {
    fn depth_at(&mut self, p: nalgebra::Point2<f64>) -> Option<f64> {
        self.probe.depth_at(p)
    }
    fn objects_in(&mut self, min: nalgebra::Point2<f64>, max: nalgebra::Point2<f64>) -> Option<Vec<usize>> {
        self.probe.objects_in(min, max)
    }
}

impl Host for Offscreen<'_> {
    fn add_meshes(&mut self, loaded: &LoadedMeshes) -> Result<(), crate::app::Error> {
        Ok(self.meshes.add_loaded(self.probe.renderer, loaded)?)
    }
    fn replace_meshes(&mut self, loaded: &LoadedMeshes) -> Result<(), crate::app::Error> {
        *self.meshes = SceneMeshes::upload_loaded(self.probe.renderer, loaded)?;
        if let Some(sync) = self.gpu.as_deref_mut() {
            sync.reset();
        }
        Ok(())
    }
    fn read_import(&mut self, path: &Path) -> Result<Rc<ReadImport>, crate::app::Error> {
        match self.imports.get(path) {
            Some(read) => Ok(read.clone()),
            None => Ok(Rc::new(read_import(path)?)),
        }
    }
    /// Screenshots and quitting are the window's business; a script's
    /// outputs are named on the command line.
    fn screenshot(&mut self, _program: &mut Program) -> Result<(), crate::app::Error> {
        Ok(())
    }
    fn quit(&mut self, _program: &mut Program) {}
    fn watch(&mut self, _files: &[PathBuf]) {}
}

impl ReplayTarget for Offscreen<'_> {
    fn frame(&mut self, editor: &mut Editor, ui: &mut Ui) -> Result<(), crate::app::Error> {
        let mut frame = self.meshes.frame_for(editor, self.probe.renderer, self.gpu.as_deref_mut())?;
        frame.ui = Some(ui.draw(editor));
        self.probe.renderer.draw(&frame)?;
        Ok(())
    }
    fn take_error(&mut self) -> Option<crate::app::Error> {
        self.probe.failed.take().map(crate::app::Error::from)
    }
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
    // The quad view's separator is one UI unit wide.
    editor.ui_scale = script.ui_scale;
    if script.quad && !editor.is_quad() {
        editor.toggle_quad();
    }
    if let Some(l) = &script.lighting {
        // Checked when the script was read.
        if let Ok(l) = l.over(&editor.lighting) {
            editor.lighting = l;
        }
    }
}

/// The trace line for event `index`: handles and the selected objects.
pub fn trace_line(editor: &Editor, index: usize) -> TraceLine {
    let scene = editor.scene();
    let objects = editor
        .selection()
        .iter()
        .map(|&i| {
            let o = &scene.objects()[i];
            let t = &o.transform;
            let q = t.rotation.quaternion();
            let w = scene.world_matrix(i);
            (
                o.name.to_string(),
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
        selection: editor.selection().iter().map(|&i| scene.objects()[i].name.to_string()).collect(),
        count: scene.len(),
        // Walks the scene only while something is hidden.
        hidden: scene.hidden_ids().map(|i| scene.objects()[i].name.to_string()).collect(),
        local_view: editor.in_local_view(),
        measure: editor.measurement().map(|(a, b)| crate::headless::script::TraceMeasure {
            from: a.into(),
            to: b.into(),
            length: (b - a).norm(),
        }),
        camera: camera_to_file(&editor.camera),
        view_camera: editor.camera_view().map(|i| scene.objects()[i].name.to_string()),
        views: editor.views().iter().map(|v| TraceView { rect: v.rect, camera: camera_to_file(&v.camera) }).collect(),
        ui: None,
        animation: editor.animation().map(|a| crate::headless::script::TraceAnimation { clip: a.name, time: a.time }),
        lighting: editor.lighting.to_json(),
    }
}

/// How much time one `{"frame": 1}` of a script lets pass.
pub const SCRIPT_FRAME_SECONDS: f64 = 1.0 / 60.0;

/// What a replay draws into: frames, which the editor reads back as a
/// [`FrameProbe`] (the depth under the cursor, the objects in a box), and
/// the program's [`Host`].
pub trait ReplayTarget: FrameProbe + Host {
    /// Draws the editor's current state with its UI.
    fn frame(&mut self, editor: &mut Editor, ui: &mut Ui) -> Result<(), crate::app::Error>;
    /// The first read of the frame that failed since the last call.
    fn take_error(&mut self) -> Option<crate::app::Error>;
}

/// Applies every step of `script` to the program, drawing into `target`
/// at each frame step; returns one trace line per step.
pub fn replay<T: ReplayTarget>(
    program: &mut Program,
    script: &Script,
    target: &mut T,
) -> Result<Vec<TraceLine>, Error> {
    let mut trace = Vec::with_capacity(script.steps.len());
    for (i, step) in script.steps.iter().enumerate() {
        match step {
            Step::Input(event, mods) => {
                let Program { editor, ui, .. } = &mut *program;
                // A box is taken from the object-ID buffer of the frame as it
                // looks now, as in the window, which draws all the time.
                if matches!(event, Event::MouseUp { button: MouseButton::Left }) && editor.selection_rect().is_some() {
                    target.frame(editor, ui)?;
                }
                let outcome = ui.handle(editor, event, *mods, target);
                // A failed read of the frame (e.g. a lost device) ends the replay.
                if let Some(e) = target.take_error() {
                    return Err(e.into());
                }
                dispatch(program, target, outcome)?;
            }
            Step::Export { path, selection } => export_editor(&program.editor, *selection, path)?,
            // A script's events never leave a drag half done at a reload.
            Step::Reload => {
                crate::app::dispatch::reload(program, target)?;
            }
            Step::Add(name) => dispatch(program, target, Outcome::Add(name.clone()))?,
            step => editor_step(&mut program.editor, &mut program.ui, step, i, target)?,
        }
        // The status as the line shows it after what the program did.
        program.ui.refresh_status(&program.editor);
        let mut line = trace_line(&program.editor, i);
        line.ui = program.ui.trace().cloned();
        trace.push(line);
    }
    Ok(trace)
}

/// A script step for the editor and its UI alone.
fn editor_step(
    editor: &mut Editor,
    ui: &mut Ui,
    step: &Step,
    i: usize,
    target: &mut impl ReplayTarget,
) -> Result<(), Error> {
    match step {
        Step::Filter(text) => {
            ui.set_filter(text);
            // Laid out now, so that the trace line shows the rows it keeps.
            ui.run(editor, false);
        }
        Step::Rename(old, new) => match editor.scene().find(old) {
            Some(i) => {
                if let Err(why) = editor.rename(i, new) {
                    ui.say(editor, format!("Not renamed: {why}"));
                }
            }
            None => ui.say(editor, format!("No object named \"{old}\" to rename")),
        },
        Step::Animation(None) => {
            editor.leave_pose();
        }
        Step::Animation(Some(a)) => {
            let clip = match &a.clip {
                ClipName::Index(k) => Some(*k).filter(|&k| k < editor.clips().len()),
                ClipName::Name(n) => editor.clip_named(n),
            };
            let Some(clip) = clip else {
                let known: Vec<String> = editor.clips().iter().map(|c| format!("\"{}\"", c.name)).collect();
                return Err(ReplayError::NoClip {
                    event: i,
                    clip: a.clip.to_string(),
                    known: if known.is_empty() { "none".into() } else { known.join(", ") },
                }
                .into());
            };
            editor.show_animation(clip, a.time, a.play);
        }
        Step::Frame(n) => {
            for k in 1..=*n {
                // Script time: one frame is 1/60 s (`docs/spec/editing.md`, "Views").
                editor.advance(SCRIPT_FRAME_SECONDS);
                ui.advance(SCRIPT_FRAME_SECONDS);
                target.frame(editor, ui)?;
                if is_still(editor, ui) {
                    // The frames left would draw this one again: only
                    // their time passes (a tooltip's delay counts it).
                    ui.advance(f64::from(n - k) * SCRIPT_FRAME_SECONDS);
                    break;
                }
            }
        }
        Step::Lighting(l) => {
            // Checked (and its files read) when the script was read.
            if let Ok(l) = l.over(&editor.lighting) {
                editor.set_lighting(l);
            }
        }
        Step::Input(..) | Step::Export { .. } | Step::Reload | Step::Add(_) => {}
    }
    Ok(())
}

/// Whether time passing would change nothing drawn: no held fly key moves
/// the camera and the UI asked for no later pass (an animation, a sizing
/// pass, a tooltip's delay).
fn is_still(editor: &Editor, ui: &Ui) -> bool {
    !editor.is_animating() && ui.repaint_after().is_none()
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

#[cfg(test)]
mod tests;
