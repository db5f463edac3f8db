//! The editor's owned parts. Each groups state that one kind of work
//! reads and writes, so a method borrows the part it needs while others
//! are borrowed elsewhere (the pick tree is updated from the scene without
//! a macro to split the borrows).

use std::collections::HashMap;
use std::sync::Arc;

use nalgebra::{Point2, Point3};

use super::bounds::{BoundsList, Posed, SceneBoxes};
use super::{camera, meshes, skin, Fly, Nav, PickMesh};
use crate::input::Modifiers;
use crate::math::{Camera, Projection};
use crate::picking::BoxTree;
use crate::scene::{MeshRef, MorphData, Scene, SkinData};

/// What the pointer and the keyboard are doing.
#[derive(Debug)]
pub(super) struct Pointer {
    pub cursor: Point2<f64>,
    pub mods: Modifiers,
    /// An orbit or pan with the middle button.
    pub nav: Option<Nav>,
    /// Where the left button went down, when it did not start a drag.
    pub press: Option<Point2<f64>>,
    /// The press has moved 4 px or more: a box selection is being dragged.
    pub boxing: bool,
    /// The objects the frame shows in the box, for the release being handled.
    pub boxed: Option<Vec<usize>>,
    /// Objects (selected roots first) whose transforms the drag edits.
    pub drag_objects: Vec<usize>,
    /// V held: vertex snapping during a drag.
    pub vertex_snap_held: bool,
    /// The surface point under the cursor for the event being handled (from
    /// the depth buffer, see [`super::Editor::handle_with_depth`]).
    pub surface: Option<Point3<f64>>,
    /// The point an orbit in progress turns about (None: the target).
    pub orbit_pivot: Option<Point3<f64>>,
    /// The number typed during the drag in progress (`docs/spec/views.md`,
    /// "Typed values during a drag"): while set, the cursor no longer
    /// moves the selection and releasing the button does not end the drag.
    pub typed: Option<String>,
}

impl Pointer {
    pub fn new(cursor: Point2<f64>) -> Pointer {
        Pointer {
            cursor,
            mods: Modifiers::NONE,
            nav: None,
            press: None,
            boxing: false,
            boxed: None,
            drag_objects: Vec::new(),
            vertex_snap_held: false,
            surface: None,
            orbit_pivot: None,
            typed: None,
        }
    }
}

/// The camera's navigation state besides the camera itself.
#[derive(Debug)]
pub(super) struct Navigation {
    /// The field of view to return to when an axis view switched the
    /// camera to orthographic (orbiting away goes back to perspective).
    pub auto_ortho: Option<f64>,
    /// The fly camera while the right button is held.
    pub fly: Option<Fly>,
    /// Fly speed in m/s (the wheel changes it while flying).
    pub fly_speed: f64,
    /// The field of view the camera had when it last left perspective
    /// (Numpad5 goes back to it).
    pub perspective_fov: f64,
}

impl Navigation {
    pub fn new(camera: &Camera) -> Navigation {
        Navigation {
            auto_ortho: None,
            fly: None,
            fly_speed: camera::FLY_SPEED,
            perspective_fov: match camera.projection {
                Projection::Perspective { fov_y, .. } => fov_y,
                Projection::Orthographic { .. } => camera::DEFAULT_FOV_DEG.to_radians(),
            },
        }
    }
}

/// What picking reads: each object's local bounds, the drawn triangles of
/// each mesh, and the pick tree over the objects' boxes.
#[derive(Debug)]
pub(super) struct PickIndex {
    /// Local bounds of each object's mesh (index = id; a dead slot keeps
    /// its last value).
    pub bounds: BoundsList,
    /// Real bounds of meshes that [`super::mesh_bounds`] cannot know (glTF).
    pub known_bounds: HashMap<MeshRef, (Point3<f64>, Point3<f64>)>,
    /// The drawn triangles of each mesh, for exact picking and snapping
    /// (primitives are generated on first use), and each object's (a
    /// 4-byte index an object, so that picking does not hash a mesh
    /// reference per candidate).
    pub meshes: meshes::MeshTable,
    /// The pick tree: boxes are derived from the scene and `bounds` when a
    /// ray reaches a leaf ([`SceneBoxes`]), none is stored.
    pub index: BoxTree,
}

impl PickIndex {
    /// The objects' boxes, derived from `scene` when asked for.
    pub fn boxes<'a>(&'a self, scene: &'a Scene) -> SceneBoxes<'a> {
        SceneBoxes { scene, bounds: &self.bounds, posed: None }
    }

    /// Object `id` moved or changed its mesh.
    pub fn set(&mut self, id: usize, scene: &Scene, posed: &Posed) {
        self.index.set(id, &SceneBoxes { scene, bounds: &self.bounds, posed: Some(posed) });
    }

    /// Objects were added.
    pub fn set_many(&mut self, ids: &[usize], scene: &Scene, posed: &Posed) {
        self.index.set_many(ids, &SceneBoxes { scene, bounds: &self.bounds, posed: Some(posed) });
    }

    /// Objects were hidden: their leaves stay, parked ([`BoxTree::park`]).
    pub fn park_many(&mut self, ids: &[usize]) {
        ids.iter().for_each(|&i| self.index.park(i));
    }

    /// Objects were shown: parked leaves taken back, the others set.
    pub fn unpark_many(&mut self, ids: &[usize], scene: &Scene, posed: &Posed) {
        self.index.unpark_many(ids, &SceneBoxes { scene, bounds: &self.bounds, posed: Some(posed) });
    }

    /// Objects were removed.
    pub fn remove_many(&mut self, ids: &[usize], scene: &Scene, posed: &Posed) {
        self.index.remove_many(ids, &SceneBoxes { scene, bounds: &self.bounds, posed: Some(posed) });
    }

    /// The scene's id slots end at `len`.
    pub fn truncate(&mut self, len: usize, scene: &Scene, posed: &Posed) {
        self.index.truncate(len, &SceneBoxes { scene, bounds: &self.bounds, posed: Some(posed) });
    }
}

/// Skins and the objects they pose.
#[derive(Debug, Default)]
pub(super) struct Skinning {
    /// Skin data by mesh and skin index ([`super::Editor::set_skin`]).
    pub skins: HashMap<skin::SkinKey, Arc<SkinData>>,
    /// The skinned objects with their joints' indices.
    pub skin_links: Vec<skin::SkinLink>,
    /// The posed triangles of each skinned object posed by its joints, and
    /// of each object whose morph weights are not its mesh's defaults.
    pub posed: HashMap<usize, Arc<PickMesh>>,
    /// Morph targets by mesh ([`super::Editor::set_morphs`]).
    pub morphs: HashMap<MeshRef, Arc<MorphData>>,
    /// glTF nodes' own `weights`, by file and node index.
    pub node_weights: HashMap<(Arc<std::path::Path>, usize), Vec<f64>>,
    /// The weights an animation pose shows, by object (a preview: never
    /// saved, see `animate.rs`).
    pub shown_weights: HashMap<usize, Vec<f64>>,
    /// The objects with morph targets and no skin (a skin's own link
    /// poses its object's morph targets too).
    pub morph_links: Vec<usize>,
}
