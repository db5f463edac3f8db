//! Undo / redo. Each entry stores what one step changed, never a copy of
//! the scene: the transforms a drag or a typed value changed, or the objects
//! a duplicate added or a delete removed (with their places, so that undo
//! restores names, parents, order and selection exactly).

use crate::math::Transform;
use crate::scene::{Detached, Object, SkinRef};

/// One undoable step.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Local transforms of `objects` before and after (a drag, a typed value).
    Transform { objects: Vec<usize>, before: Vec<Transform>, after: Vec<Transform> },
    /// Objects added (duplicate): undo removes them, redo puts them back.
    Add { items: Detached, selection_before: Vec<usize>, selection_after: Vec<usize> },
    /// Objects removed (delete): undo puts them back, redo removes them.
    /// `skins`: skinned objects whose deleted joints handed their influence
    /// on (see [`crate::scene::joints_without`]), with their skins before
    /// and after.
    Remove { items: Detached, selection_before: Vec<usize>, selection_after: Vec<usize>, skins: Vec<SkinChange> },
    /// Objects' fields other than their names (mesh, transform, colour,
    /// skin, origin) replaced: a reload gives objects the file's new meshes.
    Replace { objects: Vec<usize>, before: Vec<Object>, after: Vec<Object> },
    /// Objects given new parents with new local transforms (world kept):
    /// each one's parent and transform before and after.
    /// `places`: each one's place among its siblings before and after
    /// ([`crate::scene::Hierarchy::place`]).
    Reparent {
        objects: Vec<usize>,
        before: Vec<(Option<usize>, crate::math::Transform)>,
        after: Vec<(Option<usize>, crate::math::Transform)>,
        places: Vec<(u64, u64)>,
    },
    /// Own `hidden` flags of `objects` before and after (H, Shift+H, Alt+H,
    /// the outliner's eye), with the selection around it (hiding drops
    /// hidden objects from it, Alt+H selects what it showed).
    Hide {
        objects: Vec<usize>,
        before: Vec<bool>,
        after: Vec<bool>,
        selection_before: Vec<usize>,
        selection_after: Vec<usize>,
    },
    /// Object `object` renamed; the skins that named it follow.
    Rename { object: usize, before: String, after: String, skins: Vec<SkinChange> },
    /// Several edits as one step, applied in order and reverted in reverse.
    Group(Vec<Edit>),
    /// The scene's lighting before and after (the toolbar's environment
    /// menu, a script's `lighting` event).
    Lighting { before: Box<crate::look::Lighting>, after: Box<crate::look::Lighting> },
}

/// A skinned object's skin before and after a delete.
#[derive(Clone, Debug, PartialEq)]
pub struct SkinChange {
    pub object: usize,
    pub before: Option<Box<SkinRef>>,
    pub after: Option<Box<SkinRef>>,
}

/// Linear history; a new edit drops the redo branch.
#[derive(Clone, Debug, Default)]
pub struct History {
    undo: Vec<Edit>,
    redo: Vec<Edit>,
    /// Edits made, undone and redone so far (what the status line's
    /// messages outlive, `Editor::action_stamp`).
    steps: u64,
}

impl History {
    pub fn push(&mut self, e: Edit) {
        self.undo.push(e);
        self.redo.clear();
        self.steps += 1;
    }

    /// Takes the edit to revert; hand it to [`History::undone`] once
    /// reverted (taken, not copied: a delete's entry holds its objects).
    pub fn take_undo(&mut self) -> Option<Edit> {
        self.undo.pop()
    }

    /// Files a reverted edit for redo.
    pub fn undone(&mut self, e: Edit) {
        self.redo.push(e);
        self.steps += 1;
    }

    /// Takes the edit to re-apply; hand it to [`History::redone`] once applied.
    pub fn take_redo(&mut self) -> Option<Edit> {
        self.redo.pop()
    }

    /// Files a re-applied edit for undo (the redo branch stays).
    pub fn redone(&mut self, e: Edit) {
        self.undo.push(e);
        self.steps += 1;
    }

    /// Edits made, undone and redone so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}
