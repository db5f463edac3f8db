//! Platform-free input events. The window (winit) and replay scripts both
//! translate into these and feed [`crate::editor::Editor::handle`], so they
//! take exactly the same code path.
//!
//! Cursor positions are physical pixels, origin top-left, y down
//! (`docs/spec/conventions.md`). Key names are winit `KeyCode` names without the
//! `Key` prefix: `"W"`, `"Escape"`, `"Digit1"`, `"Numpad7"`, `"F2"`, ...
//! [`is_key_name`] tells whether winit has a key of that name.

/// A mouse button.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MouseButton {
    Left,
    Right,
    Middle,
}

impl MouseButton {
    /// `"left"`, `"right"`, `"middle"` (the replay script's names).
    pub fn parse(s: &str) -> Option<MouseButton> {
        match s {
            "left" => Some(MouseButton::Left),
            "right" => Some(MouseButton::Right),
            "middle" => Some(MouseButton::Middle),
            _ => None,
        }
    }
}

/// Modifier keys held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    pub shift: bool,
    pub ctrl: bool,
    pub alt: bool,
}

impl Modifiers {
    pub const NONE: Modifiers = Modifiers { shift: false, ctrl: false, alt: false };

    /// From the replay script's list (`"shift"`, `"ctrl"`, `"alt"`); `None`
    /// naming the first unknown entry.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Modifiers, String> {
        let mut m = Modifiers::NONE;
        for n in names {
            match n {
                "shift" => m.shift = true,
                "ctrl" => m.ctrl = true,
                "alt" => m.alt = true,
                other => return Err(format!("unknown modifier {other:?} (expected shift, ctrl or alt)")),
            }
        }
        Ok(m)
    }
}

/// One input event.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The cursor is now at `(x, y)` (may be outside the viewport).
    CursorMoved {
        x: f64,
        y: f64,
    },
    MouseDown {
        button: MouseButton,
    },
    MouseUp {
        button: MouseButton,
    },
    KeyDown {
        key: String,
    },
    KeyUp {
        key: String,
    },
    /// Wheel: positive is away from the user (zoom in), in notches.
    Scroll {
        delta: f64,
    },
    /// The viewport's new size in physical pixels (0 when minimised).
    Resize {
        width: f64,
        height: f64,
    },
    /// The modifier keys now held.
    Modifiers(Modifiers),
    /// Characters typed (the window's text input, a script's `text`): they
    /// go to the focused UI field, if any.
    Text {
        text: String,
    },
    /// A file dropped on the window (or a script's `import`): imported.
    Drop {
        path: std::path::PathBuf,
    },
}

/// Whether `name` is the name of a winit `KeyCode` as scripts and the window
/// spell it (the `KeyCode` name without its `Key` prefix: `"W"`, not
/// `"KeyW"`). winit's own (serde) table of names decides, so a script can
/// name exactly the keys a window can deliver.
pub fn is_key_name(name: &str) -> bool {
    use winit::keyboard::KeyCode;
    let parses = |n: &str| serde_json::from_value::<KeyCode>(serde_json::Value::String(n.to_string())).is_ok();
    parses(&format!("Key{name}")) || (!name.starts_with("Key") && parses(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_are_winits_without_the_key_prefix() {
        for ok in ["W", "Z", "Escape", "Delete", "F2", "F12", "Digit1", "Numpad7", "NumpadDecimal", "ShiftLeft"] {
            assert!(is_key_name(ok), "{ok}");
        }
        for bad in ["KeyW", "w", "Esc", "Numpad10", "", "F99", "Frobnicate", "Key"] {
            assert!(!is_key_name(bad), "{bad}");
        }
    }
}
