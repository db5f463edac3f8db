//! Recording one frame: the rendering scopes of the passes, in order,
//! and the barriers between them.

use ash::vk;

use super::plan::{Barrier, Color, FramePlan, Pass, PlanInputs};
use super::{Renderer, Target};
use crate::math::View;
use crate::render::assets::environment::LightingBlock;
use crate::render::cull::compute::CullInputs;
use crate::render::cull::small::{GpuSmallCull, SmallCull};
use crate::render::desc::{DrawObject, FrameDesc, FrameStats};
use crate::render::device::barrier::{self, Transition};
use crate::render::device::error::{RenderError, VkContext};
use crate::render::device::pipeline::set_full_viewport;
use crate::render::passes::grid::GridInputs;
use crate::render::passes::outline::highlight_table;
use crate::render::passes::overlay::OverlayFrame;
use crate::render::passes::scene::{SceneBatches, SceneInputs, SceneInstance, ScenePush};
use crate::render::renderer::readback;
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

impl Renderer {
    /// Records frame `fi`: scene and grid into the target's colour, ids and
    /// scene depth, the selection outline, the overlay against its own
    /// depth, the selection rectangle, then the hand-over.
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
        let aspect = extent.width as f64 / extent.height.max(1) as f64;
        let view = desc.camera.view_matrix();
        let projection = desc.camera.projection_matrix(aspect, desc.depth);

        // Exact small-object culling (`render/cull/small.rs`), both paths.
        let size = (extent.width, extent.height);
        let small = positions.as_ref().and_then(|p| SmallCull::new(desc.camera, desc.depth, size, p));
        let bounds = &parts.bounds;
        let keep = |o: &DrawObject| {
            let b = bounds.get(o.mesh.0 as usize);
            small.as_ref().zip(b).is_none_or(|(s, &b)| s.keeps(&o.world, b))
        };
        let batches = SceneBatches::new(&view, &desc.objects, &parts.blended, keep);
        let bytes = batches.len() * std::mem::size_of::<SceneInstance>();
        let frame = &mut parts.frames[fi];
        // SAFETY: the frame's fence was waited for, so the GPU no longer
        // reads its instance buffer.
        let instance_buffer = unsafe { frame.instances.reserve(&ctx.gpu, bytes as u64)? };
        let mapped = instance_buffer.mapped().ok_or(RenderError::NotHostVisible("scene instances"))?;
        batches.write_instances(&mut mapped[..bytes]);
        let instance_buffer = instance_buffer.raw;
        let (outline, ids_view) = (&mut parts.outline, depths.ids.view);
        // SAFETY (each prepare): the frame's fence was waited for.
        let outline = match &desc.gpu_scene {
            // The selection's shared list alone: its table is kept per slot.
            Some(g) if batches.highlights.is_empty() => unsafe {
                outline.prepare_shared(&ctx.gpu, fi, ids_view, &g.highlights)?
            },
            Some(g) => unsafe {
                outline.prepare(&ctx.gpu, fi, ids_view, &highlight_table(&batches.highlights, &g.highlights))?
            },
            None => unsafe { outline.prepare(&ctx.gpu, fi, ids_view, &batches.highlights)? },
        };
        // SAFETY: the frame's fence was waited for.
        unsafe { parts.materials.write_lighting(fi, &LightingBlock::new(&desc.lighting, &view))? };
        let gpu_scene = parts.gpu_scene.as_mut().filter(|_| desc.gpu_scene.is_some());
        let frame = &parts.frames[fi];

