#version 450
// GPU culling: one thread per scene object. An object whose mesh is drawn
// and whose box meets the view frustum takes the next instance slot of its
// mesh (atomicAdd on the instanceCount of each of the mesh's indirect draw
// commands, one per part) and writes its index into the mesh's slice of the
// visible list. The box test is the CPU's (`Frustum::intersects_aabb` of the
// world AABB of the object's OBB), done in camera-relative space: the object
// translation and the eye are f64 values split into f32 hi + lo, so the
// difference keeps its precision far from the origin.

layout(local_size_x = 64) in;

struct Object {
    vec3 t_hi;
    uint mesh;  // 0xffffffff: draws nothing
    vec3 t_lo;
    uint flags; // bit 0: no box (degenerate), always drawn
    vec4 c0;    // linear part, column 0 (w: colour r)
    vec4 c1;    // column 1 (w: colour g)
    vec4 c2;    // column 2 (w: colour b)
};

struct MeshInfo {
    vec3 center; // local box centre
    uint first_cmd;
    vec3 half_size; // local box half size
    uint cmd_count;
    uint base;   // first slot of the mesh's visible slice
    uint pad0;
    uint pad1;
    uint pad2;
};

layout(std430, set = 0, binding = 0) readonly buffer Objects { Object objects[]; };
layout(std430, set = 0, binding = 1) readonly buffer FrameData {
    vec4 planes[6];   // camera-relative: dot(n, p - eye) + w >= 0 inside
    vec4 eye_hi;
    vec4 eye_lo;
    uvec4 counts;     // x: objects, y: planes, z: meshes
    vec4 view_rot[3]; // the view's rotation, columns
    MeshInfo meshes[];
};
layout(std430, set = 0, binding = 2) buffer Commands { uint cmds[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Visible { uint visible[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= counts.x) {
        return;
    }
    uint mesh = objects[i].mesh;
    if (mesh >= counts.z) {
        return;
    }
    MeshInfo m = meshes[mesh];
    if (m.cmd_count == 0u) {
        return;
    }
    if ((objects[i].flags & 1u) == 0u) {
        mat3 l = mat3(objects[i].c0.xyz, objects[i].c1.xyz, objects[i].c2.xyz);
        vec3 rel = (objects[i].t_hi - eye_hi.xyz) + (objects[i].t_lo - eye_lo.xyz);
        vec3 c = l * m.center + rel;
        vec3 ext = abs(l[0]) * m.half_size.x + abs(l[1]) * m.half_size.y + abs(l[2]) * m.half_size.z;
        for (uint k = 0u; k < counts.y; k++) {
            vec3 n = planes[k].xyz;
            vec3 pv = vec3(n.x >= 0.0 ? c.x + ext.x : c.x - ext.x,
                           n.y >= 0.0 ? c.y + ext.y : c.y - ext.y,
                           n.z >= 0.0 ? c.z + ext.z : c.z - ext.z);
            if (dot(n, pv) + planes[k].w < 0.0) {
                return;
            }
        }
    }
    uint slot = atomicAdd(cmds[5u * m.first_cmd + 1u], 1u);
    for (uint p = 1u; p < m.cmd_count; p++) {
        atomicAdd(cmds[5u * (m.first_cmd + p) + 1u], 1u);
    }
    visible[m.base + slot] = i;
}
