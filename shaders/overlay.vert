#version 450
// Gizmo geometry, instanced: one draw per canonical mesh kind.

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;

layout(location = 2) in vec4 in_model_view_0;
layout(location = 3) in vec4 in_model_view_1;
layout(location = 4) in vec4 in_model_view_2;
layout(location = 5) in vec4 in_model_view_3;
layout(location = 6) in vec4 in_color;

layout(push_constant) uniform Push {
    mat4 projection;
    vec4 params; // x: 1 for reversed-Z, 0 for standard; y: alpha factor for hidden parts
} pc;

layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec4 v_color;

void main() {
    mat4 model_view = mat4(in_model_view_0, in_model_view_1, in_model_view_2, in_model_view_3);
    // Handles are scaled non-uniformly (thin shafts); the normal only shades
    // lightly, so the inverse-transpose is not worth it here.
    v_normal = mat3(model_view) * in_normal;
    v_color = in_color;
    gl_Position = pc.projection * (model_view * vec4(in_position, 1.0));
}
