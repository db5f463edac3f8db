//! Selection: clicks on the drawn triangles, box selection (from the last
//! frame's object-ID buffer through a [`FrameProbe`], or by ray casts when
//! there is no frame), and reading the frame for orbit and zoom.

use std::collections::HashSet;

use nalgebra::Point2;

use super::{Editor, Outcome};
use crate::input::{Event, Modifiers, MouseButton};

/// Membership in a list of object ids (a selection): a scan of the list
/// while it is short, a hash set of it past [`IdSet::SCAN`] ids, so that
/// testing `k` ids against a selection of `s` costs `k + s`, not `k * s`
/// (a box over a million-object scene selects hundreds of thousands).
pub struct IdSet<'a> {
    ids: &'a [usize],
    set: Option<HashSet<usize>>,
}

impl<'a> IdSet<'a> {
    /// Longest list tested by a scan.
    pub const SCAN: usize = 16;

    pub fn new(ids: &'a [usize]) -> IdSet<'a> {
        let set = (ids.len() > IdSet::SCAN).then(|| ids.iter().copied().collect());
        IdSet { ids, set }
    }

    pub fn contains(&self, id: usize) -> bool {
        match &self.set {
            Some(s) => s.contains(&id),
            None => self.ids.contains(&id),
        }
    }
}

/// The selected object ids in selection order (the last is the active
/// one), with a flag per id, so that asking whether an object is selected
/// costs the same for a selection of one as of a million (a frame's
/// highlights, the outliner, the roots of the selection). `version` changes
/// with every change, to a number unique in the process, for caches of
/// what the selection decides (the gizmo's placement, the GPU path's
/// outline list).
#[derive(Clone, Debug, Default)]
pub(super) struct Selection {
    order: Vec<usize>,
    flags: Vec<bool>,
    version: u64,
}

impl std::ops::Deref for Selection {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        &self.order
    }
}

impl Selection {
    fn changed(&mut self) {
        self.version = crate::scene::unique_version();
    }

    pub fn contains(&self, i: usize) -> bool {
        self.flags.get(i).copied().unwrap_or(false)
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn clear(&mut self) {
        for &i in &self.order {
            self.flags[i] = false;
        }
        self.order.clear();
        self.changed();
    }

    /// Adds `i` last (the active one) unless it is selected already.
    pub fn push(&mut self, i: usize) {
        self.insert(i);
        self.changed();
    }

    /// [`Selection::push`] without a new version (for callers that take one
    /// for a whole batch).
    fn insert(&mut self, i: usize) {
        if self.flags.len() <= i {
            self.flags.resize(i + 1, false);
        }
        if !std::mem::replace(&mut self.flags[i], true) {
            self.order.push(i);
        }
    }

    /// Replaces the selection by the ids of `ids` in order, each once.
    pub fn set(&mut self, ids: impl IntoIterator<Item = usize>) {
        self.clear();
        ids.into_iter().for_each(|i| self.insert(i));
    }

    /// Adds the ids of `ids` in order (each unless selected already).
    pub fn extend(&mut self, ids: impl IntoIterator<Item = usize>) {
        ids.into_iter().for_each(|i| self.insert(i));
        self.changed();
    }

    /// Takes `i` out (keeping the others' order).
    pub fn remove(&mut self, i: usize) {
        if self.contains(i) {
            self.flags[i] = false;
            self.order.retain(|&s| s != i);
        }
        self.changed();
    }

    pub fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let flags = &mut self.flags;
        self.order.retain(|&i| {
            let k = keep(i);
            flags[i] = k;
            k
        });
        self.changed();
    }
}

/// What the last drawn frame can tell the editor, from the GPU's depth and
/// object-ID buffers (a small read-back, never the whole image).
pub trait FrameProbe {
    /// The depth-buffer value under a screen point, if there is a frame.
    fn depth_at(&mut self, p: Point2<f64>) -> Option<f64>;
    /// The objects (indices) with at least one visible pixel centre in the
    /// rectangle `[min, max]`, ascending; `None` when there is no frame (the
    /// editor then casts rays itself).
    fn objects_in(&mut self, min: Point2<f64>, max: Point2<f64>) -> Option<Vec<usize>>;
}

/// No frame to read: no depth, and box selection by ray casts.
pub struct NoFrame;

impl FrameProbe for NoFrame {
    fn depth_at(&mut self, _p: Point2<f64>) -> Option<f64> {
        None
    }
    fn objects_in(&mut self, _min: Point2<f64>, _max: Point2<f64>) -> Option<Vec<usize>> {
        None
    }
}

