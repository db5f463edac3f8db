//! The frame description: what the renderer is asked to draw (camera,
//! depth mode, scene objects, overlay instances, UI), the ids of what it
//! holds, and what it reports back (statistics, read-backs).

use std::time::Duration;

use nalgebra::Matrix4;

use crate::gizmo::OverlayInstance;
use crate::look::{Lighting, PunctualLight};
use crate::math::{Camera, DepthMode};
use crate::scene::material::{AlphaMode, SamplerDesc, UvMap};

/// Number of frames the CPU may record ahead of the GPU.
pub const FRAMES_IN_FLIGHT: usize = 2;

/// The most views one frame draws ([`FrameDesc::views`]): the quad view's four.
pub const MAX_VIEWS: usize = 4;

/// The lighting block's slot of view `k` in frame in flight `fi`.
pub(crate) fn lighting_slot(fi: usize, k: usize) -> usize {
    fi * MAX_VIEWS + k.min(MAX_VIEWS - 1)
}

/// Handle of a mesh uploaded with [`Renderer::add_mesh`](crate::render::Renderer::add_mesh).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MeshId(pub u32);

/// Handle of a texture uploaded with [`Renderer::add_texture`](crate::render::Renderer::add_texture).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextureId(pub u32);

/// Handle of a material added with [`Renderer::add_material`](crate::render::Renderer::add_material).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaterialId(pub u32);

impl MaterialId {
    /// White, opaque, lit, untextured: every renderer has it.
    pub const DEFAULT: MaterialId = MaterialId(0);
}

/// A texture of a material: the texture, how to sample it, and which UV
/// set it reads moved by which transform (`KHR_texture_transform`).
pub type MaterialTexture = (TextureId, SamplerDesc, UvMap);

/// A material to add with [`Renderer::add_material`](crate::render::Renderer::add_material): the base colour
/// is `base_color` x the texture x the vertex colour x the object's colour,
/// lit unless `unlit` (in the `material` shading mode by the glTF
/// metallic-roughness model, `docs/spec/materials.md`). Each texture reads
/// its own UV set of the mesh ([`MeshSurface`]) through its own transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialDesc {
    /// Linear RGBA.
    pub base_color: [f32; 4],
    /// A texture (sRGB) and how to sample it.
    pub texture: Option<MaterialTexture>,
    pub alpha: AlphaMode,
    pub unlit: bool,
    pub metallic: f32,
    pub roughness: f32,
    /// A texture of linear values ([`Renderer::add_linear_texture`](crate::render::Renderer::add_linear_texture)):
    /// B scales `metallic`, G `roughness`.
    pub metallic_roughness_texture: Option<MaterialTexture>,
    /// Linear RGB, added to the lit colour.
    pub emissive: [f32; 3],
    /// An sRGB texture scaling `emissive`.
    pub emissive_texture: Option<MaterialTexture>,
    /// A texture of linear values whose R channel scales the environment's
    /// light (diffuse and specular), the occlusion strength already
    /// applied: `1 + strength x (R - 1)`.
    pub occlusion_texture: Option<MaterialTexture>,
    /// A texture of linear values holding tangent-space normals (RGB in
    /// [0, 1] for [-1, 1]), read with the mesh's tangents
    /// ([`Renderer::add_mesh_with_tangents`](crate::render::Renderer::add_mesh_with_tangents)):
    /// the material mode lights the mapped normal.
    pub normal_texture: Option<MaterialTexture>,
    /// Scales the mapped normal's x and y (glTF's `normalTexture.scale`).
    pub normal_scale: f32,
    /// `false`: back faces are not drawn (nor written to the ID target);
    /// front faces are counter-clockwise on screen, clockwise where the
    /// object's matrix mirrors.
    pub double_sided: bool,
}

impl Default for MaterialDesc {
    /// White, opaque, lit, untextured, a rough dielectric (metallic 0,
    /// roughness 0.5), not emissive, double-sided.
    fn default() -> MaterialDesc {
        MaterialDesc {
            base_color: [1.0; 4],
            texture: None,
            alpha: AlphaMode::Opaque,
            unlit: false,
            metallic: 0.0,
            roughness: 0.5,
            metallic_roughness_texture: None,
            emissive: [0.0; 3],
            emissive_texture: None,
            occlusion_texture: None,
            normal_texture: None,
            normal_scale: 1.0,
            double_sided: true,
        }
    }
}

