//! Animation preview (`docs/spec/materials.md`, "Animation"): showing a
//! clip of an opened or imported glTF file at a time, paused or playing.
//!
//! A shown pose writes the animated objects' local transforms through the
//! same path as any move ([`Editor::write_transforms`]), so picking, the
//! skins and the draw layer follow, but it is not an edit: the objects'
//! own (rest) transforms are kept aside, nothing goes into the history,
//! the edit mark ([`Editor::edit_mark`]) that saving and autosaving watch
//! does not move, and what is saved or exported holds the rest transforms
//! ([`Editor::scene_at_rest`]). Any edit first returns to the rest pose and
//! stops playback ([`Editor::leave_pose`], called where edits start: the
//! command dispatcher, a gizmo press, and the transform write and history
//! apply underneath everything as a backstop).
//!
//! Morph weights animated by the clip are shown the same way: the editor
//! keeps them beside the scene ([`Editor::morph_weights`]) and poses the
//! objects with them; leaving the pose drops them, so the scene, its saved
//! file and the history never hold them.

use std::borrow::Cow;
use std::sync::Arc;

use super::Editor;
use crate::math::Transform;
use crate::scene::animation::Clip;
use crate::scene::Scene;

/// A pose being shown: which clip, when, and the rest transforms of the
/// objects it moves.
#[derive(Clone, Debug, Default)]
pub(super) struct Shown {
    clip: usize,
    time: f64,
    playing: bool,
    /// Each moved object with its file node and its rest transform.
    targets: Vec<(usize, usize, Transform)>,
    /// Each object whose morph weights the clip animates, with its file node.
    morphed: Vec<(usize, usize)>,
}

/// The clips of the scene's files and the pose shown, if any.
#[derive(Clone, Debug, Default)]
pub(super) struct Animations {
    clips: Vec<Arc<Clip>>,
    shown: Option<Shown>,
}

/// What the editor shows of an animation ([`Editor::animation`]).
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationState {
    /// Index in [`Editor::clips`].
    pub clip: usize,
    pub name: String,
    /// Seconds into the clip, in [0, duration).
    pub time: f64,
    pub duration: f64,
    pub playing: bool,
}

impl Editor {
    /// Adds the clips of a glTF file (read when it was opened or imported);
    /// a file whose clips are already known adds nothing (imported twice,
    /// its clips move both copies).
    pub fn add_clips(&mut self, clips: Vec<Clip>) {
        let known = |c: &Clip| self.animations.clips.iter().any(|k| k.file == c.file);
        if clips.first().is_some_and(known) {
            return;
        }
        self.animations.clips.extend(clips.into_iter().map(Arc::new));
    }

    /// Every clip of the scene's files, in the order they were read.
    pub fn clips(&self) -> &[Arc<Clip>] {
        &self.animations.clips
    }

    /// The clip named `name`, else the first whose name it is.
    pub fn clip_named(&self, name: &str) -> Option<usize> {
        self.animations.clips.iter().position(|c| c.name == name)
    }

    /// The pose shown, if one is.
    pub fn animation(&self) -> Option<AnimationState> {
        let s = self.animations.shown.as_ref()?;
        let clip = &self.animations.clips[s.clip];
        Some(AnimationState {
            clip: s.clip,
            name: clip.name.clone(),
            time: s.time,
            duration: clip.duration,
            playing: s.playing,
        })
    }

    /// Shows clip `clip` at `time` seconds (wrapped into its loop), playing
    /// from there or paused. False for a clip that does not exist or during
    /// a drag.
    pub fn show_animation(&mut self, clip: usize, time: f64, playing: bool) -> bool {
        if clip >= self.animations.clips.len() || self.gizmo.is_dragging() || !time.is_finite() {
            return false;
        }
        if self.animations.shown.as_ref().is_some_and(|s| s.clip != clip) {
            self.leave_pose();
        }
        if self.animations.shown.is_none() {
            let c = &self.animations.clips[clip];
            let nodes = c.nodes();
            let targets = self
                .scene
                .iter()
                .filter_map(|(i, o)| {
                    let origin = o.origin.as_deref()?;
                    (origin.file == c.file && nodes.contains(&origin.node)).then_some((i, origin.node, o.transform))
                })
                .collect();
            let weight_nodes = c.weight_nodes();
            let morphed = if weight_nodes.is_empty() {
                Vec::new()
            } else {
                self.scene
                    .iter()
                    .filter_map(|(i, o)| {
                        let origin = o.origin.as_deref()?;
                        let animated = origin.file == c.file && weight_nodes.contains(&origin.node);
                        (animated && self.is_morphed(i)).then_some((i, origin.node))
                    })
                    .collect()
            };
            self.animations.shown = Some(Shown { clip, time: 0.0, playing, targets, morphed });
        }
        let shown = self.animations.shown.as_mut().expect("set above");
        shown.time = self.animations.clips[clip].wrap(time);
        shown.playing = playing;
        self.write_pose();
        true
    }

