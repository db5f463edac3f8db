//! glTF samplers (filters, wraps, mipmapping) as Vulkan sampler
//! create-infos, for the material sets and the environment maps.

use ash::vk;

use crate::scene::material::{Filter, SamplerDesc, Wrap};

fn filter(f: Filter) -> vk::Filter {
    match f {
        Filter::Nearest => vk::Filter::NEAREST,
        Filter::Linear => vk::Filter::LINEAR,
    }
}

fn address(w: Wrap) -> vk::SamplerAddressMode {
    match w {
        Wrap::Repeat => vk::SamplerAddressMode::REPEAT,
        Wrap::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        Wrap::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
    }
}

/// The Vulkan sampler for a glTF sampler. Without a mipmap filter only the
/// top level is read (`max_lod` 0.25, as OpenGL's non-mipmapped minification).
pub(crate) fn sampler_info(s: &SamplerDesc) -> vk::SamplerCreateInfo<'static> {
    let (mipmap_mode, max_lod) = match s.mipmap {
        Some(Filter::Nearest) => (vk::SamplerMipmapMode::NEAREST, vk::LOD_CLAMP_NONE),
        Some(Filter::Linear) => (vk::SamplerMipmapMode::LINEAR, vk::LOD_CLAMP_NONE),
        None => (vk::SamplerMipmapMode::NEAREST, 0.25),
    };
    vk::SamplerCreateInfo::default()
        .mag_filter(filter(s.mag))
        .min_filter(filter(s.min))
        .mipmap_mode(mipmap_mode)
        .address_mode_u(address(s.wrap_u))
        .address_mode_v(address(s.wrap_v))
        .address_mode_w(vk::SamplerAddressMode::REPEAT)
        .min_lod(0.0)
        .max_lod(max_lod)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samplers_follow_the_gltf_modes() {
        let s = SamplerDesc {
            mag: Filter::Nearest,
            min: Filter::Linear,
            mipmap: None,
            wrap_u: Wrap::ClampToEdge,
            wrap_v: Wrap::MirroredRepeat,
        };
        let info = sampler_info(&s);
        assert_eq!(info.mag_filter, vk::Filter::NEAREST);
        assert_eq!(info.min_filter, vk::Filter::LINEAR);
        assert_eq!(info.address_mode_u, vk::SamplerAddressMode::CLAMP_TO_EDGE);
        assert_eq!(info.address_mode_v, vk::SamplerAddressMode::MIRRORED_REPEAT);
        assert!(info.max_lod < 0.5, "no mipmap filter reads the top level only");
        let trilinear = sampler_info(&SamplerDesc::default());
        assert_eq!(trilinear.mipmap_mode, vk::SamplerMipmapMode::LINEAR);
        assert!(trilinear.max_lod > 12.0);
    }
}