/// What a scene mesh has besides positions and normals, for
/// [`Renderer::add_mesh_surface`](crate::render::Renderer::add_mesh_surface):
/// per vertex two UV sets, a linear RGBA colour and a tangent, and its
/// parts (index ranges with their materials).
#[derive(Clone, Copy, Debug)]
pub struct MeshSurface<'a> {
    /// `TEXCOORD_0`, one per vertex.
    pub uvs: &'a [[f32; 2]],
    /// `TEXCOORD_1`, one per vertex, or none (zero).
    pub uvs1: Option<&'a [[f32; 2]]>,
    pub colors: &'a [[f32; 4]],
    /// Tangents (xyz) with the bitangent's sign (w, `w x (normal x
    /// tangent)`), for normal textures ([`MaterialDesc::normal_texture`]),
    /// or none (zero).
    pub tangents: Option<&'a [[f32; 4]]>,
    pub parts: &'a [MeshPart],
}

/// A range of a mesh's indices drawn with one material.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshPart {
    pub first: u32,
    pub count: u32,
    pub material: MaterialId,
}

/// How a scene object is marked as selected: an outline drawn around its
/// visible pixels (its own colour is left untouched).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Highlight {
    #[default]
    None,
    /// Part of the selection: orange outline.
    Selected,
    /// The active object (the last selected): light yellow outline.
    Active,
}

impl Highlight {
    /// The value the outline shader reads from the per-id table.
    pub(crate) fn code(self) -> u32 {
        match self {
            Highlight::None => 0,
            Highlight::Selected => 1,
            Highlight::Active => 2,
        }
    }
}

/// One scene object to draw.
#[derive(Clone, Copy, Debug)]
pub struct DrawObject {
    pub mesh: MeshId,
    pub world: Matrix4<f64>,
    /// Linear RGB.
    pub color: [f32; 3],
    /// Written to the object-ID target wherever the object is the visible
    /// surface: the scene object index + 1 (0 is the background). Ids should
    /// be small and unique; the outline's per-id table has `max id + 1` entries.
    pub id: u32,
    pub highlight: Highlight,
}

/// Everything one frame shows.
#[derive(Clone, Debug)]
pub struct FrameDesc {
    pub camera: Camera,
    pub depth: DepthMode,
    pub objects: Vec<DrawObject>,
    pub grid: bool,
    /// Linear RGB clear colour.
    pub background: [f32; 3],
    /// The shading mode and what lights the scene (its `grid` and
    /// `background` are the callers' business: see the fields above).
    pub lighting: Lighting,
    /// The scene's lights in world space, lighting the `material` mode in
    /// place of the sun while `lighting.scene_lights` is on (the first 8).
    pub lights: Vec<PunctualLight>,
    /// Gizmo geometry, drawn in the overlay pass after the scene.
    pub overlay: Vec<OverlayInstance>,
    /// Several views in one frame (the quad view): each draws the scene,
    /// the grid and its own overlay from its own camera into its own
    /// rectangle; the pixels no view covers show [`FrameDesc::SEPARATOR`].
    /// Empty: one view, `camera` and `overlay` over the whole target. At
    /// most [`MAX_VIEWS`] are drawn.
    pub views: Vec<FrameView>,
    /// Box-selection rectangle (x0, y0, x1, y1 in physical pixels, any
    /// corner order), drawn on top of everything.
    pub selection_rect: Option<[f32; 4]>,
    /// A camera's frame while looking through it (x0, y0, x1, y1 in
    /// physical pixels): everything outside it is darkened.
    pub camera_frame: Option<[f32; 4]>,
    /// The UI (egui), drawn last, over everything.
    pub ui: Option<UiDraw>,
    /// GPU culling (in every view, each culled against its own camera):
    /// draw the renderer's persistent scene objects
    /// ([`Renderer::set_scene_objects`](crate::render::Renderer::set_scene_objects)), culled by a compute pass, then
    /// `objects`. The compute pass skips meshes with blended parts
    /// ([`Renderer::mesh_is_blended`](crate::render::Renderer::mesh_is_blended)): their objects belong in `objects`,
    /// which are sorted back to front as on the CPU path.
    pub gpu_scene: Option<GpuSceneFrame>,
    /// A directional light's shadows (the material mode; `None`: none).
    pub shadows: Option<ShadowDesc>,
}

/// The shadows of one directional light in a frame
/// ([`crate::look::shadow`]): its cascades and, per cascade, the objects
/// that cast into it (drawn depth only from the light's view).
#[derive(Clone, Debug)]
pub struct ShadowDesc {
    pub cascades: [crate::look::shadow::Cascade; crate::look::shadow::CASCADES],
    /// Which light casts: `None` the built-in sun, `Some(k)` the frame's
    /// `lights[k]` (a directional light).
    pub light: Option<usize>,
    /// Per cascade, its casters.
    pub casters: [Vec<DrawObject>; crate::look::shadow::CASCADES],
}

