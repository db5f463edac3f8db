#version 450
// The grid: one quad in a plane through the origin spanned by two world
// axes (the ground: X and Z; in orthographic views along X or Z the plane
// facing the view). Every position here is relative to the eye (f32 world
// coordinates far from the origin are too coarse for lines): the grid's
// coordinates start from the eye's reduced modulo the pattern's period, the
// axes' from the world origin's offset from the eye. Drawn as a 4-vertex
// triangle strip with no vertex buffer.

layout(push_constant) uniform Push {
    mat4 view_projection_rotation; // projection * view without the translation
    vec4 grid;                     // xy: eye u, v modulo the period; zw: origin u, v minus the eye's
    vec4 quad;                     // xy: quad centre from the eye's foot point; z: half extent; w: plane offset along n
    vec4 params;                   // x: cell size, y: fade start, z: fade end; w: depth to draw at, or -1
    ivec4 axes;                    // world axis (0 X, 1 Y, 2 Z) of u, v, n
} pc;

layout(location = 0) out vec2 v_grid;      // plane coordinates up to a whole number of periods
layout(location = 1) out vec3 v_relative;  // position relative to the eye
layout(location = 2) out vec2 v_axis;      // plane coordinates (exact near the axes only)

vec3 world_axis(int i) {
    return vec3(i == 0 ? 1.0 : 0.0, i == 1 ? 1.0 : 0.0, i == 2 ? 1.0 : 0.0);
}

void main() {
    vec2 corner = vec2((gl_VertexIndex & 1) == 0 ? -1.0 : 1.0, (gl_VertexIndex & 2) == 0 ? -1.0 : 1.0);
    vec2 in_plane = pc.quad.xy + corner * pc.quad.z; // from the eye's foot point
    vec3 relative = world_axis(pc.axes.x) * in_plane.x + world_axis(pc.axes.y) * in_plane.y
                  + world_axis(pc.axes.z) * pc.quad.w;
    v_grid = pc.grid.xy + in_plane;
    v_axis = in_plane - pc.grid.zw;
    v_relative = relative;
    gl_Position = pc.view_projection_rotation * vec4(relative, 1.0);
    // A grid facing the view is drawn at the cleared depth: behind every
    // object, so only the background shows it.
    if (pc.params.w >= 0.0) {
        gl_Position.z = pc.params.w * gl_Position.w;
    }
}
