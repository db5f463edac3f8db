#version 450
// A ground grid on y = 0: one quad centred under the camera. Every position
// here is relative to the eye (f32 world coordinates far from the origin
// are too coarse for lines): the grid's coordinates start from the eye's
// x and z reduced modulo the pattern's period, the axes' from the world
// origin's offset from the eye. Drawn as a 4-vertex triangle strip with no
// vertex buffer.

layout(push_constant) uniform Push {
    mat4 view_projection_rotation; // projection * view without the translation
    vec4 eye_xz;                   // xy: eye x, z modulo the period; zw: origin x, z minus the eye's
    vec4 params;                   // x: cell size, y: fade start, z: fade end (the quad's half extent), w: eye height
} pc;

layout(location = 0) out vec2 v_grid_xz;   // world x, z up to a whole number of periods
layout(location = 1) out vec3 v_relative;  // position relative to the eye
layout(location = 2) out vec2 v_axis_xz;   // world x, z (exact near the axes only)

void main() {
    vec2 corner = vec2((gl_VertexIndex & 1) == 0 ? -1.0 : 1.0, (gl_VertexIndex & 2) == 0 ? -1.0 : 1.0);
    vec3 relative = vec3(corner.x * pc.params.z, -pc.params.w, corner.y * pc.params.z);
    v_grid_xz = pc.eye_xz.xy + relative.xz;
    v_axis_xz = relative.xz - pc.eye_xz.zw;
    v_relative = relative;
    gl_Position = pc.view_projection_rotation * vec4(relative, 1.0);
}
