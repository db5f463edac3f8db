#version 450
// Gizmo colour without the scene's depth: the variant of overlay.frag used
// when an embedding engine gives no scene depth to fade hidden parts
// against. Every fragment is drawn at full alpha.

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec4 v_color;

layout(location = 0) out vec4 out_color;

void main() {
    vec3 n = normalize(v_normal);
    float shade = 0.7 + 0.3 * abs(n.z);
    out_color = vec4(v_color.rgb * shade, v_color.a);
}