    /// Plays or pauses (Space, the panel's button): with no pose shown,
    /// plays the first clip from its start. False when there are no clips.
    pub fn toggle_playing(&mut self) -> bool {
        match self.animation() {
            Some(a) => self.show_animation(a.clip, a.time, !a.playing),
            None => self.show_animation(0, 0.0, true),
        }
    }

    /// Returns to the rest pose and stops playback (`{"animation": null}`,
    /// and before any edit). False when no pose was shown.
    pub fn leave_pose(&mut self) -> bool {
        let Some(shown) = self.animations.shown.take() else { return false };
        let objects: Vec<usize> = shown.targets.iter().map(|t| t.0).collect();
        let rest: Vec<Transform> = shown.targets.iter().map(|t| t.2).collect();
        self.posing(|e| {
            if !shown.morphed.is_empty() {
                e.show_weights(Vec::new());
            }
            e.write_transforms(&objects, &rest);
        });
        self.rehover();
        true
    }

    /// Moves a playing clip on by `dt` seconds, looping. Returns whether
    /// the pose changed.
    pub(super) fn advance_animation(&mut self, dt: f64) -> bool {
        let Some(s) = self.animations.shown.as_mut().filter(|s| s.playing) else { return false };
        if !(dt.is_finite() && dt > 0.0) {
            return false;
        }
        s.time = self.animations.clips[s.clip].wrap(s.time + dt);
        self.write_pose();
        true
    }

    /// Whether a clip is playing (the window keeps drawing).
    pub(super) fn animation_playing(&self) -> bool {
        self.animations.shown.as_ref().is_some_and(|s| s.playing)
    }

    /// Object `i`'s own transform: the rest one while a pose moves it
    /// (what saving writes and the side panel edits).
    pub fn rest_transform(&self, i: usize) -> Option<Transform> {
        let rest = self.animations.shown.as_ref().and_then(|s| s.targets.iter().find(|t| t.0 == i)).map(|t| t.2);
        rest.or_else(|| self.scene.get(i).map(|o| o.transform))
    }

