//! Replay's frame steps: frames that would draw the same picture again
//! are not drawn, frames that move the view all are.

use nalgebra::Point2;

use super::*;

/// Counts the frames drawn (running the UI pass as a real target does).
#[derive(Default)]
struct Counting {
    frames: u64,
}

impl FrameProbe for Counting {
    fn depth_at(&mut self, _p: Point2<f64>) -> Option<f64> {
        None
    }
    fn objects_in(&mut self, _min: Point2<f64>, _max: Point2<f64>) -> Option<Vec<usize>> {
        None
    }
}

impl Host for Counting {
    fn add_meshes(&mut self, _loaded: &LoadedMeshes) -> Result<(), crate::app::Error> {
        unreachable!("no new meshes in these scripts")
    }
    fn replace_meshes(&mut self, _loaded: &LoadedMeshes) -> Result<(), crate::app::Error> {
        unreachable!("no file commands in these scripts")
    }
    fn read_import(&mut self, _path: &Path) -> Result<Rc<ReadImport>, crate::app::Error> {
        unreachable!("no imports in these scripts")
    }
    fn screenshot(&mut self, _program: &mut Program) -> Result<(), crate::app::Error> {
        unreachable!("no screenshots in these scripts")
    }
    fn quit(&mut self, _program: &mut Program) {
        unreachable!("no quitting in these scripts")
    }
    fn watch(&mut self, _files: &[PathBuf]) {}
}

impl ReplayTarget for Counting {
    fn frame(&mut self, editor: &mut Editor, ui: &mut Ui) -> Result<(), crate::app::Error> {
        ui.draw(editor);
        self.frames += 1;
        Ok(())
    }
    fn take_error(&mut self) -> Option<crate::app::Error> {
        None
    }
}

/// Replays `events` (a JSON array) on the demo scene with the side panel
/// shown; returns the editor, the UI and the frames drawn.
fn run(events: &str) -> (Editor, Ui, u64) {
    let scene = Scene::demo();
    let script = crate::headless::script::Script::from_json(&format!(r#"{{"events":{events}}}"#), &scene).unwrap();
    let editor = Editor::new(scene, 1280.0, 720.0);
    let ui = Ui::new(1.0, 1280.0, 720.0, true);
    let opened = crate::app::open::Opened::without_file(Scene::demo());
    let (doc, _, _) = Document::open(opened, (1280, 720), crate::math::DepthMode::Reversed).unwrap();
    let clipboard = crate::app::clipboard::Clipboard::own();
    let mut program = Program { editor, ui, doc, clipboard, autosaver: None, autosave_secs: 0.0 };
    let mut target = Counting::default();
    replay(&mut program, &script, &mut target).unwrap();
    (program.editor, program.ui, target.frames)
}

#[test]
fn a_hundred_thousand_still_frames_draw_only_until_nothing_changes_but_their_time_passes() {
    let n: u32 = 100_000;
    let (_, ui, frames) = run(&format!(r#"[{{"mouse_move":[640,400]}},{{"frame":{n}}}]"#));
    assert!((1..100).contains(&frames), "{frames} frames drawn");
    let expect = f64::from(n) / 60.0;
    assert!((ui.time() - expect).abs() < 1e-6 * expect, "UI clock {} s, expected {expect} s", ui.time());
}

#[test]
fn flying_frames_are_all_drawn_and_each_moves_the_camera() {
    let before = Editor::new(Scene::demo(), 1280.0, 720.0).camera.eye;
    let hold_w = r#"{"mouse_move":[640,400]},{"mouse_down":"right"},{"key_down":"W"}"#;
    let (editor, _, frames) = run(&format!("[{hold_w},{{\"frame\":30}}]"));
    assert_eq!(frames, 30);
    // 5 m/s (`docs/spec/editing.md`, "Fly") for 30 frames of 1/60 s.
    let moved = (editor.camera.eye - before).norm();
    assert!((moved - 2.5).abs() < 1e-9, "moved {moved} m");
}
