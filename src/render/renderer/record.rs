//! Recording one frame: the rendering scopes of the passes, in order,
//! and the barriers between them.

use ash::vk;

use super::plan::{Barrier, Color, FramePlan, Pass, PlanInputs};
use super::{Renderer, Target};
use nalgebra::Matrix4;

use crate::gizmo::OverlayInstance;
use crate::look::shadow::SHADOW_MAP_SIZE;
use crate::math::{Camera, DepthMode, View};
use crate::render::assets::environment::LightingBlock;
use crate::render::assets::material::{Materials, LIGHTING_STRIDE};
use crate::render::assets::mesh::GpuMesh;
use crate::render::cull::compute::CullInputs;
use crate::render::cull::small::{GpuSmallCull, SmallCull};
use crate::render::desc::{lighting_slot, DrawObject, FrameDesc, FrameStats, MaterialId, MAX_VIEWS};
use crate::render::device::barrier::{self, Transition};
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::pipeline::{set_full_viewport, set_viewport};
use crate::render::passes::grid::GridInputs;
use crate::render::passes::outline::highlight_table;
use crate::render::passes::overlay::OverlayFrame;
use crate::render::passes::scene::{SceneBatches, SceneInputs, SceneInstance, ScenePush};
use crate::render::renderer::image_copies;
use crate::render::renderer::target::Depths;

/// One attachment of a rendering scope: its view, and the value to clear
/// it to (None: load the previous contents).
struct Attachment {
    view: vk::ImageView,
    clear: Option<vk::ClearValue>,
    store: vk::AttachmentStoreOp,
    /// A multisampled colour attachment's resolve target (averaged into it
    /// at the end of the scope, in the same layout).
    resolve: Option<vk::ImageView>,
}

impl Attachment {
    fn new(view: vk::ImageView, clear: Option<vk::ClearValue>, store: vk::AttachmentStoreOp) -> Attachment {
        Attachment { view, clear, store, resolve: None }
    }

    /// No image: the pipelines' writes to it are discarded.
    fn none() -> Attachment {
        Attachment::new(vk::ImageView::null(), None, vk::AttachmentStoreOp::DONT_CARE)
    }

    fn info(&self, layout: vk::ImageLayout) -> vk::RenderingAttachmentInfo<'static> {
        let mut info =
            vk::RenderingAttachmentInfo::default().image_view(self.view).image_layout(layout).store_op(self.store);
        if let Some(resolve) = self.resolve {
            info = info
                .resolve_mode(vk::ResolveModeFlags::AVERAGE)
                .resolve_image_view(resolve)
                .resolve_image_layout(layout);
        }
        match self.clear {
            Some(c) => info.load_op(vk::AttachmentLoadOp::CLEAR).clear_value(c),
            None => info.load_op(vk::AttachmentLoadOp::LOAD),
        }
    }
}

/// One cascade of the frame's shadows: the light's projection and the
/// casters' batches (their instances at `first_instance`).
struct ShadowView<'a> {
    projection: Matrix4<f64>,
    batches: SceneBatches<'a>,
    first_instance: u32,
}

/// Begins a rendering scope over the whole of `extent`.
///
/// # Safety
/// `cmd` is recording outside a rendering scope; the images are in the
/// attachment layouts.
unsafe fn begin_rendering(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    extent: vk::Extent2D,
    colors: &[Attachment],
    depth: Option<Attachment>,
) {
    let colors: Vec<_> = colors.iter().map(|c| c.info(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)).collect();
    let depth = depth.map(|a| a.info(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL));
    let mut info = vk::RenderingInfo::default()
        .render_area(vk::Rect2D { offset: vk::Offset2D::default(), extent })
        .layer_count(1)
        .color_attachments(&colors);
    if let Some(depth) = depth.as_ref() {
        info = info.depth_attachment(depth);
    }
    d.cmd_begin_rendering(cmd, &info);
}

/// A colour-only rendering scope that keeps `color`'s contents, for the
/// screen-space passes (outline, selection rectangle).
///
/// # Safety
/// As [`begin_rendering`].
unsafe fn begin_screen_pass(d: &ash::Device, cmd: vk::CommandBuffer, extent: vk::Extent2D, color: Attachment) {
    begin_rendering(d, cmd, extent, &[color], None);
    set_full_viewport(d, cmd, extent);
}

