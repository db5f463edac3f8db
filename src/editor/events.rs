//! The editor's input: each platform-free [`Event`] becomes a drag step,
//! a hover, a selection, a camera move or a key command.

use nalgebra::Point2;

use super::*;

impl Editor {
    /// Handles one event; returns whether anything visible may have changed.
    pub fn handle(&mut self, event: &Event) -> bool {
        self.respond_to(event).redraws()
    }

    /// Handles one event; returns what it asks of the program.
    fn respond_to(&mut self, event: &Event) -> Outcome {
        match event {
            Event::KeyDown { key } => self.key_down(key),
            // The program reads the file and imports it (`app::dispatch`).
            Event::Drop { path } => Outcome::Import(path.clone()),
            _ => Outcome::redraw_if(self.handle_pointer_and_view(event)),
        }
    }

    /// Every event but a key press and a dropped file.
    fn handle_pointer_and_view(&mut self, event: &Event) -> bool {
        match event {
            Event::Modifiers(m) => {
                self.pointer.mods = *m;
                // Snapping follows Ctrl immediately during a drag.
                self.drag_to(self.pointer.cursor)
            }
            Event::Resize { width, height } => {
                if width.is_finite() && height.is_finite() {
                    self.size = (width.max(0.0), height.max(0.0));
                }
                true
            }
            Event::CursorMoved { x, y } => self.cursor_moved(Point2::new(*x, *y)),
            Event::MouseDown { button } => self.mouse_down(*button),
            Event::MouseUp { button } => self.mouse_up(*button),
            Event::Scroll { delta } => {
                if self.gizmo.is_dragging() || !delta.is_finite() {
                    return false;
                }
                if self.navigation.fly.is_some() {
                    self.navigation.fly_speed =
                        (self.navigation.fly_speed * camera::FLY_WHEEL.powf(delta.clamp(-50.0, 50.0))).clamp(1e-3, 1e5);
                    return false;
                }
                let changed = match self.pointer.surface {
                    Some(p) => camera::zoom_about(self.active_camera_mut(), p, *delta),
                    None => camera::zoom(self.active_camera_mut(), *delta),
                };
                self.rehover();
                changed
            }
            Event::KeyDown { .. } | Event::Drop { .. } => false,
            // Text is the UI's business, but for numbers typed during a drag.
            Event::Text { text } => self.type_into_drag(text),
            Event::KeyUp { key } => {
                if let (Some(fly), Some(k)) = (self.navigation.fly.as_mut(), FLY_KEYS.iter().position(|f| f == key)) {
                    fly.held[k] = false;
                }
                if key == "V" && self.pointer.vertex_snap_held {
                    self.pointer.vertex_snap_held = false;
                    return self.drag_to(self.pointer.cursor) | self.ruler_follow();
                }
                false
            }
        }
    }

    /// Sets the modifiers, then handles `event` (for scripts that give the
    /// modifiers per event).
    pub fn handle_with_mods(&mut self, event: &Event, mods: Modifiers) -> bool {
        self.respond_with_mods(event, mods).redraws()
    }

    /// [`Editor::handle_with_mods`], returning what the event asks of the program.
    pub(super) fn respond_with_mods(&mut self, event: &Event, mods: Modifiers) -> Outcome {
        let a = if mods != self.pointer.mods { self.handle(&Event::Modifiers(mods)) } else { false };
        match self.respond_to(event) {
            Outcome::None if a => Outcome::Redraw,
            outcome => outcome,
        }
    }

    pub(super) fn rehover(&mut self) {
        if let Some(v) = self.view() {
            let look = self.selection_look();
            self.gizmo.hover_at(&v, look.placement.as_ref(), self.pointer.cursor);
        }
    }

