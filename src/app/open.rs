//! What the window and the headless run share before the GPU is touched:
//! their options, reading the scene (a scene file or a glTF file) and its
//! mesh files, and setting up the editor over them. Everything here fails
//! before a window opens or a device is created.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use nalgebra::{Point3, Vector3};

use crate::app::error::Error;
use crate::draw::{DrawError, LoadedMeshes};
use crate::editor::Editor;
use crate::math::{Camera, DepthMode, Projection};
use crate::render::Culling;
use crate::scene::gltf::GltfFile;
use crate::scene::open::{gltf_save_path, read_file_kind, scene_from_gltf, FileKind};
use crate::scene::{Scene, SceneError};

/// How to open the viewport (window or headless).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The scene file or glTF file; the built-in demo scene when `None`.
    pub scene: Option<PathBuf>,
    /// Viewport size in physical pixels.
    pub size: (u32, u32),
    pub depth: DepthMode,
    /// Enable the Khronos validation layer.
    pub validation: bool,
    /// MSAA samples per pixel asked for (1: off; the device's highest
    /// supported count not above it is used; 0: 4 on a GPU, 1 on a CPU
    /// rasteriser, `ContextDesc::samples`).
    pub samples: u32,
    /// Draw the UI (toolbar, status line, panel, view widget) and route events through it.
    pub ui: bool,
    /// Where the scene is culled (`--culling`): [`Culling::Auto`] (the
    /// default) draws it GPU-driven (persistent object buffer, compute
    /// culling, indirect draws) on a GPU and CPU-culled on a CPU rasteriser
    /// ([`Renderer::culling`](crate::render::Renderer::culling)).
    pub culling: Culling,
    /// Open the scene's autosave in its place (`--recover`).
    pub recover: bool,
    /// Seconds between the window's autosaves while the scene has unsaved
    /// changes; 0 turns autosaving off (`--autosave-secs`).
    pub autosave_secs: f64,
    /// The shading mode and lights to start with (`--lighting`), in place
    /// of the scene file's `lighting`; `None`: the scene file's, else the
    /// defaults.
    pub lighting: Option<crate::look::Lighting>,
    /// The key map in force (`--keymap`, the user's key map file).
    pub keymap: crate::editor::KeyMap,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            scene: None,
            size: (1280, 720),
            depth: DepthMode::Reversed,
            validation: false,
            samples: 0,
            ui: true,
            culling: Culling::Auto,
            recover: false,
            autosave_secs: crate::app::autosave::DEFAULT_SECS,
            lighting: None,
            keymap: crate::editor::KeyMap::default(),
        }
    }
}

/// A scene as opened from the command line.
#[derive(Debug)]
pub struct Opened {
    pub scene: Scene,
    /// Where Ctrl+S writes: the scene file itself, `STEM.scene.json` beside
    /// an opened glTF file, nothing for the demo scene.
    pub save_path: Option<PathBuf>,
    /// Whether `save_path` is the file that was opened.
    pub save_path_opened: bool,
    /// Opened from glTF: the starting camera frames the geometry.
    pub frame_camera: bool,
    /// glTF files already parsed, to load meshes from.
    files: HashMap<PathBuf, GltfFile>,
    /// The glTF file opened as the scene, as its meshes name it.
    gltf: Option<PathBuf>,
    /// The file given on the command line (`None` for the demo).
    pub file: Option<PathBuf>,
    /// The scene is the file's autosave (`--recover`), not what the file holds.
    pub recovered: bool,
}

/// Reads the scene file, or the built-in demo scene.
pub fn load_scene(path: Option<&Path>) -> Result<Scene, SceneError> {
    Ok(open_scene(path)?.scene)
}

/// Opens the scene as `options` ask: the file (or the demo), or with
/// `recover` its autosave ([`open_recovered`]).
pub fn open_for(options: &Options) -> Result<Opened, SceneError> {
    if options.recover {
        open_recovered(options.scene.as_deref())
    } else {
        open_scene(options.scene.as_deref())
    }
}

