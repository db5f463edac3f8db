//! The swapchain through a minimise (zero size) and back, on a real X window
//! (Xvfb): nothing is drawn while minimised, drawing resumes afterwards, and
//! the validation layer sees no error. X cannot give a window zero size, so
//! this drives the renderer's resize path the way winit's Resized(0, 0) does.

use crate::support::gpu::assert_no_validation_errors;
use crate::support::xvfb::Xvfb;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use viewport::draw::SceneMeshes;
use viewport::math::DepthMode;
use viewport::render::{ContextDesc, Renderer, WindowHandles};
use viewport::scene::Scene;
use winit::event_loop::EventLoop;
use winit::platform::x11::EventLoopBuilderExtX11;

/// Set in the child process that runs the test's body.
const CHILD: &str = "VIEWPORT_ZERO_SIZE_CHILD";
/// What the child prints when winit could not open the X display.
const NO_DISPLAY: &str = "no X11 event loop";

/// The body runs in a child process of its own (this test binary, filtered
/// to this test): winit allows one event loop per process and cannot retry
/// one whose display failed to open, which happened now and then on a
/// loaded machine just after the server answered. A child that could not
/// open the display is run again, up to three times; any other failure is
/// this test's failure.
#[test]
fn swapchain_survives_minimise_resize_and_depth_toggle() {
    if std::env::var_os(CHILD).is_some() {
        return swapchain_body();
    }
    let name = "zero_size::swapchain_survives_minimise_resize_and_depth_toggle";
    for attempt in 1..=3 {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", name, "--nocapture", "--test-threads=1"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("1 passed") || !out.status.success(), "the child ran no test: {text}");
        if out.status.success() {
            return;
        }
        assert!(text.contains(NO_DISPLAY) && attempt < 3, "attempt {attempt}: {text}");
    }
}

fn swapchain_body() {
    let x = Xvfb::start();
    // winit opens the X display named by DISPLAY and has no way to be told
    // another, so this test sets it for the whole process. That is safe
    // beside the other tests of this binary: they create no X or Vulkan
    // client in-process, only read the environment through std (which
    // locks it: Command, tempfile), and give each child process its own
    // DISPLAY explicitly. It is also the binary's only winit event loop
    // (winit allows one per process).
    std::env::set_var("DISPLAY", &x.display);
    let event_loop = EventLoop::builder().with_x11().with_any_thread(true).build().expect(NO_DISPLAY);
    #[allow(deprecated)]
    let window = event_loop
        .create_window(
            winit::window::Window::default_attributes().with_inner_size(winit::dpi::PhysicalSize::new(400, 300)),
        )
        .expect("window");
    let handles = WindowHandles {
        display: window.display_handle().unwrap().as_raw(),
        window: window.window_handle().unwrap().as_raw(),
    };
    let mut r = Renderer::windowed(&ContextDesc { validation: true, samples: 4 }, handles, 400, 300)
        .expect("windowed renderer");
    let scene = Scene::demo();
    let meshes = SceneMeshes::upload(&mut r, &scene).unwrap();
    let (mut frame, _) = meshes.frame(&scene, scene.camera.unwrap(), DepthMode::Reversed, &[], (400, 300));

    for _ in 0..3 {
        assert!(r.draw(&frame).unwrap().presented);
    }
    r.resize(0, 0).unwrap();
    for _ in 0..3 {
        assert!(!r.draw(&frame).unwrap().presented, "nothing is presented while minimised");
    }
    let _ = window.request_inner_size(winit::dpi::PhysicalSize::new(500, 320));
    r.resize(500, 320).unwrap();
    frame.depth = DepthMode::Standard;
    let mut presented = 0;
    for _ in 0..4 {
        presented += r.draw(&frame).unwrap().presented as u32;
    }
    assert!(presented >= 3, "drawing resumes after the minimise ({presented} of 4)");
    assert_ne!(r.extent(), (0, 0));
    r.wait_idle().expect("wait for the GPU");
    assert_no_validation_errors(&r);
    drop(r);
    drop(window);
}
