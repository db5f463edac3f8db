//! The editor's one vocabulary of actions. A key (through [`keymap`]), a
//! toolbar button, a side-panel field and a replay script's key all become a
//! [`Command`], and [`Editor::execute`] is the one place that carries out
//! those that concern the editor. The program-level ones (save, screenshot,
//! quit) are returned to the window or the replay by `session`.
//!
//! Adding a command is one variant here plus its arm in `execute` (a
//! program command: its arm in `app::dispatch` instead), and, if a key runs
//! it, its name in [`NAMED`] and a row in [`keymap::DEFAULTS`].
//!
//! [`keymap`]: super::keymap
//! [`keymap::DEFAULTS`]: super::keymap::DEFAULTS

use super::camera::AxisView;
use super::Editor;
use crate::gizmo::{Mode, Pivot, Snap};
use crate::math::Transform;
use crate::scene::fixture::Fixture;

/// One editing action.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Command {
    /// The gizmo's mode (W / E / R / T, the toolbar).
    SetMode(Mode),
    /// World <-> local (X, the toolbar).
    ToggleSpace,
    /// Median -> individual -> active -> bounds -> median (Period).
    CyclePivot,
    /// Snapping on without Ctrl held (the toolbar's check box).
    SetSnapping(bool),
    /// The snapping increments (the toolbar's fields).
    SetSnap(Snap),
    /// Abandons a box selection or a drag in progress (Escape).
    Cancel,
    /// Undoes the last change (Ctrl+Z).
    Undo,
    /// Redoes the last undone change (Ctrl+Shift+Z, Ctrl+Y).
    Redo,
    /// Duplicates the selection (Ctrl+D, Shift+D).
    Duplicate,
    /// Deletes the selection (Delete).
    Delete,
    /// Hides the selected objects (H).
    Hide,
    /// Hides every object neither selected nor above a selected one (Shift+H).
    HideUnselected,
    /// Shows every hidden object and selects them (Alt+H).
    UnhideAll,
    /// Ctrl+1..9: stores the camera as bookmark `n` (1 to 9).
    StoreBookmark(u8),
    /// 1..9: moves the camera to bookmark `n`.
    RecallBookmark(u8),
    /// M: the ruler on / off.
    ToggleRuler,
    /// NumpadDivide: local view in / out.
    LocalView,
    /// Hides or shows one object (the outliner's eye).
    ToggleHidden { object: usize },
    /// Selects `object` alone, or toggles it with `add` (an outliner row).
    Select { object: usize, add: bool },
    /// Sets an object's local transform (the side panel's fields); the
    /// panel commits the edit as one undo step when the field is left.
    SetTransform { object: usize, transform: Transform },
    /// Frames the selection, or the whole scene (F, NumpadDecimal).
    Focus,
    /// An axis view (Numpad 1 / 3 / 7, Ctrl for the opposite side).
    AxisView(AxisView),
    /// Perspective <-> orthographic (Numpad5, the toolbar).
    ToggleProjection,
    /// Looks through the active (or the first) camera object (Numpad0).
    CameraView,
    /// Object `object`'s light and camera as a panel field edits them
    /// (the panel makes the undo step when the field is left).
    SetFixture { object: usize, fixture: Fixture },
    /// The scene's lighting becomes this (the toolbar's environment menu):
    /// one undo step.
    SetLighting(crate::look::Lighting),
    /// Whether the selected objects with a mesh cast shadows (the side
    /// panel's box): one undo step.
    SetCastShadows(bool),
    /// The lighting shown as a slider is dragged: no undo step until the
    /// [`Command::SetLighting`] that ends the drag.
    PreviewLighting(crate::look::Lighting),
    /// Moves the active camera object to the view (Ctrl+Alt+Numpad0).
    CameraToView,
    /// The single view <-> the quad view (Ctrl+Alt+Q).
    ToggleQuadView,
    /// Reversed <-> standard depth (Shift+F2, the toolbar).
    ToggleDepth,
    /// Material <-> solid shading (Z, the toolbar).
    ToggleShading,
    /// The scene's glTF lights on / off in place of the sun (the toolbar).
    ToggleSceneLights,
    /// Writes the scene to its file (Ctrl+S): the program's business.
    Save,
    /// Writes a screenshot (F12): the program's business.
    Screenshot,
    /// Quits (Ctrl+Q): the program's business.
    Quit,
    /// Opens the export dialog (Ctrl+E): the UI's business.
    ExportDialog,
    /// Replaces the scene with its newer autosave (Ctrl+Shift+R): the program's business.
    Recover,
    /// Selects every object (A, Ctrl+A).
    SelectAll,
    /// Selects nothing (Alt+A).
    SelectNone,
    /// The active object becomes the parent of the other selected ones (Ctrl+P).
    ParentToActive,
    /// The outliner's drag and drop: the selected objects become children
    /// of `parent` (`None`: roots), world transforms kept.
    ReparentSelection { parent: Option<usize> },
    /// The selected objects become roots (Alt+P).
    ClearParent,
    /// Groups the selection under a new empty (Ctrl+G).
    Group,
    /// Drops the selection to the surface below or the ground (End).
    DropToFloor,
    /// Edits the active object's name in its outliner row (F2): the UI's business.
    RenameActive,
    /// Focuses the outliner's filter (Ctrl+F): the UI's business.
    FocusFilter,
    /// Opens the add menu (Shift+A): the UI's business.
    AddMenu,
    /// Copies the selection (Ctrl+C): the program's business.
    Copy,
    /// Pastes what was copied (Ctrl+V): the program's business.
    Paste,
    /// Opens another file (Ctrl+O): the program's business.
    OpenDialog,
    /// Saves under a new name (Ctrl+Shift+S): the UI's business.
    SaveAsDialog,
    /// Starts an empty scene (Ctrl+N): the program's business.
    NewDialog,
    /// Opens the import dialog (Ctrl+I): the UI's business; its answer is
    /// imported as a dropped file.
    ImportDialog,
    /// Plays or pauses the animation shown, or plays the first clip (Space).
    TogglePlay,
    /// Shows a clip (an index in [`super::Editor::clips`]) at a time in
    /// seconds, playing or paused (the side panel's Animation section).
    ShowAnimation { clip: usize, time: f64, playing: bool },
    /// Returns to the rest pose (the side panel).
    StopAnimation,
}

