#version 450
// The scene's colour, in one of two shading modes (the lighting block's
// params.z), and the object's id to the ID target (attachment 1) through
// the same depth test. Specialised per alpha mode (one pipeline each):
// OPAQUE ignores alpha, MASK discards below the cutoff (no colour, id or
// depth), BLEND outputs alpha (blended, no depth writes).
//
// Both modes start from base colour = factor x texture (sRGB, decoded by
// the sampler) x vertex colour x object colour. Every texture reads its
// own UV set through its own KHR_texture_transform (`uv_of`).
// - solid: diffuse from a light near the camera + ambient, hue kept.
// - material: the glTF 2.0 metallic-roughness BRDF of the specification's
//   Appendix B (Lambert diffuse, GGX D with alpha = roughness^2,
//   height-correlated Smith visibility, Schlick Fresnel), lit by the sun
//   (BRDF x E x max(n.l, 0)) and the environment: diffuse c_diff x
//   irradiance / pi, specular prefiltered radiance x (f0 x A + B) with
//   (A, B) from the split-sum BRDF table; emissive added; then
//   2^exposure, tone mapping (Khronos PBR Neutral or a clamp). The target
//   is an sRGB format: the hardware applies the transfer function.
// Unlit materials show the base colour as it is in both modes.
// Single-sided materials discard back faces (in both modes, and in the
// ids pass) before anything else.

layout(constant_id = 0) const int ALPHA_MODE = 0; // 0 opaque, 1 mask, 2 blend
const int MAX_LIGHTS = 8; // render/assets/environment.rs MAX_LIGHTS

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec3 v_view_position;
layout(location = 2) in vec4 v_color;
layout(location = 3) flat in uint v_id;
layout(location = 4) in vec4 v_uv; // TEXCOORD_0 (xy) and TEXCOORD_1 (zw), as the file gives them
layout(location = 5) flat in uint v_mirrored;
// View-space tangent (xyz) and the bitangent's sign (w): TANGENT, or
// MikkTSpace's; zero where the mesh has none.
layout(location = 6) in vec4 v_tangent;

// Zero, from a flat input (v_mirrored is 0 or 1), added to every value
// from a uniform block or push constant that an `if`, a `?:` or the light
// loop's count depends on. Lavapipe (Mesa 22.3, Debian 12) "inlines"
// uniforms that such conditions read alone: at each pipeline bind it
// compiles a new copy of the shader with their values built in and never
// frees the old one (about 1.7 MB a frame here). A condition that also
// reads an input cannot be inlined. Set first thing in main().
float live_zero = 0.0;

layout(set = 0, binding = 0) uniform sampler2D base_color_texture;
// Per frame, view space (`render/assets/environment.rs`, `LightingBlock`).
layout(std140, set = 0, binding = 1) uniform Lighting {
    vec4 sun_dir;  // xyz: towards the sun (l), w: 1 when there is a sun
    vec4 sun_e;    // rgb: colour x illuminance
    vec4 env;      // rgb: colour x intensity, w: 0 uniform, 1 studio, 2 the .hdr maps
    vec4 up;       // xyz: world +y in view space
    vec4 params;   // x: 2^exposure_ev, y: 0 PBR Neutral / 1 linear, z: 0 material / 1 solid
    vec4 solid_light; // xyz: towards the solid mode's light, view space
    // Rows of the rotation from view to world space (xyz); to_world[0].w:
    // the specular map's last mip level (roughness 1).
    vec4 to_world[3];
    // The scene's KHR_lights_punctual lights (params.w of them), view
    // space, four vec4s each: position (xyz) and kind (w: 0 directional,
    // 1 point, 2 spot); direction of travel (xyz) and range (w, 0:
    // infinite); colour x intensity (rgb); the spot's cone scale and
    // offset (x, y: attenuation clamp(cos x scale + offset, 0, 1)^2).
    vec4 lights[4 * MAX_LIGHTS];
} lighting;
// x: n.v, y: roughness -> (A, B) of the split sum.
layout(set = 0, binding = 2) uniform sampler2D brdf_lut;
layout(set = 0, binding = 3) uniform sampler2D metallic_roughness_texture; // linear, white if none
layout(set = 0, binding = 4) uniform sampler2D emissive_texture;           // sRGB, white if none
// R: occlusion with its strength applied (linear), white if none.
layout(set = 0, binding = 5) uniform sampler2D occlusion_texture;
// Tangent-space normals (linear, RGB in [0, 1] for [-1, 1]); read only
// where pc.normal.y says the material has one.
layout(set = 0, binding = 6) uniform sampler2D normal_texture;
// A .hdr environment (env.w = 2), equirectangular (`envmap.rs`): the
// irradiance over pi per normal (its rows from pole to pole), and radiance prefiltered by the GGX lobe
// per reflection direction, mip level k for roughness k / last level. U
// repeats, V clamps to the edge.
layout(set = 0, binding = 8) uniform sampler2D env_irradiance_map;
layout(set = 0, binding = 9) uniform sampler2D env_specular_map;
// Per texture (BASE, METALLIC_ROUGHNESS, EMISSIVE, OCCLUSION, NORMAL) its
// KHR_texture_transform as two rows (a, b, c, set) and (d, e, f, 0):
// it reads (a u + b v + c, d u + e v + f) of UV set `set` (0 or 1).
layout(std140, set = 0, binding = 7) uniform UvMaps {
    vec4 rows[10];
} uv_maps;
const int BASE = 0;
const int METALLIC_ROUGHNESS = 1;
const int EMISSIVE = 2;
const int OCCLUSION = 3;
const int NORMAL = 4;