/// Opens what `path` holds, told by its content: a scene file, or a glTF
/// file whose nodes become the objects. The demo scene when `None`.
pub fn open_scene(path: Option<&Path>) -> Result<Opened, SceneError> {
    let Some(path) = path else {
        return Ok(Opened::without_file(Scene::demo()));
    };
    // A scene file is streamed (never held whole). Anything else is read
    // whole to be told apart by content, so glTF files and every read or
    // syntax error come out as before.
    if let Some(loaded) = Scene::load_streamed(path) {
        return Ok(Opened {
            scene: loaded?,
            save_path: Some(path.to_path_buf()),
            save_path_opened: true,
            frame_camera: false,
            files: HashMap::new(),
            gltf: None,
            file: Some(path.to_path_buf()),
            recovered: false,
        });
    }
    let (kind, bytes) = read_file_kind(path)?;
    match kind {
        FileKind::Scene => Ok(Opened {
            scene: Scene::load_bytes(path, bytes)?,
            save_path: Some(path.to_path_buf()),
            save_path_opened: true,
            frame_camera: false,
            files: HashMap::new(),
            gltf: None,
            file: Some(path.to_path_buf()),
            recovered: false,
        }),
        FileKind::Gltf => {
            let (scene, file) = scene_from_gltf(path, &bytes)?;
            let key = path.parent().unwrap_or(Path::new("")).join(path.file_name().unwrap_or_default());
            Ok(Opened {
                scene,
                save_path: Some(gltf_save_path(path)),
                save_path_opened: false,
                frame_camera: true,
                files: HashMap::from([(key.clone(), file)]),
                gltf: Some(key),
                file: Some(path.to_path_buf()),
                recovered: false,
            })
        }
    }
}

/// Opens the autosave of the scene or glTF file at `path` (of the demo
/// scene when `None`) in its place (`--recover`): Ctrl+S still writes the
/// scene's own file. An error when there is no autosave.
pub fn open_recovered(path: Option<&Path>) -> Result<Opened, SceneError> {
    let is_gltf = path.and_then(Path::extension).is_some_and(|e| {
        let e = e.to_string_lossy().to_ascii_lowercase();
        e == "gltf" || e == "glb"
    });
    let save_path = path.map(|p| if is_gltf { gltf_save_path(p) } else { p.to_path_buf() });
    let autosave = crate::app::autosave::autosave_path(save_path.as_deref()).ok_or(SceneError::NoStateFolder)?;
    if !autosave.is_file() {
        return Err(SceneError::NoAutosave(autosave));
    }
    let scene = Scene::load(&autosave)?;
    Ok(Opened {
        scene,
        save_path,
        save_path_opened: !is_gltf,
        frame_camera: false,
        files: HashMap::new(),
        gltf: None,
        file: path.map(Path::to_path_buf),
        recovered: true,
    })
}

impl Opened {
    /// `scene` with no file behind it (the demo, a scene built in code).
    pub fn without_file(scene: Scene) -> Opened {
        Opened {
            scene,
            save_path: None,
            save_path_opened: false,
            frame_camera: false,
            files: HashMap::new(),
            gltf: None,
            file: None,
            recovered: false,
        }
    }

    /// Where Ctrl+S writes, guarded against replacing earlier edits.
    pub fn save_target(&self) -> crate::app::save::SaveTarget {
        crate::app::save::SaveTarget::new(self.save_path.clone(), self.save_path_opened)
    }

    /// The autosave that may be offered for recovery on opening and the
    /// file it must be newer than (`None` for the demo and for `--recover`).
    pub fn recovery_paths(&self) -> Option<(PathBuf, PathBuf)> {
        let file = self.file.as_ref().filter(|_| !self.recovered)?;
        Some((crate::app::autosave::autosave_path(self.save_path.as_deref())?, file.clone()))
    }

    /// What the files the scene uses hold now, to reload them when they change.
    pub fn reloader(&self) -> crate::app::reload::Reloader {
        let opened = self.gltf.as_ref().and_then(|p| Some((p.as_path(), self.files.get(p)?)));
        crate::app::reload::Reloader::new(&self.scene, opened)
    }
}

/// Reads every mesh file of `scene` (failing on the first bad one) and sets
/// up an editor of `size` in `depth` mode that picks by the real bounds.
pub fn open_editor(scene: Scene, size: (u32, u32), depth: DepthMode) -> Result<(Editor, LoadedMeshes), DrawError> {
    open_editor_for(Opened::without_file(scene), size, depth)
}

/// [`open_editor`] for an opened file; a glTF file's scene starts with
/// [`framing_camera`].
pub fn open_editor_for(
    opened: Opened,
    size: (u32, u32),
    depth: DepthMode,
) -> Result<(Editor, LoadedMeshes), DrawError> {
    // An opened glTF file's animations (its nodes are the objects' origins).
    let clips = file_clips(&opened.files);
    let loaded = LoadedMeshes::load_with(&opened.scene, opened.files)?;
    let camera = opened.frame_camera.then(|| framing_camera(&opened.scene, &loaded));
    let mut editor = Editor::new(opened.scene, size.0 as f64, size.1 as f64);
    editor.add_clips(clips);
    if let Some(c) = camera {
        editor.camera = c;
    }
    editor.depth = depth;
    loaded.apply_bounds(&mut editor);
    Ok((editor, loaded))
}