/// One view of a frame with several ([`FrameDesc::views`]).
#[derive(Clone, Debug)]
pub struct FrameView {
    pub camera: Camera,
    /// x, y, width, height in target pixels (clipped to the target).
    pub rect: [u32; 4],
    /// Gizmo geometry sized for this view.
    pub overlay: Vec<OverlayInstance>,
}

/// What a GPU-culled frame adds ([`FrameDesc::gpu_scene`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuSceneFrame {
    /// Outlined objects by id (scene index + 1). Shared, so that a caller
    /// can keep the list of a large selection between frames.
    pub highlights: std::sync::Arc<[(u32, Highlight)]>,
}

impl FrameDesc {
    pub const BACKGROUND: [f32; 3] = [0.035, 0.04, 0.05];
    /// Linear RGB of the lines between views.
    pub const SEPARATOR: [f32; 3] = [0.006, 0.007, 0.008];

    pub fn new(camera: Camera, depth: DepthMode) -> FrameDesc {
        FrameDesc {
            camera,
            depth,
            objects: Vec::new(),
            grid: true,
            background: Self::BACKGROUND,
            lighting: Lighting::default(),
            lights: Vec::new(),
            overlay: Vec::new(),
            views: Vec::new(),
            selection_rect: None,
            camera_frame: None,
            ui: None,
            gpu_scene: None,
            shadows: None,
        }
    }
}

/// What drawing a frame did.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameStats {
    /// False when nothing was drawn (minimised window, swapchain recreated).
    pub presented: bool,
    /// Draws of the scene and grid (with MSAA those of the multisampled
    /// colour pass; the single-sample ids + depth pass repeats the scene's).
    pub draw_calls: u32,
    pub instances: u32,
    /// Draws of the overlay pass: at most one per gizmo mesh kind.
    pub overlay_draw_calls: u32,
    pub overlay_instances: u32,
    /// Draws of the shadow pass, every cascade together.
    pub shadow_draw_calls: u32,
    /// GPU culling: scene object records copied to the GPU by this frame
    /// (the objects changed since the last frame).
    pub uploaded_objects: u32,
    /// CPU time spent recording the command buffer.
    pub record_time: Duration,
}

/// An RGBA8 image read back from the GPU (sRGB-encoded), rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

/// A rectangle of the last drawn frame's object ids and scene depth
/// ([`Renderer::read_region`](crate::render::Renderer::read_region)), rows top to bottom, `width * height` values each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Region {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    /// Object id per pixel (0: background).
    pub ids: Vec<u32>,
    /// Depth-buffer value per pixel (the clear value where nothing was drawn).
    pub depth: Vec<f32>,
}

impl Region {
    /// (id, depth) at image pixel (`x`, `y`), if it lies in the region.
    pub fn at(&self, x: u32, y: u32) -> Option<(u32, f32)> {
        if x < self.x || y < self.y || x >= self.x + self.width || y >= self.y + self.height {
            return None;
        }
        let i = ((y - self.y) * self.width + (x - self.x)) as usize;
        Some((self.ids[i], self.depth[i]))
    }
}

impl RgbaImage {
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.data[i], self.data[i + 1], self.data[i + 2], self.data[i + 3]]
    }
}

/// What the UI draws in one frame (built by [`crate::ui::Ui`]).
#[derive(Clone, Default)]
pub struct UiDraw {
    /// egui's tessellated output, in points.
    pub primitives: Vec<egui::ClippedPrimitive>,
    /// Texture changes since the last drawn frame (the font atlas), in order.
    /// (Plain lists: egui's own `TexturesDelta` insists on being applied
    /// before it drops, which a cloned frame description would break.)
    pub set_textures: Vec<(egui::TextureId, egui::epaint::ImageDelta)>,
    /// Textures to free once the frame is drawn.
    pub free_textures: Vec<egui::TextureId>,
    /// Physical pixels per egui point: the UI scale `u`.
    pub pixels_per_point: f32,
}

impl std::fmt::Debug for UiDraw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UiDraw")
            .field("primitives", &self.primitives.len())
            .field("set_textures", &self.set_textures.len())
            .field("free_textures", &self.free_textures)
            .field("pixels_per_point", &self.pixels_per_point)
            .finish()
    }
}
