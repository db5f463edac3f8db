//! The window: winit glue, one of the program's two hosts. Window events
//! become the same platform-free [`input::Event`](crate::input::Event)s
//! that replay scripts produce and go through the same UI, [`Editor`](crate::editor::Editor) and
//! program dispatch ([`crate::app::dispatch()`]); drawing goes through the
//! same [`SceneMeshes::frame_for`] as the headless mode.

mod error;
mod watch;

pub use error::Error;

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{ModifiersState, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::app::autosave::Autosaver;
use crate::app::dispatch::{dispatch, Host, Program};
use crate::app::document::Document;
use crate::app::open::{open_for, read_import, Options, ReadImport};
use crate::draw::{GpuSync, LoadedMeshes, RenderProbe, SceneMeshes};
use crate::editor::{FrameProbe, NoFrame, Outcome};
use crate::files::save_png;
use crate::input::{Event, Modifiers, MouseButton};
use crate::render::{ContextDesc, Culling, Renderer, WindowHandles};
use crate::ui::Ui;

/// winit's key code as the name scripts use (`KeyW` -> `W`, `Escape`, `F2`).
pub fn key_name(key: &PhysicalKey) -> Option<String> {
    match key {
        PhysicalKey::Code(code) => {
            let name = format!("{code:?}");
            Some(name.strip_prefix("Key").map(str::to_string).unwrap_or(name))
        }
        PhysicalKey::Unidentified(_) => None,
    }
}

fn modifiers(m: ModifiersState) -> Modifiers {
    Modifiers { shift: m.shift_key(), ctrl: m.control_key(), alt: m.alt_key() }
}

/// Translates a window event into an input event, if it is one.
fn to_input(event: &WindowEvent) -> Option<Event> {
    Some(match event {
        WindowEvent::CursorMoved { position, .. } => Event::CursorMoved { x: position.x, y: position.y },
        WindowEvent::MouseInput { state, button, .. } => {
            let button = match button {
                winit::event::MouseButton::Left => MouseButton::Left,
                winit::event::MouseButton::Right => MouseButton::Right,
                winit::event::MouseButton::Middle => MouseButton::Middle,
                _ => return None,
            };
            match state {
                ElementState::Pressed => Event::MouseDown { button },
                ElementState::Released => Event::MouseUp { button },
            }
        }
        WindowEvent::MouseWheel { delta, .. } => Event::Scroll {
            delta: match delta {
                MouseScrollDelta::LineDelta(_, y) => *y as f64,
                // Touchpads: about one notch per 40 pixels.
                MouseScrollDelta::PixelDelta(p) => p.y / 40.0,
            },
        },
        WindowEvent::KeyboardInput { event, .. } if !event.repeat => {
            let key = key_name(&event.physical_key)?;
            match event.state {
                ElementState::Pressed => Event::KeyDown { key },
                ElementState::Released => Event::KeyUp { key },
            }
        }
        WindowEvent::Resized(size) => Event::Resize { width: size.width as f64, height: size.height as f64 },
        WindowEvent::DroppedFile(path) => Event::Drop { path: path.clone() },
        _ => return None,
    })
}

struct App {
    validation: bool,
    /// MSAA samples asked for ([`Options::samples`]).
    samples: u32,
    size: (u32, u32),
    /// The editor, its UI (made with the window), the scene's file, the
    /// clipboard and the autosave.
    program: Program,
    /// The window, its renderer and what it holds of the scene.
    screen: Screen,
    /// `--no-ui` not given.
    show_ui: bool,
    /// When the UI asked to be drawn again (tooltips, animations).
    ui_redraw_at: Option<Instant>,
    /// When the window opened (the UI's clock).
    opened: Instant,
    modifiers: Modifiers,
    frames: u64,
    frame_time: Duration,
    error: Option<Error>,
    /// When the last frame started (the fly camera's clock).
    last_redraw: Option<Instant>,
}

/// The window as the program's [`Host`]: the GPU side of the scene, the
/// file watch, screenshots and quitting.
struct Screen {
    window: Option<Window>,
    renderer: Option<Renderer>,
    meshes: Option<SceneMeshes>,
    /// The scene's meshes, read before the window opens.
    loaded: LoadedMeshes,
    /// Where the scene is culled ([`Options::culling`]).
    culling: Culling,
    /// With GPU culling (the default on GPUs): what the renderer holds of
    /// the scene.
    gpu: Option<GpuSync>,
    screenshots: u32,
    /// Watches the used files (`None` where no watch could be set up).
    watch: Option<watch::FileWatch>,
    /// A quit the program allowed: the event loop ends after this event.
    quit: bool,
}

impl Host for Screen {
    fn add_meshes(&mut self, loaded: &LoadedMeshes) -> Result<(), crate::app::Error> {
        if let (Some(renderer), Some(meshes)) = (self.renderer.as_mut(), self.meshes.as_mut()) {
            meshes.add_loaded(renderer, loaded)?;
        }
        Ok(())
    }

    fn replace_meshes(&mut self, loaded: &LoadedMeshes) -> Result<(), crate::app::Error> {
        let Some(renderer) = self.renderer.as_mut() else { return Ok(()) };
        self.meshes = Some(SceneMeshes::upload_loaded(renderer, loaded)?);
        if let Some(sync) = self.gpu.as_mut() {
            sync.reset();
        }
        Ok(())
    }

    fn read_import(&mut self, path: &Path) -> Result<Rc<ReadImport>, crate::app::Error> {
        Ok(Rc::new(read_import(path)?))
    }

    fn screenshot(&mut self, program: &mut Program) -> Result<(), crate::app::Error> {
        let (Some(renderer), Some(meshes)) = (self.renderer.as_mut(), self.meshes.as_mut()) else { return Ok(()) };
        let mut frame = meshes.frame_for(&program.editor, renderer, self.gpu.as_mut())?;
        frame.ui = Some(program.ui.draw(&mut program.editor));
        let image = renderer.capture(&frame)?;
        self.screenshots += 1;
        let path = PathBuf::from(format!("viewport-screenshot-{}.png", self.screenshots));
        match save_png(&path, image.width, image.height, &image.data) {
            Ok(()) => eprintln!("viewport: wrote {}", path.display()),
            Err(e) => eprintln!("viewport: {e}"),
        }
        Ok(())
    }

    fn quit(&mut self, program: &mut Program) {
        self.quit |= program.may_quit();
    }

    fn watch(&mut self, files: &[PathBuf]) {
        if let Some(w) = self.watch.as_mut() {
            w.follow(files);
        }
    }
}

impl App {
    fn fail(&mut self, el: &ActiveEventLoop, e: impl Into<Error>) {
        let e = e.into();
        // The window system took the window away (e.g. destroyed it on
        // close) while a frame was being drawn: that is a close, not a
        // failure (winit's Destroyed event would have followed).
        if let Error::App(crate::app::Error::Render(crate::render::RenderError::Vk {
            result: ash::vk::Result::ERROR_SURFACE_LOST_KHR,
            ..
        })) = &e
        {
            eprintln!("viewport: the window's surface is gone (the window was closed); quitting");
        } else {
            self.error = Some(e);
        }
        el.exit();
    }

    fn create(&mut self, el: &ActiveEventLoop) -> Result<(), Error> {
        let attrs = Window::default_attributes()
            .with_title("viewport")
            .with_inner_size(PhysicalSize::new(self.size.0, self.size.1));
        let window = el.create_window(attrs)?;
        let handles =
            WindowHandles { display: window.display_handle()?.as_raw(), window: window.window_handle()?.as_raw() };
        let size = window.inner_size();
        let mut renderer = Renderer::windowed(
            &ContextDesc { validation: self.validation, samples: self.samples },
            handles,
            size.width,
            size.height,
        )?;
        let screen = &mut self.screen;
        let culling = renderer.culling(screen.culling);
        eprintln!("viewport: using {}", renderer.device_info().describe(&culling));
        screen.meshes = Some(SceneMeshes::upload_loaded(&mut renderer, &screen.loaded)?);
        // A new renderer holds no objects yet.
        match (culling.gpu, screen.gpu.as_mut()) {
            (true, Some(sync)) => sync.reset(),
            (true, None) => screen.gpu = Some(GpuSync::default()),
            (false, _) => screen.gpu = None,
        }
        let editor = &mut self.program.editor;
        editor.handle(&Event::Resize { width: size.width as f64, height: size.height as f64 });
        // The UI scale u is the window's scale factor; the panel starts shown.
        editor.ui_scale = window.scale_factor();
        let mut ui = if self.show_ui {
            Ui::new(window.scale_factor(), size.width as f64, size.height as f64, true)
        } else {
            Ui::off(size.width as f64, size.height as f64)
        };
        ui.scale_gizmo(editor);
        ui.settle(editor);
        self.program.doc.dress(&mut ui);
        self.program.ui = ui;
        screen.renderer = Some(renderer);
        window.request_redraw();
        screen.window = Some(window);
        self.update_title();
        Ok(())
    }

    fn update_title(&self) {
        let Some(w) = &self.screen.window else { return };
        let (editor, doc) = (&self.program.editor, &self.program.doc);
        let cfg = &editor.gizmo.config;
        // The scene's file, starred while it has unsaved changes.
        let file = match doc.scene_name() {
            Some(name) => format!(" | {name}{}", if doc.unsaved.is_modified(editor) { "*" } else { "" }),
            None => String::new(),
        };
        w.set_title(&format!(
            "viewport{file} | {} | {} | pivot {} | snap {} | depth {} | {:.2} ms | {} frames",
            cfg.mode.name(),
            cfg.space.name(),
            cfg.pivot.name(),
            if self.modifiers.ctrl || editor.snap_on { "on" } else { "off" },
            editor.depth.name(),
            self.frame_time.as_secs_f64() * 1e3,
            self.frames
        ));
    }

    fn redraw(&mut self) -> Result<(), Error> {
        let screen = &mut self.screen;
        let (Some(renderer), Some(meshes)) = (screen.renderer.as_mut(), screen.meshes.as_mut()) else {
            return Ok(());
        };
        let Program { editor, ui, doc, .. } = &mut self.program;
        let started = Instant::now();
        // The fly camera moves by real time, at most a tenth of a second per
        // frame (a stall must not throw the camera far away).
        let dt = self.last_redraw.map_or(0.0, |t| started.duration_since(t).as_secs_f64().min(0.1));
        editor.advance(dt);
        // Keep drawing while the view moves by itself.
        self.last_redraw = editor.is_animating().then_some(started);
        let mut frame = meshes.frame_for(editor, renderer, screen.gpu.as_mut())?;
        // The first edit ends the recovery offer (its notice goes with the
        // first action on the scene, as every notice does).
        if doc.recovery.as_ref().is_some_and(|r| !r.stands(editor)) {
            doc.recovery = None;
        }
        ui.frame_ms = self.frame_time.as_secs_f64() * 1e3;
        ui.advance(started.duration_since(self.opened).as_secs_f64() - ui.time());
        frame.ui = Some(ui.draw(editor));
        // Drawn again when egui asks, and when the status line's message lapses.
        let again = match (ui.repaint_after(), ui.notice_left()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.ui_redraw_at = again.map(|d| started + d.max(Duration::from_millis(5)));
        let stats = renderer.draw(&frame)?;
        if stats.presented {
            self.frames += 1;
            self.frame_time = started.elapsed();
        }
        self.update_title();
        if self.last_redraw.is_some() {
            self.request_redraw();
        }
        Ok(())
    }

    /// Reloads the used glTF files that changed on disk (the watch said
    /// so and they settled); during a drag it is tried again a little later.
    fn reload_files(&mut self) -> Result<(), Error> {
        if self.screen.watch.is_none() {
            return Ok(());
        }
        let done = crate::app::dispatch::reload(&mut self.program, &mut self.screen)?;
        if let Some(watch) = self.screen.watch.as_mut() {
            watch.done((!done).then(|| Instant::now() + watch::SETTLE));
        }
        if done {
            self.request_redraw();
            self.update_title();
        }
        Ok(())
    }

    /// One event through the UI (which passes what it does not use to the editor).
    fn handle(&mut self, event: &Event, frame: &mut dyn FrameProbe) -> Outcome {
        self.program.ui.handle(&mut self.program.editor, event, self.modifiers, frame)
    }

    fn request_redraw(&self) {
        if let Some(w) = &self.screen.window {
            w.request_redraw();
        }
    }
}

impl ApplicationHandler for App {
    fn user_event(&mut self, _el: &ActiveEventLoop, _event: ()) {
        // The file watch woke the loop: note whether a used file changed.
        if let Some(w) = self.screen.watch.as_mut() {
            w.take_changes();
        }
    }

    fn about_to_wait(&mut self, el: &ActiveEventLoop) {
        let now = Instant::now();
        // Changed files that have settled are reloaded.
        if self.screen.watch.as_ref().and_then(watch::FileWatch::due).is_some_and(|d| d <= now) {
            if let Err(e) = self.reload_files() {
                return self.fail(el, e);
            }
        }
        // An autosave of unsaved changes, when due (written on another thread).
        let program = &mut self.program;
        let modified = program.doc.unsaved.is_modified(&program.editor);
        if let Some(a) = program.autosaver.as_mut() {
            a.tick(&program.editor, modified, now);
        }
        // The UI's wish (a tooltip after its delay) that has come.
        if self.ui_redraw_at.is_some_and(|at| at <= now) {
            self.ui_redraw_at = None;
            self.request_redraw();
        }
        // Sleep until input, the UI's next wish or the next reload.
        let wake = [
            self.ui_redraw_at,
            self.screen.watch.as_ref().and_then(watch::FileWatch::due),
            self.program.autosaver.as_ref().map(Autosaver::due),
        ]
        .into_iter()
        .flatten()
        .min();
        el.set_control_flow(match wake {
            Some(at) => ControlFlow::WaitUntil(at),
            None => ControlFlow::Wait,
        });
    }

    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.screen.window.is_none() {
            if let Err(e) = self.create(el) {
                self.fail(el, e);
            }
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match &event {
            // A close request, or the window destroyed under us (e.g. by the X server).
            WindowEvent::CloseRequested => {
                if self.program.may_quit() {
                    el.exit();
                } else {
                    self.request_redraw();
                }
                return;
            }
            WindowEvent::Destroyed => return el.exit(),
            WindowEvent::ModifiersChanged(m) => {
                self.modifiers = modifiers(m.state());
                // Snapping follows Ctrl at once, even mid-drag.
                if self.handle(&Event::Modifiers(self.modifiers), &mut NoFrame) != Outcome::None {
                    self.request_redraw();
                }
                self.update_title();
                return;
            }
            WindowEvent::ScaleFactorChanged { scale_factor, .. } => {
                // The quad view's separator is one UI unit wide.
                self.program.editor.ui_scale = *scale_factor;
                self.program.ui.set_scale(*scale_factor, &mut self.program.editor);
                self.request_redraw();
                return;
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.redraw() {
                    self.fail(el, e);
                }
                return;
            }
            WindowEvent::Resized(size) => {
                if let Some(r) = self.screen.renderer.as_mut() {
                    if let Err(e) = r.resize(size.width, size.height) {
                        return self.fail(el, e);
                    }
                }
            }
            _ => {}
        }
        // Typed characters (printable ones) also go to a focused UI field.
        let text = match &event {
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                event.text.as_ref().map(|t| t.chars().filter(|c| !c.is_control()).collect::<String>())
            }
            _ => None,
        }
        .filter(|t| !t.is_empty());
        let Some(input) = to_input(&event) else { return };
        let mut renderer = self.screen.renderer.take();
        let outcome = match renderer.as_mut() {
            Some(r) => {
                let mut probe = RenderProbe::new(r);
                let mut outcome = self.handle(&input, &mut probe);
                if let Some(text) = text {
                    let typed = self.handle(&Event::Text { text }, &mut probe);
                    if outcome == Outcome::None {
                        outcome = typed;
                    }
                }
                // A failed read of the frame (e.g. a lost device) is fatal, not "no surface".
                if let Some(e) = probe.failed {
                    self.screen.renderer = renderer;
                    return self.fail(el, e);
                }
                outcome
            }
            None => self.handle(&input, &mut NoFrame),
        };
        self.screen.renderer = renderer;
        match outcome {
            Outcome::None => {}
            Outcome::Redraw => self.request_redraw(),
            outcome => {
                if let Err(e) = dispatch(&mut self.program, &mut self.screen, outcome) {
                    return self.fail(el, e);
                }
                if self.screen.quit {
                    return el.exit();
                }
                self.request_redraw();
                self.update_title();
            }
        }
        if matches!(input, Event::Resize { .. }) {
            self.request_redraw();
        }
    }
}

/// Opens the window and runs until it is closed. Returns the number of
/// validation errors (0 without validation).
pub fn run_window(options: &Options) -> Result<u32, Error> {
    // The scene and its mesh files first: a bad one fails before a window opens.
    let opened = open_for(options)?;
    let (doc, mut editor, loaded) = Document::open(opened, options.size, options.depth)?;
    editor.lighting = options.lighting.or(editor.scene().lighting).unwrap_or_default();
    editor.keymap = options.keymap.clone();
    let event_loop = EventLoop::new()?;
    event_loop.set_control_flow(ControlFlow::Wait);
    // The watch wakes the loop from its own thread.
    let proxy = event_loop.create_proxy();
    let mut watch = watch::FileWatch::new(move || {
        let _ = proxy.send_event(());
    });
    if let Some(w) = watch.as_mut() {
        w.follow(&doc.reloader.watched());
    }
    // The UI is made with the window, at its scale.
    let ui = Ui::off(options.size.0 as f64, options.size.1 as f64);
    let clipboard = crate::app::clipboard::Clipboard::system();
    let mut program = Program { editor, ui, doc, clipboard, autosaver: None, autosave_secs: options.autosave_secs };
    program.autosaver = program.autosaver();
    let mut app = App {
        validation: options.validation,
        samples: options.samples,
        size: options.size,
        program,
        screen: Screen {
            window: None,
            renderer: None,
            meshes: None,
            loaded,
            culling: options.culling,
            gpu: None,
            screenshots: 0,
            watch,
            quit: false,
        },
        ui_redraw_at: None,
        show_ui: options.ui,
        opened: Instant::now(),
        modifiers: Modifiers::NONE,
        frames: 0,
        frame_time: Duration::ZERO,
        error: None,
        last_redraw: None,
    };
    event_loop.run_app(&mut app)?;
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    let errors = match app.screen.renderer.as_ref() {
        Some(r) => {
            r.wait_idle()?;
            r.validation().errors()
        }
        None => 0,
    };
    // Tear down Vulkan before the window it presents to.
    app.screen.meshes = None;
    app.screen.renderer = None;
    app.screen.window = None;
    if options.validation {
        eprintln!("viewport: presented {} frames, {} validation errors", app.frames, errors);
    } else {
        // Nothing counted them: no claim of 0.
        eprintln!("viewport: presented {} frames (validation off)", app.frames);
    }
    Ok(errors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use winit::keyboard::KeyCode;

    #[test]
    fn key_names_match_the_script_names() {
        assert_eq!(key_name(&PhysicalKey::Code(KeyCode::KeyW)).as_deref(), Some("W"));
        assert_eq!(key_name(&PhysicalKey::Code(KeyCode::Escape)).as_deref(), Some("Escape"));
        assert_eq!(key_name(&PhysicalKey::Code(KeyCode::F2)).as_deref(), Some("F2"));
        assert_eq!(key_name(&PhysicalKey::Code(KeyCode::Digit1)).as_deref(), Some("Digit1"));
    }

    /// A file dropped on the window becomes the same event as a script's
    /// `{"import": PATH}` (`headless/script.rs`), so the import tests through
    /// scripts cover dropping (xdotool cannot drag files onto a window).
    #[test]
    fn a_dropped_file_is_the_scripts_import_event() {
        let path = std::path::PathBuf::from("/models/fox.glb");
        let dropped = to_input(&WindowEvent::DroppedFile(path.clone()));
        assert_eq!(dropped, Some(Event::Drop { path: path.clone() }));
        let script = format!(r#"{{"events": [{{"import": "{}"}}]}}"#, path.display());
        let parsed = crate::headless::script::Script::from_json(&script, &crate::scene::Scene::demo()).unwrap();
        assert!(
            parsed
                .steps
                .iter()
                .any(|s| matches!(s, crate::headless::script::Step::Input(e, _) if Some(e) == dropped.as_ref())),
            "the script's import is not the dropped file's event"
        );
    }
}
