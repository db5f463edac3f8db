#version 450
// The object-ID pass of an MSAA frame (single-sampled, no colour target):
// only the object's id, through the depth test, with the MASK discard of
// `scene.frag` computed the same way, so the same fragments survive as in
// a frame without MSAA. No lighting and, outside MASK, no texture fetch.

layout(constant_id = 0) const int ALPHA_MODE = 0; // 0 opaque, 1 mask, 2 blend

layout(location = 2) in vec4 v_color;
layout(location = 3) flat in uint v_id;
layout(location = 4) in vec2 v_uv;
layout(location = 5) flat in uint v_mirrored;

layout(set = 0, binding = 0) uniform sampler2D base_color_texture;

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
        vec4 color = pc.base_color * texture(base_color_texture, v_uv) * v_color;
        if (color.a < pc.params.x) {
            discard;
        }
    }
    out_id = v_id;
}