        let d = ctx.device();
        let mut stats = FrameStats::default();
        // SAFETY: the frame's fence was waited for, so its pool is idle; every
        // handle used below stays alive until the frame's fence signals.
        unsafe {
            let cmd = frame.begin(d)?;
            let msaa = depths.msaa.as_ref();
            let gpu_scene = match gpu_scene {
                Some(g) => {
                    let frustum = View::new(desc.camera, extent.width as f64, extent.height as f64, desc.depth)
                        .ok()
                        .map(|v| v.frustum());
                    let inputs = CullInputs {
                        view,
                        eye: desc.camera.eye,
                        frustum,
                        meshes: &parts.meshes,
                        bounds: &parts.bounds,
                        blended: &parts.blended,
                        materials: &parts.materials,
                        small: GpuSmallCull::new(&projection, size, small.as_ref().and(positions.as_deref())),
                    };
                    stats.uploaded_objects = g.cull(&ctx.gpu, cmd, fi, &inputs)?;
                    Some(&*g)
                }
                None => None,
            };
            let push = ScenePush::new(&view, &projection);
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

            let ui_draw = desc.ui.as_ref().filter(|u| !u.primitives.is_empty());
            let plan = FramePlan::new(PlanInputs {
                msaa: msaa.is_some(),
                outline,
                overlay: !desc.overlay.is_empty(),
                rect: desc.selection_rect.is_some(),
                ui: ui_draw.is_some(),
            });
            let bg = desc.background;
            let clear_color = vk::ClearValue { color: vk::ClearColorValue { float32: [bg[0], bg[1], bg[2], 1.0] } };
            let clear_ids = vk::ClearValue { color: vk::ClearColorValue { uint32: [0; 4] } };
            let store = vk::AttachmentStoreOp::STORE;
            let scene = SceneInputs {
                view,
                projection,
                depth: desc.depth,
                batches: &batches,
                meshes: &parts.meshes,
                materials: &parts.materials,
                instance_buffer,
                frame: fi,
            };
            let height_px = f64::from(extent.height.max(1));
            let grid = GridInputs { view, projection, camera: desc.camera, aspect, height_px, depth: desc.depth };
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
                        // Scene objects (colour and ids), then the grid
                        // blended over them (colour only). With MSAA this
                        // writes only the ids and the scene depth.
                        begin_rendering(
                            d,
                            cmd,
                            extent,
                            &[color(Some(clear_color)), Attachment::new(depths.ids.view, Some(clear_ids), store)],
                            Some(Attachment::new(depths.scene.view, depth_clear(desc.depth.clear_depth()), store)),
                        );
                        set_full_viewport(d, cmd, extent);
                        // GPU culling: the culled objects, then the listed
                        // ones (the blended meshes' objects, back to front).
                        let culled = match gpu_scene {
                            Some(g) => g.record(d, cmd, fi, &push, desc.depth, &parts.meshes, &parts.materials, false),
                            None => 0,
                        };
                        (stats.draw_calls, stats.instances) = parts.scene.record(d, cmd, &scene, false);
                        stats.draw_calls += culled;
                        if desc.grid && msaa.is_none() {
                            stats.draw_calls += parts.grid.record(d, cmd, &grid);
                        }
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
                        set_full_viewport(d, cmd, extent);
                        let culled = match gpu_scene {
                            Some(g) => g.record(d, cmd, fi, &push, desc.depth, &parts.meshes, &parts.materials, true),
                            None => 0,
                        };
                        (stats.draw_calls, stats.instances) = parts.scene.record(d, cmd, &scene, true);
                        stats.draw_calls += culled;
                        if desc.grid {
                            stats.draw_calls += parts.grid.record(d, cmd, &grid);
                        }
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
                        let frame = OverlayFrame {
                            instances: &desc.overlay,
                            view,
                            projection,
                            depth: desc.depth,
                            extent,
                            frame_index: fi,
                            scene_depth: Some(depths.scene.view),
                        };
                        let drawn = overlay.record(cmd, &frame)?;
                        stats.overlay_draw_calls = drawn.draw_calls;
                        stats.overlay_instances = drawn.instances;
                    }
                    Pass::Rect => {
                        begin_screen_pass(d, cmd, extent, color(None));
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
                    readback::record_window_end(d, cmd, color_image, depths);
                    if *capture_next {
                        let bytes = extent.width as u64 * extent.height as u64 * 4;
                        let buffer = parts.capture.get().filter(|b| b.size >= bytes);
                        if let Some(buffer) = buffer {
                            readback::record_capture(d, cmd, color_image, buffer.raw, extent);
                        }
                    }
                }
                Target::Offscreen(o) => readback::record_offscreen(d, cmd, o, depths),
            }
            d.end_command_buffer(cmd).vk("vkEndCommandBuffer")?;
        }
        Ok(stats)
    }
}
