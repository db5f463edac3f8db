//! The key bindings: one table from keys (winit `KeyCode` names, as
//! `input` gives them) and modifiers to [`Command`]s. The first row that
//! matches wins. Keys that act while held rather than once (the fly keys
//! while the right button is down, V for vertex snapping) are the pointer
//! state's business and are not in the table.

use super::camera::AxisView;
use super::command::Command;
use crate::gizmo::Mode;
use crate::input::Modifiers;

/// What a binding asks of one modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// Either way.
    Any,
    /// Must be held.
    Yes,
    /// Must not be held.
    No,
}

impl Held {
    fn matches(self, down: bool) -> bool {
        match self {
            Held::Any => true,
            Held::Yes => down,
            Held::No => !down,
        }
    }
}

/// A key with what it asks of Ctrl, Shift and Alt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chord {
    /// The key's winit `KeyCode` name without the `Key` prefix (`W`, `F2`, `Numpad1`).
    pub key: &'static str,
    /// Ctrl.
    pub ctrl: Held,
    /// Shift.
    pub shift: Held,
    /// Alt.
    pub alt: Held,
}

impl Chord {
    /// Whether `key` pressed with `mods` is this chord.
    pub fn matches(&self, key: &str, mods: Modifiers) -> bool {
        self.key == key && self.ctrl.matches(mods.ctrl) && self.shift.matches(mods.shift) && self.alt.matches(mods.alt)
    }
}

const fn chord(key: &'static str, ctrl: Held, shift: Held, alt: Held) -> Chord {
    Chord { key, ctrl, shift, alt }
}
/// The key with any modifiers.
const fn any(key: &'static str) -> Chord {
    chord(key, Held::Any, Held::Any, Held::Any)
}
/// The key without Ctrl.
const fn no_ctrl(key: &'static str) -> Chord {
    chord(key, Held::No, Held::Any, Held::Any)
}
/// The key with Ctrl.
const fn ctrl(key: &'static str) -> Chord {
    chord(key, Held::Yes, Held::Any, Held::Any)
}
/// The key without Ctrl and Alt.
const fn plain(key: &'static str) -> Chord {
    chord(key, Held::No, Held::Any, Held::No)
}

