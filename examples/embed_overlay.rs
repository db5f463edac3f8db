//! A foreign Vulkan program that records the viewport's gizmo overlay into
//! its own frame through [`viewport::render::OverlayRenderer`].
//!
//! Everything Vulkan here belongs to the "engine": its instance (with the
//! Khronos validation layer when installed, and a debug messenger that
//! counts errors), device, colour and depth images, command buffer and
//! dynamic-rendering pass. The viewport only contributes the gizmo: its
//! draw data ([`viewport::gizmo::Gizmo::instances`]) and the overlay
//! renderer that records it inside the engine's pass.
//!
//! ```sh
//! VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json \
//!     cargo run --example embed_overlay -- out.png
//! ```
//!
//! Writes the frame as a PNG (default `embed_overlay.png`), prints how many
//! validation errors were reported and exits with status 1 if there were
//! any. `tests/embed_overlay.rs` runs [`run`] and checks the picture.

use std::error::Error;
use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use nalgebra::{Matrix4, Point3, UnitQuaternion, Vector3};
use viewport::gizmo::{Gizmo, GizmoConfig, Mode, Target};
use viewport::math::{DepthMode, Transform, View};
use viewport::render::ash::{self, vk};
use viewport::render::gpu_allocator::vulkan::{
    Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc,
};
use viewport::render::gpu_allocator::MemoryLocation;
use viewport::render::{OverlayDesc, OverlayFrame, OverlayRenderer};

/// Size of the engine's frame.
pub const WIDTH: u32 = 400;
pub const HEIGHT: u32 = 300;
/// The engine's clear colour (UNORM target, so these are the stored bytes / 255).
pub const CLEAR: [f32; 4] = [0.10, 0.10, 0.12, 1.0];
/// The engine's camera: plain numbers, the way an engine would hold them.
pub const EYE: [f64; 3] = [3.0, 2.5, 6.0];
pub const LOOK_AT: [f64; 3] = [0.5, 0.2, -0.3];
pub const FOV_Y_DEG: f64 = 45.0;
pub const NEAR: f64 = 0.1;
/// Where the selected object sits (the gizmo's pivot).
pub const PIVOT: [f64; 3] = [0.5, 0.2, -0.3];
/// The gizmo's on-screen axis length in pixels (the default configuration).
pub const GIZMO_PX: f64 = 100.0;

const COLOR_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;
const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
const DEPTH_MODE: DepthMode = DepthMode::Reversed;
const VALIDATION: &CStr = c"VK_LAYER_KHRONOS_validation";

/// What one run produced.
pub struct Outcome {
    /// Whether the validation layer was installed and enabled.
    pub validation_enabled: bool,
    pub validation_errors: u32,
    /// The frame, RGBA8, rows top to bottom (also written as the PNG).
    pub rgba: Vec<u8>,
}

unsafe extern "system" fn count_errors(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        // SAFETY: `user` is the counter that `run` keeps alive until after
        // the messenger is destroyed; `data` is valid during the callback.
        unsafe {
            (*(user as *const AtomicU32)).fetch_add(1, Ordering::SeqCst);
            if !data.is_null() && !(*data).p_message.is_null() {
                eprintln!("validation error: {}", CStr::from_ptr((*data).p_message).to_string_lossy());
            }
        }
    }
    vk::FALSE
}

/// The engine's own camera matrices, computed the way an engine would:
/// a right-handed look-at view and a reversed-Z, infinite-far perspective
/// for Vulkan clip space (y down, depth 1 at the near plane, 0 at infinity).
fn engine_matrices() -> (Matrix4<f64>, Matrix4<f64>) {
    let view = Matrix4::look_at_rh(&Point3::from(EYE), &Point3::from(LOOK_AT), &Vector3::y());
    let f = 1.0 / (FOV_Y_DEG.to_radians() / 2.0).tan();
    let aspect = WIDTH as f64 / HEIGHT as f64;
    #[rustfmt::skip]
    let projection = Matrix4::new(
        f / aspect, 0.0, 0.0, 0.0,
        0.0, -f, 0.0, 0.0,
        0.0, 0.0, 0.0, NEAR,
        0.0, 0.0, -1.0, 0.0,
    );
    (view, projection)
}

