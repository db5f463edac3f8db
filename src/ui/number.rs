//! The number field of the side panel and the toolbar
//! (`docs/spec/organise.md`, "Typed numbers" and "Several selected objects
//! in the panel"): a drag along it changes the value, a click edits it as
//! text read as an arithmetic expression ([`super::expr::eval`]) when Enter
//! is pressed. Text that cannot be read keeps the old value, shows a
//! one-line message under the field and leaves the field in edit mode.
//! A field of several objects whose values differ shows `—`.
//!
//! egui's own `DragValue` leaves edit mode on Enter whatever the text, so
//! it could not keep a refused text in front of the user: this field keeps
//! its edit state (the text and the message) itself.

use egui::{Color32, Pos2, Rect, Vec2};

use super::expr;

/// Shown for a component the selected objects do not share.
pub const DIFFERS: &str = "\u{2014}";

/// What a field did in one pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Change {
    None,
    /// Text typed and confirmed: the new value.
    Typed(f64),
    /// Dragged along: the change to add.
    Dragged(f64),
}

/// A field being edited as text.
#[derive(Clone, Debug, Default)]
struct Editing {
    text: String,
    /// Why the text last confirmed could not be read.
    error: Option<String>,
    /// All its text is selected on the next pass (just clicked).
    start: bool,
}

/// What [`field`] laid out.
pub struct Field {
    pub change: Change,
    /// The field's rectangle (points).
    pub rect: Rect,
    /// The message under the field, while there is one (points).
    pub error: Option<Rect>,
}

/// The value as the field shows it: at most four decimals, at least as many
/// as the drag speed needs (0.01 a pixel: two), no `-0`.
pub fn format(value: f64, speed: f64) -> String {
    let least = (-speed.log10()).ceil().clamp(0.0, 4.0) as usize;
    let text = format!("{:.4}", value + 0.0);
    let (whole, decimals) = text.split_once('.').unwrap_or((&text, ""));
    let kept = decimals.trim_end_matches('0');
    let kept = if kept.len() < least { &decimals[..least] } else { kept };
    let text = if kept.is_empty() { whole.to_string() } else { format!("{whole}.{kept}") };
    if text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
        text.trim_start_matches('-').to_string()
    } else {
        text
    }
}

/// The width (points) of a field that shows `sample` whole.
pub fn width_for(ui: &mut egui::Ui, sample: &str) -> f32 {
    let pad = ui.spacing().button_padding;
    let font = egui::TextStyle::Button.resolve(ui.style());
    let text = ui.fonts_mut(|f| f.layout_no_wrap(sample.to_string(), font, Color32::WHITE).size().x);
    text.max(ui.spacing().interact_size.x - 2.0 * pad.x) + 2.0 * pad.x
}

