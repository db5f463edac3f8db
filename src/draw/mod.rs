//! Turns a scene (or an editor's state) into what the renderer draws:
//! loads each distinct mesh once (built-in primitives, glTF files), uploads
//! it once, culls objects outside the view frustum and maps the rest to
//! instances; adds the gizmo overlay.
//!
//! Loading ([`LoadedMeshes`]) needs no GPU, so callers read every mesh file,
//! and fail on a bad one, before they create a renderer.

pub mod light_icon;
mod skin;

use std::collections::HashMap;
use std::sync::Arc;

use nalgebra::{Matrix4, Point3};

mod gpu;
mod loaded;
mod shadows;

pub use gpu::GpuSync;
pub use loaded::LoadedMeshes;

use crate::editor::{Editor, FrameProbe, IdSet, PickMesh};
use crate::look::PunctualLight;
use crate::math::Obb;
use crate::math::{Camera, DepthMode, Frustum, View};
use crate::render::{
    DrawObject, FrameDesc, FrameView, Highlight, MaterialDesc, MaterialId, MeshId, MeshPart, MeshSurface, RenderError,
    Renderer,
};
use crate::scene::gltf::{load_gltf, GltfError, GltfFile};
use crate::scene::{MeshData, MeshRef, Object, Scene};

/// Error while preparing a scene for drawing.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Gltf(#[from] GltfError),
    /// An object's skin that does not fit its glTF file.
    #[error("object \"{name}\": {problem}")]
    Skin { name: String, problem: String },
}

/// Loads the CPU mesh a reference names; a glTF file that cannot be loaded
/// gives [`DrawError::Gltf`] (`<path>: <problem>`, one line). An empty
/// object's mesh has no triangles.
pub fn load_mesh(mesh: &MeshRef) -> Result<MeshData, DrawError> {
    match mesh {
        MeshRef::Primitive(p) => Ok(p.mesh()),
        MeshRef::Gltf(g) if g.mesh.is_none() => Ok(load_gltf(&g.path)?),
        MeshRef::Gltf(g) => {
            let file = GltfFile::read(&g.path)?;
            let mesh = file.mesh(g.mesh.unwrap_or_default())?;
            file.warn_problems();
            Ok(mesh)
        }
        MeshRef::Empty => Ok(MeshData::default()),
    }
}

pub(super) fn to_point(v: [f32; 3]) -> Point3<f64> {
    Point3::new(f64::from(v[0]), f64::from(v[1]), f64::from(v[2]))
}

/// A mesh on the GPU and its local bounds.
#[derive(Clone, Copy, Debug)]
struct Entry {
    id: MeshId,
    min: Point3<f64>,
    max: Point3<f64>,
}

/// The GPU meshes of one scene, keyed by mesh reference.
#[derive(Debug, Default)]
pub struct SceneMeshes {
    entries: HashMap<MeshRef, Entry>,
    /// The surfaces of the meshes skinned objects pose.
    skin_surfaces: HashMap<MeshRef, Arc<skin::SkinSurface>>,
    /// The GPU meshes of posed objects, by [`skin::posed_key`].
    posed: HashMap<usize, skin::PosedEntry>,
    /// GPU meshes of poses no object shows any more, by the mesh they pose.
    spare: HashMap<MeshRef, Vec<MeshId>>,
    /// The material parts of each uploaded mesh (for posed copies).
    parts_of: HashMap<MeshRef, Vec<MeshPart>>,
}

/// How many objects a frame kept and culled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CullStats {
    pub drawn: usize,
    pub culled: usize,
}

impl SceneMeshes {
    /// Loads and uploads every distinct mesh the scene uses.
    pub fn upload(renderer: &mut Renderer, scene: &Scene) -> Result<SceneMeshes, DrawError> {
        SceneMeshes::upload_loaded(renderer, &LoadedMeshes::load(scene)?)
    }