/// The selected object, and the gizmo's view built from the engine's own
/// matrices ([`engine_matrices`]), which sizes and orients the handles.
fn gizmo_inputs() -> Result<(View, Vec<viewport::gizmo::OverlayInstance>), Box<dyn Error>> {
    let (view_matrix, projection) = engine_matrices();
    let view = View::from_matrices(view_matrix, projection, (WIDTH as f64, HEIGHT as f64), DEPTH_MODE)?;
    let selected = Transform {
        position: Vector3::from(PIVOT),
        rotation: UnitQuaternion::from_euler_angles(0.3, 0.8, 0.1),
        scale: Vector3::new(1.0, 2.0, 0.5),
    };
    // World space: the handles follow the world axes whatever the rotation.
    let gizmo = Gizmo::new(GizmoConfig { mode: Mode::Translate, ..GizmoConfig::default() });
    let instances = gizmo.instances(&view, &[Target::root(selected)]);
    Ok((view, instances))
}

/// Memory and objects of the engine's frame.
struct Frame {
    color: vk::Image,
    color_view: vk::ImageView,
    depth: vk::Image,
    depth_view: vk::ImageView,
    readback: vk::Buffer,
    allocations: Vec<Allocation>,
}

fn image(
    device: &ash::Device,
    allocator: &Mutex<Allocator>,
    format: vk::Format,
    usage: vk::ImageUsageFlags,
    aspect: vk::ImageAspectFlags,
    allocations: &mut Vec<Allocation>,
) -> Result<(vk::Image, vk::ImageView), Box<dyn Error>> {
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(format)
        .extent(vk::Extent3D { width: WIDTH, height: HEIGHT, depth: 1 })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage);
    // SAFETY: valid create infos; everything is destroyed at the end of `run`.
    unsafe {
        let image = device.create_image(&info, None)?;
        let requirements = device.get_image_memory_requirements(image);
        let allocation = allocator.lock().unwrap().allocate(&AllocationCreateDesc {
            name: "engine image",
            requirements,
            location: MemoryLocation::GpuOnly,
            linear: false,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        })?;
        device.bind_image_memory(image, allocation.memory(), allocation.offset())?;
        allocations.push(allocation);
        let range =
            vk::ImageSubresourceRange { aspect_mask: aspect, level_count: 1, layer_count: 1, ..Default::default() };
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(range);
        let view = device.create_image_view(&view_info, None)?;
        Ok((image, view))
    }
}

fn layout_barrier(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    (src_stage, src_access, old): (vk::PipelineStageFlags2, vk::AccessFlags2, vk::ImageLayout),
    (dst_stage, dst_access, new): (vk::PipelineStageFlags2, vk::AccessFlags2, vk::ImageLayout),
) -> vk::ImageMemoryBarrier2<'static> {
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(src_stage)
        .src_access_mask(src_access)
        .dst_stage_mask(dst_stage)
        .dst_access_mask(dst_access)
        .old_layout(old)
        .new_layout(new)
        .image(image)
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: aspect,
            level_count: 1,
            layer_count: 1,
            ..Default::default()
        })
}