    pub(super) fn drag_to(&mut self, m: Point2<f64>) -> bool {
        if !self.gizmo.is_dragging() || self.pointer.typed.is_some() {
            return false;
        }
        let Some(v) = self.view() else { return false };
        let Some(mut u) = self.gizmo.update(&v, m, self.pointer.mods.ctrl || self.snap_on) else { return false };
        // Vertex snap (V held) or surface snap (Ctrl+Shift held) put the
        // pivot on another object's drawn mesh (`docs/spec/editing.md`, "Snapping").
        let surface = self.pointer.mods.ctrl && self.pointer.mods.shift;
        if self.pointer.vertex_snap_held || surface {
            let moved = self.scene.with_descendants(&self.pointer.drag_objects);
            let keep = |i: usize| moved.binary_search(&i).is_err();
            let target = if self.pointer.vertex_snap_held {
                self.vertex_near(m, VERTEX_SNAP_PX, keep)
            } else {
                self.surface_at(m, keep).map(|(_, p)| p)
            };
            if let Some(snapped) = target.and_then(|p| self.gizmo.move_pivot_to(&p)) {
                u = snapped;
            }
        }
        let objs = self.pointer.drag_objects.clone();
        self.write_transforms(&objs, &u.transforms);
        true
    }

    fn cursor_moved(&mut self, m: Point2<f64>) -> bool {
        if !(m.x.is_finite() && m.y.is_finite()) {
            return false;
        }
        let prev = self.pointer.cursor;
        self.pointer.cursor = m;
        if self.gizmo.is_dragging() {
            return self.drag_to(m);
        }
        if self.ruler.dragging {
            return self.ruler_follow();
        }
        let (dx, dy) = (m.x - prev.x, m.y - prev.y);
        if self.navigation.fly.is_some() {
            return camera::fly_turn(self.active_camera_mut(), dx, dy);
        }
        match self.pointer.nav {
            Some(Nav::Orbit) => {
                let turned = match self.pointer.orbit_pivot {
                    Some(p) => camera::orbit_about(self.active_camera_mut(), p, dx, dy),
                    None => camera::orbit(self.active_camera_mut(), dx, dy),
                };
                if turned {
                    self.leave_auto_ortho();
                }
                return turned;
            }
            Some(Nav::Pan) => {
                let height = self.view().map_or(self.size.1, |v| v.height());
                return camera::pan(self.active_camera_mut(), dx, dy, height.max(1.0));
            }
            None => {}
        }
        if let Some(p) = self.pointer.press {
            // A press that moves 4 px or more draws a selection box.
            if self.pointer.boxing || (m - p).norm() >= CLICK_SLOP_PX {
                self.pointer.boxing = true;
                return true;
            }
        }
        // Input goes to the view under the cursor while no button is held.
        let view_before = self.active_view();
        self.set_active_view_at(m.x, m.y);
        let before = self.gizmo.hovered();
        self.rehover();
        before != self.gizmo.hovered() || view_before != self.active_view()
    }

    fn mouse_down(&mut self, button: MouseButton) -> bool {
        match button {
            MouseButton::Left => {
                if self.gizmo.is_dragging() || self.pointer.nav.is_some() {
                    return false;
                }
                if self.ruler.on {
                    return self.ruler_press();
                }
                if let Some(v) = self.view() {
                    if self.gizmo.hovered().is_some() {
                        // A drag starts from the rest pose, not an animation's.
                        self.leave_pose();
                    }
                    let targets = self.targets();
                    if self.gizmo.begin(&v, &targets, self.pointer.cursor) {
                        self.pointer.drag_objects = self.roots_of_selection();
                        return true;
                    }
                }
                self.pointer.press = Some(self.pointer.cursor);
                false
            }
            MouseButton::Right => {
                if self.gizmo.is_dragging() {
                    return self.cancel_drag();
                }
                if self.pointer.boxing {
                    return self.cancel_box();
                }
                if self.pointer.nav.is_none() && self.navigation.fly.is_none() {
                    self.pointer.press = None;
                    self.leave_auto_ortho();
                    self.navigation.fly = Some(Fly::default());
                }
                false
            }
            MouseButton::Middle => {
                if self.gizmo.is_dragging() {
                    return false;
                }
                self.pointer.nav = Some(if self.pointer.mods.shift { Nav::Pan } else { Nav::Orbit });
                self.pointer.orbit_pivot = self.pointer.surface;
                false
            }
        }
    }

