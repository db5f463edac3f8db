//! The window: winit glue around the renderer. Window events are handled
//! here; drawing goes through the same [`SceneMeshes`] path as the headless
//! mode.

use std::time::{Duration, Instant};

use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, ModifiersState, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::cli::{validation_status, Cli, Fatal};
use crate::draw::SceneMeshes;
use crate::math::{Camera, DepthMode};
use crate::render::{ContextDesc, Renderer, WindowHandles};
use crate::scene::Scene;

/// The key that toggles reversed / standard depth.
pub const DEPTH_TOGGLE_KEY: KeyCode = KeyCode::F2;

struct App {
    validation: bool,
    size: (u32, u32),
    scene: Scene,
    camera: Camera,
    depth: DepthMode,
    window: Option<Window>,
    renderer: Option<Renderer>,
    meshes: Option<SceneMeshes>,
    modifiers: ModifiersState,
    frames: u64,
    frame_time: Duration,
    error: Option<Fatal>,
}

impl App {
    fn fail(&mut self, el: &ActiveEventLoop, e: impl Into<Fatal>) {
        self.error = Some(e.into());
        el.exit();
    }

    fn create(&mut self, el: &ActiveEventLoop) -> Result<(), Fatal> {
        let attrs = Window::default_attributes()
            .with_title("viewport")
            .with_inner_size(PhysicalSize::new(self.size.0, self.size.1));
        let window = el.create_window(attrs).map_err(|e| Fatal(format!("cannot open a window: {e}")))?;
        let handles = WindowHandles {
            display: window.display_handle().map_err(|e| Fatal(e.to_string()))?.as_raw(),
            window: window.window_handle().map_err(|e| Fatal(e.to_string()))?.as_raw(),
        };
        let size = window.inner_size();
        let mut renderer =
            Renderer::windowed(&ContextDesc { validation: self.validation }, handles, size.width, size.height)?;
        eprintln!("viewport: using {}", renderer.device_info());
        self.meshes = Some(SceneMeshes::upload(&mut renderer, &self.scene)?);
        self.renderer = Some(renderer);
        self.update_title_of(&window);
        window.request_redraw();
        self.window = Some(window);
        Ok(())
    }

    fn update_title_of(&self, window: &Window) {
        window.set_title(&format!(
            "viewport | depth {} (F2) | {:.2} ms | {} frames",
            self.depth.name(),
            self.frame_time.as_secs_f64() * 1e3,
            self.frames
        ));
    }

    fn redraw(&mut self) -> Result<(), Fatal> {
        let (Some(renderer), Some(meshes)) = (self.renderer.as_mut(), self.meshes.as_ref()) else { return Ok(()) };
        let started = Instant::now();
        let frame = meshes.frame(&self.scene, self.camera, self.depth, &[]);
        let stats = renderer.draw(&frame)?;
        if stats.presented {
            self.frames += 1;
            self.frame_time = started.elapsed();
        }
        if let Some(w) = &self.window {
            self.update_title_of(w);
        }
        Ok(())
    }

    fn key(&mut self, el: &ActiveEventLoop, event: &KeyEvent) {
        if event.state != ElementState::Pressed || event.repeat {
            return;
        }
        let PhysicalKey::Code(code) = event.physical_key else { return };
        match code {
            DEPTH_TOGGLE_KEY => {
                self.depth = self.depth.toggled();
                eprintln!("viewport: depth mode {}", self.depth.name());
            }
            KeyCode::KeyQ if self.modifiers.control_key() => el.exit(),
            _ => return,
        }
        if let Some(w) = &self.window {
            w.request_redraw();
        }
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.window.is_none() {
            if let Err(e) = self.create(el) {
                self.fail(el, e);
            }
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            // A close request, or the window destroyed under us (e.g. by the X server).
            WindowEvent::CloseRequested | WindowEvent::Destroyed => el.exit(),
            WindowEvent::Resized(size) => {
                if let Some(r) = self.renderer.as_mut() {
                    if let Err(e) = r.resize(size.width, size.height) {
                        return self.fail(el, e);
                    }
                }
                if let Some(w) = &self.window {
                    w.request_redraw();
                }
            }
            WindowEvent::ModifiersChanged(m) => self.modifiers = m.state(),
            WindowEvent::KeyboardInput { event, .. } => self.key(el, &event),
            WindowEvent::RedrawRequested => {
                if let Err(e) = self.redraw() {
                    self.fail(el, e);
                }
            }
            _ => {}
        }
    }
}

/// Opens the window and runs until it is closed. Returns the exit status.
pub fn run_window(cli: &Cli, scene: Scene) -> Result<i32, Fatal> {
    let event_loop = EventLoop::new().map_err(|e| Fatal(format!("cannot connect to the display: {e}")))?;
    event_loop.set_control_flow(ControlFlow::Wait);
    let camera = scene.camera.unwrap_or_default();
    let mut app = App {
        validation: cli.validation,
        size: cli.size,
        scene,
        camera,
        depth: cli.depth,
        window: None,
        renderer: None,
        meshes: None,
        modifiers: ModifiersState::empty(),
        frames: 0,
        frame_time: Duration::ZERO,
        error: None,
    };
    event_loop.run_app(&mut app).map_err(|e| Fatal(format!("event loop failed: {e}")))?;
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    let errors = app.renderer.as_ref().map_or(0, |r| {
        r.wait_idle();
        r.validation().errors()
    });
    // Tear down Vulkan before the window it presents to.
    app.meshes = None;
    app.renderer = None;
    app.window = None;
    eprintln!("viewport: presented {} frames, {} validation errors", app.frames, errors);
    Ok(validation_status(cli, errors))
}
