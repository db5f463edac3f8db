//! The frame as data: which rendering scopes run, in order, what each one
//! draws into, which one resolves the multisampled colour, and the
//! barriers between them, derived from what each scope touches. The
//! recording loop (`record.rs`) walks the plan and records each scope's
//! pass; adding a pass is one [`Pass`] variant, its entry in
//! [`FramePlan::new`] and its arm in the loop.
//!
//! The barrier rule: a scope that writes a colour image another scope
//! wrote since the last barrier waits for those writes
//! ([`Barrier::color`]); the first scope after the scene scopes (or the
//! hand-over when none follows) also turns the scene depth and the ids
//! from attachments into sampled images ([`Barrier::scene_to_read`]), and
//! that barrier always carries the colour dependency when any colour was
//! written.

/// One rendering scope's pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Scene objects with their ids and depth (and the grid without MSAA).
    /// With MSAA it writes no colour: only the ids and the scene depth,
    /// exact at pixel centres.
    Scene,
    /// MSAA only: scene objects and grid into the multisampled colour,
    /// against their own multisampled depth.
    SceneColor,
    /// The selection outline, from the ids.
    Outline,
    /// The gizmo overlay, against its own depth, sampling the scene depth.
    Overlay,
    /// The box-selection rectangle.
    Rect,
    /// The UI.
    Ui,
}

/// The colour image a scope draws into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Color {
    /// None (the MSAA scene scope).
    None,
    /// The target's own single-sample image.
    Target,
    /// The multisampled image (MSAA), resolved into the target by the
    /// scope marked [`Scope::resolve`].
    Multisampled,
}

/// The barrier recorded before a scope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Barrier {
    /// Scene depth and ids from attachments to sampled (and copyable).
    pub scene_to_read: bool,
    /// Earlier colour attachment writes before this scope's.
    pub color: bool,
}

impl Barrier {
    /// Whether anything is to be recorded.
    pub fn any(&self) -> bool {
        self.scene_to_read || self.color
    }
}

/// One rendering scope of the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scope {
    pub pass: Pass,
    pub color: Color,
    /// This scope resolves the multisampled colour into the target's.
    pub resolve: bool,
    /// The barrier recorded before it.
    pub before: Barrier,
}

/// What the frame holds, as far as the plan cares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PlanInputs {
    pub msaa: bool,
    pub outline: bool,
    pub overlay: bool,
    pub rect: bool,
    pub ui: bool,
}

/// The scopes of one frame and the barrier before the hand-over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FramePlan {
    pub scopes: Vec<Scope>,
    /// Recorded after the last scope, before the hand-over (present or copy).
    pub before_hand_over: Barrier,
}