/// Every command a key can run, by the name key map files and
/// `viewport --list-commands` use (`docs/spec/automation.md`, "Key map"):
/// editor commands first, then the program's.
pub const NAMED: &[(&str, Command)] = &[
    ("translate", Command::SetMode(Mode::Translate)),
    ("rotate", Command::SetMode(Mode::Rotate)),
    ("scale", Command::SetMode(Mode::Scale)),
    ("universal", Command::SetMode(Mode::Universal)),
    ("toggle_space", Command::ToggleSpace),
    ("cycle_pivot", Command::CyclePivot),
    ("cancel", Command::Cancel),
    ("undo", Command::Undo),
    ("redo", Command::Redo),
    ("duplicate", Command::Duplicate),
    ("delete", Command::Delete),
    ("hide", Command::Hide),
    ("hide_unselected", Command::HideUnselected),
    ("unhide_all", Command::UnhideAll),
    ("select_all", Command::SelectAll),
    ("select_none", Command::SelectNone),
    ("parent_to_active", Command::ParentToActive),
    ("clear_parent", Command::ClearParent),
    ("group", Command::Group),
    ("drop_to_floor", Command::DropToFloor),
    ("focus", Command::Focus),
    ("view_front", Command::AxisView(AxisView::Front)),
    ("view_back", Command::AxisView(AxisView::Back)),
    ("view_right", Command::AxisView(AxisView::Right)),
    ("view_left", Command::AxisView(AxisView::Left)),
    ("view_top", Command::AxisView(AxisView::Top)),
    ("view_bottom", Command::AxisView(AxisView::Bottom)),
    ("toggle_projection", Command::ToggleProjection),
    ("camera_view", Command::CameraView),
    ("camera_to_view", Command::CameraToView),
    ("toggle_quad_view", Command::ToggleQuadView),
    ("local_view", Command::LocalView),
    ("toggle_ruler", Command::ToggleRuler),
    ("toggle_depth", Command::ToggleDepth),
    ("toggle_shading", Command::ToggleShading),
    ("toggle_scene_lights", Command::ToggleSceneLights),
    ("toggle_play", Command::TogglePlay),
    ("store_bookmark_1", Command::StoreBookmark(1)),
    ("store_bookmark_2", Command::StoreBookmark(2)),
    ("store_bookmark_3", Command::StoreBookmark(3)),
    ("store_bookmark_4", Command::StoreBookmark(4)),
    ("store_bookmark_5", Command::StoreBookmark(5)),
    ("store_bookmark_6", Command::StoreBookmark(6)),
    ("store_bookmark_7", Command::StoreBookmark(7)),
    ("store_bookmark_8", Command::StoreBookmark(8)),
    ("store_bookmark_9", Command::StoreBookmark(9)),
    ("recall_bookmark_1", Command::RecallBookmark(1)),
    ("recall_bookmark_2", Command::RecallBookmark(2)),
    ("recall_bookmark_3", Command::RecallBookmark(3)),
    ("recall_bookmark_4", Command::RecallBookmark(4)),
    ("recall_bookmark_5", Command::RecallBookmark(5)),
    ("recall_bookmark_6", Command::RecallBookmark(6)),
    ("recall_bookmark_7", Command::RecallBookmark(7)),
    ("recall_bookmark_8", Command::RecallBookmark(8)),
    ("recall_bookmark_9", Command::RecallBookmark(9)),
    ("save", Command::Save),
    ("save_as", Command::SaveAsDialog),
    ("open", Command::OpenDialog),
    ("new", Command::NewDialog),
    ("export", Command::ExportDialog),
    ("import", Command::ImportDialog),
    ("recover", Command::Recover),
    ("screenshot", Command::Screenshot),
    ("quit", Command::Quit),
    ("copy", Command::Copy),
    ("paste", Command::Paste),
    ("add_menu", Command::AddMenu),
    ("rename", Command::RenameActive),
    ("filter", Command::FocusFilter),
];

