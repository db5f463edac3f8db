//! Device plumbing every pass builds on: the context (instance, device,
//! queue, allocator), ownership guards, memory-backed objects and uploads,
//! the image-layout barrier table, what all pipelines share, and errors.

pub(crate) mod barrier;
pub(crate) mod context;
pub(crate) mod descriptors;
pub(crate) mod error;
pub(crate) mod memory;
pub(crate) mod owner;
pub(crate) mod pipeline;
pub(crate) mod upload;

pub(crate) use descriptors::{nearest_clamp_sampler, per_frame_sets};
pub(crate) use memory::{create_image_memory, create_view, subresource, Buffer, GrowBuffer, Image};
pub(crate) use owner::{Destroy, Gpu, Guard};
pub(crate) use upload::{command_pool_with_buffer, one_shot, upload_buffer, upload_buffer_with};