    /// Uploads meshes loaded by [`LoadedMeshes::load`], each one once, with
    /// their images (as textures) and materials.
    pub fn upload_loaded(renderer: &mut Renderer, loaded: &LoadedMeshes) -> Result<SceneMeshes, DrawError> {
        let mut meshes = SceneMeshes::default();
        meshes.add_loaded(renderer, loaded)?;
        Ok(meshes)
    }

    /// Uploads the meshes of `loaded` not already here (an import's), each
    /// once, with the images and materials of `loaded` when one is new.
    pub fn add_loaded(&mut self, renderer: &mut Renderer, loaded: &LoadedMeshes) -> Result<(), DrawError> {
        let new: Vec<(&MeshRef, usize)> =
            loaded.slots.iter().filter(|(mesh, _)| !self.entries.contains_key(*mesh)).map(|(m, &s)| (m, s)).collect();
        if new.is_empty() {
            self.add_skin_surfaces(loaded);
            return Ok(());
        }
        let textures = loaded.images.iter().map(|i| renderer.add_texture(i)).collect::<Result<Vec<_>, _>>()?;
        // Metallic-roughness and normal images hold linear values: a
        // texture of their own.
        let mut linear: HashMap<usize, crate::render::TextureId> = HashMap::new();
        for t in loaded.materials.iter().flat_map(|m| [m.metallic_roughness, m.normal]).flatten() {
            if let std::collections::hash_map::Entry::Vacant(e) = linear.entry(t.image) {
                e.insert(renderer.add_linear_texture(&loaded.images[t.image])?);
            }
        }
        // Occlusion images: linear too, one texture per image and strength,
        // the strength applied to R (1 + strength x (R - 1)).
        let mut occlusion: HashMap<(usize, u32), crate::render::TextureId> = HashMap::new();
        for m in &loaded.materials {
            let Some(t) = m.occlusion else { continue };
            let key = (t.image, m.occlusion_strength.to_bits());
            if let std::collections::hash_map::Entry::Vacant(e) = occlusion.entry(key) {
                let mut image = (*loaded.images[t.image]).clone();
                // The texels change: a Basis file no longer describes them.
                image.basis = None;
                let strength = m.occlusion_strength.clamp(0.0, 1.0);
                for px in image.rgba.chunks_exact_mut(4) {
                    let r = 1.0 + strength * (f32::from(px[0]) / 255.0 - 1.0);
                    px[0] = (r * 255.0).round().clamp(0.0, 255.0) as u8;
                }
                e.insert(renderer.add_linear_texture(&image)?);
            }
        }
        let mut materials = Vec::with_capacity(loaded.materials.len());
        for m in &loaded.materials {
            let desc = MaterialDesc {
                base_color: m.base_color,
                texture: m.texture.map(|t| (textures[t.image], t.sampler, t.uv)),
                alpha: m.alpha,
                unlit: m.unlit,
                metallic: m.metallic,
                roughness: m.roughness,
                metallic_roughness_texture: m.metallic_roughness.map(|t| (linear[&t.image], t.sampler, t.uv)),
                emissive: m.emissive,
                emissive_texture: m.emissive_texture.map(|t| (textures[t.image], t.sampler, t.uv)),
                occlusion_texture: m
                    .occlusion
                    .map(|t| (occlusion[&(t.image, m.occlusion_strength.to_bits())], t.sampler, t.uv)),
                normal_texture: m.normal.map(|t| (linear[&t.image], t.sampler, t.uv)),
                normal_scale: m.normal_scale,
                double_sided: m.double_sided,
            };
            materials.push(renderer.add_material(&desc)?);
        }
        let mut uploaded: HashMap<usize, Entry> = HashMap::new();
        let mut parts_by_slot: HashMap<usize, Vec<MeshPart>> = HashMap::new();
        for (mesh, slot) in new {
            let entry = match uploaded.get(&slot) {
                Some(e) => *e,
                None => {
                    let (data, surface) = (&loaded.data[slot], &loaded.surfaces[slot]);
                    let (lo, hi) = data.bounds();
                    let parts: Vec<MeshPart> = surface
                        .parts
                        .iter()
                        .map(|p| MeshPart {
                            first: p.first,
                            count: p.count,
                            material: p.material.map_or(MaterialId::DEFAULT, |m| materials[m]),
                        })
                        .collect();
                    let id = renderer.add_mesh_surface(
                        data,
                        MeshSurface {
                            uvs: &surface.uvs,
                            uvs1: (!surface.uvs1.is_empty()).then_some(&surface.uvs1[..]),
                            colors: &surface.colors,
                            tangents: (!surface.tangents.is_empty()).then_some(&surface.tangents[..]),
                            parts: &parts,
                        },
                    )?;
                    parts_by_slot.insert(slot, parts);
                    *uploaded.entry(slot).or_insert(Entry { id, min: to_point(lo), max: to_point(hi) })
                }
            };
            self.entries.insert(mesh.clone(), entry);
            if let Some(parts) = parts_by_slot.get(&slot) {
                self.parts_of.insert(mesh.clone(), parts.clone());
            }
        }
        self.add_skin_surfaces(loaded);
        Ok(())
    }