/// Records the barrier a plan puts before a scope: scene depth and ids to
/// sampled, and earlier colour writes before later ones.
///
/// # Safety
/// `cmd` is recording outside a rendering scope.
unsafe fn record_barrier(d: &ash::Device, cmd: vk::CommandBuffer, b: Barrier, depths: &Depths) {
    if !b.any() {
        return;
    }
    let reads = [(Transition::SceneDepthToRead, depths.scene.raw), (Transition::IdsToRead, depths.ids.raw)];
    let transitions: &[_] = if b.scene_to_read { &reads } else { &[] };
    let colors: &[_] = if b.color { &[barrier::color_after_color()] } else { &[] };
    barrier::record(d, cmd, transitions, colors);
}

fn depth_clear(value: f32) -> Option<vk::ClearValue> {
    Some(vk::ClearValue { depth_stencil: vk::ClearDepthStencilValue { depth: value, stencil: 0 } })
}

/// One view of the frame being recorded: its camera's matrices, its
/// rectangle, its batches (their instances at `first_instance` of the
/// frame's instance buffer) and its overlay.
struct ViewRecord<'a> {
    camera: Camera,
    rect: vk::Rect2D,
    view: Matrix4<f64>,
    projection: Matrix4<f64>,
    batches: SceneBatches<'a>,
    first_instance: u32,
    overlay: &'a [OverlayInstance],
}

impl ViewRecord<'_> {
    fn aspect(&self) -> f64 {
        f64::from(self.rect.extent.width) / f64::from(self.rect.extent.height.max(1))
    }
}

/// The views of `desc` in `extent`: its [`FrameDesc::views`] clipped to
/// the target (empty ones dropped, at most [`MAX_VIEWS`]), or the one view
/// of `camera` over the whole target.
fn frame_views(desc: &FrameDesc, extent: vk::Extent2D) -> Vec<(Camera, vk::Rect2D, &[OverlayInstance])> {
    let whole = vk::Rect2D { offset: vk::Offset2D::default(), extent };
    if desc.views.is_empty() {
        return vec![(desc.camera, whole, &desc.overlay[..])];
    }
    desc.views
        .iter()
        .filter_map(|v| {
            let [x, y, w, h] = v.rect;
            let (x, y) = (x.min(extent.width), y.min(extent.height));
            let (w, h) = (w.min(extent.width - x), h.min(extent.height - y));
            let rect = vk::Rect2D {
                offset: vk::Offset2D { x: x as i32, y: y as i32 },
                extent: vk::Extent2D { width: w, height: h },
            };
            (w > 0 && h > 0).then_some((v.camera, rect, &v.overlay[..]))
        })
        .take(MAX_VIEWS)
        .collect()
}

/// Several views: clears the colour attachment 0 of the current scope
/// to `background` inside each view's rectangle (the scope cleared it
/// all to the separator colour).
///
/// # Safety
/// `cmd` is recording inside a rendering scope whose colour attachment 0
/// is an image.
unsafe fn clear_views(d: &ash::Device, cmd: vk::CommandBuffer, views: &[ViewRecord], background: vk::ClearValue) {
    let rects: Vec<vk::ClearRect> =
        views.iter().map(|v| vk::ClearRect { rect: v.rect, base_array_layer: 0, layer_count: 1 }).collect();
    let clear =
        vk::ClearAttachment { aspect_mask: vk::ImageAspectFlags::COLOR, color_attachment: 0, clear_value: background };
    d.cmd_clear_attachments(cmd, &[clear], &rects);
}

/// The highlight tables of several views' batches in one (an object is
/// outlined wherever any view draws it).
fn merged_highlights(views: &[ViewRecord]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for v in views {
        let h = &v.batches.highlights;
        if out.len() < h.len() {
            out.resize(h.len(), 0);
        }
        for (o, &c) in out.iter_mut().zip(h) {
            *o = (*o).max(c);
        }
    }
    out
}

