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

#[test]
fn swapchain_survives_minimise_resize_and_depth_toggle() {
    let x = Xvfb::start();
    // winit opens the X display named by DISPLAY and has no way to be told
    // another, so this test sets it for the whole process. That is safe
    // beside the other tests of this binary: they create no X or Vulkan
    // client in-process, only read the environment through std (which
    // locks it: Command, tempfile), and give each child process its own
    // DISPLAY explicitly. It is also the binary's only winit event loop
    // (winit allows one per process).
    std::env::set_var("DISPLAY", &x.display);
    let event_loop = EventLoop::builder().with_x11().with_any_thread(true).build().expect("X11 event loop");
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