/// Every key binding, first match first (`docs/spec/editing.md`).
pub const BINDINGS: &[(Chord, Command)] = &[
    // The program's keys.
    (chord("F2", Held::No, Held::Yes, Held::No), Command::ToggleDepth),
    (chord("F2", Held::No, Held::No, Held::No), Command::RenameActive),
    (plain("F12"), Command::Screenshot),
    (chord("S", Held::Yes, Held::No, Held::Any), Command::Save),
    // Ctrl+Alt+Q splits the view; Ctrl+Q alone still quits.
    (chord("Q", Held::Yes, Held::Any, Held::Yes), Command::ToggleQuadView),
    (chord("Q", Held::Yes, Held::Any, Held::No), Command::Quit),
    (ctrl("E"), Command::ExportDialog),
    (chord("R", Held::Yes, Held::Yes, Held::Any), Command::Recover),
    (chord("S", Held::Yes, Held::Yes, Held::Any), Command::SaveAsDialog),
    (ctrl("O"), Command::OpenDialog),
    (ctrl("N"), Command::NewDialog),
    // History and cancelling, which also act during a drag.
    (any("Escape"), Command::Cancel),
    (chord("Z", Held::Yes, Held::Yes, Held::Any), Command::Redo),
    (ctrl("Z"), Command::Undo),
    (ctrl("Y"), Command::Redo),
    (plain("Z"), Command::ToggleShading),
    // The gizmo.
    (no_ctrl("W"), Command::SetMode(Mode::Translate)),
    (no_ctrl("E"), Command::SetMode(Mode::Rotate)),
    (no_ctrl("R"), Command::SetMode(Mode::Scale)),
    (no_ctrl("T"), Command::SetMode(Mode::Universal)),
    (no_ctrl("X"), Command::ToggleSpace),
    (no_ctrl("Period"), Command::CyclePivot),
    // The selection.
    (no_ctrl("F"), Command::Focus),
    (any("NumpadDecimal"), Command::Focus),
    (ctrl("D"), Command::Duplicate),
    (chord("A", Held::Any, Held::No, Held::Yes), Command::SelectNone),
    (chord("A", Held::No, Held::Yes, Held::No), Command::AddMenu),
    (chord("A", Held::Any, Held::No, Held::No), Command::SelectAll),
    (ctrl("P"), Command::ParentToActive),
    (chord("P", Held::No, Held::Any, Held::Yes), Command::ClearParent),
    (ctrl("G"), Command::Group),
    (any("End"), Command::DropToFloor),
    (ctrl("C"), Command::Copy),
    (ctrl("F"), Command::FocusFilter),
    (ctrl("V"), Command::Paste),
    (chord("D", Held::Any, Held::Yes, Held::Any), Command::Duplicate),
    (any("Delete"), Command::Delete),
    (chord("H", Held::No, Held::Any, Held::Yes), Command::UnhideAll),
    (chord("H", Held::No, Held::Yes, Held::No), Command::HideUnselected),
    (chord("H", Held::No, Held::No, Held::No), Command::Hide),
    // Views.
    (ctrl("Numpad1"), Command::AxisView(AxisView::Back)),
    (any("Numpad1"), Command::AxisView(AxisView::Front)),
    (ctrl("Numpad3"), Command::AxisView(AxisView::Left)),
    (any("Numpad3"), Command::AxisView(AxisView::Right)),
    (ctrl("Numpad7"), Command::AxisView(AxisView::Bottom)),
    (any("Numpad7"), Command::AxisView(AxisView::Top)),
    (any("Numpad5"), Command::ToggleProjection),
    (any("NumpadDivide"), Command::LocalView),
    (plain("M"), Command::ToggleRuler),
    // Camera bookmarks.
    (ctrl("Digit1"), Command::StoreBookmark(1)),
    (chord("Digit1", Held::No, Held::No, Held::No), Command::RecallBookmark(1)),
    (ctrl("Digit2"), Command::StoreBookmark(2)),
    (chord("Digit2", Held::No, Held::No, Held::No), Command::RecallBookmark(2)),
    (ctrl("Digit3"), Command::StoreBookmark(3)),
    (chord("Digit3", Held::No, Held::No, Held::No), Command::RecallBookmark(3)),
    (ctrl("Digit4"), Command::StoreBookmark(4)),
    (chord("Digit4", Held::No, Held::No, Held::No), Command::RecallBookmark(4)),
    (ctrl("Digit5"), Command::StoreBookmark(5)),
    (chord("Digit5", Held::No, Held::No, Held::No), Command::RecallBookmark(5)),
    (ctrl("Digit6"), Command::StoreBookmark(6)),
    (chord("Digit6", Held::No, Held::No, Held::No), Command::RecallBookmark(6)),
    (ctrl("Digit7"), Command::StoreBookmark(7)),
    (chord("Digit7", Held::No, Held::No, Held::No), Command::RecallBookmark(7)),
    (ctrl("Digit8"), Command::StoreBookmark(8)),
    (chord("Digit8", Held::No, Held::No, Held::No), Command::RecallBookmark(8)),
    (ctrl("Digit9"), Command::StoreBookmark(9)),
    (chord("Digit9", Held::No, Held::No, Held::No), Command::RecallBookmark(9)),
    (plain("Slash"), Command::LocalView),
    // Animation.
    (plain("Space"), Command::TogglePlay),
];

