#version 450
// A ground grid on y = 0: one quad centred under the camera, positioned
// relative to the eye so precision does not depend on the distance from the
// origin. Drawn as a 4-vertex triangle strip with no vertex buffer.

layout(push_constant) uniform Push {
    mat4 view_projection_rotation; // projection * view without the translation
    vec4 eye;                      // xyz: camera position, w: half extent of the quad
    vec4 params;                   // x: cell size, y: fade start, z: fade end
} pc;

layout(location = 0) out vec2 v_world_xz;
layout(location = 1) out vec3 v_relative; // position relative to the eye

void main() {
    vec2 corner = vec2((gl_VertexIndex & 1) == 0 ? -1.0 : 1.0, (gl_VertexIndex & 2) == 0 ? -1.0 : 1.0);
    vec3 relative = vec3(corner.x * pc.eye.w, -pc.eye.y, corner.y * pc.eye.w);
    v_world_xz = pc.eye.xz + relative.xz;
    v_relative = relative;
    gl_Position = pc.view_projection_rotation * vec4(relative, 1.0);
}
