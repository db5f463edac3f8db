//! The key map: one table from key chords (a key as `input` names it,
//! winit `KeyCode` names without the `Key` prefix, and the modifiers held)
//! to [`Command`]s, editor and program commands alike. Every key press is
//! looked up once, in [`KeyMap::lookup`].
//!
//! The defaults are written as [`DEFAULTS`], rows of patterns (a modifier
//! may be asked to be held, not held, or either), first match first; a key
//! map expands them to exact chords, so that a user's file
//! (`docs/spec/automation.md`, "Key map") can replace or remove any one
//! chord and leave every other default as it was. Keys that act while held
//! rather than once (the fly keys while the right button is down, V for
//! vertex snapping) are the pointer state's business and are not in it.

use super::camera::AxisView;
use super::command::Command;
use crate::gizmo::Mode;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

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

/// A default binding's key with what it asks of Ctrl, Shift and Alt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The key's winit `KeyCode` name without the `Key` prefix (`W`, `F2`, `Numpad1`).
    pub key: &'static str,
    /// Ctrl.
    pub ctrl: Held,
    /// Shift.
    pub shift: Held,
    /// Alt.
    pub alt: Held,
}

impl Pattern {
    /// Whether `key` pressed with `mods` matches.
    pub fn matches(&self, key: &str, mods: Modifiers) -> bool {
        self.key == key && self.ctrl.matches(mods.ctrl) && self.shift.matches(mods.shift) && self.alt.matches(mods.alt)
    }
}

const fn chord(key: &'static str, ctrl: Held, shift: Held, alt: Held) -> Pattern {
    Pattern { key, ctrl, shift, alt }
}
/// The key with any modifiers.
const fn any(key: &'static str) -> Pattern {
    chord(key, Held::Any, Held::Any, Held::Any)
}
/// The key without Ctrl.
const fn no_ctrl(key: &'static str) -> Pattern {
    chord(key, Held::No, Held::Any, Held::Any)
}
/// The key with Ctrl.
const fn ctrl(key: &'static str) -> Pattern {
    chord(key, Held::Yes, Held::Any, Held::Any)
}
/// The key without Ctrl and Alt.
const fn plain(key: &'static str) -> Pattern {
    chord(key, Held::No, Held::Any, Held::No)
}

/// The default key bindings, first match first (`docs/spec/editing.md`).
pub const DEFAULTS: &[(Pattern, Command)] = &[
    // The program's keys.
    (chord("F2", Held::No, Held::Yes, Held::No), Command::ToggleDepth),
    (chord("F2", Held::No, Held::No, Held::No), Command::RenameActive),
    (plain("F12"), Command::Screenshot),
    (chord("S", Held::Yes, Held::No, Held::Any), Command::Save),
    // Ctrl+Alt+Q splits the view; Ctrl+Q alone still quits.
    (chord("Q", Held::Yes, Held::Any, Held::Yes), Command::ToggleQuadView),
    (chord("Q", Held::Yes, Held::Any, Held::No), Command::Quit),
    (ctrl("E"), Command::ExportDialog),
    (ctrl("I"), Command::ImportDialog),
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
    (chord("Numpad0", Held::Yes, Held::Any, Held::Yes), Command::CameraToView),
    (any("Numpad0"), Command::CameraView),
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

/// A key with the modifiers held, exactly: what one key press is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Chord {
    /// How many of Ctrl, Shift and Alt are held (first, so that chords sort
    /// plain keys first).
    held: u8,
    ctrl: bool,
    shift: bool,
    alt: bool,
    /// The key's name as scripts write it (`W`, `F2`, `Numpad1`).
    key: String,
}

impl Chord {
    /// `key` pressed with `mods` held.
    pub fn new(key: &str, mods: Modifiers) -> Chord {
        let held = u8::from(mods.ctrl) + u8::from(mods.shift) + u8::from(mods.alt);
        Chord { held, ctrl: mods.ctrl, shift: mods.shift, alt: mods.alt, key: key.to_string() }
    }

    /// Reads `Ctrl+`, `Shift+` and `Alt+` (any order, each at most once)
    /// before a key name as scripts write it (`Shift+Alt+X`, `F2`).
    pub fn parse(text: &str) -> Result<Chord, KeyMapError> {
        let mut parts: Vec<&str> = text.split('+').collect();
        let key = parts.pop().unwrap_or_default();
        let mut mods = Modifiers::NONE;
        for part in parts {
            let held = match part.to_ascii_lowercase().as_str() {
                "ctrl" => &mut mods.ctrl,
                "shift" => &mut mods.shift,
                "alt" => &mut mods.alt,
                _ => return Err(KeyMapError::Modifier { chord: text.to_string(), modifier: part.to_string() }),
            };
            if *held {
                return Err(KeyMapError::Modifier { chord: text.to_string(), modifier: part.to_string() });
            }
            *held = true;
        }
        if !crate::input::is_key_name(key) {
            return Err(KeyMapError::Key { chord: text.to_string(), key: key.to_string() });
        }
        Ok(Chord::new(key, mods))
    }