impl Command {
    /// The command's name in key map files, if a key can run it.
    pub fn name(&self) -> Option<&'static str> {
        NAMED.iter().find(|(_, c)| c == self).map(|&(n, _)| n)
    }

    /// The command a key map file names.
    pub fn named(name: &str) -> Option<Command> {
        NAMED.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)
    }
    /// Whether the program, not the editor, carries it out.
    pub fn is_program(&self) -> bool {
        matches!(
            self,
            Command::Save
                | Command::Screenshot
                | Command::Quit
                | Command::ExportDialog
                | Command::ImportDialog
                | Command::Recover
                | Command::OpenDialog
                | Command::SaveAsDialog
                | Command::NewDialog
                | Command::AddMenu
                | Command::FocusFilter
                | Command::RenameActive
                | Command::Copy
                | Command::Paste
        )
    }

    /// Whether it changes the scene (an undo step): an animation pose
    /// shown returns to the rest pose first ([`super::Editor::leave_pose`]).
    pub fn edits_scene(&self) -> bool {
        matches!(
            self,
            Command::Undo
                | Command::Redo
                | Command::Duplicate
                | Command::Delete
                | Command::Hide
                | Command::HideUnselected
                | Command::UnhideAll
                | Command::ToggleHidden { .. }
                | Command::SetTransform { .. }
                | Command::ParentToActive
                | Command::ClearParent
                | Command::Group
                | Command::ReparentSelection { .. }
                | Command::DropToFloor
                | Command::Paste
                | Command::Recover
        )
    }

    /// Whether it may run while a gizmo drag is under way; every other
    /// command waits until the drag ends.
    pub fn runs_during_drag(&self) -> bool {
        matches!(
            self,
            Command::Cancel
                | Command::Undo
                | Command::Redo
                | Command::ToggleDepth
                | Command::ToggleShading
                | Command::ToggleSceneLights
                | Command::Save
                | Command::Screenshot
                | Command::Quit
        )
    }
}

/// The pivot after `p` in the Period key's cycle.
fn next_pivot(p: Pivot) -> Pivot {
    match p {
        Pivot::Median => Pivot::Individual,
        Pivot::Individual => Pivot::Active,
        Pivot::Active => Pivot::Bounds,
        Pivot::Bounds => Pivot::Median,
    }
}

