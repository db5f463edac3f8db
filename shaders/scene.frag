#version 450
#extension GL_GOOGLE_include_directive : require
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
//   (A, B) from the split-sum BRDF table, the specular lobe scaled by
//   1 + f0 (1 / (A + B) - 1) for the light rough surfaces scatter more
//   than once (Fdez-Aguera 2019); emissive added; then
//   2^exposure, tone mapping (Khronos PBR Neutral or a clamp). The target
//   is an sRGB format: the hardware applies the transfer function.
// Unlit materials show the base colour as it is in both modes.
// Single-sided materials discard back faces (in both modes, and in the
// ids pass) before anything else.

layout(constant_id = 0) const int ALPHA_MODE = 0; // 0 opaque, 1 mask, 2 blend

// The lighting block, the environment's maps and radiance, tone mapping.
#include "lighting.glsl"

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec3 v_view_position;
layout(location = 2) in vec4 v_color;
layout(location = 3) flat in uint v_id;
layout(location = 4) in vec4 v_uv; // TEXCOORD_0 (xy) and TEXCOORD_1 (zw), as the file gives them
layout(location = 5) flat in uint v_mirrored;
// View-space tangent (xyz) and the bitangent's sign (w): TANGENT, or
// MikkTSpace's; zero where the mesh has none.
layout(location = 6) in vec4 v_tangent;

layout(set = 0, binding = 0) uniform sampler2D base_color_texture;
// x: n.v, y: roughness -> (A, B) of the split sum.
layout(set = 0, binding = 2) uniform sampler2D brdf_lut;
layout(set = 0, binding = 3) uniform sampler2D metallic_roughness_texture; // linear, white if none
layout(set = 0, binding = 4) uniform sampler2D emissive_texture;           // sRGB, white if none
// R: occlusion with its strength applied (linear), white if none.
layout(set = 0, binding = 5) uniform sampler2D occlusion_texture;
// Tangent-space normals (linear, RGB in [0, 1] for [-1, 1]); read only
// where pc.normal.y says the material has one.
layout(set = 0, binding = 6) uniform sampler2D normal_texture;
// The directional light's shadow maps, one layer per cascade, read with
// depth comparison (1 where lit).
layout(set = 0, binding = 10) uniform sampler2DArrayShadow shadow_maps;

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

// How much of the shadow-casting directional light reaches view-space
// point p of geometric normal ng (towards the viewer's side), the light
// arriving from l: the first cascade whose map holds p, read at p moved
// along ng by one and a half of its texels (more where the light grazes)
// against the slope of the surface, filtered over 3 x 3 taps of the
// sampler's 2 x 2 comparison (about 4 x 4 texels). 1 outside the maps.
float shadow_factor(vec3 p, vec3 ng, vec3 l) {
    float nl = clamp(dot(ng, l), 0.0, 1.0);
    float size = float(textureSize(shadow_maps, 0).x);
    int count = int(lighting.shadow_info.y + live_zero + 0.5);
    for (int c = 0; c < count; c++) {
        float texel = lighting.shadow_texel[c];
        vec3 q = p + ng * abs(texel) * (1.5 + 1.5 * (1.0 - nl));
        vec4 m = lighting.shadow[c] * vec4(q, 1.0);
        vec3 uvz = m.xyz / m.w;
        float margin = 3.0 / size;
        if (all(greaterThan(uvz.xy, vec2(margin))) && all(lessThan(uvz.xy, vec2(1.0 - margin))) && uvz.z < 1.0) {
            if (texel < 0.0) {
                return 1.0; // nothing casts into this cascade
            }
            float sum = 0.0;
            for (int i = -1; i <= 1; i++) {
                for (int j = -1; j <= 1; j++) {
                    sum += texture(shadow_maps, vec4(uvz.xy + vec2(float(i), float(j)) / size, float(c), uvz.z));
                }
            }
            return sum / 9.0;
        }
    }
    return 1.0;
}

// The BRDF x irradiance `e` x n.l of light arriving from direction `l`
// (towards the light). `comp` scales the specular lobe (energy
// compensation, `shade_material`).
vec3 direct(vec3 l, vec3 e, vec3 n, vec3 v, vec3 c_diff, vec3 f0, float a2, float nv, vec3 comp) {
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
    vec3 f = (1.0 - F) * c_diff / PI + comp * F * D * V;
    return f * e * nl;
}

vec3 shade_material(vec3 base, vec3 n, vec3 ng, vec3 v, float metallic, float roughness, float occlusion) {
    vec3 c_diff = mix(base, vec3(0.0), metallic);
    vec3 f0 = mix(vec3(0.04), base, metallic);
    float alpha = roughness * roughness;
    float a2 = max(alpha * alpha, 1e-8);
    float nv = clamp(dot(n, v), 0.0, 1.0);
    vec3 color = vec3(0.0);
    // Multiple scattering (docs/spec/lights.md, "Rough surfaces keep their
    // energy"): the single-scattering lobe reflects E = A + B of the light
    // a white mirror would; the rest is put back in proportion to f0.
    vec2 ab = texture(brdf_lut, vec2(nv, roughness)).rg;
    vec3 comp = 1.0 + f0 * (1.0 / max(ab.x + ab.y, 1e-3) - 1.0);
    float casting = lighting.shadow_info.x + live_zero;
    if (lighting.sun_dir.w + live_zero > 0.5) {
        vec3 l = normalize(lighting.sun_dir.xyz);
        float lit = casting > 0.5 && casting < 1.5 ? shadow_factor(v_view_position, ng, l) : 1.0;
        color += lit * direct(l, lighting.sun_e.rgb, n, v, c_diff, f0, a2, nv, comp);
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
        if (abs(casting - 2.0 - float(i)) < 0.5) {
            e *= shadow_factor(v_view_position, ng, normalize(l));
        }
        color += direct(normalize(l), e, n, v, c_diff, f0, a2, nv, comp);
    }
    vec3 r = reflect(-v, n);
    // Occlusion darkens the environment's light only, not the sun's.
    color += occlusion * c_diff * env_diffuse(n);
    color += occlusion * env_specular(r, roughness) * (f0 * ab.x + ab.y) * comp;
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
            // The surface's own normal, on the viewer's side (shadows).
            vec3 ng = back ? -n : n;
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
            vec3 radiance = shade_material(rgb, n, ng, v, metallic, roughness, occlusion);
            radiance += pc.emissive.rgb * texture(emissive_texture, uv_of(EMISSIVE)).rgb;
            rgb = exposed_and_toned(radiance);
        }
    }
    out_color = vec4(rgb, ALPHA_MODE == 2 ? color.a : 1.0);
    out_color.rgb = max(out_color.rgb, vec3(0.0));
    out_id = v_id;
}
