//! Read-backs: copies of a finished frame into host-visible buffers, and
//! decoding them on the host.
//!
//! Every copy is recorded after the frame's last pass, outside a rendering
//! scope, and ends with a memory barrier to `HOST` so that the bytes are
//! visible once the frame's fence signalled.

use ash::vk;

use super::barrier::{self, Transition};
use super::target::Offscreen;

/// A whole-image copy region of one aspect.
fn full_copy(aspect: vk::ImageAspectFlags, e: vk::Extent2D) -> vk::BufferImageCopy {
    vk::BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: aspect,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        },
        image_offset: vk::Offset3D::default(),
        image_extent: vk::Extent3D { width: e.width, height: e.height, depth: 1 },
    }
}

/// Copies colour and depth of an off-screen frame into its read-back buffers.
///
/// # Safety
/// `cmd` is recording outside a rendering scope; the colour image is in
/// `COLOR_ATTACHMENT_OPTIMAL` and the scene depth in `DEPTH_READ_ONLY_OPTIMAL`.
pub(crate) unsafe fn record_offscreen(d: &ash::Device, cmd: vk::CommandBuffer, o: &Offscreen, depth: vk::Image) {
    let e = o.extent();
    barrier::record(d, cmd, &[(Transition::ColorToCopy, o.color.raw), (Transition::SceneDepthToCopy, depth)], &[]);
    let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    d.cmd_copy_image_to_buffer(cmd, o.color.raw, src, o.readback.raw, &[full_copy(vk::ImageAspectFlags::COLOR, e)]);
    d.cmd_copy_image_to_buffer(cmd, depth, src, o.depth_readback.raw, &[full_copy(vk::ImageAspectFlags::DEPTH, e)]);
    barrier::record(d, cmd, &[], &[barrier::copies_to_host()]);
}

/// Copies the scene depth (read-only after the overlay pass) into `buffer`.
///
/// # Safety
/// `cmd` is recording outside a rendering scope; the depth image is in
/// `DEPTH_READ_ONLY_OPTIMAL`; `buffer` holds the whole image.
pub(crate) unsafe fn record_depth(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    depth: vk::Image,
    buffer: vk::Buffer,
    e: vk::Extent2D,
) {
    // The previous frame's copy into the same buffer must finish first.
    barrier::record(d, cmd, &[(Transition::SceneDepthToCopy, depth)], &[barrier::copy_after_copy()]);
    let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    d.cmd_copy_image_to_buffer(cmd, depth, src, buffer, &[full_copy(vk::ImageAspectFlags::DEPTH, e)]);
    barrier::record(d, cmd, &[], &[barrier::copies_to_host()]);
}

/// Copies a presentable swapchain image into `buffer` and hands it back for
/// presentation.
///
/// # Safety
/// `cmd` is recording outside a rendering scope; the image is in
/// `PRESENT_SRC_KHR`; `buffer` holds the whole image.
pub(crate) unsafe fn record_capture(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    buffer: vk::Buffer,
    e: vk::Extent2D,
) {
    barrier::record(d, cmd, &[(Transition::PresentToCopy, image)], &[]);
    let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    d.cmd_copy_image_to_buffer(cmd, image, src, buffer, &[full_copy(vk::ImageAspectFlags::COLOR, e)]);
    barrier::record(d, cmd, &[(Transition::CopyToPresent, image)], &[barrier::copies_to_host()]);
}

/// The f32 depth texel at pixel (`x`, `y`) of a tightly packed read-back.
pub(crate) fn depth_texel(bytes: &[u8], extent: vk::Extent2D, x: u32, y: u32) -> Option<f32> {
    if x >= extent.width || y >= extent.height {
        return None;
    }
    let i = ((y * extent.width + x) * 4) as usize;
    let b = bytes.get(i..i + 4)?;
    Some(f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
}

/// RGBA bytes of a captured swapchain image of `format`: BGRA is swizzled,
/// and alpha is forced opaque (presentation ignores it).
pub(crate) fn to_rgba(mut data: Vec<u8>, format: vk::Format) -> Vec<u8> {
    let bgra = matches!(format, vk::Format::B8G8R8A8_SRGB | vk::Format::B8G8R8A8_UNORM);
    for px in data.chunks_exact_mut(4) {
        if bgra {
            px.swap(0, 2);
        }
        px[3] = 255;
    }
    data
}
