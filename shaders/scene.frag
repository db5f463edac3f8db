#version 450
// Base colour factor x texture (sRGB, decoded by the sampler) x vertex
// colour x object colour; diffuse + ambient unless unlit, so the hue is
// kept. The object's id goes to the ID target (attachment 1) through the
// same depth test. Specialised per alpha mode (one pipeline each):
// OPAQUE ignores alpha, MASK discards below the cutoff (no colour, id or
// depth), BLEND outputs alpha (blended, no depth writes).

layout(constant_id = 0) const int ALPHA_MODE = 0; // 0 opaque, 1 mask, 2 blend

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec3 v_view_position;
layout(location = 2) in vec4 v_color;
layout(location = 3) flat in uint v_id;
layout(location = 4) in vec2 v_uv;

layout(set = 0, binding = 0) uniform sampler2D base_color_texture;

layout(push_constant) uniform Push {
    mat4 projection;
    vec4 light_dir_view;
    vec4 base_color;
    vec4 params;
} pc;

layout(location = 0) out vec4 out_color;
layout(location = 1) out uint out_id;

void main() {
    vec4 color = pc.base_color * texture(base_color_texture, v_uv) * v_color;
    if (ALPHA_MODE == 1 && color.a < pc.params.x) {
        discard;
    }
    vec3 rgb = color.rgb;
    if (pc.params.y < 0.5) {
        vec3 n = normalize(v_normal);
        // Two-sided: light the side that faces the viewer (planes have one side).
        if (dot(n, -v_view_position) < 0.0) {
            n = -n;
        }
        float diffuse = max(dot(n, normalize(pc.light_dir_view.xyz)), 0.0);
        rgb *= 0.3 + 0.7 * diffuse;
    }
    out_color = vec4(rgb, ALPHA_MODE == 2 ? color.a : 1.0);
    out_id = v_id;
}