impl Editor {
    /// Carries out `command`; returns whether anything visible may have
    /// changed. Program-level commands change nothing here. A change of the
    /// gizmo's settings hovers again, so the handle under a still cursor is
    /// the one the new settings put there.
    pub fn execute(&mut self, command: &Command) -> bool {
        if self.gizmo.is_dragging() && !command.runs_during_drag() {
            return false;
        }
        if command.edits_scene() {
            self.leave_pose();
        }
        let config = &mut self.gizmo.config;
        match *command {
            Command::SetMode(mode) => config.mode = mode,
            Command::ToggleSpace => config.space = config.space.toggled(),
            Command::CyclePivot => config.pivot = next_pivot(config.pivot),
            Command::SetSnap(snap) => config.snap = snap,
            Command::SetSnapping(on) => {
                self.snap_on = on;
                return true;
            }
            Command::ToggleDepth => {
                self.depth = self.depth.toggled();
                return true;
            }
            Command::ToggleShading => {
                self.lighting.shading = self.lighting.shading.toggled();
                return true;
            }
            Command::ToggleSceneLights => {
                let has_lights = self.scene_has_lights();
                self.lighting.scene_lights = self.lighting.scene_lights.toggled(has_lights);
                return true;
            }
            Command::Cancel if self.pointer.boxing => return self.cancel_box(),
            Command::Cancel => return self.cancel_drag(),
            Command::Undo => return self.undo(),
            Command::Redo => return self.redo(),
            Command::Duplicate => return self.duplicate(),
            Command::SelectAll => return self.select_all(),
            Command::SelectNone => return self.select_none(),
            Command::ParentToActive | Command::ClearParent | Command::Group | Command::ReparentSelection { .. } => {
                let done = match *command {
                    Command::ParentToActive => self.parent_to_active(),
                    Command::ClearParent => self.clear_parent(),
                    Command::ReparentSelection { parent } => {
                        let ids = self.selection().to_vec();
                        self.reparent(&ids, parent)
                    }
                    _ => self.group(),
                };
                self.message = match &done {
                    Ok(note) => note.clone(),
                    Err(why) => Some(format!("Not done: {why}")),
                };
                return true;
            }
            Command::DropToFloor => return self.drop_to_floor(),
            Command::Delete => return self.delete(),
            Command::Hide => return self.hide_selected(),
            Command::HideUnselected => return self.hide_unselected(),
            Command::UnhideAll => return self.unhide_all(),
            Command::LocalView => return self.toggle_local_view(),
            Command::ToggleRuler => return self.toggle_ruler(),
            Command::StoreBookmark(n) => return self.store_bookmark(n),
            Command::RecallBookmark(n) => return self.recall_bookmark(n),
            Command::ToggleHidden { object } => return self.toggle_hidden(object),
            Command::Select { object, add } => return self.select_object(object, add),
            Command::SetTransform { object, transform } => return self.set_transform(object, transform),
            Command::Focus => return self.focus(),
            Command::AxisView(view) => return self.set_axis_view(view),
            Command::ToggleProjection => return self.toggle_projection(),
            Command::CameraView => return self.look_through_camera(),
            Command::SetFixture { object, fixture } => return self.set_fixture(object, fixture),
            Command::SetLighting(l) => return self.set_lighting(l),
            Command::SetCastShadows(on) => return self.set_cast_shadows(on),
            Command::PreviewLighting(l) => return self.preview_lighting(l),
            Command::CameraToView => return self.camera_to_view(),
            Command::ToggleQuadView => return self.toggle_quad(),
            Command::TogglePlay => return self.toggle_playing(),
            Command::ShowAnimation { clip, time, playing } => return self.show_animation(clip, time, playing),
            Command::StopAnimation => return self.leave_pose(),
            Command::Save
            | Command::Screenshot
            | Command::Quit
            | Command::ExportDialog
            | Command::ImportDialog
            | Command::Recover
            | Command::OpenDialog
            | Command::SaveAsDialog
            | Command::NewDialog
            | Command::AddMenu
            | Command::FocusFilter
            | Command::RenameActive
            | Command::Copy
            | Command::Paste => return false,
        }
        self.rehover();
        true
    }
}