/// Records the engine's frame: clear, the gizmo inside the engine's
/// dynamic-rendering pass, then a copy of the colour to `frame.readback`.
///
/// # Safety
/// `cmd` is a fresh command buffer of `device` in the recording state.
unsafe fn record(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    frame: &Frame,
    overlay: &mut OverlayRenderer,
    overlay_frame: &OverlayFrame,
) -> Result<(), Box<dyn Error>> {
    use vk::{AccessFlags2 as A, ImageLayout as L, PipelineStageFlags2 as S};
    let tests = S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS;
    let to_attachments = [
        layout_barrier(
            frame.color,
            vk::ImageAspectFlags::COLOR,
            (S::NONE, A::NONE, L::UNDEFINED),
            (
                S::COLOR_ATTACHMENT_OUTPUT,
                A::COLOR_ATTACHMENT_WRITE | A::COLOR_ATTACHMENT_READ,
                L::COLOR_ATTACHMENT_OPTIMAL,
            ),
        ),
        layout_barrier(
            frame.depth,
            vk::ImageAspectFlags::DEPTH,
            (S::NONE, A::NONE, L::UNDEFINED),
            (tests, A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE, L::DEPTH_ATTACHMENT_OPTIMAL),
        ),
    ];
    device.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&to_attachments));

    let extent = vk::Extent2D { width: WIDTH, height: HEIGHT };
    let colors = [vk::RenderingAttachmentInfo::default()
        .image_view(frame.color_view)
        .image_layout(L::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::STORE)
        .clear_value(vk::ClearValue { color: vk::ClearColorValue { float32: CLEAR } })];
    // The overlay's contract: the bound depth attachment is cleared for the
    // depth mode, so the gizmo is always visible and occludes itself.
    let depth = vk::RenderingAttachmentInfo::default()
        .image_view(frame.depth_view)
        .image_layout(L::DEPTH_ATTACHMENT_OPTIMAL)
        .load_op(vk::AttachmentLoadOp::CLEAR)
        .store_op(vk::AttachmentStoreOp::DONT_CARE)
        .clear_value(vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue { depth: DEPTH_MODE.clear_depth(), stencil: 0 },
        });
    let rendering = vk::RenderingInfo::default()
        .render_area(vk::Rect2D { offset: vk::Offset2D::default(), extent })
        .layer_count(1)
        .color_attachments(&colors)
        .depth_attachment(&depth);
    device.cmd_begin_rendering(cmd, &rendering);
    // (An engine would draw its own scene here.)
    let stats = overlay.record(cmd, overlay_frame)?;
    println!("embed_overlay: {} gizmo pieces in {} draws", stats.instances, stats.draw_calls);
    device.cmd_end_rendering(cmd);

    let to_copy = [layout_barrier(
        frame.color,
        vk::ImageAspectFlags::COLOR,
        (S::COLOR_ATTACHMENT_OUTPUT, A::COLOR_ATTACHMENT_WRITE, L::COLOR_ATTACHMENT_OPTIMAL),
        (S::COPY, A::TRANSFER_READ, L::TRANSFER_SRC_OPTIMAL),
    )];
    device.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&to_copy));
    let region = vk::BufferImageCopy {
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            layer_count: 1,
            ..Default::default()
        },
        image_extent: vk::Extent3D { width: WIDTH, height: HEIGHT, depth: 1 },
        ..Default::default()
    };
    device.cmd_copy_image_to_buffer(cmd, frame.color, L::TRANSFER_SRC_OPTIMAL, frame.readback, &[region]);
    let to_host = [vk::MemoryBarrier2::default()
        .src_stage_mask(S::COPY)
        .src_access_mask(A::TRANSFER_WRITE)
        .dst_stage_mask(S::HOST)
        .dst_access_mask(A::HOST_READ)];
    device.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&to_host));
    Ok(())
}

