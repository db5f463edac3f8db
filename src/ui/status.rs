//! The status line's text: the live change during a drag, a typed
//! number with what it means, a notice, the ruler's distance, else counts,
//! the frame time and how many lights the frame leaves out.

use crate::editor::Editor;
use crate::gizmo::Delta;

/// The status line: the live change during a drag (metres per axis, an
/// angle in degrees or scale factors), otherwise `notice` if there is one,
/// else counts and frame time.
pub fn status_text(editor: &Editor, frame_ms: f64, notice: Option<&str>) -> String {
    if let Some(t) = editor.typed_value() {
        return format!("{}  (Enter confirms, Esc cancels)", typed_label(editor, t));
    }
    if let Some(u) = editor.gizmo.last_update() {
        return match u.delta {
            Delta::Translate(d) => {
                format!("D: {:.4} m  {:.4} m  {:.4} m  ({:.4} m)", d.x, d.y, d.z, d.norm())
            }
            Delta::Rotate(q) => format!("Rot: {:.2}\u{b0}", q.angle().to_degrees()),
            Delta::Scale(s) => format!("Scale: {:.4}  {:.4}  {:.4}", s[0], s[1], s[2]),
        };
    }
    if let Some(h) = editor.gizmo.active() {
        // Grabbed, not moved yet.
        let name = h.name();
        return if name.starts_with("rotate") {
            "Rot: 0.00\u{b0}".into()
        } else if name.starts_with("scale") {
            "Scale: 1.0000  1.0000  1.0000".into()
        } else {
            "D: 0.0000 m  0.0000 m  0.0000 m  (0.0000 m)".into()
        };
    }
    if let Some(n) = notice {
        return n.to_string();
    }
    if editor.ruler_on() {
        return match editor.measurement() {
            Some((a, b)) => {
                format!("Distance: {:.3} m  (drag to measure again, V: vertices, M: ruler off)", (b - a).norm())
            }
            None => "Ruler: drag from one point to another (V: vertices, M: ruler off)".into(),
        };
    }
    let counts =
        format!("{} selected | {} objects | {:.2} ms", editor.selection().len(), editor.scene().len(), frame_ms);
    match editor.lights_left_out() {
        0 => counts,
        n => format!(
            "{counts} | {n} light{} left out (the nearest {} light the frame)",
            if n == 1 { "" } else { "s" },
            crate::look::LIGHTS_PER_FRAME
        ),
    }
}

/// A number typed during a drag with what it means: `Move X: 2.5 m`,
/// `Rotate Z: 90°`, `Scale Y: 1.5`.
pub(super) fn typed_label(editor: &Editor, typed: &str) -> String {
    let handle = editor.gizmo.active().map(|h| h.name()).unwrap_or_default();
    let (what, unit) = if handle.starts_with("translate") {
        ("Move", " m")
    } else if handle.starts_with("rotate") {
        ("Rotate", "\u{b0}")
    } else {
        ("Scale", "")
    };
    let axis = handle.rsplit('.').next().unwrap_or("").to_uppercase();
    let number = if typed.is_empty() { "_" } else { typed };
    format!("{what} {axis}: {number}{unit}")
}

/// The longest a message about an action stays on the status line, in
/// seconds of the UI's clock.
pub const NOTICE_SECONDS: f64 = 10.0;

/// A message on the status line in place of the counts. It goes with the
/// next action on the scene (an edit, undo, redo, a change of selection:
/// [`Editor::action_stamp`]) and, when it reports on an action (`passing`),
/// after [`NOTICE_SECONDS`] at most. A lasting one (what opening a file
/// found, an autosave on offer) stays until that next action.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Notice {
    pub text: String,
    passing: bool,
    /// The action stamp when it was said (`None`: taken at its first showing).
    stamp: Option<(u64, u64)>,
    /// The UI time of its first showing.
    since: Option<f64>,
}

impl Notice {
    /// A message about the action just taken, said after it.
    pub fn passing(text: String, editor: &Editor) -> Notice {
        Notice { text, passing: true, stamp: Some(editor.action_stamp()), since: None }
    }

    /// A message that stays until the next action (no time limit).
    pub fn lasting(text: String) -> Notice {
        Notice { text, passing: false, stamp: None, since: None }
    }

    /// Whether it is still shown at UI time `now`, the editor as it is; its
    /// stamp and first showing are taken the first time it is asked.
    pub fn lives(&mut self, editor: &Editor, now: f64) -> bool {
        let stamp = *self.stamp.get_or_insert_with(|| editor.action_stamp());
        let since = *self.since.get_or_insert(now);
        stamp == editor.action_stamp() && !(self.passing && now - since >= NOTICE_SECONDS)
    }

    /// Seconds until it goes by itself (`None`: only with an action).
    pub fn left(&self, now: f64) -> Option<f64> {
        self.passing.then(|| NOTICE_SECONDS - (now - self.since.unwrap_or(now)))
    }
}