    /// The key's name.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The modifiers held.
    pub fn mods(&self) -> Modifiers {
        Modifiers { ctrl: self.ctrl, shift: self.shift, alt: self.alt }
    }
}

impl fmt::Display for Chord {
    /// As [`Chord::parse`] reads it: `Ctrl+Shift+Alt+` before the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (held, name) in [(self.ctrl, "Ctrl+"), (self.shift, "Shift+"), (self.alt, "Alt+")] {
            if held {
                f.write_str(name)?;
            }
        }
        f.write_str(&self.key)
    }
}

/// A key map file that cannot be used; each names what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum KeyMapError {
    #[error("{0}")]
    Json(String),
    #[error("\"{chord}\": unknown key name \"{key}\" (winit KeyCode names without the Key prefix, e.g. W, Escape, F2, Numpad7)")]
    Key { chord: String, key: String },
    #[error("\"{chord}\": \"{modifier}\" is not a modifier, or is given twice (Ctrl+, Shift+, Alt+ before the key)")]
    Modifier { chord: String, modifier: String },
    #[error("\"{chord}\": unknown command \"{command}\" (viewport --list-commands lists them)")]
    Command { chord: String, command: String },
    #[error("\"{chord}\" is bound twice (as \"{first}\" and \"{second}\")")]
    Twice { chord: String, first: String, second: String },
}

/// The key map in force: every chord that runs a command.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyMap {
    bindings: HashMap<Chord, Command>,
}

impl Default for KeyMap {
    /// [`DEFAULTS`], expanded to every chord of their keys.
    fn default() -> KeyMap {
        let mut bindings = HashMap::new();
        for (pattern, _) in DEFAULTS {
            for bits in 0..8u8 {
                let mods = Modifiers { ctrl: bits & 1 != 0, shift: bits & 2 != 0, alt: bits & 4 != 0 };
                let chord = Chord::new(pattern.key, mods);
                if bindings.contains_key(&chord) {
                    continue;
                }
                if let Some((_, command)) = DEFAULTS.iter().find(|(p, _)| p.matches(pattern.key, mods)) {
                    bindings.insert(chord, *command);
                }
            }
        }
        KeyMap { bindings }
    }
}

/// A key map file: `{"bindings": {"J": "duplicate", "Ctrl+D": null}}`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyMapFile {
    bindings: BTreeMap<String, Option<String>>,
}

impl KeyMap {
    /// The command `key` runs with `mods` held, if any.
    pub fn lookup(&self, key: &str, mods: Modifiers) -> Option<Command> {
        self.bindings.get(&Chord::new(key, mods)).copied()
    }

    /// Binds `chord` to `command`, or unbinds it (`None`).
    pub fn bind(&mut self, chord: Chord, command: Option<Command>) {
        match command {
            Some(c) => self.bindings.insert(chord, c),
            None => self.bindings.remove(&chord),
        };
    }

    /// The defaults with a key map file's bindings on top: each replaces
    /// its chord's default, `null` removes it, every other default stays.
    pub fn from_json(text: &str) -> Result<KeyMap, KeyMapError> {
        let file: KeyMapFile = serde_json::from_str(text).map_err(|e| KeyMapError::Json(e.to_string()))?;
        let mut map = KeyMap::default();
        let mut seen: HashMap<Chord, String> = HashMap::new();
        for (text, command) in &file.bindings {
            let chord = Chord::parse(text)?;
            if let Some(first) = seen.insert(chord.clone(), text.clone()) {
                return Err(KeyMapError::Twice { chord: chord.to_string(), first, second: text.clone() });
            }
            let command = match command {
                Some(name) => Some(
                    Command::named(name)
                        .ok_or_else(|| KeyMapError::Command { chord: text.clone(), command: name.clone() })?,
                ),
                None => None,
            };
            map.bind(chord, command);
        }
        Ok(map)
    }

    /// Every chord that runs `command`, plain keys first.
    pub fn chords(&self, command: Command) -> Vec<Chord> {
        let mut chords: Vec<Chord> =
            self.bindings.iter().filter(|(_, c)| **c == command).map(|(k, _)| k.clone()).collect();
        chords.sort();
        chords
    }

