//! Undo / redo of completed edits.

use crate::math::Transform;

/// One completed drag: the objects it changed and their transforms before
/// and after.
#[derive(Clone, Debug, PartialEq)]
pub struct Edit {
    pub objects: Vec<usize>,
    pub before: Vec<Transform>,
    pub after: Vec<Transform>,
}

/// Linear history; a new edit drops the redo branch.
#[derive(Clone, Debug, Default)]
pub struct History {
    undo: Vec<Edit>,
    redo: Vec<Edit>,
}

impl History {
    pub fn push(&mut self, e: Edit) {
        self.undo.push(e);
        self.redo.clear();
    }

    /// The edit to revert (moved to the redo stack).
    pub fn undo(&mut self) -> Option<Edit> {
        let e = self.undo.pop()?;
        self.redo.push(e.clone());
        Some(e)
    }

    /// The edit to re-apply (moved back to the undo stack).
    pub fn redo(&mut self) -> Option<Edit> {
        let e = self.redo.pop()?;
        self.undo.push(e.clone());
        Some(e)
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}
