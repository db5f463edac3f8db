#version 450
// Diffuse + ambient in the object's colour, so its hue is kept; the object's
// id goes to the ID target (attachment 1) through the same depth test.

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec3 v_view_position;
layout(location = 2) in vec4 v_color;
layout(location = 3) flat in uint v_id;

layout(push_constant) uniform Push {
    mat4 projection;
    vec4 light_dir_view;
} pc;

layout(location = 0) out vec4 out_color;
layout(location = 1) out uint out_id;

void main() {
    vec3 n = normalize(v_normal);
    // Two-sided: light the side that faces the viewer (planes have one side).
    if (dot(n, -v_view_position) < 0.0) {
        n = -n;
    }
    float diffuse = max(dot(n, normalize(pc.light_dir_view.xyz)), 0.0);
    out_color = vec4(v_color.rgb * (0.3 + 0.7 * diffuse), 1.0);
    out_id = v_id;
}
