//! The window: winit glue. Window events become the same platform-free
//! [`input::Event`](crate::input::Event)s that replay scripts produce and go
//! through the same [`session::handle`] and [`Editor`]; drawing goes through
//! the same [`SceneMeshes::editor_frame`] as the headless mode.

mod watch;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{ModifiersState, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::autosave::Autosaver;
use crate::document::{Document, FileStep};
use crate::draw::{GpuSync, LoadedMeshes, RenderProbe, SceneMeshes};
use crate::editor::{Editor, FrameProbe, NoFrame};
use crate::error::Error;
use crate::files::save_png;
use crate::input::{Event, Modifiers, MouseButton};
use crate::render::{ContextDesc, Culling, Renderer, WindowHandles};
use crate::session::{self, Outcome, SaveStep};
use crate::setup::{import_into, open_for, read_import, Options};
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
    /// The scene's file: where Ctrl+S writes, unsaved changes, the used
    /// files to reload, the recovery offer.
    doc: Document,
    /// The autosave interval, 0 for none (`--autosave-secs`).
    autosave_secs: f64,
    editor: Editor,
    /// The toolbar, status line, side panel and view widget (made with the window).
    ui: Option<Ui>,
    /// `--no-ui` not given.
    show_ui: bool,
    /// When the UI asked to be drawn again (tooltips, animations).
    ui_redraw_at: Option<Instant>,
    /// When the window opened (the UI's clock).
    opened: Instant,
    /// The scene's meshes, read before the window opens.
    loaded: LoadedMeshes,
    window: Option<Window>,
    renderer: Option<Renderer>,
    meshes: Option<SceneMeshes>,
    /// Where the scene is culled ([`Options::culling`]).
    culling: Culling,
    /// With GPU culling (the default on GPUs): what the renderer holds of
    /// the scene.
    gpu: Option<GpuSync>,
    modifiers: Modifiers,
    frames: u64,
    frame_time: Duration,
    screenshots: u32,
    error: Option<Error>,
    /// When the last frame started (the fly camera's clock).
    last_redraw: Option<Instant>,
    /// Watches those files (`None` where no watch could be set up).
    watch: Option<watch::FileWatch>,
    /// Where Ctrl+C puts objects and Ctrl+V takes them from (the system clipboard).
    clipboard: crate::clip::Clipboard,
    /// The periodic autosave (`None` with `--autosave-secs 0`).
    autosaver: Option<Autosaver>,
}

impl App {
    fn fail(&mut self, el: &ActiveEventLoop, e: impl Into<Error>) {
        let e = e.into();
        // The window system took the window away (e.g. destroyed it on
        // close) while a frame was being drawn: that is a close, not a
        // failure (winit's Destroyed event would have followed).
        if let Error::Render(crate::render::RenderError::Vk {
            result: ash::vk::Result::ERROR_SURFACE_LOST_KHR, ..
        }) = &e
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
        let culling = renderer.culling(self.culling);
        eprintln!("viewport: using {}", renderer.device_info().describe(&culling));
        self.meshes = Some(SceneMeshes::upload_loaded(&mut renderer, &self.loaded)?);
        // A new renderer holds no objects yet.
        match (culling.gpu, self.gpu.as_mut()) {
            (true, Some(sync)) => sync.reset(),
            (true, None) => self.gpu = Some(GpuSync::default()),
            (false, _) => self.gpu = None,
        }
        self.editor.handle(&Event::Resize { width: size.width as f64, height: size.height as f64 });
        // The UI scale u is the window's scale factor; the panel starts shown.
        self.editor.ui_scale = window.scale_factor();
        let mut ui = if self.show_ui {
            Ui::new(window.scale_factor(), size.width as f64, size.height as f64, true)
        } else {
            Ui::off(size.width as f64, size.height as f64)
        };
        ui.scale_gizmo(&mut self.editor);
        ui.settle(&mut self.editor);
        self.doc.dress(&mut ui);
        self.ui = Some(ui);
        self.renderer = Some(renderer);
        window.request_redraw();
        self.window = Some(window);
        self.update_title();
        Ok(())
    }