    /// The scene with every object at its own transform: the scene itself,
    /// or a copy with the rest transforms put back while a pose is shown.
    pub fn scene_at_rest(&self) -> Cow<'_, Scene> {
        let Some(shown) = &self.animations.shown else { return Cow::Borrowed(&self.scene) };
        let mut scene = self.scene.clone();
        Self::put_rest(shown, &mut scene);
        Cow::Owned(scene)
    }

    /// The rest transforms of the posed objects (empty when no pose is
    /// shown), for copies of the scene made elsewhere (the autosave).
    pub fn rest_transforms(&self) -> Vec<(usize, Transform)> {
        self.animations.shown.as_ref().map_or_else(Vec::new, |s| s.targets.iter().map(|t| (t.0, t.2)).collect())
    }

    fn put_rest(shown: &Shown, scene: &mut Scene) {
        for &(i, _, rest) in &shown.targets {
            if let Some(o) = scene.object_mut(i) {
                *o.transform = rest;
            }
        }
    }

    /// Writes the shown clip's pose at its time.
    fn write_pose(&mut self) {
        let Some(shown) = &self.animations.shown else { return };
        let clip = &self.animations.clips[shown.clip];
        let objects: Vec<usize> = shown.targets.iter().map(|t| t.0).collect();
        let posed: Vec<Transform> =
            shown.targets.iter().map(|&(_, node, rest)| clip.pose(node, &rest, shown.time)).collect();
        let weights: Vec<(usize, Vec<f64>)> =
            shown.morphed.iter().filter_map(|&(i, node)| Some((i, clip.weights_at(node, shown.time)?))).collect();
        self.posing(|e| {
            e.write_transforms(&objects, &posed);
            if !weights.is_empty() {
                e.show_weights(weights);
            }
        });
        self.rehover();
    }

    /// Runs `f` with the change log told that what it writes is a pose,
    /// not an edit.
    fn posing(&mut self, f: impl FnOnce(&mut Editor)) {
        self.log.posing = true;
        f(self);
        self.log.posing = false;
    }

    /// Called where an edit starts (see the module docs): returns to the
    /// rest pose unless the write is the pose's own.
    pub(super) fn before_edit(&mut self) {
        if !self.log.posing {
            self.leave_pose();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use nalgebra::{UnitQuaternion, Vector3};

    use super::*;
    use crate::editor::Command;
    use crate::scene::animation::{Channel, Interpolation, Property};
    use crate::scene::NodeOrigin;

    /// The demo scene whose object `name` was read from node 4 of
    /// `walk.gltf`, with a clip moving that node from x = 0 to x = 2 over
    /// 2 s and turning it 90 degrees about Y; the object is selected.
    fn animated(name: &str) -> (Editor, usize) {
        let mut e = Editor::new(Scene::demo(), 800.0, 600.0);
        let file: Arc<Path> = Arc::from(Path::new("walk.gltf"));
        let i = e.scene().find(name).unwrap();
        *e.scene.object_mut(i).unwrap().origin = Some(Box::new(NodeOrigin { file: file.clone(), node: 4 }));
        let h = std::f64::consts::FRAC_PI_4;
        let channels = vec![
            Channel::new(
                4,
                Property::Translation,
                Interpolation::Linear,
                vec![0.0, 2.0],
                vec![[0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]],
            )
            .unwrap(),
            Channel::new(
                4,
                Property::Rotation,
                Interpolation::Linear,
                vec![0.0, 2.0],
                vec![[0.0, 0.0, 0.0, 1.0], [0.0, h.sin(), 0.0, h.cos()]],
            )
            .unwrap(),
        ];
        e.add_clips(vec![Clip::new("Walk".into(), file, channels)]);
        e.set_selection(&[i]);
        (e, i)
    }

    fn first_object(scene: &Scene) -> String {
        scene.iter().next().unwrap().1.name.to_string()
    }

    #[test]
    fn animation_pose_is_shown_without_an_edit() {
        let scene = Scene::demo();
        let (mut e, i) = animated(&first_object(&scene));
        let rest = e.scene().objects()[i].transform;
        let mark = e.edit_mark();
        assert!(e.show_animation(0, 1.0, false));
        let t = e.scene().objects()[i].transform;
        assert!((t.position - Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-12);
        let eighth = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_4);
        assert!(t.rotation.angle_to(&eighth) < 1e-12);
        // Scale is not animated: the object's own stays.
        assert_eq!(t.scale, rest.scale);
        // Not an edit: no undo step, nothing to save, the rest pose saved.
        assert!(!e.history().can_undo());
        assert_eq!(e.edit_mark(), mark);
        assert_eq!(e.scene_to_save().objects()[i].transform, rest);
        assert_eq!(e.rest_transform(i), Some(rest));
        assert_eq!(e.animation().map(|a| (a.name, a.time, a.playing)), Some(("Walk".to_string(), 1.0, false)));
        // Back to rest.
        assert!(e.execute(&Command::StopAnimation));
        assert_eq!(e.scene().objects()[i].transform, rest);
        assert_eq!(e.edit_mark(), mark);
        assert!(e.animation().is_none());
    }

    #[test]
    fn animation_plays_by_time_and_loops() {
        let scene = Scene::demo();
        let (mut e, i) = animated(&first_object(&scene));
        assert!(!e.is_animating());
        assert!(e.execute(&Command::TogglePlay));
        assert!(e.is_animating());
        for _ in 0..30 {
            e.advance(1.0 / 60.0);
        }
        let a = e.animation().unwrap();
        assert!((a.time - 0.5).abs() < 1e-12 && a.playing);
        assert!((e.scene().objects()[i].transform.position.x - 0.5).abs() < 1e-9);
        // 2 s more: round the 2 s loop to 0.5 s again.
        e.advance(2.0);
        assert!((e.animation().unwrap().time - 0.5).abs() < 1e-9);
        // Paused: time stands.
        assert!(e.toggle_playing());
        assert!(!e.is_animating());
        e.advance(1.0);
        assert!((e.animation().unwrap().time - 0.5).abs() < 1e-9);
    }

    #[test]
    fn animation_an_edit_returns_to_the_rest_pose_first() {
        let scene = Scene::demo();
        let (mut e, i) = animated(&first_object(&scene));
        let rest = e.scene().objects()[i].transform;
        e.show_animation(0, 1.5, true);
        // A duplicate copies the rest pose, and playback stops.
        assert!(e.execute(&Command::Duplicate));
        assert!(e.animation().is_none());
        assert_eq!(e.scene().objects()[i].transform, rest);
        let copy = *e.selection().last().unwrap();
        assert_ne!(copy, i);
        assert_eq!(e.scene().objects()[copy].transform, rest);
        // Undo takes the duplicate back and nothing else: the history holds no pose.
        e.show_animation(0, 0.5, false);
        assert!(e.execute(&Command::Undo));
        assert!(e.animation().is_none());
        assert!(!e.scene().contains(copy));
        assert_eq!(e.scene().objects()[i].transform, rest);
        assert!(!e.history().can_undo());
        // A typed transform: set on the rest pose, one undo step back to it.
        e.show_animation(0, 0.5, false);
        let mut moved = rest;
        moved.position += Vector3::new(0.0, 3.0, 0.0);
        assert!(e.commit_transform(i, e.rest_transform(i).unwrap(), moved));
        assert!(e.animation().is_none());
        assert_eq!(e.scene().objects()[i].transform, moved);
        assert!(e.undo());
        assert_eq!(e.scene().objects()[i].transform, rest);
    }

    #[test]
    fn animation_a_missing_clip_shows_nothing() {
        let scene = Scene::demo();
        let (mut e, _) = animated(&first_object(&scene));
        assert!(!e.show_animation(1, 0.0, false));
        assert!(e.animation().is_none());
        assert_eq!(e.clip_named("Walk"), Some(0));
        assert_eq!(e.clip_named("Run"), None);
    }
}
