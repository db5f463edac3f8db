#version 450
// The object-ID pass of an MSAA frame (single-sampled, no colour target):
// only the object's id, through the depth test, with the MASK discard of
// `scene.frag` computed the same way, so the same fragments survive as in
// a frame without MSAA. No lighting and, outside MASK, no texture fetch.

layout(constant_id = 0) const int ALPHA_MODE = 0; // 0 opaque, 1 mask, 2 blend

layout(location = 2) in vec4 v_color;
layout(location = 3) flat in uint v_id;
layout(location = 4) in vec4 v_uv; // TEXCOORD_0 (xy), TEXCOORD_1 (zw)
layout(location = 5) flat in uint v_mirrored;

layout(set = 0, binding = 0) uniform sampler2D base_color_texture;
// The base colour texture's UV set and transform: scene.frag's UvMaps, row 0 and 1.
layout(std140, set = 0, binding = 7) uniform UvMaps {
    vec4 rows[10];
} uv_maps;

layout(push_constant) uniform Push {
    mat4 projection;
    vec4 base_color;
    vec4 params;
    vec4 emissive; // w: 1 single-sided
} pc;

layout(location = 1) out uint out_id;

void main() {
    // Single-sided materials: back faces cut away (as scene.frag).
    if (pc.emissive.w > 0.5 && gl_FrontFacing != (v_mirrored != 0u)) {
        discard;
    }
    if (ALPHA_MODE == 1) {
        vec4 r0 = uv_maps.rows[0];
        vec4 r1 = uv_maps.rows[1];
        vec3 uv = vec3(r0.w > 0.5 ? v_uv.zw : v_uv.xy, 1.0);
        vec4 color = pc.base_color * texture(base_color_texture, vec2(dot(r0.xyz, uv), dot(r1.xyz, uv))) * v_color;
        if (color.a < pc.params.x) {
            discard;
        }
    }
    out_id = v_id;
}