impl FramePlan {
    pub fn new(i: PlanInputs) -> FramePlan {
        let main = if i.msaa { Color::Multisampled } else { Color::Target };
        let mut passes = vec![(Pass::Scene, if i.msaa { Color::None } else { Color::Target })];
        if i.msaa {
            passes.push((Pass::SceneColor, Color::Multisampled));
        }
        if i.outline {
            passes.push((Pass::Outline, main));
        }
        if i.overlay {
            passes.push((Pass::Overlay, main));
        }
        if i.rect {
            passes.push((Pass::Rect, Color::Target));
        }
        if i.ui {
            passes.push((Pass::Ui, Color::Target));
        }
        // The last scope drawing into the multisampled image resolves it.
        let resolver = passes.iter().rposition(|&(_, c)| c == Color::Multisampled);

        let mut scopes = Vec::with_capacity(passes.len());
        let mut written: Vec<Color> = Vec::new();
        let mut scene_attached = true;
        let mut barrier_before = |color: Color, scene_pass: bool, written: &mut Vec<Color>| {
            let mut b = Barrier::default();
            if scene_attached && !scene_pass {
                scene_attached = false;
                b.scene_to_read = true;
                b.color = !written.is_empty();
            }
            if color != Color::None && written.contains(&color) {
                b.color = true;
            }
            if b.color {
                written.clear();
            }
            b
        };
        for (k, &(pass, color)) in passes.iter().enumerate() {
            let scene_pass = matches!(pass, Pass::Scene | Pass::SceneColor);
            let before = barrier_before(color, scene_pass, &mut written);
            let resolve = resolver == Some(k);
            if color != Color::None {
                written.push(color);
            }
            if resolve {
                written.push(Color::Target);
            }
            scopes.push(Scope { pass, color, resolve, before });
        }
        // The hand-over makes its own colour transitions; it needs the scene
        // depth and ids readable.
        let before_hand_over = barrier_before(Color::None, false, &mut written);
        FramePlan { scopes, before_hand_over }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: Barrier = Barrier { scene_to_read: false, color: false };
    const COLOR: Barrier = Barrier { scene_to_read: false, color: true };
    const READ: Barrier = Barrier { scene_to_read: true, color: true };

    fn plan(msaa: bool, outline: bool, overlay: bool, rect: bool, ui: bool) -> FramePlan {
        FramePlan::new(PlanInputs { msaa, outline, overlay, rect, ui })
    }

    fn steps(p: &FramePlan) -> Vec<(Pass, Barrier, bool)> {
        p.scopes.iter().map(|s| (s.pass, s.before, s.resolve)).collect()
    }

    // The expected lists are the frame as the renderer recorded it before
    // the plan: after the scene scopes one barrier with the read
    // transitions and a colour dependency, then a colour barrier before
    // each later scope that follows another screen scope.

    #[test]
    fn a_plain_frame_turns_the_scene_readable_before_the_hand_over() {
        let p = plan(false, false, false, false, false);
        assert_eq!(steps(&p), vec![(Pass::Scene, NONE, false)]);
        assert_eq!(p.before_hand_over, READ);
    }

    #[test]
    fn every_scope_without_msaa() {
        let p = plan(false, true, true, true, true);
        assert_eq!(
            steps(&p),
            vec![
                (Pass::Scene, NONE, false),
                (Pass::Outline, READ, false),
                (Pass::Overlay, COLOR, false),
                (Pass::Rect, COLOR, false),
                (Pass::Ui, COLOR, false),
            ]
        );
        assert_eq!(p.before_hand_over, NONE);
    }

    #[test]
    fn the_rect_alone_follows_the_scene_barrier() {
        let p = plan(false, false, false, true, false);
        assert_eq!(steps(&p), vec![(Pass::Scene, NONE, false), (Pass::Rect, READ, false)]);
        assert_eq!(p.before_hand_over, NONE);
        let p = plan(false, false, false, false, true);
        assert_eq!(steps(&p), vec![(Pass::Scene, NONE, false), (Pass::Ui, READ, false)]);
    }

    #[test]
    fn msaa_resolves_in_the_last_multisampled_scope() {
        let p = plan(true, false, false, false, false);
        assert_eq!(steps(&p), vec![(Pass::Scene, NONE, false), (Pass::SceneColor, NONE, true)]);
        assert_eq!(p.before_hand_over, READ);

        let p = plan(true, true, false, true, false);
        assert_eq!(
            steps(&p),
            vec![
                (Pass::Scene, NONE, false),
                (Pass::SceneColor, NONE, false),
                (Pass::Outline, READ, true),
                (Pass::Rect, COLOR, false),
            ]
        );

        let p = plan(true, true, true, true, true);
        assert_eq!(
            steps(&p),
            vec![
                (Pass::Scene, NONE, false),
                (Pass::SceneColor, NONE, false),
                (Pass::Outline, READ, false),
                (Pass::Overlay, COLOR, true),
                (Pass::Rect, COLOR, false),
                (Pass::Ui, COLOR, false),
            ]
        );
        let p = plan(true, false, true, false, false);
        assert_eq!(
            steps(&p),
            vec![(Pass::Scene, NONE, false), (Pass::SceneColor, NONE, false), (Pass::Overlay, READ, true)]
        );
        assert_eq!(p.before_hand_over, NONE);
    }

    #[test]
    fn msaa_without_screen_scopes_after_the_resolve_needs_no_colour_barrier_for_the_rect() {
        // The resolve wrote the target; the rect draws into it next.
        let p = plan(true, false, false, true, false);
        assert_eq!(
            steps(&p),
            vec![(Pass::Scene, NONE, false), (Pass::SceneColor, NONE, true), (Pass::Rect, READ, false)]
        );
    }

    #[test]
    fn scopes_keep_their_colour_images() {
        let p = plan(true, true, true, true, true);
        let colors: Vec<Color> = p.scopes.iter().map(|s| s.color).collect();
        use Color::*;
        assert_eq!(colors, vec![None, Multisampled, Multisampled, Multisampled, Target, Target]);
        let p = plan(false, true, true, true, true);
        assert!(p.scopes.iter().all(|s| s.color == Target));
    }
}
