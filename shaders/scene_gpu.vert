#version 450
// Scene objects drawn from the persistent object buffer (GPU culling): the
// instance index (from the indirect command's firstInstance, the mesh's
// slice) picks an object from the visible list that cull.comp wrote. The
// model-view matrix is formed camera-relative: the translation minus the
// eye, each an f64 split into f32 hi + lo, then rotated by the view, so
// objects far from the origin keep their precision. Same outputs as
// scene.vert, so scene.frag serves both.

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 11) in vec4 in_uv; // TEXCOORD_0 (xy) and TEXCOORD_1 (zw)
layout(location = 12) in vec4 in_vertex_color;
layout(location = 13) in vec4 in_tangent; // xyz, w: bitangent sign; zero if none

struct Object {
    vec3 t_hi;
    uint mesh;
    vec3 t_lo;
    uint flags;
    vec4 c0;
    vec4 c1;
    vec4 c2;
};

layout(std430, set = 1, binding = 0) readonly buffer Objects { Object objects[]; };
layout(std430, set = 1, binding = 1) readonly buffer FrameData {
    vec4 planes[6];
    vec4 eye_hi;
    vec4 eye_lo;
    uvec4 counts;
    vec4 view_rot[3];
};
layout(std430, set = 1, binding = 3) readonly buffer Visible { uint visible[]; };

layout(push_constant) uniform Push {
    mat4 projection;
} pc;

layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec3 v_view_position;
layout(location = 2) out vec4 v_color;
layout(location = 3) flat out uint v_id;
layout(location = 4) out vec4 v_uv;
layout(location = 5) flat out uint v_mirrored;
layout(location = 6) out vec4 v_tangent;

void main() {
    uint i = visible[gl_InstanceIndex];
    Object o = objects[i];
    mat3 r = mat3(view_rot[0].xyz, view_rot[1].xyz, view_rot[2].xyz);
    mat3 lin = r * mat3(o.c0.xyz, o.c1.xyz, o.c2.xyz);
    vec3 rel = (o.t_hi - eye_hi.xyz) + (o.t_lo - eye_lo.xyz);
    vec3 view_position = lin * in_position + r * rel;
    v_view_position = view_position;
    v_normal = transpose(inverse(lin)) * in_normal;
    v_color = vec4(o.c0.w, o.c1.w, o.c2.w, 1.0) * in_vertex_color;
    v_uv = in_uv;
    v_tangent = vec4(lin * in_tangent.xyz, in_tangent.w);
    v_mirrored = determinant(lin) < 0.0 ? 1u : 0u;
    v_id = i + 1u;
    gl_Position = pc.projection * vec4(view_position, 1.0);
}
