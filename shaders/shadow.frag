#version 450
// The shadow maps' depth: nothing to write but depth, except for MASK
// materials, which cast the shape their alpha test leaves (the scene
// shader's base alpha against the cutoff). Specialised per alpha mode
// like the scene shader; BLEND and unlit materials are not drawn here.

layout(constant_id = 0) const int ALPHA_MODE = 0; // 0 opaque, 1 mask

layout(location = 2) in vec4 v_color;
layout(location = 4) in vec4 v_uv;
layout(location = 5) flat in uint v_mirrored;

layout(set = 0, binding = 0) uniform sampler2D base_color_texture;
layout(std140, set = 0, binding = 7) uniform UvMaps {
    vec4 rows[10];
} uv_maps;

layout(push_constant) uniform Push {
    mat4 projection;
    vec4 base_color;
    vec4 params; // x: alpha cutoff
} pc;

void main() {
    if (ALPHA_MODE == 1) {
        // The base colour texture's UV set and transform (`scene.frag`'s uv_of(BASE)).
        float live_zero = float(v_mirrored >> 1u);
        vec4 r0 = uv_maps.rows[0];
        vec4 r1 = uv_maps.rows[1];
        vec3 uv = vec3(r0.w + live_zero > 0.5 ? v_uv.zw : v_uv.xy, 1.0);
        float alpha = pc.base_color.a * texture(base_color_texture, vec2(dot(r0.xyz, uv), dot(r1.xyz, uv))).a * v_color.a;
        if (alpha < pc.params.x) {
            discard;
        }
    }
}
