#version 450
// Gizmo colour. Depth-tested against the overlay's own depth buffer (so the
// gizmo occludes itself correctly and is always visible); the scene's depth
// is sampled to draw the parts behind scene geometry faintly.

layout(set = 0, binding = 0) uniform sampler2D scene_depth;

layout(push_constant) uniform Push {
    mat4 projection;
    vec4 params;
} pc;

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec4 v_color;

layout(location = 0) out vec4 out_color;

void main() {
    float scene = texelFetch(scene_depth, ivec2(gl_FragCoord.xy), 0).r;
    bool reversed = pc.params.x > 0.5;
    bool hidden = reversed ? gl_FragCoord.z < scene : gl_FragCoord.z > scene;
    vec3 n = normalize(v_normal);
    float shade = 0.7 + 0.3 * abs(n.z);
    float alpha = v_color.a * (hidden ? pc.params.y : 1.0);
    out_color = vec4(v_color.rgb * shade, alpha);
}
