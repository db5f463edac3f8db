#version 450
// Scene objects, drawn instanced: one draw per mesh part, one instance per
// object. Positions are transformed by a model-view matrix computed on the
// CPU in f64, so objects far from the origin keep their precision.

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;

layout(location = 2) in vec4 in_model_view_0;
layout(location = 3) in vec4 in_model_view_1;
layout(location = 4) in vec4 in_model_view_2;
layout(location = 5) in vec4 in_model_view_3;
layout(location = 6) in vec4 in_normal_0;
layout(location = 7) in vec4 in_normal_1;
layout(location = 8) in vec4 in_normal_2;
layout(location = 9) in vec4 in_color; // the object's colour (rgb), a = 1
layout(location = 10) in uint in_id;   // object id for the ID target

layout(location = 11) in vec4 in_uv;          // TEXCOORD_0 (xy) and TEXCOORD_1 (zw)
layout(location = 12) in vec4 in_vertex_color; // COLOR_0 (linear), white if absent
layout(location = 13) in vec4 in_tangent;       // xyz, w: bitangent sign; zero if none

layout(push_constant) uniform Push {
    mat4 projection;
} pc;

layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec3 v_view_position;
layout(location = 2) out vec4 v_color;
layout(location = 3) flat out uint v_id;
layout(location = 4) out vec4 v_uv;
// 1 where the model-view matrix mirrors (negative determinant): glTF's
// front faces are then the clockwise ones.
layout(location = 5) flat out uint v_mirrored;
layout(location = 6) out vec4 v_tangent;

void main() {
    mat4 model_view = mat4(in_model_view_0, in_model_view_1, in_model_view_2, in_model_view_3);
    vec4 view_position = model_view * vec4(in_position, 1.0);
    v_view_position = view_position.xyz;
    v_normal = mat3(in_normal_0.xyz, in_normal_1.xyz, in_normal_2.xyz) * in_normal;
    v_color = in_color * in_vertex_color;
    v_uv = in_uv;
    v_tangent = vec4(mat3(model_view) * in_tangent.xyz, in_tangent.w);
    v_mirrored = determinant(mat3(model_view)) < 0.0 ? 1u : 0u;
    v_id = in_id;
    gl_Position = pc.projection * view_position;
}