    pub fn get(&self, mesh: &MeshRef) -> Option<MeshId> {
        self.entries.get(mesh).map(|e| e.id)
    }

    /// Local bounds of a mesh, once uploaded.
    pub fn bounds(&self, mesh: &MeshRef) -> Option<(Point3<f64>, Point3<f64>)> {
        self.entries.get(mesh).map(|e| (e.min, e.max))
    }

    /// A frame showing `scene` from `camera` in a `width` x `height`
    /// viewport; `selected` objects are outlined (the last one as the
    /// active object), objects outside the view frustum are left out. Each
    /// object's id buffer value is its id + 1 (dead slots draw nothing).
    pub fn frame(
        &self,
        scene: &Scene,
        camera: Camera,
        depth: DepthMode,
        selected: &[usize],
        (width, height): (u32, u32),
    ) -> (FrameDesc, CullStats) {
        let worlds = scene.world_matrices();
        let frustum = View::new(camera, width as f64, height as f64, depth).ok().map(|v| v.frustum());
        let mut frame = FrameDesc::new(camera, depth);
        let mut stats = CullStats::default();
        let highlight = Highlighter::new(selected);
        for (i, world) in worlds.iter().enumerate().filter(|(i, _)| scene.contains(*i)) {
            self.push_object(&mut frame, &mut stats, scene, i, world, frustum.as_ref(), &highlight, None);
        }
        (frame, stats)
    }

    /// Object `i` into `frame` if it draws a mesh and its box meets the
    /// frustum (a degenerate, zero-scale object has no box and is drawn).
    #[allow(clippy::too_many_arguments)]
    fn push_object(
        &self,
        frame: &mut FrameDesc,
        stats: &mut CullStats,
        scene: &Scene,
        i: usize,
        world: &Matrix4<f64>,
        frustum: Option<&Frustum>,
        highlight: &Highlighter,
        posed: Option<&Arc<PickMesh>>,
    ) {
        let o = &scene.objects()[i];
        let posed = posed.and_then(|p| self.posed.get(&skin::posed_key(p))).map(|p| &p.entry);
        let Some((e, color)) = appearance(scene, i, o, |m| posed.or_else(|| self.entries.get(m))) else { return };
        if let Some(f) = frustum {
            let visible = Obb::from_local_aabb(&e.min, &e.max, world).is_none_or(|b| {
                let (lo, hi) = b.aabb();
                f.intersects_aabb(&lo, &hi)
            });
            if !visible {
                stats.culled += 1;
                return;
            }
        }
        stats.drawn += 1;
        frame.objects.push(DrawObject {
            mesh: e.id,
            world: *world,
            color,
            id: i as u32 + 1,
            highlight: highlight.of(i),
        });
    }