    fn mouse_up(&mut self, button: MouseButton) -> bool {
        match button {
            MouseButton::Left => {
                if self.pointer.typed.is_some() {
                    // A typed value waits for Enter or Esc.
                    return false;
                }
                if self.ruler.dragging {
                    return self.ruler_release();
                }
                if self.gizmo.is_dragging() {
                    return self.end_drag();
                }
                let boxing = std::mem::take(&mut self.pointer.boxing);
                match (self.pointer.press.take(), self.pointer.boxed.take()) {
                    (Some(_), Some(ids)) if boxing => self.box_select(ids),
                    (Some(p), _) if !boxing && (p - self.pointer.cursor).norm() < CLICK_SLOP_PX => self.click_select(),
                    _ => boxing,
                }
            }
            MouseButton::Middle => {
                self.pointer.nav = None;
                false
            }
            MouseButton::Right => {
                self.navigation.fly = None;
                false
            }
        }
    }

    /// A key press: looked up once in the key map; a program command goes
    /// back to the program at once (even mid-drag), then typed values, the
    /// fly keys and V held come before the editor's commands.
    fn key_down(&mut self, key: &str) -> Outcome {
        let command = self.keymap.lookup(key, self.pointer.mods);
        if let Some(c) = command.filter(Command::is_program) {
            return Outcome::Program(c);
        }
        let ctrl = self.pointer.mods.ctrl;
        if let Some(text) = self.pointer.typed.as_mut() {
            match key {
                "Backspace" => {
                    text.pop();
                    return Outcome::redraw_if(self.place_typed());
                }
                "Enter" | "NumpadEnter" => return Outcome::redraw_if(self.end_drag()),
                _ => {}
            }
        }
        if let (Some(fly), Some(k)) = (self.navigation.fly.as_mut(), FLY_KEYS.iter().position(|f| *f == key)) {
            // The view starts moving: the window must keep drawing.
            fly.held[k] = true;
            return Outcome::Redraw;
        }
        if key == "V" && !ctrl {
            // Held: vertex snapping during a translate drag or a measurement.
            self.pointer.vertex_snap_held = true;
            return Outcome::redraw_if(self.drag_to(self.pointer.cursor) | self.ruler_follow());
        }
        match command {
            Some(command) => Outcome::redraw_if(self.execute(&command)),
            None => Outcome::None,
        }
    }

    /// Ends the drag in progress as one undo step (the button released, or
    /// Enter after a typed value).
    fn end_drag(&mut self) -> bool {
        let Some(r) = self.gizmo.end() else { return false };
        self.pointer.typed = None;
        let objects = std::mem::take(&mut self.pointer.drag_objects);
        if r.before != r.after {
            self.history.push(Edit::Transform { objects, before: r.before, after: r.after });
        }
        true
    }

    /// Characters typed during a drag of an axis or a ring: digits and `.`
    /// extend the number, `-` flips its sign; anything else is ignored.
    /// False when no such drag is in progress.
    fn type_into_drag(&mut self, text: &str) -> bool {
        if !self.gizmo.takes_typed() {
            return false;
        }
        let mut typed = self.pointer.typed.take().unwrap_or_default();
        let before = typed.clone();
        for c in text.chars() {
            match c {
                '0'..='9' => typed.push(c),
                '.' | ',' if !typed.contains('.') => typed.push('.'),
                '-' => match typed.strip_prefix('-') {
                    Some(rest) => typed = rest.to_string(),
                    None => typed.insert(0, '-'),
                },
                _ => {}
            }
        }
        if typed.is_empty() && before.is_empty() {
            // Nothing that makes a number: the drag goes on as it was.
            return false;
        }
        self.pointer.typed = Some(typed);
        self.place_typed()
    }

    /// Places the selection as the typed number says (the drag's start
    /// while it is not a number yet: empty, `-`, `.`).
    fn place_typed(&mut self) -> bool {
        let value = self.pointer.typed.as_deref().and_then(|t| t.parse::<f64>().ok());
        let Some(u) = self.gizmo.typed(value) else { return false };
        let objs = self.pointer.drag_objects.clone();
        self.write_transforms(&objs, &u.transforms);
        true
    }

    /// The number typed during the drag in progress, as typed so far.
    pub fn typed_value(&self) -> Option<&str> {
        self.pointer.typed.as_deref()
    }
}
