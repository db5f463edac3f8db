//! The status line's text: the live change during a drag, a typed
//! number with what it means, a notice, the ruler's distance, else counts
//! and the frame time.

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
    format!("{} selected | {} objects | {:.2} ms", editor.selection().len(), editor.scene().len(), frame_ms)
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