    /// The frame of the editor's state as the window and headless runs draw
    /// it: skinned objects posed first ([`SceneMeshes::pose_skins`]), then
    /// the GPU-driven path when `gpu` is given and the device supports it
    /// ([`SceneMeshes::gpu_frame`], [`Renderer::supports_gpu_culling`]),
    /// else the CPU-culled [`SceneMeshes::editor_frame`]. The GPU path's
    /// object records name the shared meshes, not posed copies, so a scene
    /// with posed skins is drawn by the CPU path (the GPU copy catches up
    /// from the change log when it is used again).
    pub fn frame_for(
        &mut self,
        editor: &Editor,
        renderer: &mut Renderer,
        gpu: Option<&mut GpuSync>,
    ) -> Result<FrameDesc, DrawError> {
        self.pose_skins(renderer, editor)?;
        match gpu {
            Some(sync) if editor.posed_meshes().next().is_none() && renderer.supports_gpu_culling() => {
                self.gpu_frame(editor, renderer, sync)
            }
            _ => Ok(self.editor_frame(editor).0),
        }
    }

    /// The frame for an editor's current state, gizmo overlay included.
    /// Culling walks the editor's pick tree, so only objects near the view
    /// are looked at (their world matrices computed, their boxes tested):
    /// the cost follows what is in view, not the scene. `stats.culled`
    /// counts only the objects the walk looked at and dropped.
    pub fn editor_frame(&self, editor: &Editor) -> (FrameDesc, CullStats) {
        let (w, h) = editor.size();
        let scene = editor.scene();
        // The views' frustums: one, or the quad view's four (an object in
        // any of them is drawn; each view's clipping does the rest).
        let views = editor.views();
        let frustums: Option<Vec<Frustum>> = (0..views.len()).map(|k| editor.view_of(k).map(|v| v.frustum())).collect();
        let (mut frame, stats) = match frustums {
            Some(frustums) if !frustums.is_empty() => {
                let mut ids = Vec::new();
                for f in &frustums {
                    editor.visit_in_frustum(f, |i| ids.push(i));
                }
                // Scene order, as `frame` draws: of two coincident objects
                // the last drawn keeps its id in the id buffer (the depth
                // test passes on equal depth).
                ids.sort_unstable();
                if frustums.len() > 1 {
                    ids.dedup();
                }
                let mut frame = FrameDesc::new(editor.shown_camera(), editor.depth);
                // At most one draw an object in view: no doubling growth.
                frame.objects.reserve_exact(ids.len());
                let mut stats = CullStats::default();
                let highlight = Highlighter::of_editor(editor);
                let one = (frustums.len() == 1).then(|| &frustums[0]);
                for i in ids {
                    let world = scene.world_matrix(i);
                    let posed = editor.posed_mesh(i);
                    self.push_object(&mut frame, &mut stats, scene, i, &world, one, &highlight, posed);
                }
                (frame, stats)
            }
            // No usable view: everything, as `frame` draws it.
            _ => self.frame(scene, editor.shown_camera(), editor.depth, editor.selection(), (w as u32, h as u32)),
        };
        set_views(editor, &mut frame);
        frame.overlay = editor.overlay();
        self.light_frame(editor, &mut frame);
        frame.selection_rect = editor.selection_rect();
        (frame, stats)
    }
}

/// The quad view's four views, each with its overlay (none in the single
/// view: `frame.camera` and `frame.overlay` over the whole target), and a
/// camera's frame while looking through one.
fn set_views(editor: &Editor, frame: &mut FrameDesc) {
    // A camera's frame while looking through it (darkened around).
    frame.camera_frame = editor.camera_frame().map(|[x, y, w, h]| [x, y, x + w, y + h].map(|v| v as f32));
    if editor.is_quad() {
        frame.views = editor
            .views()
            .iter()
            .enumerate()
            .map(|(k, v)| FrameView { camera: v.camera, rect: v.rect, overlay: editor.overlay_of(k) })
            .collect();
    }
}