/// What the scene pass needs to draw view `v`.
fn v_scene_inputs<'a>(
    v: &'a ViewRecord<'a>,
    meshes: &'a [GpuMesh],
    materials: &'a Materials,
    depth: DepthMode,
    instance_buffer: vk::Buffer,
    lighting_slot: usize,
) -> SceneInputs<'a> {
    SceneInputs {
        projection: v.projection,
        depth,
        batches: &v.batches,
        meshes,
        materials,
        instance_buffer,
        first_instance: v.first_instance,
        lighting_slot,
    }
}

impl Renderer {
    /// Records frame `fi`: per view, scene and grid into the target's
    /// colour, ids and scene depth; the selection outline; the overlay of
    /// every view against its own depth; the selection rectangle; then the
    /// hand-over.
    pub(super) fn record(
        &mut self,
        fi: usize,
        image_index: usize,
        desc: &FrameDesc,
    ) -> Result<FrameStats, RenderError> {
        let positions = self.small_cull_positions();
        let Renderer { parts, overlay, ui, ctx, capture_next, .. } = self;
        let (color_image, color_view, depths, extent) = match &parts.target {
            Target::Offscreen(o) => (o.color.raw, o.color.view, o.depths.as_ref(), o.extent()),
            Target::Window(s) => {
                (s.per_image.images[image_index], s.per_image.views[image_index], s.per_image.depths.as_ref(), s.extent)
            }
        };
        let depths: &Depths = depths.expect("a target with a size has depth images");
        let several = !desc.views.is_empty();

        // Per view: its matrices and batches, exact small-object culling
        // (`render/cull/small.rs`) against its own viewport.
        let bounds = &parts.bounds;
        let mut views: Vec<ViewRecord> = Vec::new();
        let mut first_instance = 0u32;
        for (camera, rect, overlay_instances) in frame_views(desc, extent) {
            let size = (rect.extent.width, rect.extent.height);
            let aspect = f64::from(size.0) / f64::from(size.1.max(1));
            let view = camera.view_matrix();
            let projection = camera.projection_matrix(aspect, desc.depth);
            let small = positions.as_ref().and_then(|p| SmallCull::new(camera, desc.depth, size, p));
            let keep = |o: &DrawObject| {
                let b = bounds.get(o.mesh.0 as usize);
                small.as_ref().zip(b).is_none_or(|(s, &b)| s.keeps(&o.world, b))
            };
            let batches = SceneBatches::new(&view, &desc.objects, &parts.blended, keep);
            let n = batches.len() as u32;
            views.push(ViewRecord {
                camera,
                rect,
                view,
                projection,
                batches,
                first_instance,
                overlay: overlay_instances,
            });
            first_instance += n;
        }
        // Each cascade's casters, seen from the light (after the views'
        // instances in the same buffer).
        let mut shadow_views: Vec<ShadowView> = Vec::new();
        for (c, casters) in desc.shadows.iter().flat_map(|s| s.cascades.iter().zip(&s.casters)) {
            let view = c.camera.view_matrix();
            let batches = SceneBatches::new(&view, casters, &parts.blended, |_| true);
            let n = batches.len() as u32;
            let projection = c.camera.projection_matrix(1.0, DepthMode::Standard);
            shadow_views.push(ShadowView { projection, batches, first_instance });
            first_instance += n;
        }
        let instance_size = std::mem::size_of::<SceneInstance>();
        let bytes = first_instance as usize * instance_size;
        let frame = &mut parts.frames[fi];
        // SAFETY: the frame's fence was waited for, so the GPU no longer
        // reads its instance buffer.
        let instance_buffer = unsafe { frame.instances.reserve(&ctx.gpu, bytes as u64)? };
        let mapped = instance_buffer.mapped().ok_or(RenderError::NotHostVisible("scene instances"))?;
        for (first, batches) in views
            .iter()
            .map(|v| (v.first_instance, &v.batches))
            .chain(shadow_views.iter().map(|s| (s.first_instance, &s.batches)))
        {
            let at = first as usize * instance_size;
            batches.write_instances(&mut mapped[at..at + batches.len() * instance_size]);
        }
        let instance_buffer = instance_buffer.raw;
        let highlights = if views.len() == 1 { views[0].batches.highlights.clone() } else { merged_highlights(&views) };
        let (outline, ids_view) = (&mut parts.outline, depths.ids.view);
        let gpu_frame = desc.gpu_scene.as_ref();
        // SAFETY (each prepare): the frame's fence was waited for.
        let outline = match gpu_frame {
            // The selection's shared list alone: its table is kept per slot.
            Some(g) if highlights.is_empty() => unsafe {
                outline.prepare_shared(&ctx.gpu, fi, ids_view, &g.highlights)?
            },
            Some(g) => unsafe {
                outline.prepare(&ctx.gpu, fi, ids_view, &highlight_table(&highlights, &g.highlights))?
            },
            None => unsafe { outline.prepare(&ctx.gpu, fi, ids_view, &highlights)? },
        };
        for (k, v) in views.iter().enumerate() {
            // SAFETY: the frame's fence was waited for.
            unsafe {
                parts.materials.write_lighting(
                    lighting_slot(fi, k),
                    &LightingBlock::new(&desc.lighting, &v.view, &desc.lights)
                        .with_shadows(desc.shadows.as_ref(), &v.view),
                )?
            };
        }
        let gpu_scene = parts.gpu_scene.as_mut().filter(|_| gpu_frame.is_some());
        let frame = &parts.frames[fi];

        let d = ctx.device();
        let mut stats = FrameStats::default();
        // SAFETY: the frame's fence was waited for, so its pool is idle; every
        // handle used below stays alive until the frame's fence signals.
        unsafe {
            let cmd = frame.begin(d)?;
            let msaa = depths.msaa.as_ref();
            // GPU culling: every view culled (into its own slot and visible
            // list) before the scene pass draws them.
            let gpu_scene = match gpu_scene {
                Some(g) => {
                    for (k, v) in views.iter().enumerate() {
                        let size = (v.rect.extent.width, v.rect.extent.height);
                        let (w, h) = (f64::from(size.0), f64::from(size.1));
                        let frustum = View::new(v.camera, w, h, desc.depth).ok().map(|v| v.frustum());
                        let small = positions.as_ref().and_then(|p| SmallCull::new(v.camera, desc.depth, size, p));
                        let inputs = CullInputs {
                            view: v.view,
                            eye: v.camera.eye,
                            frustum,
                            meshes: &parts.meshes,
                            bounds: &parts.bounds,
                            blended: &parts.blended,
                            materials: &parts.materials,
                            small: GpuSmallCull::new(&v.projection, size, small.as_ref().and(positions.as_deref())),
                        };
                        stats.uploaded_objects += g.cull(&ctx.gpu, cmd, lighting_slot(fi, k), &inputs)?;
                    }
                    Some(&*g)
                }
                None => None,
            };
            let mut starts = vec![
                (Transition::ColorToAttachment, color_image),
                (Transition::SceneDepthToAttachment, depths.scene.raw),
                (Transition::OverlayDepthToAttachment, depths.overlay.raw),
                (Transition::IdsToAttachment, depths.ids.raw),
            ];
            if let Some(ms) = msaa {
                starts.push((Transition::MsColorToAttachment, ms.color.raw));
                starts.push((Transition::MsDepthToAttachment, ms.depth.raw));
            }
            barrier::record(d, cmd, &starts, &[]);

            // The shadow maps, one cascade at a time, before the views read them.
            if !shadow_views.is_empty() {
                let maps = &parts.materials.shadow;
                let to_attachment = [maps.to_attachment()];
                d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&to_attachment));
                let size = vk::Extent2D { width: SHADOW_MAP_SIZE, height: SHADOW_MAP_SIZE };
                // A cascade without casters is not drawn (nothing shadows
                // there): the same test as the lighting block's, which
                // tells the shader so.
                let casts = |k: usize| desc.shadows.as_ref().is_some_and(|s| !s.casters[k].is_empty());
                for (k, s) in shadow_views.iter().enumerate().filter(|&(k, _)| casts(k)) {
                    let layer = Attachment::new(
                        maps.layer_views[k],
                        depth_clear(DepthMode::Standard.clear_depth()),
                        vk::AttachmentStoreOp::STORE,
                    );
                    begin_rendering(d, cmd, size, &[Attachment::none()], Some(layer));
                    set_full_viewport(d, cmd, size);
                    let inputs = SceneInputs {
                        projection: s.projection,
                        depth: DepthMode::Standard,
                        batches: &s.batches,
                        meshes: &parts.meshes,
                        materials: &parts.materials,
                        instance_buffer,
                        first_instance: s.first_instance,
                        lighting_slot: lighting_slot(fi, 0),
                    };
                    let (calls, _) = parts.shadow.record(d, cmd, &inputs);
                    stats.shadow_draw_calls += calls;
                    d.cmd_end_rendering(cmd);
                }
                let to_read = [maps.to_read()];
                d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&to_read));
            }
            let ui_draw = desc.ui.as_ref().filter(|u| !u.primitives.is_empty());
            let overlay_drawn = views.iter().any(|v| !v.overlay.is_empty());
            let plan = FramePlan::new(PlanInputs {
                msaa: msaa.is_some(),
                outline,
                overlay: overlay_drawn,
                rect: desc.selection_rect.is_some() || desc.camera_frame.is_some(),
                ui: ui_draw.is_some(),
            });
            let rgba = |c: [f32; 3]| vk::ClearValue { color: vk::ClearColorValue { float32: [c[0], c[1], c[2], 1.0] } };
            let background = rgba(desc.background);
            // With several views the scope clears to the separator colour
            // and then each view's rectangle to the background.
            let clear_color = if several { rgba(FrameDesc::SEPARATOR) } else { background };
            let clear_ids = vk::ClearValue { color: vk::ClearColorValue { uint32: [0; 4] } };
            let store = vk::AttachmentStoreOp::STORE;
            let (meshes, materials) = (&parts.meshes, &parts.materials);
            let scene_inputs =
                |v, k| v_scene_inputs(v, meshes, materials, desc.depth, instance_buffer, lighting_slot(fi, k));
            let grid_inputs = |v: &ViewRecord| GridInputs {
                view: v.view,
                projection: v.projection,
                camera: v.camera,
                aspect: v.aspect(),
                height_px: f64::from(v.rect.extent.height.max(1)),
                depth: desc.depth,
            };
            // Each view's scene objects and grid into its rectangle, in the
            // scope open: GPU culling's culled objects, then the listed
            // ones (the blended meshes' objects, back to front), then the
            // grid when asked. `multisampled`: the MSAA colour scope's
            // pipelines.
            // The environment behind goes first, in the scope that has the
            // colour (the ids scope of an MSAA frame has none).
            let sky = desc.lighting.draws_environment().then(|| parts.materials.get(MaterialId::DEFAULT)).flatten();
            let draw_views = |multisampled: bool, grid: bool, stats: &mut FrameStats| {
                for (k, v) in views.iter().enumerate() {
                    set_viewport(d, cmd, v.rect);
                    if let Some(m) = sky.filter(|_| multisampled || msaa.is_none()) {
                        let offset = (LIGHTING_STRIDE * lighting_slot(fi, k) as u64) as u32;
                        parts.sky.record(d, cmd, &v.projection, v.rect, m.set, offset, multisampled);
                    }
                    let push = ScenePush::new(&v.projection);
                    let (meshes, materials) = (&parts.meshes, &parts.materials);
                    let culled = match gpu_scene {
                        Some(g) => {
                            g.record(d, cmd, lighting_slot(fi, k), &push, desc.depth, meshes, materials, multisampled)
                        }
                        None => 0,
                    };
                    let (calls, instances) = parts.scene.record(d, cmd, &scene_inputs(v, k), multisampled);
                    stats.draw_calls += calls + culled;
                    stats.instances += instances;
                    if grid {
                        stats.draw_calls += parts.grid.record(d, cmd, &grid_inputs(v));
                    }
                }
            };
            for scope in &plan.scopes {
                record_barrier(d, cmd, scope.before, depths);
                // The scope's colour attachment; a resolving scope leaves
                // the multisampled contents behind and averages them into
                // the target's colour.
                let color = |clear: Option<vk::ClearValue>| match (scope.color, msaa) {
                    (Color::Multisampled, Some(ms)) if scope.resolve => Attachment {
                        view: ms.color.view,
                        clear,
                        store: vk::AttachmentStoreOp::DONT_CARE,
                        resolve: Some(color_view),
                    },
                    (Color::Multisampled, Some(ms)) => Attachment::new(ms.color.view, clear, store),
                    (Color::Target, _) => Attachment::new(color_view, clear, store),
                    _ => Attachment::none(),
                };
                match scope.pass {
                    Pass::Scene => {
                        // Per view: scene objects (colour and ids), then the
                        // grid blended over them (colour only). With MSAA
                        // this writes only the ids and the scene depth.
                        begin_rendering(
                            d,
                            cmd,
                            extent,
                            &[color(Some(clear_color)), Attachment::new(depths.ids.view, Some(clear_ids), store)],
                            Some(Attachment::new(depths.scene.view, depth_clear(desc.depth.clear_depth()), store)),
                        );
                        if several && msaa.is_none() {
                            clear_views(d, cmd, &views, background);
                        }
                        draw_views(false, desc.grid && msaa.is_none(), &mut stats);
                    }
                    Pass::SceneColor => {
                        // MSAA: scene objects (colour alone) and the grid
                        // against their own multisampled depth.
                        let Some(ms) = msaa else { continue };
                        begin_rendering(
                            d,
                            cmd,
                            extent,
                            &[color(Some(clear_color))],
                            Some(Attachment::new(
                                ms.depth.view,
                                depth_clear(desc.depth.clear_depth()),
                                vk::AttachmentStoreOp::DONT_CARE,
                            )),
                        );
                        if several {
                            clear_views(d, cmd, &views, background);
                        }
                        // The single-sample scope's counts are replaced by
                        // this one's (they repeat the same scene draws).
                        (stats.draw_calls, stats.instances) = (0, 0);
                        draw_views(true, desc.grid, &mut stats);
                    }
                    Pass::Outline => {
                        begin_screen_pass(d, cmd, extent, color(None));
                        parts.outline.record(d, cmd, fi);
                    }
                    Pass::Overlay => {
                        // Its own cleared depth; the scene depth is sampled.
                        begin_rendering(
                            d,
                            cmd,
                            extent,
                            &[color(None)],
                            Some(Attachment::new(
                                depths.overlay.view,
                                depth_clear(desc.depth.clear_depth()),
                                vk::AttachmentStoreOp::DONT_CARE,
                            )),
                        );
                        let frames: Vec<OverlayFrame> = views
                            .iter()
                            .map(|v| OverlayFrame {
                                instances: v.overlay,
                                view: v.view,
                                projection: v.projection,
                                depth: desc.depth,
                                offset: v.rect.offset,
                                extent: v.rect.extent,
                                frame_index: fi,
                                scene_depth: Some(depths.scene.view),
                            })
                            .collect();
                        let drawn = overlay.record_views(cmd, &frames)?;
                        stats.overlay_draw_calls = drawn.draw_calls;
                        stats.overlay_instances = drawn.instances;
                    }
                    Pass::Rect => {
                        begin_screen_pass(d, cmd, extent, color(None));
                        if let Some(frame) = desc.camera_frame {
                            parts.rect.record_outside(d, cmd, frame);
                        }
                        if let Some(rect) = desc.selection_rect {
                            parts.rect.record(d, cmd, rect);
                        }
                    }
                    Pass::Ui => {
                        begin_screen_pass(d, cmd, extent, color(None));
                        if let Some(draw) = ui_draw {
                            ui.record(cmd, extent, draw)?;
                        }
                    }
                }
                d.cmd_end_rendering(cmd);
            }
            record_barrier(d, cmd, plan.before_hand_over, depths);

            // Hand-over: present (window) or copy the colour (off-screen);
            // scene depth and ids stay as copy sources for `read_region`.
            match &parts.target {
                Target::Window(_) => {
                    image_copies::record_window_end(d, cmd, color_image, depths);
                    if *capture_next {
                        let bytes = extent.width as u64 * extent.height as u64 * 4;
                        let buffer = parts.capture.get().filter(|b| b.size >= bytes);
                        if let Some(buffer) = buffer {
                            image_copies::record_capture(d, cmd, color_image, buffer.raw, extent);
                        }
                    }
                }
                Target::Offscreen(o) => image_copies::record_offscreen(d, cmd, o, depths),
            }
            d.end_command_buffer(cmd).vk("vkEndCommandBuffer")?;
        }
        Ok(stats)
    }
}