/// A glTF file read for importing: its nodes as a scene of their own and
/// their meshes, ready for [`import_into`].
#[derive(Debug)]
pub struct ReadImport {
    pub fragment: Scene,
    pub loaded: LoadedMeshes,
    /// The file's animations.
    pub clips: Vec<crate::scene::animation::Clip>,
}

/// The animations of the parsed glTF files `files` (keyed by the path
/// objects read from them name in their origin), in path order.
fn file_clips(files: &HashMap<PathBuf, crate::scene::gltf::GltfFile>) -> Vec<crate::scene::animation::Clip> {
    let mut paths: Vec<&PathBuf> = files.keys().collect();
    paths.sort();
    paths.into_iter().flat_map(|p| files[p].clips(&std::sync::Arc::from(p.as_path()))).collect()
}

/// Reads a glTF file to import (`docs/spec/assets.md`, "Importing into an open
/// scene"). A file that cannot be read, or a scene file, is an error.
pub fn read_import(path: &Path) -> Result<ReadImport, Error> {
    let (kind, bytes) = read_file_kind(path)?;
    if kind != FileKind::Gltf {
        return Err(SceneError::NotGltf.in_file(path).into());
    }
    let (fragment, file) = scene_from_gltf(path, &bytes)?;
    let key = path.parent().unwrap_or(Path::new("")).join(path.file_name().unwrap_or_default());
    let files = HashMap::from([(key, file)]);
    let clips = file_clips(&files);
    let loaded = LoadedMeshes::load_with(&fragment, files)?;
    Ok(ReadImport { fragment, loaded, clips })
}

/// Adds a read file's nodes to the editor's scene: the roots where a drop
/// lands ([`Editor::drop_point`]), one undo step ([`Editor::import`]). The caller uploads `read.loaded`.
pub fn import_into(editor: &mut Editor, read: &ReadImport) {
    read.loaded.hand_new_to(editor);
    editor.add_clips(read.clips.clone());
    let at = editor.drop_point();
    editor.import(&read.fragment, at);
}

/// How much farther than touching the camera stands: the sphere around the
/// geometry's box spans about 80 % of the view height (as F frames).
pub const FRAMING_FACTOR: f64 = 1.2;

/// The world bounding box of every object's drawn triangles (`None` when
/// nothing is drawn).
pub fn drawn_bounds(scene: &Scene, loaded: &LoadedMeshes) -> Option<(Point3<f64>, Point3<f64>)> {
    let mut lo = Point3::from(Vector3::repeat(f64::INFINITY));
    let mut hi = Point3::from(Vector3::repeat(f64::NEG_INFINITY));
    for (i, o) in scene.iter() {
        let Some(data) = loaded.get(&o.mesh) else { continue };
        let world = scene.world_matrix(i);
        for p in &data.positions {
            let w = world.transform_point(&Point3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2])));
            lo = lo.inf(&w);
            hi = hi.sup(&w);
        }
    }
    (lo.x <= hi.x && lo.iter().chain(hi.iter()).all(|v| v.is_finite())).then_some((lo, hi))
}

/// The starting camera of an opened glTF file: the default camera's
/// direction and field of view, looking at the centre of the drawn
/// geometry's box from where the sphere around the box fills at most the
/// view height with a margin ([`FRAMING_FACTOR`]); near and far follow the
/// distance. The default camera where nothing is drawn.
pub fn framing_camera(scene: &Scene, loaded: &LoadedMeshes) -> Camera {
    let default = Camera::default();
    let Some((lo, hi)) = drawn_bounds(scene, loaded) else { return default };
    let center = nalgebra::center(&lo, &hi);
    let radius = 0.5 * (hi - lo).norm();
    let radius = if radius > 1e-9 { radius } else { 0.5 };
    let fov_y = match default.projection {
        Projection::Perspective { fov_y, .. } => fov_y,
        Projection::Orthographic { .. } => 50f64.to_radians(),
    };
    let distance = FRAMING_FACTOR * radius / (0.5 * fov_y).sin();
    let dir = (default.eye - default.target).normalize();
    Camera {
        eye: center + dir * distance,
        target: center,
        up: default.up,
        projection: Projection::Perspective { fov_y, near: distance / 1000.0, far: 100.0 * (distance + radius) },
    }
}