// The UV texture `k` reads: its set, moved by its transform.
vec2 uv_of(int k) {
    vec4 r0 = uv_maps.rows[2 * k];
    vec4 r1 = uv_maps.rows[2 * k + 1];
    vec3 uv = vec3(r0.w + live_zero > 0.5 ? v_uv.zw : v_uv.xy, 1.0);
    return vec2(dot(r0.xyz, uv), dot(r1.xyz, uv));
}

layout(push_constant) uniform Push {
    mat4 projection;
    vec4 base_color;
    vec4 params;   // x: alpha cutoff, y: unlit, z: metallic, w: roughness
    vec4 emissive; // rgb: emissive factor x strength, w: 1 single-sided (doubleSided false)
    vec4 normal;   // x: the normal texture's scale, y: 1 with a normal texture
} pc;

layout(location = 0) out vec4 out_color;
layout(location = 1) out uint out_id;

const float PI = 3.14159265358979;

vec3 pbr_neutral(vec3 color) {
    const float start_compression = 0.8 - 0.04;
    const float desaturation = 0.15;
    float x = min(color.r, min(color.g, color.b));
    float offset = x < 0.08 ? x - 6.25 * x * x : 0.04;
    color -= offset;
    float peak = max(color.r, max(color.g, color.b));
    if (peak < start_compression) {
        return color;
    }
    const float d = 1.0 - start_compression;
    float new_peak = 1.0 - d * d / (peak + d - start_compression);
    color *= new_peak / peak;
    float g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return mix(color, vec3(new_peak), g);
}

// Radiance of the environment along direction w (view space).
// studio: colour x intensity x (0.6 + 0.4 y), y = w's world height.
const float STUDIO_MEAN = 0.6;
const float STUDIO_SLOPE = 0.4;

// The equirectangular image coordinates of view-space direction w: its
// world direction d at u = 0.5 + atan(d.x, -d.z) / 2pi (the centre column
// looks along -Z, +X at u = 0.75), v = acos(d.y) / pi (+Y the top row).
vec2 equirect_uv(vec3 w) {
    vec3 d = vec3(dot(lighting.to_world[0].xyz, w), dot(lighting.to_world[1].xyz, w), dot(lighting.to_world[2].xyz, w));
    d = normalize(d);
    float u = abs(d.x) + abs(d.z) < 1e-7 ? 0.5 : 0.5 + atan(d.x, -d.z) / (2.0 * PI);
    return vec2(u, acos(clamp(d.y, -1.0, 1.0)) / PI);
}

