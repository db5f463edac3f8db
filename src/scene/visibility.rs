//! What is shown: objects hidden by the user (their own flag or an
//! ancestor's) and local view's mask (`docs/spec/organise.md`).

use std::collections::BTreeSet;

use super::object::Object;
use super::Scene;

impl Scene {
    /// Whether object `i` is not shown: its own `hidden` flag or an
    /// ancestor's is set (a dead slot is not hidden). Free while no object
    /// is hidden, else the walk up to its root.
    pub fn is_hidden(&self, i: usize) -> bool {
        if let Some(shown) = &self.local {
            if !shown.get(i).copied().unwrap_or(true) {
                return self.contains(i);
            }
        }
        if self.hidden.is_empty() {
            return false;
        }
        self.get(i).is_some_and(|o| o.hidden || self.hierarchy.ancestors(i).any(|p| self.obj(p).hidden))
    }

    /// Local view's mask ([`Scene::set_local_view`]), while it is on.
    pub fn local_view(&self) -> Option<&[bool]> {
        self.local.as_deref()
    }

    /// Turns local view on (`Some`: the slots marked `true` stay shown,
    /// and any made later) or off. Changes no object's own flag; the
    /// caller brings the pick tree and the change log up to date.
    pub fn set_local_view(&mut self, shown: Option<Vec<bool>>) {
        self.local = shown;
    }

    /// How many live objects have their own `hidden` flag set.
    pub fn hidden_count(&self) -> usize {
        self.hidden.len()
    }

    /// The live objects with their own `hidden` flag set, in id (file)
    /// order; nothing is read while none is hidden.
    pub fn hidden_ids(&self) -> impl Iterator<Item = usize> + '_ {
        self.hidden.iter().copied()
    }

    /// Sets object `i`'s own `hidden` flag; returns whether it changed.
    pub fn set_hidden(&mut self, i: usize, hidden: bool) -> bool {
        let Some(o) = self.objects.get_mut(i).and_then(Option::as_mut) else { return false };
        if o.hidden == hidden {
            return false;
        }
        o.hidden = hidden;
        if hidden {
            self.hidden.insert(i);
        } else {
            self.hidden.remove(&i);
        }
        true
    }
}

/// The ids of the live objects of `objects` whose own `hidden` flag is set.
pub(super) fn hidden_set(objects: &[Option<Object>]) -> BTreeSet<usize> {
    objects.iter().enumerate().filter(|(_, o)| o.as_ref().is_some_and(|o| o.hidden)).map(|(i, _)| i).collect()
}

/// The ids of the live objects of `objects` that carry a light or a camera.
pub(super) fn fixture_set(objects: &[Option<Object>]) -> BTreeSet<usize> {
    objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.as_ref().is_some_and(|o| o.fixture.is_some()))
        .map(|(i, _)| i)
        .collect()
}

impl Scene {
    /// The live objects that carry a light or a camera, in id order; costs
    /// what they number, not the scene.
    pub fn fixture_ids(&self) -> impl Iterator<Item = usize> + '_ {
        self.fixtures.iter().copied()
    }

    /// The shown light objects (not hidden, nor under hidden parents), in
    /// id order, with their lights: what lights a frame under
    /// `scene_lights` and what "auto" asks about.
    pub fn shown_lights(&self) -> impl Iterator<Item = (usize, &super::fixture::LightObject)> + '_ {
        self.fixture_ids().filter(|&i| !self.is_hidden(i)).filter_map(|i| Some((i, self.get(i)?.light()?)))
    }

    /// Sets the light and camera object `i` carries (a live one's).
    pub fn set_fixture(&mut self, i: usize, fixture: Option<Box<super::fixture::Fixture>>) {
        let Some(Some(o)) = self.objects.get_mut(i) else { return };
        if fixture.is_some() {
            self.fixtures.insert(i);
        } else {
            self.fixtures.remove(&i);
        }
        o.fixture = fixture;
    }
}
