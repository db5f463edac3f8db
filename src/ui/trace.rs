//! What a pass lays out, recorded for traces and tests: the status text
//! and the named controls' rectangles in physical pixels, and the helpers
//! that record them.

use std::collections::BTreeMap;

use egui::Rect;
use serde::{Deserialize, Serialize};

/// What the last pass laid out, for traces and tests: the status text and
/// the named controls' rectangles in physical pixels `[x0, y0, x1, y1]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiTrace {
    /// The status line's text as laid out.
    pub status: String,
    /// Whether the side panel is shown.
    pub panel: bool,
    /// The controls by name (`mode.translate`, `position.x`, `outliner.crate`, ...).
    pub rects: BTreeMap<String, [f64; 4]>,
}

/// A rectangle in points as physical pixels `[x0, y0, x1, y1]`.
pub(super) fn px_rect(r: Rect, u: f64) -> [f64; 4] {
    [r.min.x as f64 * u, r.min.y as f64 * u, r.max.x as f64 * u, r.max.y as f64 * u]
}

/// Records a named control's rectangle.
pub(super) fn note(trace: &mut UiTrace, name: &str, r: &egui::Response, u: f64) {
    trace.rects.insert(name.to_string(), px_rect(r.rect, u));
}

/// Records the part of a panel control's rectangle left visible by `clip`
/// (a row half scrolled out of the list, a field cut off by a short
/// window); nothing when none of it is.
pub(super) fn note_visible(trace: &mut UiTrace, name: &str, rect: Rect, clip: Rect, u: f64) {
    let shown = rect.intersect(clip);
    if shown.is_positive() {
        trace.rects.insert(name.to_string(), px_rect(shown, u));
    }
}
