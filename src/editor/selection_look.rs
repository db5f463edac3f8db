//! What the selection shows, kept between frames: the gizmo's placement
//! over the selected roots and the selected empties' axis crosses, worked
//! out again only when something they depend on changed.

use std::sync::Arc;

use nalgebra::Point3;

use super::{ChangeMark, Editor};
use crate::gizmo::{Mode, OverlayInstance, Pivot, Placement, Space, Target};
use crate::math::View;

/// What [`Editor::selection_look`] was worked out from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct LookKey {
    selection: u64,
    changes: ChangeMark,
    structure: u64,
    bounds: u64,
    gizmo: (Mode, Space, Pivot),
    through: Option<usize>,
}

/// The gizmo's placement for the selection and its selected empties.
#[derive(Debug)]
pub(super) struct SelectionLook {
    pub(super) placement: Option<Placement>,
    pub(super) empties: Vec<usize>,
}

impl Editor {
    /// What the selection shows, worked out again only when the selection,
    /// a transform, the hierarchy, a mesh's bounds or the gizmo's mode,
    /// space or pivot changed: so hovering and drawing cost the same with a
    /// million objects selected as with one (the placement walks every
    /// target).
    pub(super) fn selection_look(&self) -> Arc<SelectionLook> {
        let c = &self.gizmo.config;
        let key = LookKey {
            selection: self.selection.version(),
            changes: self.log_position(),
            structure: self.scene.structure(),
            bounds: self.pick.bounds.edits(),
            gizmo: (c.mode, c.space, c.pivot),
            through: self.through,
        };
        if let Some((k, look)) = &*self.look.borrow() {
            if *k == key {
                return look.clone();
            }
        }
        let look = Arc::new(SelectionLook {
            // No gizmo on the camera looked through (it sits at the eye).
            placement: Placement::of(&self.targets(), c)
                .filter(|_| self.through.is_none_or(|t| !self.roots_of_selection().contains(&t))),
            empties: self
                .selection
                .iter()
                .copied()
                .filter(|&i| self.scene.objects()[i].mesh == crate::scene::MeshRef::Empty)
                .collect(),
        });
        *self.look.borrow_mut() = Some((key, look.clone()));
        look
    }

    /// Gizmo draw data for this frame.
    /// What the overlay pass draws: the gizmo, and an axis cross on each
    /// selected empty (`docs/spec/assets.md`: empties have no geometry to show).
    pub fn overlay(&self) -> Vec<OverlayInstance> {
        let Some(v) = self.view() else { return Vec::new() };
        self.overlay_in(&v)
    }

    /// [`Editor::overlay`] for view `v` (one view of the quad view).
    pub(super) fn overlay_in(&self, v: &View) -> Vec<OverlayInstance> {
        let look = self.selection_look();
        let mut out = self.gizmo.instances_at(v, look.placement.as_ref());
        for &i in &look.empties {
            let world = self.scene.world_matrix(i);
            let origin = Point3::new(world[(0, 3)], world[(1, 3)], world[(2, 3)]);
            if let Some(wpp) = v.world_per_pixel(&origin) {
                out.extend(crate::gizmo::axis_cross(&world, wpp));
            }
        }
        out
    }

    /// Selected objects without a selected ancestor (moving a parent
    /// already moves its children), the active one's root first (the gizmo
    /// takes its local axes from the first target).
    pub(super) fn roots_of_selection(&self) -> Vec<usize> {
        self.selection
            .iter()
            .rev()
            .copied()
            .filter(|&i| !self.scene.hierarchy().ancestors(i).any(|p| self.selection.contains(p)))
            .collect()
    }

    /// The gizmo's targets: the selected roots.
    pub fn targets(&self) -> Vec<Target> {
        self.roots_of_selection()
            .into_iter()
            .map(|i| Target {
                local: self.scene.objects()[i].transform,
                parent_world: self.scene.parent_world_matrix(i),
                bounds: Some(self.pick.bounds[i]),
            })
            .collect()
    }
}
