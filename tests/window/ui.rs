//! The UI in a real window: xdotool clicks a toolbar button and the window
//! title (which names the gizmo mode) follows. Where the button is comes
//! from a headless run of the same program at the same size and scale
//! (Xvfb's scale factor is 1), through its trace.

use serde_json::json;
use std::time::Duration;

use crate::support::replay::run_ui;
use crate::support::xvfb::{wait_for, WindowApp, Xvfb};

#[test]
fn ui_toolbar_button_clicked_with_xdotool_switches_the_gizmo_mode() {
    let scene = json!({ "objects": [{ "name": "box", "mesh": "cube" }] });
    let layout = run_ui(&scene, &json!({ "size": [800, 500], "events": [{ "mouse_move": [1, 1] }] }));
    let r: Vec<f64> =
        layout.trace[0]["ui"]["rects"]["mode.scale"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let (cx, cy) = (((r[0] + r[2]) / 2.0) as i32, ((r[1] + r[3]) / 2.0) as i32);

    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scene.json");
    std::fs::write(&file, scene.to_string()).unwrap();
    let app = WindowApp::start_with_ui(&x, dir.path(), &file, "800x500");
    let title = || x.run("xdotool", &["getwindowname", &app.wid]);
    assert!(title().contains("| translate |"), "{}", title());
    x.run("xdotool", &["mousemove", "--window", &app.wid, &cx.to_string(), &cy.to_string()]);
    std::thread::sleep(Duration::from_millis(200));
    x.run("xdotool", &["click", "1"]);
    wait_for("the scale mode in the title", || title().contains("| scale |").then_some(()));
    app.quit_cleanly(&x);
}
