//! Our input as egui's: key names, modifiers and buttons translated, the
//! pointer's presses queued for the next pass, and whether a point is on
//! the UI (so [`super::Ui::handle`] knows who gets an event).

use egui::Pos2;
use nalgebra::Point2;

use super::{Ui, PANEL_TOP, PANEL_WIDTH, STATUS_HEIGHT, TOOLBAR_HEIGHT};
use crate::input::{Modifiers, MouseButton};

/// Our key name as egui's key, for keys a field uses.
pub(super) fn egui_key(name: &str) -> Option<egui::Key> {
    use egui::Key;
    Some(match name {
        "Enter" | "NumpadEnter" => Key::Enter,
        "Escape" => Key::Escape,
        "Backspace" => Key::Backspace,
        "Delete" => Key::Delete,
        "Tab" => Key::Tab,
        "ArrowLeft" => Key::ArrowLeft,
        "ArrowRight" => Key::ArrowRight,
        "ArrowUp" => Key::ArrowUp,
        "ArrowDown" => Key::ArrowDown,
        "Home" => Key::Home,
        "End" => Key::End,
        "A" => Key::A,
        "C" => Key::C,
        "V" => Key::V,
        "X" => Key::X,
        "Z" => Key::Z,
        _ => return None,
    })
}

/// Our modifier keys as egui's.
pub(super) fn egui_mods(m: Modifiers) -> egui::Modifiers {
    egui::Modifiers { alt: m.alt, ctrl: m.ctrl, shift: m.shift, mac_cmd: false, command: m.ctrl }
}

/// Our mouse button as egui's.
fn egui_button(b: MouseButton) -> egui::PointerButton {
    match b {
        MouseButton::Left => egui::PointerButton::Primary,
        MouseButton::Right => egui::PointerButton::Secondary,
        MouseButton::Middle => egui::PointerButton::Middle,
    }
}

impl Ui {
    /// Whether `p` is on a part of the UI (a bar, the panel, a popup, the widget).
    pub(super) fn over_ui(&self, p: Point2<f64>) -> bool {
        let u = self.scale;
        let (w, h) = self.size;
        let on_bar = p.y < TOOLBAR_HEIGHT as f64 * u || p.y >= h - STATUS_HEIGHT as f64 * u;
        let on_panel = self.panel && p.x >= w - PANEL_WIDTH as f64 * u && p.y >= PANEL_TOP as f64 * u;
        let inside = p.x >= 0.0 && p.y >= 0.0 && p.x < w && p.y < h;
        // Popups and other areas above the background (not tooltips, which take no input).
        let pos = Pos2::new((p.x / u) as f32, (p.y / u) as f32);
        let on_area = self
            .ctx
            .layer_id_at(pos)
            .is_some_and(|l| !matches!(l.order, egui::Order::Background | egui::Order::Tooltip));
        inside && (on_bar || on_panel || on_area)
    }

    /// Queues a press or release of `button` where the pointer is.
    pub(super) fn pointer_button(&mut self, button: MouseButton, pressed: bool) {
        let Some(p) = self.cursor else { return };
        let u = self.scale;
        self.events.push(egui::Event::PointerButton {
            pos: Pos2::new((p.x / u) as f32, (p.y / u) as f32),
            button: egui_button(button),
            pressed,
            modifiers: egui_mods(self.mods),
        });
    }
}
