//! Image layout transitions as a table (synchronization2).
//!
//! Each [`Transition`] names one change of use of an image in a frame; its
//! row in [`Transition::row`] holds the stages and accesses that must finish
//! before it, the ones that wait for it, and the old and new layouts. The
//! renderer records a frame as a sequence of these transitions around its
//! passes; see the synchronisation notes in the [`super`] module docs.

use ash::vk;

use super::subresource;

type Stage = vk::PipelineStageFlags2;
type Access = vk::AccessFlags2;
type Layout = vk::ImageLayout;

/// One change of use of an image within a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transition {
    /// Start of a frame: the colour target becomes a cleared attachment. Its
    /// contents are discarded; the previous frame's copy (or the swapchain
    /// acquire, whose semaphore waits at colour output) must be done.
    ColorToAttachment,
    /// Start of a frame: the scene depth becomes a cleared attachment, after
    /// the previous frame's depth writes, sampling and copy.
    SceneDepthToAttachment,
    /// Start of a frame: the overlay's own depth becomes a cleared attachment.
    OverlayDepthToAttachment,
    /// Start of an MSAA frame: the multisampled colour becomes a cleared
    /// attachment, after the previous frame's writes and resolve reads.
    MsColorToAttachment,
    /// Start of an MSAA frame: the multisampled depth of the colour pass
    /// becomes a cleared attachment.
    MsDepthToAttachment,
    /// After the scene pass: the scene depth is sampled by the overlay pass
    /// and copied for read-back.
    SceneDepthToRead,
    /// End of a window frame: the colour target is presented.
    ColorToPresent,
    /// End of an off-screen frame: the colour target is copied to the host.
    ColorToCopy,
    /// End of a frame: the scene depth (read-only already) becomes a copy
    /// source for region read-backs, until the next frame starts.
    SceneDepthToCopy,
    /// Start of a frame: the object-ID target becomes a cleared attachment,
    /// after the previous frame's outline sampling and region copies.
    IdsToAttachment,
    /// After the scene pass: the ids are sampled by the outline pass and
    /// (after [`Transition::IdsToCopy`]) copied.
    IdsToRead,
    /// End of a frame: the ids become a copy source for region read-backs.
    IdsToCopy,
    /// Screenshot of a window frame: the presentable image is copied ...
    PresentToCopy,
    /// ... and handed back for presentation.
    CopyToPresent,
}

/// What one [`Transition`] waits for and blocks.
struct Row {
    src: (Stage, Access),
    dst: (Stage, Access),
    layouts: (Layout, Layout),
    aspect: vk::ImageAspectFlags,
}

const TESTS: Stage = Stage::from_raw(Stage::EARLY_FRAGMENT_TESTS.as_raw() | Stage::LATE_FRAGMENT_TESTS.as_raw());
const DEPTH_RW: Access =
    Access::from_raw(Access::DEPTH_STENCIL_ATTACHMENT_READ.as_raw() | Access::DEPTH_STENCIL_ATTACHMENT_WRITE.as_raw());
const COLOR: vk::ImageAspectFlags = vk::ImageAspectFlags::COLOR;
const DEPTH: vk::ImageAspectFlags = vk::ImageAspectFlags::DEPTH;