/// A number field `width` points wide whatever its value: `value`
/// (`None`: several values, shown as `—`), `speed` per point dragged,
/// typed values inside `range` (others refused as unreadable text is).
/// A value too long for the field shows in scientific notation, and long
/// typed text scrolls inside it. Where text is refused, `unreadable`
/// receives the message for the status line too.
pub fn field(
    ui: &mut egui::Ui,
    id: egui::Id,
    value: Option<f64>,
    speed: f64,
    range: std::ops::RangeInclusive<f64>,
    width: f32,
    unreadable: &mut Option<String>,
) -> Field {
    let text_id = id.with("text");
    let pad = ui.spacing().button_padding;
    let font = egui::TextStyle::Button.resolve(ui.style());
    let fits = |ui: &mut egui::Ui, text: &str| {
        ui.fonts_mut(|f| f.layout_no_wrap(text.to_string(), font.clone(), Color32::WHITE).size().x)
            <= width - 2.0 * pad.x
    };
    let shown = match value {
        None => DIFFERS.to_string(),
        Some(v) => {
            let plain = format(v, speed);
            if fits(ui, &plain) {
                plain
            } else {
                format!("{v:.2e}")
            }
        }
    };
    let size = Vec2::new(width, ui.spacing().interact_size.y);
    let mut editing: Option<Editing> = ui.data(|d| d.get_temp(id));
    let mut change = Change::None;
    let inner = ui.scope(|ui| {
        let (rect, r) = ui.allocate_exact_size(size, egui::Sense::click_and_drag());
        if editing.is_none() {
            if r.dragged() {
                let d = r.drag_delta();
                if d.x != 0.0 {
                    change = Change::Dragged(f64::from(d.x) * speed);
                }
            } else if r.clicked() {
                // Edit as text: all of it selected, typing replaces it.
                let text = value.map_or_else(String::new, |v| format(v, speed));
                editing = Some(Editing { text, error: None, start: true });
            }
            if editing.is_none() {
                if r.hovered() || r.dragged() {
                    ui.ctx().set_cursor_icon(egui::CursorIcon::ResizeHorizontal);
                }
                if ui.is_rect_visible(rect) {
                    let look = ui.style().interact(&r);
                    ui.painter().rect(rect, look.corner_radius, look.bg_fill, look.bg_stroke, egui::StrokeKind::Inside);
                    // Clipped to the field: a long value never spills over its neighbours.
                    ui.painter().with_clip_rect(rect.intersect(ui.clip_rect())).text(
                        rect.center(),
                        egui::Align2::CENTER_CENTER,
                        &shown,
                        font.clone(),
                        look.text_color(),
                    );
                }
                return;
            }
        }
        let e = editing.as_mut().expect("editing");
        let edit =
            ui.put(rect, egui::TextEdit::singleline(&mut e.text).id(text_id).margin(pad).font(egui::TextStyle::Button));
        if std::mem::take(&mut e.start) {
            super::rename::take_keyboard_selected(ui.ctx(), &edit, &e.text);
        } else if edit.lost_focus() {
            let (enter, escape) = ui.input(|i| (i.key_pressed(egui::Key::Enter), i.key_pressed(egui::Key::Escape)));
            if escape {
                editing = None;
            } else {
                match read(&e.text, &range) {
                    Ok(v) => {
                        change = Change::Typed(v);
                        editing = None;
                    }
                    Err(message) if enter => {
                        // Stays in edit mode with its text and the message.
                        *unreadable = Some(message.clone());
                        e.error = Some(message);
                        edit.request_focus();
                    }
                    Err(message) => {
                        // Left by a click elsewhere: the old value stays,
                        // and says why unless nothing was typed (a `—`
                        // field opens empty).
                        if !e.text.trim().is_empty() {
                            *unreadable = Some(message);
                        }
                        editing = None;
                    }
                }
            }
        }
    });
    let rect = inner.response.rect;
    let error = editing.as_ref().and_then(|e| e.error.as_deref()).map(|message| {
        let painter = ui.ctx().layer_painter(egui::LayerId::new(egui::Order::Foreground, id.with("error")));
        let galley = ui.fonts_mut(|f| {
            f.layout_no_wrap(message.to_string(), egui::TextStyle::Small.resolve(ui.style()), Color32::WHITE)
        });
        let size = galley.size() + 2.0 * Vec2::new(4.0, 2.0);
        // Under the field, moved left as far as it takes to stay on screen.
        let right = ui.ctx().content_rect().right();
        let at = Pos2::new(rect.left().min(right - size.x - 2.0).max(0.0), rect.bottom() + 2.0);
        let back = Rect::from_min_size(at, size);
        painter.rect_filled(back, 3.0, Color32::from_rgb(110, 30, 30));
        painter.galley(at + Vec2::new(4.0, 2.0), galley, Color32::WHITE);
        back
    });
    ui.data_mut(|d| match editing {
        Some(e) => {
            d.insert_temp(id, e);
        }
        None => {
            d.remove_temp::<Editing>(id);
        }
    });
    Field { change, rect, error }
}

/// The typed text as a number inside `range`, or the one-line message
/// saying why not.
fn read(text: &str, range: &std::ops::RangeInclusive<f64>) -> Result<f64, String> {
    let v = expr::eval(text).map_err(|why| format!("Not a number: \"{}\" ({why})", text.trim()))?;
    if range.contains(&v) {
        return Ok(v);
    }
    let bound = |b: f64| if b != 0.0 && !(1e-3..1e6).contains(&b.abs()) { format!("{b:e}") } else { format!("{b}") };
    Err(format!("Out of range: \"{}\" (from {} to {})", text.trim(), bound(*range.start()), bound(*range.end())))
}

/// Hands a field's refusal of unreadable text (if any) to the status line
/// (left under [`unreadable_id`] for the pass to read back).
pub(super) fn pass_on(ui: &egui::Ui, unreadable: Option<String>) {
    if let Some(message) = unreadable {
        ui.ctx().data_mut(|d| d.insert_temp(unreadable_id(), message));
    }
}

/// Where a pass leaves the message of a number field's unreadable text,
/// for [`super::Ui::run`] to show in the status line.
pub(super) fn unreadable_id() -> egui::Id {
    egui::Id::new("unreadable number")
}

#[cfg(test)]
mod tests {
    use super::{format, read};

    #[test]
    fn typed_values_outside_the_range_are_refused_with_the_range() {
        assert_eq!(read("2*3", &(0.0..=10.0)), Ok(6.0));
        assert_eq!(read("1000000000000000", &(-1e15..=1e15)), Ok(1e15));
        let long = "99999999999999999999999999";
        assert_eq!(read(long, &(-1e15..=1e15)), Err(format!("Out of range: \"{long}\" (from -1e15 to 1e15)")));
        assert_eq!(read(" 0 ", &(1e-4..=1e4)), Err("Out of range: \"0\" (from 1e-4 to 10000)".to_string()));
    }

    #[test]
    fn values_show_with_the_decimals_the_speed_needs_and_at_most_four() {
        assert_eq!(format(0.3, 0.01), "0.30");
        assert_eq!(format(1.23456, 0.01), "1.2346");
        assert_eq!(format(-0.0, 0.01), "0.00");
        assert_eq!(format(-0.00001, 0.01), "0.00");
        assert_eq!(format(45.0, 0.5), "45.0");
        assert_eq!(format(-2.5, 0.5), "-2.5");
        assert_eq!(format(12.0, 1.0), "12");
    }
}
