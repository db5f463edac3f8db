//! The renderer's reads of the last drawn frame's pixels: colour, depth,
//! object ids, small regions, and window captures (the copies they read
//! are recorded by `image_copies`).

use std::sync::MutexGuard;

use super::{Renderer, Target};
use crate::render::desc::{FrameDesc, Region, RgbaImage, FRAMES_IN_FLIGHT};
use crate::render::renderer::frame::Frame;
use crate::render::renderer::image_copies::{self, Probe};
use crate::render::renderer::target::Offscreen;
use crate::render::RenderError;

impl Renderer {
    fn last_frame(&self) -> &Frame {
        &self.parts.frames[(self.frame_index + FRAMES_IN_FLIGHT - 1) % FRAMES_IN_FLIGHT]
    }

    fn offscreen(&self, what: &'static str) -> Result<&Offscreen, RenderError> {
        match &self.parts.target {
            Target::Offscreen(o) => Ok(o),
            Target::Window(_) => Err(RenderError::NeedsOffscreen(what)),
        }
    }

    /// Waits for the last off-screen frame and returns its colour.
    pub fn read_color(&self) -> Result<RgbaImage, RenderError> {
        let o = self.offscreen("colour read-back")?;
        self.last_frame().wait(&self.ctx)?;
        let e = o.extent();
        let n = (e.width * e.height * 4) as usize;
        let bytes = o.readback.mapped_ref().ok_or(RenderError::NotHostVisible("read-back"))?;
        Ok(RgbaImage { width: e.width, height: e.height, data: bytes[..n].to_vec() })
    }

    /// Waits for the last frame and returns its whole depth buffer, one f32
    /// per pixel, rows top to bottom (a full-size region read-back: for
    /// tests and screenshots, not for every frame).
    pub fn read_depth(&self) -> Result<Vec<f32>, RenderError> {
        let (w, h) = self.extent();
        Ok(self.region(0, 0, w, h)?.depth)
    }

    /// Waits for the last frame and returns its whole object-ID image, one
    /// id per pixel (0: background), rows top to bottom (for tests).
    pub fn read_ids(&mut self) -> Result<Vec<u32>, RenderError> {
        let (w, h) = self.extent();
        Ok(self.region(0, 0, w, h)?.ids)
    }

    /// The object ids and depth values of the last drawn frame in the
    /// rectangle `width` x `height` from (`x`, `y`), clamped to the image
    /// (possibly empty). Waits for that frame, then copies only the
    /// rectangle into a small host buffer and waits for the copy.
    /// [`RenderError::NothingDrawn`] before the first frame on this target.
    pub fn read_region(&mut self, x: u32, y: u32, width: u32, height: u32) -> Result<Region, RenderError> {
        self.region(x, y, width, height)
    }

    fn region(&self, x: u32, y: u32, width: u32, height: u32) -> Result<Region, RenderError> {
        if !self.readable {
            return Err(RenderError::NothingDrawn);
        }
        let depths = match &self.parts.target {
            Target::Offscreen(o) => o.depths.as_ref(),
            Target::Window(s) => s.per_image.depths.as_ref(),
        };
        let depths = depths.ok_or(RenderError::NothingDrawn)?;
        let (w, h) = self.extent();
        let (x, y) = (x.min(w), y.min(h));
        let (width, height) = (width.min(w - x), height.min(h - y));
        let mut region = Region { x, y, width, height, ids: Vec::new(), depth: Vec::new() };
        if width == 0 || height == 0 {
            return Ok(region);
        }
        self.last_frame().wait(&self.ctx)?;
        let mut probe: MutexGuard<'_, Probe> = self.parts.probe.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: `readable` says the last submitted frame left both images
        // as copy sources; the probe waits for its own submits.
        (region.ids, region.depth) = unsafe { probe.read(&self.ctx, depths, (x, y, width, height))? };
        Ok(region)
    }

    /// Draws `desc` and returns the frame as RGBA: the off-screen image, or
    /// for a window the swapchain image that was presented.
    pub fn capture(&mut self, desc: &FrameDesc) -> Result<RgbaImage, RenderError> {
        let Target::Window(swapchain) = &self.parts.target else {
            self.draw(desc)?;
            return self.read_color();
        };
        let (extent, format) = (swapchain.extent, swapchain.format.format);
        let bytes = extent.width as u64 * extent.height as u64 * 4;
        if self.parts.capture.must_grow(bytes) {
            self.ctx.wait_idle()?;
        }
        // SAFETY: the device is idle if the buffer is replaced.
        unsafe { self.parts.capture.reserve(&self.ctx.gpu, bytes)? };
        self.capture_next = true;
        let drawn = self.draw(desc);
        self.capture_next = false;
        if !drawn?.presented {
            return Err(RenderError::NothingPresented);
        }
        // The swapchain may have been recreated at present; the copy used the old extent.
        self.last_frame().wait(&self.ctx)?;
        let data = self.parts.capture.host_bytes(bytes as usize)?.to_vec();
        Ok(RgbaImage { width: extent.width, height: extent.height, data: image_copies::to_rgba(data, format) })
    }

    /// The depth-buffer value at screen point (`x`, `y`) in the last drawn
    /// frame (a 1x1 [`Renderer::read_region`]; waits for the frame).
    /// `Ok(None)` before the first frame or outside the target; an error
    /// when the read-back fails (e.g. the device was lost).
    pub fn depth_at(&self, x: f64, y: f64) -> Result<Option<f64>, RenderError> {
        if self.frames_drawn == 0 || !self.readable || !(x >= 0.0 && y >= 0.0) {
            return Ok(None);
        }
        let (w, h) = self.extent();
        let (xi, yi) = (x as u32, y as u32);
        if xi >= w || yi >= h {
            return Ok(None);
        }
        let region = self.region(xi, yi, 1, 1)?;
        Ok(region.depth.first().map(|&d| f64::from(d)))
    }
}