impl Transition {
    /// The table.
    fn row(self) -> Row {
        use Transition::*;
        let (src, dst, layouts, aspect) = match self {
            ColorToAttachment => (
                (Stage::COLOR_ATTACHMENT_OUTPUT | Stage::COPY, Access::NONE),
                (Stage::COLOR_ATTACHMENT_OUTPUT, Access::COLOR_ATTACHMENT_WRITE | Access::COLOR_ATTACHMENT_READ),
                (Layout::UNDEFINED, Layout::COLOR_ATTACHMENT_OPTIMAL),
                COLOR,
            ),
            SceneDepthToAttachment => (
                (TESTS | Stage::FRAGMENT_SHADER | Stage::COPY, Access::DEPTH_STENCIL_ATTACHMENT_WRITE),
                (TESTS, DEPTH_RW),
                (Layout::UNDEFINED, Layout::DEPTH_ATTACHMENT_OPTIMAL),
                DEPTH,
            ),
            OverlayDepthToAttachment | MsDepthToAttachment => (
                (TESTS, Access::DEPTH_STENCIL_ATTACHMENT_WRITE),
                (TESTS, DEPTH_RW),
                (Layout::UNDEFINED, Layout::DEPTH_ATTACHMENT_OPTIMAL),
                DEPTH,
            ),
            MsColorToAttachment => (
                (Stage::COLOR_ATTACHMENT_OUTPUT, Access::COLOR_ATTACHMENT_WRITE),
                (Stage::COLOR_ATTACHMENT_OUTPUT, Access::COLOR_ATTACHMENT_WRITE | Access::COLOR_ATTACHMENT_READ),
                (Layout::UNDEFINED, Layout::COLOR_ATTACHMENT_OPTIMAL),
                COLOR,
            ),
            SceneDepthToRead => (
                (TESTS, Access::DEPTH_STENCIL_ATTACHMENT_WRITE),
                (Stage::FRAGMENT_SHADER | Stage::COPY, Access::SHADER_SAMPLED_READ | Access::TRANSFER_READ),
                (Layout::DEPTH_ATTACHMENT_OPTIMAL, Layout::DEPTH_READ_ONLY_OPTIMAL),
                DEPTH,
            ),
            ColorToPresent => (
                (Stage::COLOR_ATTACHMENT_OUTPUT, Access::COLOR_ATTACHMENT_WRITE),
                (Stage::NONE, Access::NONE),
                (Layout::COLOR_ATTACHMENT_OPTIMAL, Layout::PRESENT_SRC_KHR),
                COLOR,
            ),
            ColorToCopy => (
                (Stage::COLOR_ATTACHMENT_OUTPUT, Access::COLOR_ATTACHMENT_WRITE),
                (Stage::COPY, Access::TRANSFER_READ),
                (Layout::COLOR_ATTACHMENT_OPTIMAL, Layout::TRANSFER_SRC_OPTIMAL),
                COLOR,
            ),
            // The depth writes were made visible by `SceneDepthToRead`; only
            // the layout changes.
            SceneDepthToCopy => (
                (Stage::FRAGMENT_SHADER, Access::NONE),
                (Stage::COPY, Access::TRANSFER_READ),
                (Layout::DEPTH_READ_ONLY_OPTIMAL, Layout::TRANSFER_SRC_OPTIMAL),
                DEPTH,
            ),
            IdsToAttachment => (
                (Stage::COLOR_ATTACHMENT_OUTPUT | Stage::FRAGMENT_SHADER | Stage::COPY, Access::COLOR_ATTACHMENT_WRITE),
                (Stage::COLOR_ATTACHMENT_OUTPUT, Access::COLOR_ATTACHMENT_WRITE | Access::COLOR_ATTACHMENT_READ),
                (Layout::UNDEFINED, Layout::COLOR_ATTACHMENT_OPTIMAL),
                COLOR,
            ),
            IdsToRead => (
                (Stage::COLOR_ATTACHMENT_OUTPUT, Access::COLOR_ATTACHMENT_WRITE),
                (Stage::FRAGMENT_SHADER | Stage::COPY, Access::SHADER_SAMPLED_READ | Access::TRANSFER_READ),
                (Layout::COLOR_ATTACHMENT_OPTIMAL, Layout::SHADER_READ_ONLY_OPTIMAL),
                COLOR,
            ),
            // Like `SceneDepthToCopy`: the writes are visible to copies already.
            IdsToCopy => (
                (Stage::FRAGMENT_SHADER, Access::NONE),
                (Stage::COPY, Access::TRANSFER_READ),
                (Layout::SHADER_READ_ONLY_OPTIMAL, Layout::TRANSFER_SRC_OPTIMAL),
                COLOR,
            ),
            PresentToCopy => (
                (Stage::COLOR_ATTACHMENT_OUTPUT, Access::COLOR_ATTACHMENT_WRITE),
                (Stage::COPY, Access::TRANSFER_READ),
                (Layout::PRESENT_SRC_KHR, Layout::TRANSFER_SRC_OPTIMAL),
                COLOR,
            ),
            CopyToPresent => (
                (Stage::COPY, Access::NONE),
                (Stage::NONE, Access::NONE),
                (Layout::TRANSFER_SRC_OPTIMAL, Layout::PRESENT_SRC_KHR),
                COLOR,
            ),
        };
        Row { src, dst, layouts, aspect }
    }

    /// The barrier that performs this transition on `image`.
    pub fn on(self, image: vk::Image) -> vk::ImageMemoryBarrier2<'static> {
        let r = self.row();
        vk::ImageMemoryBarrier2::default()
            .src_stage_mask(r.src.0)
            .src_access_mask(r.src.1)
            .dst_stage_mask(r.dst.0)
            .dst_access_mask(r.dst.1)
            .old_layout(r.layouts.0)
            .new_layout(r.layouts.1)
            .image(image)
            .subresource_range(subresource(r.aspect))
    }
}

/// Makes transfer writes into host-visible buffers visible to the host.
pub(crate) fn copies_to_host() -> vk::MemoryBarrier2<'static> {
    vk::MemoryBarrier2::default()
        .src_stage_mask(Stage::COPY)
        .src_access_mask(Access::TRANSFER_WRITE)
        .dst_stage_mask(Stage::HOST)
        .dst_access_mask(Access::HOST_READ)
}

/// Orders a rendering scope's colour attachment loads and writes after the
/// previous scope's writes and resolves into the same image (ordering
/// within a scope does not reach across scopes).
pub(crate) fn color_after_color() -> vk::MemoryBarrier2<'static> {
    vk::MemoryBarrier2::default()
        .src_stage_mask(Stage::COLOR_ATTACHMENT_OUTPUT)
        .src_access_mask(Access::COLOR_ATTACHMENT_WRITE)
        .dst_stage_mask(Stage::COLOR_ATTACHMENT_OUTPUT)
        .dst_access_mask(Access::COLOR_ATTACHMENT_READ | Access::COLOR_ATTACHMENT_WRITE)
}

/// Orders a copy into a buffer after the previous frame's copy into it.
pub(crate) fn copy_after_copy() -> vk::MemoryBarrier2<'static> {
    vk::MemoryBarrier2::default()
        .src_stage_mask(Stage::COPY)
        .src_access_mask(Access::TRANSFER_WRITE)
        .dst_stage_mask(Stage::COPY)
        .dst_access_mask(Access::TRANSFER_WRITE)
}

/// Records one `vkCmdPipelineBarrier2` with the given transitions and
/// memory barriers.
///
/// # Safety
/// `cmd` is recording, outside a rendering scope; the images are alive and
/// in the old layouts of their transitions.
pub(crate) unsafe fn record(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    images: &[(Transition, vk::Image)],
    memory: &[vk::MemoryBarrier2<'static>],
) {
    let images: Vec<vk::ImageMemoryBarrier2> = images.iter().map(|(t, i)| t.on(*i)).collect();
    device.cmd_pipeline_barrier2(
        cmd,
        &vk::DependencyInfo::default().image_memory_barriers(&images).memory_barriers(memory),
    );
}