    fn update_title(&self) {
        let Some(w) = &self.window else { return };
        let cfg = &self.editor.gizmo.config;
        // The scene's file, starred while it has unsaved changes.
        let file = match self.scene_name() {
            Some(name) => format!(" | {name}{}", if self.doc.unsaved.is_modified(&self.editor) { "*" } else { "" }),
            None => String::new(),
        };
        w.set_title(&format!(
            "viewport{file} | {} | {} | pivot {} | snap {} | depth {} | {:.2} ms | {} frames",
            cfg.mode.name(),
            cfg.space.name(),
            cfg.pivot.name(),
            if self.modifiers.ctrl || self.editor.snap_on { "on" } else { "off" },
            self.editor.depth.name(),
            self.frame_time.as_secs_f64() * 1e3,
            self.frames
        ));
    }

    fn redraw(&mut self) -> Result<(), Error> {
        let (Some(renderer), Some(meshes)) = (self.renderer.as_mut(), self.meshes.as_mut()) else { return Ok(()) };
        let started = Instant::now();
        // The fly camera moves by real time, at most a tenth of a second per
        // frame (a stall must not throw the camera far away).
        let dt = self.last_redraw.map_or(0.0, |t| started.duration_since(t).as_secs_f64().min(0.1));
        self.editor.advance(dt);
        // Keep drawing while the view moves by itself.
        self.last_redraw = self.editor.is_animating().then_some(started);
        let mut frame = meshes.frame_for(&self.editor, renderer, self.gpu.as_mut())?;
        // The first edit ends the recovery offer, and its notice.
        if self.doc.recovery.as_ref().is_some_and(|r| !r.stands(&self.editor)) {
            let offer = self.doc.recovery.take().map(|r| r.notice());
            if let Some(ui) = self.ui.as_mut().filter(|ui| ui.notice == offer) {
                ui.notice = None;
            }
        }
        if let Some(ui) = self.ui.as_mut() {
            ui.frame_ms = self.frame_time.as_secs_f64() * 1e3;
            ui.advance(started.duration_since(self.opened).as_secs_f64() - ui.time());
            frame.ui = Some(ui.draw(&mut self.editor));
            self.ui_redraw_at = ui.repaint_after().map(|d| started + d.max(Duration::from_millis(5)));
        }
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

    fn save(&mut self) {
        match self.doc.save.save(&self.editor) {
            Ok(SaveStep::Write(_)) => {
                self.doc.unsaved.saved(&self.editor);
                if let Some(a) = self.autosaver.as_mut() {
                    a.remove();
                }
                if let Some(ui) = self.ui.as_mut() {
                    ui.notice = None;
                }
                self.update_title();
            }
            Ok(SaveStep::Warn(warning)) => {
                if let Some(ui) = self.ui.as_mut() {
                    ui.notice = Some(warning);
                }
            }
            Ok(SaveStep::NoFile) => return,
            Err(e) => {
                eprintln!("viewport: {e}");
                return;
            }
        }
        self.request_redraw();
    }

    /// Imports a dropped glTF file. A file that cannot be read is one line
    /// on stderr and changes nothing; only a GPU failure is an error.
    fn import(&mut self, path: &std::path::Path) -> Result<(), Error> {
        let (Some(renderer), Some(meshes)) = (self.renderer.as_mut(), self.meshes.as_mut()) else { return Ok(()) };
        match read_import(path) {
            Ok(read) => {
                import_into(&mut self.editor, &read);
                meshes.add_loaded(renderer, &read.loaded)?;
                eprintln!("viewport: imported {}", path.display());
                self.doc.reloader.track(self.editor.scene());
                if let Some(w) = self.watch.as_mut() {
                    w.follow(&self.doc.reloader.watched());
                }
                self.request_redraw();
            }
            Err(e) => eprintln!("viewport: {e}"),
        }
        Ok(())
    }

    /// Reloads the used glTF files that changed on disk (the watch said
    /// so and they settled); during a drag it is tried again a little later.
    fn reload_files(&mut self) -> Result<(), Error> {
        let (Some(renderer), Some(meshes), Some(watch)) =
            (self.renderer.as_mut(), self.meshes.as_mut(), self.watch.as_mut())
        else {
            return Ok(());
        };
        let Some(done) = self.doc.reloader.reload(&mut self.editor) else {
            watch.done(Some(Instant::now() + watch::SETTLE));
            return Ok(());
        };
        watch.done(None);
        watch.follow(&self.doc.reloader.watched());
        for loaded in &done.loaded {
            meshes.add_loaded(renderer, loaded)?;
        }
        if let (Some(notice), Some(ui)) = (done.notice(), self.ui.as_mut()) {
            ui.notice = Some(notice);
        }
        self.request_redraw();
        self.update_title();
        Ok(())
    }

    /// A file command (Ctrl+O, Ctrl+Shift+S, Ctrl+N and their dialogs'
    /// answers): a new scene takes the place of the old one, its meshes
    /// uploaded, watched and autosaved as at start.
    fn file(&mut self, command: &Outcome) -> Result<(), Error> {
        let (Some(ui), Some(renderer)) = (self.ui.as_mut(), self.renderer.as_mut()) else { return Ok(()) };
        let was_modified = self.doc.unsaved.is_modified(&self.editor);
        let saved_as = matches!(command, Outcome::SaveAs(_));
        let step = self.doc.act(&mut self.editor, ui, command)?;
        if let FileStep::Replaced(loaded) = step {
            // Unsaved changes let go after the warning: their autosave goes too.
            if was_modified {
                if let Some(a) = self.autosaver.as_mut() {
                    a.remove();
                }
            }
            self.meshes = Some(SceneMeshes::upload_loaded(renderer, &loaded)?);
            self.loaded = *loaded;
            if let Some(sync) = self.gpu.as_mut() {
                sync.reset();
            }
            self.autosaver = autosaver_for(&self.doc, self.autosave_secs);
            if let Some(w) = self.watch.as_mut() {
                w.follow(&self.doc.reloader.watched());
            }
        } else if saved_as && !self.doc.unsaved.is_modified(&self.editor) {
            // Saved under the new name: the old autosave is not needed, the next one goes beside it.
            if let Some(a) = self.autosaver.as_mut() {
                a.remove();
            }
            self.autosaver = autosaver_for(&self.doc, self.autosave_secs);
        }
        self.update_title();
        self.request_redraw();
        Ok(())
    }

    /// Ctrl+C, Ctrl+V and the add menu: the clipboard and the new meshes.
    fn clip(&mut self, command: &Outcome) -> Result<(), Error> {
        let step = match command {
            Outcome::Copy => crate::clip::copy(&self.editor, &mut self.clipboard),
            Outcome::Paste => crate::clip::paste(&mut self.editor, &mut self.clipboard)?,
            Outcome::Add(name) => crate::clip::add(&mut self.editor, name)?,
            _ => return Ok(()),
        };
        if let (Some(loaded), Some(renderer), Some(meshes)) =
            (&step.loaded, self.renderer.as_mut(), self.meshes.as_mut())
        {
            meshes.add_loaded(renderer, loaded)?;
            self.doc.reloader.track(self.editor.scene());
        }
        if let (Some(n), Some(ui)) = (step.notice, self.ui.as_mut()) {
            ui.notice = Some(n);
        }
        self.request_redraw();
        self.update_title();
        Ok(())
    }

    /// Ctrl+Shift+R: the autosave offered on opening replaces the scene.
    fn recover(&mut self) -> Result<(), Error> {
        let (Some(renderer), Some(meshes)) = (self.renderer.as_mut(), self.meshes.as_mut()) else { return Ok(()) };
        let notice = crate::headless::recover(&mut self.doc.recovery, &mut self.editor, |loaded| {
            meshes.add_loaded(renderer, loaded).map_err(Error::from)
        })?;
        if let (Some(n), Some(ui)) = (notice, self.ui.as_mut()) {
            ui.notice = Some(n);
        }
        self.request_redraw();
        self.update_title();
        Ok(())
    }

    fn screenshot(&mut self) -> Result<(), Error> {
        let (Some(renderer), Some(meshes)) = (self.renderer.as_mut(), self.meshes.as_mut()) else { return Ok(()) };
        let mut frame = meshes.frame_for(&self.editor, renderer, self.gpu.as_mut())?;
        if let Some(ui) = self.ui.as_mut() {
            frame.ui = Some(ui.draw(&mut self.editor));
        }
        let image = renderer.capture(&frame)?;
        self.screenshots += 1;
        let path = PathBuf::from(format!("viewport-screenshot-{}.png", self.screenshots));
        match save_png(&path, image.width, image.height, &image.data) {
            Ok(()) => eprintln!("viewport: wrote {}", path.display()),
            Err(e) => eprintln!("viewport: {e}"),
        }
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn user_event(&mut self, _el: &ActiveEventLoop, _event: ()) {
        // The file watch woke the loop: note whether a used file changed.
        if let Some(w) = self.watch.as_mut() {
            w.take_changes();
        }
    }

    fn about_to_wait(&mut self, el: &ActiveEventLoop) {
        let now = Instant::now();
        // Changed files that have settled are reloaded.
        if self.watch.as_ref().and_then(watch::FileWatch::due).is_some_and(|d| d <= now) {
            if let Err(e) = self.reload_files() {
                return self.fail(el, e);
            }
        }
        // An autosave of unsaved changes, when due (written on another thread).
        let modified = self.doc.unsaved.is_modified(&self.editor);
        if let Some(a) = self.autosaver.as_mut() {
            a.tick(&self.editor, modified, now);
        }
        // The UI's wish (a tooltip after its delay) that has come.
        if self.ui_redraw_at.is_some_and(|at| at <= now) {
            self.ui_redraw_at = None;
            self.request_redraw();
        }
        // Sleep until input, the UI's next wish or the next reload.
        let wake = [
            self.ui_redraw_at,
            self.watch.as_ref().and_then(watch::FileWatch::due),
            self.autosaver.as_ref().map(Autosaver::due),
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
        if self.window.is_none() {
            if let Err(e) = self.create(el) {
                self.fail(el, e);
            }
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match &event {
            // A close request, or the window destroyed under us (e.g. by the X server).
            WindowEvent::CloseRequested => {
                if self.may_quit() {
                    el.exit();
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
                self.editor.ui_scale = *scale_factor;
                if let Some(ui) = self.ui.as_mut() {
                    ui.set_scale(*scale_factor, &mut self.editor);
                }
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
                if let Some(r) = self.renderer.as_mut() {
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
        let mut renderer = self.renderer.take();
        let command = match renderer.as_mut() {
            Some(r) => {
                let mut probe = RenderProbe::new(r);
                let mut command = self.handle(&input, &mut probe);
                if let Some(text) = text {
                    let typed = self.handle(&Event::Text { text }, &mut probe);
                    if command == Outcome::None {
                        command = typed;
                    }
                }
                // A failed read of the frame (e.g. a lost device) is fatal, not "no surface".
                if let Some(e) = probe.failed {
                    self.renderer = renderer;
                    return self.fail(el, e);
                }
                command
            }
            None => self.handle(&input, &mut NoFrame),
        };
        self.renderer = renderer;
        match command {
            Outcome::None => {}
            Outcome::Redraw => self.request_redraw(),
            Outcome::Save => self.save(),
            Outcome::Screenshot => {
                if let Err(e) = self.screenshot() {
                    self.fail(el, e);
                }
            }
            Outcome::Quit => {
                if self.may_quit() {
                    el.exit();
                }
            }
            Outcome::ExportDialog | Outcome::AddMenu | Outcome::FocusFilter | Outcome::RenameActive => {}
            Outcome::Copy | Outcome::Paste | Outcome::Add(_) => {
                if let Err(e) = self.clip(&command) {
                    self.fail(el, e);
                }
            }
            Outcome::OpenDialog
            | Outcome::SaveAsDialog
            | Outcome::NewDialog
            | Outcome::Open(_)
            | Outcome::SaveAs(_)
            | Outcome::New(_) => {
                if let Err(e) = self.file(&command) {
                    self.fail(el, e);
                }
            }
            Outcome::Recover => {
                if let Err(e) = self.recover() {
                    self.fail(el, e);
                }
            }
            Outcome::Export { path, selection } => {
                let notice = crate::headless::export_notice(&self.editor, selection, &path);
                if let Some(ui) = self.ui.as_mut() {
                    ui.notice = Some(notice);
                }
                self.request_redraw();
            }
            Outcome::Import(path) => {
                if let Err(e) = self.import(&path) {
                    self.fail(el, e);
                }
            }
        }
        if matches!(input, Event::Resize { .. }) {
            self.request_redraw();
        }
    }
}

impl App {
    /// One event through the UI (which passes what it does not use to the editor).
    fn handle(&mut self, event: &Event, frame: &mut dyn FrameProbe) -> Outcome {
        match self.ui.as_mut() {
            Some(ui) => ui.handle(&mut self.editor, event, self.modifiers, frame),
            None => session::handle(&mut self.editor, event, self.modifiers, frame),
        }
    }

    /// A quit request (Ctrl+Q, the close button): true to quit now. The
    /// first one while the scene has changes its file lacks only warns, on
    /// stderr and in the status line.
    fn may_quit(&mut self) -> bool {
        // Quitting with unsaved changes (after the warning) drops them, and their autosave.
        let modified = self.doc.unsaved.is_modified(&self.editor);
        let quits = self.unsaved_may_quit();
        if quits && modified {
            if let Some(a) = self.autosaver.as_mut() {
                a.remove();
            }
        }
        quits
    }

    fn unsaved_may_quit(&mut self) -> bool {
        let (Some(path), Some(name)) = (self.doc.save.path(), self.scene_name()) else { return true };
        if self.doc.unsaved.may_quit(&self.editor) {
            return true;
        }
        eprintln!("viewport: unsaved changes to {}: Ctrl+S saves, Ctrl+Q again quits without saving", path.display());
        if let Some(ui) = self.ui.as_mut() {
            ui.notice = Some(format!("Unsaved changes to {name}: Ctrl+S saves, Ctrl+Q again quits without saving"));
        }
        self.request_redraw();
        false
    }

    /// The name of the file Ctrl+S writes, if there is one.
    fn scene_name(&self) -> Option<String> {
        let p = self.doc.save.path()?;
        Some(p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()))
    }

    fn request_redraw(&self) {
        if let Some(w) = &self.window {
            w.request_redraw();
        }
    }
}

/// The autosaver of `doc`'s scene, every `secs` (none for 0).
fn autosaver_for(doc: &Document, secs: f64) -> Option<Autosaver> {
    match &doc.autosave {
        Some(path) if secs > 0.0 => Some(Autosaver::new(path.clone(), Duration::from_secs_f64(secs))),
        _ => None,
    }
}

/// Opens the window and runs until it is closed. Returns the number of
/// validation errors (0 without validation).
pub fn run_window(options: &Options) -> Result<u32, Error> {
    // The scene and its mesh files first: a bad one fails before a window opens.
    let opened = open_for(options)?;
    let (doc, mut editor, loaded) = Document::open(opened, options.size, options.depth)?;
    editor.lighting = options.lighting;
    let autosaver = autosaver_for(&doc, options.autosave_secs);
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
    let mut app = App {
        validation: options.validation,
        samples: options.samples,
        size: options.size,
        doc,
        autosave_secs: options.autosave_secs,
        editor,
        ui: None,
        ui_redraw_at: None,
        show_ui: options.ui,
        opened: Instant::now(),
        loaded,
        window: None,
        renderer: None,
        culling: options.culling,
        gpu: None,
        meshes: None,
        modifiers: Modifiers::NONE,
        frames: 0,
        frame_time: Duration::ZERO,
        screenshots: 0,
        error: None,
        last_redraw: None,
        watch,
        autosaver,
        clipboard: crate::clip::Clipboard::system(),
    };
    event_loop.run_app(&mut app)?;
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    let errors = match app.renderer.as_ref() {
        Some(r) => {
            r.wait_idle()?;
            r.validation().errors()
        }
        None => 0,
    };
    // Tear down Vulkan before the window it presents to.
    app.meshes = None;
    app.renderer = None;
    app.window = None;
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
    /// `{"import": PATH}` (`script.rs`), so the import tests through
    /// scripts cover dropping (xdotool cannot drag files onto a window).
    #[test]
    fn a_dropped_file_is_the_scripts_import_event() {
        let path = std::path::PathBuf::from("/models/fox.glb");
        let dropped = to_input(&WindowEvent::DroppedFile(path.clone()));
        assert_eq!(dropped, Some(Event::Drop { path: path.clone() }));
        let script = format!(r#"{{"events": [{{"import": "{}"}}]}}"#, path.display());
        let parsed = crate::script::Script::from_json(&script, &crate::scene::Scene::demo()).unwrap();
        assert!(
            parsed.steps.iter().any(|s| matches!(s, crate::script::Step::Input(e, _) if Some(e) == dropped.as_ref())),
            "the script's import is not the dropped file's event"
        );
    }
}