impl SceneMeshes {
    /// Sets what `frame` shows of the editor's lighting: the shading mode
    /// and lights, the scene's lights placed by their objects (shown ones,
    /// when the lighting turns them on), the grid, the background.
    fn light_frame(&self, editor: &Editor, frame: &mut FrameDesc) {
        let scene = editor.scene();
        // Every shown light and camera object has its icon in every view,
        // in its colour or the selection's (`docs/spec/lights.md`).
        let lights: Vec<(usize, crate::look::LightDef)> = scene.shown_lights().map(|(i, l)| (i, l.def())).collect();
        for i in editor.icon_objects() {
            let Some(o) = scene.get(i) else { continue };
            // A selected one also shows its cone, range or frustum.
            let selected = editor.is_selected(i);
            let color = if editor.active() == Some(i) {
                crate::render::passes::outline::ACTIVE_OUTLINE
            } else if selected {
                crate::render::passes::outline::SELECTED_OUTLINE
            } else {
                [o.color[0], o.color[1], o.color[2], 1.0]
            };
            let world = scene.world_matrix(i);
            let icon = |v: &crate::math::View| {
                let mut out = Vec::new();
                if let Some(l) = o.light() {
                    out.extend(light_icon::light_icon(&l.def().kind, &world, v, color));
                    if selected {
                        out.extend(light_icon::light_shape(l, &world, v, color));
                    }
                }
                if let Some(c) = o.camera() {
                    out.extend(light_icon::camera_icon(&world, v, color));
                    if selected {
                        out.extend(light_icon::camera_shape(c, v.width() / v.height(), &world, v, color));
                    }
                }
                out
            };
            if frame.views.is_empty() {
                if let Some(v) = editor.view_of(0) {
                    frame.overlay.extend(icon(&v));
                }
            }
            for (k, view) in frame.views.iter_mut().enumerate() {
                if let Some(v) = editor.view_of(k) {
                    view.overlay.extend(icon(&v));
                }
            }
        }
        // Which lights light the frame: the scene's light objects where it
        // has a shown one (`scene_lights` "auto"), else the built-in sun.
        let scene_lit = editor.lighting.scene_lights.lit(!lights.is_empty());
        if scene_lit {
            frame.lights =
                lights.iter().filter_map(|(i, def)| PunctualLight::placed(def, &scene.world_matrix(*i))).collect();
            // Beyond what a frame takes, the lights nearest the camera win.
            if frame.lights.len() > crate::look::LIGHTS_PER_FRAME {
                crate::look::nearest_first(&mut frame.lights, &editor.shown_camera().eye);
            }
        }
        set_lighting(editor, frame);
        frame.lighting.scene_lights = crate::look::SceneLights::from_lit(scene_lit);
        frame.shadows = self.shadows(editor, frame);
    }
}

/// Sets what `frame` shows of the editor's lighting: the shading mode and
/// sun, the grid, the background.
fn set_lighting(editor: &Editor, frame: &mut FrameDesc) {
    frame.lighting = editor.lighting;
    frame.grid = editor.lighting.grid;
    frame.background = editor.lighting.clear_color(FrameDesc::BACKGROUND);
}

/// Whether and how a frame draws scene object `o`: the mesh it draws
/// (`mesh` finds the uploaded one for a mesh reference) and its colour, or
/// `None` when it draws nothing. Both frame builders read objects through
/// here (the CPU path's instances in [`SceneMeshes::push_object`], the GPU
/// path's records, its blended list and its outline list in `gpu.rs`), so
/// per-object state that decides what is drawn is added in this one place.
///
/// A hidden object, or one under a hidden ancestor ([`Scene::is_hidden`]),
/// draws nothing (nor its id): free while no object is hidden.
fn appearance<'o, E>(
    scene: &Scene,
    i: usize,
    o: &'o Object,
    mesh: impl FnOnce(&'o MeshRef) -> Option<E>,
) -> Option<(E, [f32; 3])> {
    if scene.is_hidden(i) {
        return None;
    }
    Some((mesh(&o.mesh)?, o.color))
}