    /// The chords to show for `command` (a tooltip, a menu, `--help`): each
    /// default row's own chord (its modifiers that must be held, no others)
    /// while it still runs `command`, then the chords a user's file added.
    pub fn shown_chords(&self, command: Command) -> Vec<Chord> {
        let mut shown: Vec<Chord> = Vec::new();
        let mut rows: Vec<&Pattern> = Vec::new();
        for (pattern, c) in DEFAULTS.iter().filter(|(_, c)| *c == command) {
            let held = |h: Held| h == Held::Yes;
            let mods = Modifiers { ctrl: held(pattern.ctrl), shift: held(pattern.shift), alt: held(pattern.alt) };
            let own = Chord::new(pattern.key, mods);
            if self.bindings.get(&own) == Some(c) && !shown.contains(&own) {
                shown.push(own);
                rows.push(pattern);
            }
        }
        for chord in self.chords(command) {
            if !rows.iter().any(|p| p.matches(&chord.key, chord.mods())) {
                shown.push(chord);
            }
        }
        shown
    }

    /// The chord to show for `command` in a tooltip or a menu: the first of
    /// [`KeyMap::shown_chords`]; "unbound" when no key runs it.
    pub fn shortcut(&self, command: Command) -> String {
        self.shown_chords(command).first().map_or_else(|| "unbound".to_string(), Chord::to_string)
    }

