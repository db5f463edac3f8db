//! The `.hdr` environment's maps on the GPU: its irradiance and
//! prefiltered specular maps (RGBA16F, equirectangular, `crate::look::envmap`)
//! that bindings 8 and 9 of every material set read, or a 1x1 black
//! texture while the environment is analytic, and the sampler they are
//! read with. [`super::material::Materials`] writes them into the sets.

use ash::vk;

use crate::look::envmap::{EnvImage, HdrId};
use crate::render::assets::environment::half;
use crate::render::assets::texture::Texture;
use crate::render::device::context::Context;
use crate::render::device::error::RenderError;
use crate::render::device::{Destroy, Gpu, Guard};
use crate::scene::material::{Filter, SamplerDesc, Wrap};

/// The environment maps' format: half floats, filterable everywhere.
const ENV_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;

/// The environment maps' sampler: around the horizon the image repeats,
/// at the poles it stops; mip levels blended.
pub(crate) const ENV_SAMPLER: SamplerDesc = SamplerDesc {
    mag: Filter::Linear,
    min: Filter::Linear,
    mipmap: Some(Filter::Linear),
    wrap_u: Wrap::Repeat,
    wrap_v: Wrap::ClampToEdge,
};

/// RGBA16F texels of `image` (alpha 1).
fn half_texels(image: &EnvImage) -> Vec<u8> {
    let one = half(1.0).to_le_bytes();
    let mut out = Vec::with_capacity(image.texels.len() * 8);
    for t in &image.texels {
        for c in t {
            out.extend_from_slice(&half(*c).to_le_bytes());
        }
        out.extend_from_slice(&one);
    }
    out
}

/// The maps the material sets read at bindings 8 and 9.
#[derive(Default)]
pub(crate) struct EnvironmentMaps {
    /// The `.hdr` environment every set reads: its irradiance and specular
    /// maps, in that order; `None`: `black`.
    maps: Option<(HdrId, Vec<Texture>)>,
    /// 1x1 black: bindings 8 and 9 before any `.hdr` environment.
    black: Option<Texture>,
}

impl Destroy for EnvironmentMaps {
    unsafe fn destroy(&mut self, gpu: &Gpu) {
        if let Some((_, mut maps)) = self.maps.take() {
            maps.destroy(gpu);
        }
        self.black.destroy(gpu);
    }
}

impl EnvironmentMaps {
    /// Uploads the black placeholder the sets read until an environment is set.
    pub fn init(&mut self, ctx: &Context) -> Result<(), RenderError> {
        let black = EnvImage { width: 1, height: 1, texels: vec![[0.0; 3]] };
        self.black = Some(Texture::upload_levels(
            ctx,
            (1, 1),
            &[&half_texels(&black)],
            (ENV_FORMAT, 8),
            "environment placeholder",
        )?);
        Ok(())
    }

    /// The `.hdr` environment whose maps the sets read, if any.
    pub fn id(&self) -> Option<HdrId> {
        self.maps.as_ref().map(|(id, _)| *id)
    }

    /// The view of binding 8 (`which` 0: irradiance) or 9 (1: specular)
    /// as it is now.
    pub fn view(&self, which: usize) -> vk::ImageView {
        match (&self.maps, &self.black) {
            (Some((_, maps)), _) => maps[which].view,
            (None, Some(black)) => black.view,
            (None, None) => vk::ImageView::null(),
        }
    }

    /// Uploads the maps of `.hdr` environment `id` (prefiltered on the
    /// CPU, once per process) in place of the current ones, which are
    /// returned: the caller destroys them once no set refers to them.
    pub fn replace(&mut self, ctx: &Context, id: HdrId) -> Result<Option<Vec<Texture>>, RenderError> {
        let maps = id.maps();
        let irradiance = Guard::new(
            &ctx.gpu,
            Texture::upload_levels(
                ctx,
                (maps.irradiance.width, maps.irradiance.height),
                &[&half_texels(&maps.irradiance)],
                (ENV_FORMAT, 8),
                "environment irradiance",
            )?,
        );
        let levels: Vec<Vec<u8>> = maps.specular.iter().map(half_texels).collect();
        let levels: Vec<&[u8]> = levels.iter().map(Vec::as_slice).collect();
        let top = &maps.specular[0];
        let specular =
            Texture::upload_levels(ctx, (top.width, top.height), &levels, (ENV_FORMAT, 8), "environment specular")?;
        Ok(self.maps.replace((id, vec![irradiance.finish(), specular])).map(|(_, old)| old))
    }
}