/// How each object is highlighted: the last selected is active, the other
/// selected ones selected. Membership comes from the editor's selection
/// (a flag per object) or, for a plain list, from an [`IdSet`] of it.
struct Highlighter<'a> {
    active: Option<usize>,
    selected: Selected<'a>,
}

enum Selected<'a> {
    Editor(&'a Editor),
    List(IdSet<'a>),
}

impl<'a> Highlighter<'a> {
    fn new(selected: &'a [usize]) -> Highlighter<'a> {
        Highlighter { active: selected.last().copied(), selected: Selected::List(IdSet::new(selected)) }
    }

    fn of_editor(editor: &'a Editor) -> Highlighter<'a> {
        Highlighter { active: editor.active(), selected: Selected::Editor(editor) }
    }

    fn of(&self, i: usize) -> Highlight {
        let selected = self.active == Some(i)
            || match &self.selected {
                Selected::Editor(e) => e.is_selected(i),
                Selected::List(s) => s.contains(i),
            };
        if selected {
            self.of_selected(i)
        } else {
            Highlight::None
        }
    }

    /// How `i`, known to be selected, is highlighted (no membership to
    /// look up).
    fn of_selected(&self, i: usize) -> Highlight {
        if self.active == Some(i) {
            Highlight::Active
        } else {
            Highlight::Selected
        }
    }
}

/// The renderer's last frame as the editor reads it ([`FrameProbe`]): the
/// depth under the cursor and the objects in a selection box. The first
/// failed read (a lost device, say) is kept in `failed` for the caller: it
/// is an error, not "nothing there".
pub struct RenderProbe<'a> {
    pub renderer: &'a mut Renderer,
    pub failed: Option<RenderError>,
}

impl<'a> RenderProbe<'a> {
    pub fn new(renderer: &'a mut Renderer) -> RenderProbe<'a> {
        RenderProbe { renderer, failed: None }
    }
}

impl FrameProbe for RenderProbe<'_> {
    fn depth_at(&mut self, p: nalgebra::Point2<f64>) -> Option<f64> {
        match self.renderer.depth_at(p.x, p.y) {
            Ok(d) => d,
            Err(e) => {
                self.failed.get_or_insert(e);
                None
            }
        }
    }

    /// From the object-ID buffer: the ids of the pixels whose centres lie
    /// in the box (a small region read-back).
    fn objects_in(&mut self, min: nalgebra::Point2<f64>, max: nalgebra::Point2<f64>) -> Option<Vec<usize>> {
        // Pixel (x, y) has its centre at (x + 0.5, y + 0.5).
        let first = |v: f64| (v - 0.5).ceil().max(0.0);
        let last = |v: f64| (v - 0.5).floor();
        let (x0, y0, x1, y1) = (first(min.x), first(min.y), last(max.x), last(max.y));
        if !(x0 <= x1 && y0 <= y1 && x1.is_finite() && y1.is_finite()) {
            return Some(Vec::new());
        }
        let (w, h) = ((x1 - x0) as u32 + 1, (y1 - y0) as u32 + 1);
        match self.renderer.read_region(x0 as u32, y0 as u32, w, h) {
            Ok(region) => {
                let mut ids: Vec<usize> = region.ids.iter().filter(|&&id| id > 0).map(|&id| id as usize - 1).collect();
                ids.sort_unstable();
                ids.dedup();
                Some(ids)
            }
            // No frame yet: the editor casts rays instead.
            Err(RenderError::NothingDrawn) => None,
            Err(e) => {
                self.failed.get_or_insert(e);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests;