fn write_png(path: &Path, rgba: &[u8]) -> Result<(), Box<dyn Error>> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    {
        let file = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        let mut encoder = png::Encoder::new(file, WIDTH, HEIGHT);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(rgba)?;
        writer.finish()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Creates an instance and device, renders one frame with the gizmo, and
/// writes it to `png_path`. Tears everything down before returning.
pub fn run(png_path: &Path) -> Result<Outcome, Box<dyn Error>> {
    let errors = Box::new(AtomicU32::new(0));
    // SAFETY: every object created below is destroyed below, in reverse order,
    // after the device went idle; the error counter outlives the messenger.
    unsafe {
        let entry = ash::Entry::load()?;
        let validation_enabled = entry
            .enumerate_instance_layer_properties()?
            .iter()
            .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION));
        let layers: Vec<*const i8> = if validation_enabled { vec![VALIDATION.as_ptr()] } else { Vec::new() };
        let extensions = [ash::ext::debug_utils::NAME.as_ptr()];
        let app = vk::ApplicationInfo::default().application_name(c"embed_overlay").api_version(vk::API_VERSION_1_3);
        // With the layer, also check synchronisation (hazards between the
        // engine's barriers and the overlay's draws).
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut create = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        if validation_enabled {
            create = create.push_next(&mut features);
        }
        let instance = entry.create_instance(&create, None)?;
        let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
        let messenger = debug_utils.create_debug_utils_messenger(
            &vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::ERROR | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(count_errors))
                .user_data(&*errors as *const AtomicU32 as *mut c_void),
            None,
        )?;

        // Any Vulkan 1.3 device with a graphics queue.
        let (physical, family) = instance
            .enumerate_physical_devices()?
            .into_iter()
            .filter(|&pd| instance.get_physical_device_properties(pd).api_version >= vk::API_VERSION_1_3)
            .find_map(|pd| {
                let families = instance.get_physical_device_queue_family_properties(pd);
                let family = families.iter().position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))?;
                Some((pd, family as u32))
            })
            .ok_or("no Vulkan 1.3 device with a graphics queue")?;
        let name = instance.get_physical_device_properties(physical);
        println!("embed_overlay: using {:?}", name.device_name_as_c_str().unwrap_or(c"?"));
        let mut features13 =
            vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true).synchronization2(true);
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
        let device = instance.create_device(
            physical,
            &vk::DeviceCreateInfo::default().queue_create_infos(&queues).push_next(&mut features13),
            None,
        )?;
        let queue = device.get_device_queue(family, 0);

        // The engine's allocator, shared with the overlay.
        let allocator = Arc::new(Mutex::new(Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })?));

        let mut allocations = Vec::new();
        let (color, color_view) = image(
            &device,
            &allocator,
            COLOR_FORMAT,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            vk::ImageAspectFlags::COLOR,
            &mut allocations,
        )?;
        let (depth, depth_view) = image(
            &device,
            &allocator,
            DEPTH_FORMAT,
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
            vk::ImageAspectFlags::DEPTH,
            &mut allocations,
        )?;
        let bytes = (WIDTH * HEIGHT * 4) as u64;
        let readback = device.create_buffer(
            &vk::BufferCreateInfo::default().size(bytes).usage(vk::BufferUsageFlags::TRANSFER_DST),
            None,
        )?;
        let readback_memory = allocator.lock().unwrap().allocate(&AllocationCreateDesc {
            name: "engine read-back",
            requirements: device.get_buffer_memory_requirements(readback),
            location: MemoryLocation::GpuToCpu,
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        })?;
        device.bind_buffer_memory(readback, readback_memory.memory(), readback_memory.offset())?;
        let frame = Frame { color, color_view, depth, depth_view, readback, allocations };

        let pool =
            device.create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(family), None)?;
        let cmd = device.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default().command_pool(pool).command_buffer_count(1),
        )?[0];
        let fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;

        // The viewport's part: the overlay renderer on the engine's device.
        let desc = OverlayDesc { color_format: COLOR_FORMAT, depth_format: DEPTH_FORMAT, frames_in_flight: 1 };
        let mut overlay = OverlayRenderer::new(&device, allocator.clone(), &desc)?;
        let (_, instances) = gizmo_inputs()?;
        // The overlay draws with the engine's matrices, not the gizmo's View.
        let (view, projection) = engine_matrices();
        let overlay_frame = OverlayFrame {
            instances: &instances,
            view,
            projection,
            depth: DEPTH_MODE,
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D { width: WIDTH, height: HEIGHT },
            frame_index: 0,
            scene_depth: None,
        };

        device.begin_command_buffer(
            cmd,
            &vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )?;
        record(&device, cmd, &frame, &mut overlay, &overlay_frame)?;
        device.end_command_buffer(cmd)?;
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        device.queue_submit2(queue, &[vk::SubmitInfo2::default().command_buffer_infos(&cmds)], fence)?;
        device.wait_for_fences(&[fence], true, u64::MAX)?;
        let rgba = readback_memory.mapped_slice().ok_or("read-back memory is not mapped")?[..bytes as usize].to_vec();
        write_png(png_path, &rgba)?;

        // Teardown, in reverse order.
        device.device_wait_idle()?;
        drop(overlay);
        device.destroy_fence(fence, None);
        device.destroy_command_pool(pool, None);
        let Frame { color, color_view, depth, depth_view, readback, allocations } = frame;
        device.destroy_buffer(readback, None);
        device.destroy_image_view(depth_view, None);
        device.destroy_image(depth, None);
        device.destroy_image_view(color_view, None);
        device.destroy_image(color, None);
        {
            let mut a = allocator.lock().unwrap();
            a.free(readback_memory)?;
            for allocation in allocations {
                a.free(allocation)?;
            }
        }
        drop(allocator);
        device.destroy_device(None);
        debug_utils.destroy_debug_utils_messenger(messenger, None);
        instance.destroy_instance(None);
        Ok(Outcome { validation_enabled, validation_errors: errors.load(Ordering::SeqCst), rgba })
    }
}

#[allow(dead_code)] // the test includes this file for `run`
fn main() {
    let path = std::env::args_os().nth(1).map(PathBuf::from).unwrap_or_else(|| PathBuf::from("embed_overlay.png"));
    match run(&path) {
        Ok(outcome) => {
            let layer = if outcome.validation_enabled { "" } else { " (validation layer not installed)" };
            println!("embed_overlay: wrote {}", path.display());
            println!("embed_overlay: {} validation errors{layer}", outcome.validation_errors);
            if outcome.validation_errors > 0 {
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("embed_overlay: {e}");
            std::process::exit(2);
        }
    }
}