/// The command `key` runs with `mods` held, if any.
pub fn lookup(key: &str, mods: Modifiers) -> Option<Command> {
    BINDINGS.iter().find(|(c, _)| c.matches(key, mods)).map(|&(_, command)| command)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(ctrl: bool, shift: bool, alt: bool) -> Modifiers {
        Modifiers { ctrl, shift, alt }
    }

    #[test]
    fn modifiers_pick_the_binding() {
        let none = Modifiers::NONE;
        assert_eq!(lookup("Z", m(true, false, false)), Some(Command::Undo));
        assert_eq!(lookup("Z", m(true, true, false)), Some(Command::Redo));
        assert_eq!(lookup("Z", none), Some(Command::ToggleShading));
        assert_eq!(lookup("Z", m(false, false, true)), None);
        assert_eq!(lookup("D", m(false, true, false)), Some(Command::Duplicate));
        assert_eq!(lookup("D", m(true, false, false)), Some(Command::Duplicate));
        assert_eq!(lookup("D", none), None);
        assert_eq!(lookup("W", m(true, false, false)), None);
        assert_eq!(lookup("W", m(false, true, false)), Some(Command::SetMode(Mode::Translate)));
        assert_eq!(lookup("Numpad1", m(true, false, false)), Some(Command::AxisView(AxisView::Back)));
        assert_eq!(lookup("Numpad1", none), Some(Command::AxisView(AxisView::Front)));
        assert_eq!(lookup("S", m(true, false, false)), Some(Command::Save));
        assert_eq!(lookup("S", m(true, true, false)), Some(Command::SaveAsDialog));
        assert_eq!(lookup("S", m(false, true, false)), None);
        assert_eq!(lookup("O", m(true, false, false)), Some(Command::OpenDialog));
        assert_eq!(lookup("N", m(true, false, false)), Some(Command::NewDialog));
        assert_eq!(lookup("R", m(true, true, false)), Some(Command::Recover));
        assert_eq!(lookup("A", none), Some(Command::SelectAll));
        assert_eq!(lookup("A", m(true, false, false)), Some(Command::SelectAll));
        assert_eq!(lookup("A", m(false, false, true)), Some(Command::SelectNone));
        assert_eq!(lookup("A", m(false, true, false)), Some(Command::AddMenu));
        assert_eq!(lookup("P", m(true, false, false)), Some(Command::ParentToActive));
        assert_eq!(lookup("P", m(false, false, true)), Some(Command::ClearParent));
        assert_eq!(lookup("P", none), None);
        assert_eq!(lookup("G", m(true, false, false)), Some(Command::Group));
        assert_eq!(lookup("End", none), Some(Command::DropToFloor));
        assert_eq!(lookup("C", m(true, false, false)), Some(Command::Copy));
        assert_eq!(lookup("F", m(true, false, false)), Some(Command::FocusFilter));
        assert_eq!(lookup("F", none), Some(Command::Focus));
        assert_eq!(lookup("V", m(true, false, false)), Some(Command::Paste));
        assert_eq!(lookup("F2", m(false, false, true)), None);
        assert_eq!(lookup("F2", m(false, true, false)), Some(Command::ToggleDepth));
        assert_eq!(lookup("F2", none), Some(Command::RenameActive));
        assert_eq!(lookup("NoSuchKey", none), None);
        assert_eq!(lookup("NumpadDivide", none), Some(Command::LocalView));
        assert_eq!(lookup("Digit3", m(true, false, false)), Some(Command::StoreBookmark(3)));
        assert_eq!(lookup("Digit9", none), Some(Command::RecallBookmark(9)));
        assert_eq!(lookup("Digit9", m(false, true, false)), None);
        assert_eq!(lookup("Slash", none), Some(Command::LocalView));
        assert_eq!(lookup("H", none), Some(Command::Hide));
        assert_eq!(lookup("H", m(false, true, false)), Some(Command::HideUnselected));
        assert_eq!(lookup("H", m(false, false, true)), Some(Command::UnhideAll));
        assert_eq!(lookup("H", m(false, true, true)), Some(Command::UnhideAll));
        assert_eq!(lookup("H", m(true, false, false)), None);
        assert_eq!(lookup("Q", m(true, false, false)), Some(Command::Quit));
        assert_eq!(lookup("Q", m(true, true, false)), Some(Command::Quit));
        assert_eq!(lookup("Q", m(true, false, true)), Some(Command::ToggleQuadView));
        assert_eq!(lookup("Q", m(false, false, true)), None);
        assert_eq!(lookup("Q", none), None);
        assert_eq!(lookup("Space", none), Some(Command::TogglePlay));
        assert_eq!(lookup("Space", m(true, false, false)), None);
    }

    #[test]
    fn every_row_can_be_reached() {
        // A row hidden behind an earlier, wider one would never run. Try
        // every combination of modifiers: each row must win for some.
        for (k, (chord, command)) in BINDINGS.iter().enumerate() {
            let reached = (0..8).any(|bits| {
                let mods = m(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
                chord.matches(chord.key, mods)
                    && lookup(chord.key, mods) == Some(*command)
                    && BINDINGS.iter().position(|(c, _)| c.matches(chord.key, mods)) == Some(k)
            });
            assert!(reached, "row {k} ({chord:?}) is never reached");
        }
    }
}