impl Editor {
    /// Like [`Editor::handle_with_mods`], with access to the depth buffer of
    /// the last drawn frame: `depth_at(cursor)` gives the depth value under
    /// the cursor (see [`Editor::handle_with_frame`]; box selection then
    /// falls back to ray casts).
    pub fn handle_with_depth(
        &mut self,
        event: &Event,
        mods: Modifiers,
        depth_at: &mut dyn FnMut(Point2<f64>) -> Option<f64>,
    ) -> bool {
        struct DepthOnly<'a>(&'a mut dyn FnMut(Point2<f64>) -> Option<f64>);
        impl FrameProbe for DepthOnly<'_> {
            fn depth_at(&mut self, p: Point2<f64>) -> Option<f64> {
                (self.0)(p)
            }
            fn objects_in(&mut self, _min: Point2<f64>, _max: Point2<f64>) -> Option<Vec<usize>> {
                None
            }
        }
        self.handle_with_frame(event, mods, &mut DepthOnly(depth_at))
    }

    /// Like [`Editor::handle_with_mods`], with access to the last drawn
    /// frame: orbit (middle press) and zoom (wheel) turn about and move
    /// towards the surface point under the cursor (from the depth buffer,
    /// in either depth mode; over the background the camera target), and a
    /// box selection takes the objects with visible pixels in the box (from
    /// the object-ID buffer).
    pub fn handle_with_frame(&mut self, event: &Event, mods: Modifiers, frame: &mut dyn FrameProbe) -> bool {
        self.respond(event, mods, frame).redraws()
    }

    /// [`Editor::handle_with_frame`], returning what the event asks of the
    /// program: the one entry of the window's and the replay's events (the
    /// UI passes on those it does not use). A key press is looked up once,
    /// in [`Editor::keymap`]; a program command comes back as
    /// [`Outcome::Program`], a dropped file as [`Outcome::Import`].
    pub fn respond(&mut self, event: &Event, mods: Modifiers, frame: &mut dyn FrameProbe) -> Outcome {
        let wants_surface = matches!(event, Event::MouseDown { button: MouseButton::Middle } | Event::Scroll { .. });
        self.pointer.surface = None;
        if wants_surface && !self.gizmo.is_dragging() {
            let clear = self.depth.clear_depth() as f64;
            self.pointer.surface = match (self.view(), frame.depth_at(self.pointer.cursor)) {
                (Some(v), Some(d)) if d.is_finite() && d != clear => v.unproject(&self.pointer.cursor, d),
                _ => None,
            };
        }
        self.pointer.boxed = None;
        if let (Event::MouseUp { button: MouseButton::Left }, Some([x0, y0, x1, y1])) = (event, self.selection_rect()) {
            let (min, max) = (Point2::new(x0 as f64, y0 as f64), Point2::new(x1 as f64, y1 as f64));
            let mut ids = frame.objects_in(min, max).unwrap_or_else(|| self.objects_in_rect(min, max));
            // Light and camera icons whose centres are in the box.
            ids.extend(self.icons_in(min, max));
            ids.sort_unstable();
            ids.dedup();
            self.pointer.boxed = Some(ids);
        }
        let outcome = self.respond_with_mods(event, mods);
        self.pointer.surface = None;
        self.pointer.boxed = None;
        outcome
    }

    /// The box-selection rectangle being dragged, `[x0, y0, x1, y1]` in
    /// pixels (x0 <= x1, y0 <= y1), for drawing.
    pub fn selection_rect(&self) -> Option<[f32; 4]> {
        let p = self.pointer.press?;
        if !self.pointer.boxing {
            return None;
        }
        let mut c = self.pointer.cursor;
        // In the quad view the box stays inside the view it began in.
        if let (true, Some(v)) = (self.is_quad(), self.view()) {
            let o = v.origin();
            c = Point2::new(c.x.clamp(o.x, o.x + v.width()), c.y.clamp(o.y, o.y + v.height()));
        }
        Some([p.x.min(c.x) as f32, p.y.min(c.y) as f32, p.x.max(c.x) as f32, p.y.max(c.y) as f32])
    }

    /// The objects with at least one visible pixel centre in the rectangle,
    /// by casting a ray through every pixel centre on the CPU: what the
    /// object-ID buffer gives (the same triangles, nearest first), for
    /// callers with no frame to read.
    pub fn objects_in_rect(&self, min: Point2<f64>, max: Point2<f64>) -> Vec<usize> {
        let mut found: Vec<usize> = Vec::new();
        let (x0, y0) = ((min.x - 0.5).ceil().max(0.0) as i64, (min.y - 0.5).ceil().max(0.0) as i64);
        let (x1, y1) =
            ((max.x - 0.5).floor().min(self.size.0 - 1.0) as i64, (max.y - 0.5).floor().min(self.size.1 - 1.0) as i64);
        for y in y0..=y1 {
            for x in x0..=x1 {
                if let Some((id, _)) = self.surface_at(Point2::new(x as f64 + 0.5, y as f64 + 0.5), |_| true) {
                    found.push(id);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// Applies a finished box: replace the selection (plain), add (Shift)
    /// or remove (Ctrl), `docs/spec/editing.md` "Box selection".
    pub(super) fn box_select(&mut self, ids: Vec<usize>) -> bool {
        let before = self.selection.to_vec();
        if self.pointer.mods.ctrl {
            let gone = IdSet::new(&ids);
            self.selection.retain(|i| !gone.contains(i));
        } else {
            if !self.pointer.mods.shift {
                self.selection.clear();
            }
            let scene = &self.scene;
            self.selection.extend(ids.into_iter().filter(|&i| scene.contains(i)));
        }
        self.rehover();
        before[..] != self.selection[..]
    }

    /// Esc or right click during a box selection: drop the box.
    pub(super) fn cancel_box(&mut self) -> bool {
        let had = self.pointer.boxing;
        self.pointer.boxing = false;
        self.pointer.press = None;
        had
    }

    pub(super) fn click_select(&mut self) -> bool {
        if self.view().is_none() {
            return false;
        }
        // What is drawn under the cursor: the first hit on the objects'
        // triangles, not on their boxes (`docs/spec/editing.md`, "Picking what is drawn").
        // A light's or camera's icon, drawn over the scene, comes first.
        let cursor = self.pointer.cursor;
        let hit = self.icon_at(cursor).or_else(|| self.surface_at(cursor, |_| true).map(|(id, _)| id));
        let before = self.selection.to_vec();
        match (hit, self.pointer.mods.shift) {
            (Some(id), true) => {
                if self.selection.contains(id) {
                    self.selection.remove(id);
                } else {
                    self.selection.push(id);
                }
            }
            (Some(id), false) => self.selection.set([id]),
            (None, true) => {}
            (None, false) => self.selection.clear(),
        }
        self.rehover();
        before[..] != self.selection[..]
    }
}