    /// `--list-commands`: every command a key can run, one a line, with
    /// the chords that run it now (`-` for none).
    pub fn listing(&self) -> String {
        let mut out = String::new();
        for &(name, command) in super::command::NAMED {
            let chords: Vec<String> = self.chords(command).iter().map(Chord::to_string).collect();
            let chords = if chords.is_empty() { "-".to_string() } else { chords.join(", ") };
            out.push_str(&format!("{name:<20} {chords}\n"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(key: &str, mods: Modifiers) -> Option<Command> {
        KeyMap::default().lookup(key, mods)
    }

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
        for (k, (chord, command)) in DEFAULTS.iter().enumerate() {
            let reached = (0..8).any(|bits| {
                let mods = m(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
                chord.matches(chord.key, mods)
                    && lookup(chord.key, mods) == Some(*command)
                    && DEFAULTS.iter().position(|(c, _)| c.matches(chord.key, mods)) == Some(k)
            });
            assert!(reached, "row {k} ({chord:?}) is never reached");
        }
    }

    #[test]
    fn program_keys_come_back_as_program_commands_and_the_rest_reaches_the_editor() {
        use crate::editor::{Editor, NoFrame, Outcome};
        use crate::input::Event;
        use crate::math::DepthMode;
        let mut e = Editor::new(crate::scene::Scene::demo(), 640.0, 480.0);
        let key = |k: &str| Event::KeyDown { key: k.into() };
        let respond = |e: &mut Editor, ev: &Event, m| e.respond(ev, m, &mut NoFrame);
        assert_eq!(e.depth, DepthMode::Reversed);
        assert_eq!(respond(&mut e, &key("F2"), m(false, true, false)), Outcome::Redraw);
        assert_eq!(e.depth, DepthMode::Standard);
        assert_eq!(respond(&mut e, &key("S"), m(true, false, false)), Outcome::Program(Command::Save));
        assert_eq!(respond(&mut e, &key("Q"), m(true, false, false)), Outcome::Program(Command::Quit));
        assert_eq!(respond(&mut e, &key("F12"), Modifiers::NONE), Outcome::Program(Command::Screenshot));
        // E switches the gizmo to rotate: the editor saw it.
        assert_eq!(respond(&mut e, &key("E"), Modifiers::NONE), Outcome::Redraw);
        assert_eq!(e.gizmo.config.mode, Mode::Rotate);
        // A dropped file is the program's to import.
        let path = std::path::PathBuf::from("/models/fox.glb");
        assert_eq!(respond(&mut e, &Event::Drop { path: path.clone() }, Modifiers::NONE), Outcome::Import(path));
    }

    #[test]
    fn a_files_binding_replaces_its_chords_default_null_removes_one_and_the_rest_stay() {
        let map = KeyMap::from_json(
            r#"{"bindings": {"J": "duplicate", "Ctrl+D": null, "Shift+Alt+X": "toggle_space", "W": "scale"}}"#,
        )
        .unwrap();
        let defaults = KeyMap::default();
        assert_eq!(map.lookup("J", Modifiers::NONE), Some(Command::Duplicate));
        assert_eq!(defaults.lookup("J", Modifiers::NONE), None);
        // Only the exact chord goes: Shift+D and Ctrl+Shift+D still duplicate.
        assert_eq!(map.lookup("D", m(true, false, false)), None);
        assert_eq!(map.lookup("D", m(false, true, false)), Some(Command::Duplicate));
        assert_eq!(map.lookup("D", m(true, true, false)), Some(Command::Duplicate));
        assert_eq!(map.lookup("X", m(false, true, true)), Some(Command::ToggleSpace));
        // A plain W now scales; Shift+W still translates, as by default.
        assert_eq!(map.lookup("W", Modifiers::NONE), Some(Command::SetMode(Mode::Scale)));
        assert_eq!(map.lookup("W", m(false, true, false)), Some(Command::SetMode(Mode::Translate)));
        // Every chord the file does not name keeps its default.
        let named = ["J", "D", "X", "W"];
        for (pattern, _) in DEFAULTS {
            for bits in 0..8u8 {
                let mods = m(bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
                let chord = Chord::new(pattern.key, mods);
                let file_names = named.contains(&pattern.key)
                    && ["J", "Ctrl+D", "Shift+Alt+X", "W"].iter().any(|c| Chord::parse(c).unwrap() == chord);
                if !file_names {
                    assert_eq!(map.lookup(pattern.key, mods), defaults.lookup(pattern.key, mods), "{chord}");
                }
            }
        }
        // What is shown for a command follows: Ctrl+D gone, J added, and
        // Ctrl+Alt+D, which Ctrl+D's row still gives, shown on its own.
        let shown: Vec<String> = map.shown_chords(Command::Duplicate).iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["Shift+D", "J", "Ctrl+Alt+D"]);
        assert_eq!(defaults.shortcut(Command::Duplicate), "Ctrl+D");
        assert_eq!(map.shortcut(Command::Duplicate), "Shift+D");
    }

    #[test]
    fn chords_read_in_any_order_and_write_back_in_one() {
        let c = Chord::parse("Shift+Alt+Ctrl+F2").unwrap();
        assert_eq!(c, Chord::new("F2", m(true, true, true)));
        assert_eq!(c.to_string(), "Ctrl+Shift+Alt+F2");
        assert_eq!(Chord::parse("alt+Numpad7").unwrap().to_string(), "Alt+Numpad7");
    }

    #[test]
    fn a_bad_file_names_what_is_wrong() {
        let cases = [
            (r#"{"bindings": {"J": "duplicat"}}"#, "duplicat"),
            (r#"{"bindings": {"Ctrl+Jay": "duplicate"}}"#, "Jay"),
            (r#"{"bindings": {"Meta+J": "duplicate"}}"#, "Meta"),
            (r#"{"bindings": {"Ctrl+Ctrl+J": "duplicate"}}"#, "Ctrl"),
            (r#"{"bindings": {"J": "undo"}, "colour": 1}"#, "colour"),
            (r#"{"bindings": {"Ctrl+Shift+J": "undo", "Shift+Ctrl+J": "redo"}}"#, "bound twice"),
            (r#"{"bindings": {"J": 3}}"#, "invalid type"),
            (r#"{"bindings": "#, "EOF"),
        ];
        for (text, named) in cases {
            let e = KeyMap::from_json(text).unwrap_err().to_string();
            assert!(e.contains(named), "{text}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn the_listing_names_every_command_a_key_can_run_with_its_chords() {
        let listing = KeyMap::default().listing();
        let lines: Vec<&str> = listing.lines().collect();
        assert_eq!(lines.len(), crate::editor::command::NAMED.len());
        // Every command of the default table is listed, with a chord that runs it.
        for (pattern, command) in DEFAULTS {
            let name = command.name().unwrap_or_else(|| panic!("{command:?} has no name"));
            let line = lines.iter().find(|l| l.split_whitespace().next() == Some(name)).unwrap();
            let chords: Vec<Chord> = line[name.len()..].trim().split(", ").map(|c| Chord::parse(c).unwrap()).collect();
            assert!(chords.iter().all(|c| KeyMap::default().lookup(c.key(), c.mods()) == Some(*command)), "{line}");
            assert!(chords.iter().any(|c| pattern.matches(c.key(), c.mods())), "{line}");
        }
        // Names are unique and read back.
        for (name, command) in crate::editor::command::NAMED {
            assert_eq!(Command::named(name), Some(*command));
            assert_eq!(command.name(), Some(*name));
        }
    }
}
