//! The real binary in a real X window (Xvfb), driven with xdotool: it starts,
//! presents, survives resizes down to 1x1, toggles the depth mode by its key,
//! quits on Ctrl+Q, and reports 0 validation errors.

use crate::support::image::read_png;
use crate::support::xvfb::{press_until, spawn_window, wait_for, Xvfb};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The frame count at the end of the window title ("... | 12 frames").
fn frames_in(title: &str) -> Option<u64> {
    title.rsplit('|').next()?.trim().strip_suffix(" frames")?.parse().ok()
}

#[test]
fn window_presents_resizes_toggles_depth_and_quits_cleanly() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.log");
    let (mut child, wid) = spawn_window(&x, || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_viewport"));
        // GPU culling by name (the default is CPU culling on lavapipe): its
        // objects follow the renderer through resizes.
        c.args(["--validation", "--culling", "gpu", "--size", "800x500"])
            .env("DISPLAY", &x.display)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap());
        c
    });
    let title = |x: &Xvfb| x.run("xdotool", &["getwindowname", &wid]);
    // At least one frame (the count can jump past 1 between two polls).
    wait_for("a first frame", || (frames_in(&title(&x))? >= 1).then_some(()));
    assert!(title(&x).contains("depth reversed"), "{}", title(&x));

    // Shift+F2 toggles: press_until repeats it only when the title has shown no
    // change for 10 s.
    press_until(&x, &wid, "shift+F2", "the depth toggle", || title(&x).contains("depth standard").then_some(()));

    // Resize, shrink to 1x1 (the smallest X allows), and grow again.
    for (w, h) in [("640", "400"), ("1", "1"), ("900", "560")] {
        x.run("xdotool", &["windowsize", "--sync", &wid, w, h]);
        std::thread::sleep(Duration::from_millis(300));
    }
    let shot = dir.path().join("screen.png");
    x.run("import", &["-window", "root", shot.to_str().unwrap()]);
    let frames_before_quit = frames_in(&title(&x)).unwrap();
    assert!(frames_before_quit >= 3, "{}", title(&x));

    let status = press_until(&x, &wid, "ctrl+q", "exit", || child.try_wait().unwrap());
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(status.success(), "exit {status}: {stderr}");
    assert!(stderr.contains(", 0 validation errors"), "{stderr}");

    // The screenshot shows the scene: the orange crate and the blue ball.
    let img = read_png(&shot);
    let count = |pred: &dyn Fn([u8; 4]) -> bool| {
        (0..img.height)
            .flat_map(|y| (0..img.width).map(move |x| (x, y)))
            .filter(|&(x, y)| pred(img.pixel(x, y)))
            .count()
    };
    let orange = count(&|p| p[0] > 150 && p[1] > 100 && p[1] < 190 && p[2] < 120 && p[0] as i32 > p[1] as i32 + 30);
    // (in i32: the UI's light text would overflow u8 sums)
    let blue = count(&|p| p[2] > 150 && p[2] as i32 > p[0] as i32 + 60);
    assert!(orange > 200, "crate not visible ({orange} orange pixels)");
    assert!(blue > 200, "ball not visible ({blue} blue pixels)");
}

#[test]
fn closing_the_window_quits() {
    let x = Xvfb::start();
    let (mut child, wid) = spawn_window(&x, || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_viewport"));
        c.args(["--validation", "--size", "320x200", "--depth", "standard"])
            .env("DISPLAY", &x.display)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        c
    });
    wait_for("the standard depth title", || {
        x.run("xdotool", &["getwindowname", &wid]).contains("depth standard").then_some(())
    });
    // WM_DELETE_WINDOW, as a window manager's close button sends it.
    x.run("xdotool", &["windowclose", &wid]);
    let status = wait_for("exit", || child.try_wait().unwrap());
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    // xdotool windowclose destroys the window; the app must quit cleanly.
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status.code(), Some(0), "exit {status}: {stderr}");
}