// Cosine-weighted irradiance / pi for normal n: exact for both analytic
// environments (studio's radiance is linear in the direction, so its
// irradiance is mean + slope x 2/3 x n.up); the irradiance map's for a
// .hdr file.
vec3 env_diffuse(vec3 n) {
    if (lighting.env.w + live_zero > 1.5) {
        // The map's first and last rows are the poles (`envmap.rs`).
        vec2 uv = equirect_uv(n);
        float rows = float(textureSize(env_irradiance_map, 0).y);
        uv.y = (uv.y * (rows - 1.0) + 0.5) / rows;
        return lighting.env.rgb * textureLod(env_irradiance_map, uv, 0.0).rgb;
    }
    if (lighting.env.w + live_zero < 0.5) {
        return lighting.env.rgb;
    }
    return lighting.env.rgb * (STUDIO_MEAN + STUDIO_SLOPE * (2.0 / 3.0) * dot(n, lighting.up.xyz));
}

// Radiance prefiltered by the GGX lobe around reflection r. uniform: the
// radiance itself at every roughness. studio: the lobe's mean direction
// shrinks from r (mirror) towards 2/3 of it (a cosine lobe) as the
// roughness grows; an approximation (docs/spec/materials.md). A .hdr
// file: its prefiltered map at the roughness's level.
vec3 env_specular(vec3 r, float roughness) {
    if (lighting.env.w + live_zero > 1.5) {
        float lod = roughness * lighting.to_world[0].w;
        return lighting.env.rgb * textureLod(env_specular_map, equirect_uv(r), lod).rgb;
    }
    if (lighting.env.w + live_zero < 0.5) {
        return lighting.env.rgb;
    }
    float shrink = mix(1.0, 2.0 / 3.0, roughness * roughness);
    return lighting.env.rgb * (STUDIO_MEAN + STUDIO_SLOPE * shrink * dot(r, lighting.up.xyz));
}

// The BRDF x irradiance `e` x n.l of light arriving from direction `l`
// (towards the light).
vec3 direct(vec3 l, vec3 e, vec3 n, vec3 v, vec3 c_diff, vec3 f0, float a2, float nv) {
    float nl = dot(n, l);
    if (nl <= 0.0) {
        return vec3(0.0);
    }
    vec3 h = normalize(l + v);
    float nh = clamp(dot(n, h), 0.0, 1.0);
    float vh = clamp(dot(v, h), 0.0, 1.0);
    vec3 F = f0 + (1.0 - f0) * pow(1.0 - vh, 5.0);
    float dd = nh * nh * (a2 - 1.0) + 1.0;
    float D = a2 / (PI * dd * dd);
    float ggx_v = nl * sqrt(nv * nv * (1.0 - a2) + a2);
    float ggx_l = nv * sqrt(nl * nl * (1.0 - a2) + a2);
    float V = ggx_v + ggx_l > 0.0 ? 0.5 / (ggx_v + ggx_l) : 0.0;
    vec3 f = (1.0 - F) * c_diff / PI + F * D * V;
    return f * e * nl;
}

vec3 shade_material(vec3 base, vec3 n, vec3 v, float metallic, float roughness, float occlusion) {
    vec3 c_diff = mix(base, vec3(0.0), metallic);
    vec3 f0 = mix(vec3(0.04), base, metallic);
    float alpha = roughness * roughness;
    float a2 = max(alpha * alpha, 1e-8);
    float nv = clamp(dot(n, v), 0.0, 1.0);
    vec3 color = vec3(0.0);
    if (lighting.sun_dir.w + live_zero > 0.5) {
        color += direct(normalize(lighting.sun_dir.xyz), lighting.sun_e.rgb, n, v, c_diff, f0, a2, nv);
    }
    int count = min(int(lighting.params.w + live_zero + 0.5), MAX_LIGHTS);
    for (int i = 0; i < count; i++) {
        vec4 at = lighting.lights[4 * i];
        vec4 dir = lighting.lights[4 * i + 1];
        vec3 e = lighting.lights[4 * i + 2].rgb;
        vec2 cone = lighting.lights[4 * i + 3].xy;
        vec3 l = -dir.xyz;
        if (at.w > 0.5) {
            // Point and spot: candela over the squared distance, with the
            // extension's smooth window to zero at the range.
            vec3 to_light = at.xyz - v_view_position;
            float d2 = max(dot(to_light, to_light), 1e-8);
            l = to_light * inversesqrt(d2);
            e /= d2;
            if (dir.w > 0.0) {
                float q = d2 / (dir.w * dir.w);
                e *= clamp(1.0 - q * q, 0.0, 1.0);
            }
            if (at.w > 1.5) {
                float k = clamp(dot(dir.xyz, -l) * cone.x + cone.y, 0.0, 1.0);
                e *= k * k;
            }
        }
        color += direct(normalize(l), e, n, v, c_diff, f0, a2, nv);
    }
    vec2 ab = texture(brdf_lut, vec2(nv, roughness)).rg;
    vec3 r = reflect(-v, n);
    // Occlusion darkens the environment's light only, not the sun's.
    color += occlusion * c_diff * env_diffuse(n);
    color += occlusion * env_specular(r, roughness) * (f0 * ab.x + ab.y);
    return color;
}

// The normal texture's normal (its x and y scaled by the material's
// scale) in the frame of the tangent, the bitangent and `n`; `n` itself
// where the mesh gives no tangent. The bitangent is sign x (n x t), the
// sign turned where the model-view matrix mirrors.
vec3 mapped_normal(vec3 n) {
    vec3 t = v_tangent.xyz - n * dot(n, v_tangent.xyz);
    if (dot(t, t) < 1e-12) {
        return n;
    }
    t = normalize(t);
    float sign = v_tangent.w < 0.0 ? -1.0 : 1.0;
    if (v_mirrored != 0u) {
        sign = -sign;
    }
    vec3 b = sign * cross(n, t);
    vec3 m = texture(normal_texture, uv_of(NORMAL)).rgb * 2.0 - 1.0;
    m.xy *= pc.normal.x;
    return normalize(t * m.x + b * m.y + n * m.z);
}

void main() {
    live_zero = float(v_mirrored >> 1u);
    // Single-sided materials: back faces are not drawn. The pipelines'
    // front face is clockwise in framebuffer space, glTF's counter-clockwise
    // seen from the front; a mirroring model-view swaps them.
    if (pc.emissive.w + live_zero > 0.5 && gl_FrontFacing != (v_mirrored != 0u)) {
        discard;
    }
    vec4 color = pc.base_color * texture(base_color_texture, uv_of(BASE)) * v_color;
    if (ALPHA_MODE == 1 && color.a < pc.params.x) {
        discard;
    }
    vec3 rgb = color.rgb;
    if (pc.params.y + live_zero < 0.5) {
        vec3 n = normalize(v_normal);
        // The camera's direction: towards the eye (perspective) or along
        // +z (orthographic, where the projection's w row is (0, 0, 0, 1)).
        vec3 v = pc.projection[2][3] + live_zero == 0.0 ? vec3(0.0, 0.0, 1.0) : normalize(-v_view_position);
        if (lighting.params.z + live_zero > 0.5) {
            // Two-sided: light the side that faces the viewer (planes have one side).
            if (dot(n, -v_view_position) < 0.0) {
                n = -n;
            }
            float diffuse = max(dot(n, normalize(lighting.solid_light.xyz)), 0.0);
            rgb *= 0.3 + 0.7 * diffuse;
        } else {
            // A back face turns its whole tangent frame (as glTF viewers
            // do): the mapped normal of the front, negated.
            bool back = dot(n, v) < 0.0;
            if (pc.normal.y + live_zero > 0.5) {
                n = mapped_normal(n);
            }
            if (back) {
                n = -n;
            }
            vec2 mr = texture(metallic_roughness_texture, uv_of(METALLIC_ROUGHNESS)).bg;
            float metallic = clamp(pc.params.z * mr.x, 0.0, 1.0);
            float roughness = clamp(pc.params.w * mr.y, 0.0, 1.0);
            float occlusion = texture(occlusion_texture, uv_of(OCCLUSION)).r;
            vec3 radiance = shade_material(rgb, n, v, metallic, roughness, occlusion);
            radiance += pc.emissive.rgb * texture(emissive_texture, uv_of(EMISSIVE)).rgb;
            radiance *= lighting.params.x;
            rgb = lighting.params.y + live_zero < 0.5 ? pbr_neutral(radiance) : radiance;
            rgb = clamp(rgb, 0.0, 1.0);
        }
    }
    out_color = vec4(rgb, ALPHA_MODE == 2 ? color.a : 1.0);
    out_color.rgb = max(out_color.rgb, vec3(0.0));
    out_id = v_id;
}
