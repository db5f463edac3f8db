#version 450
// GPU culling, an ordered compaction in three dispatches of this shader
// (the push constant `phase` picks one). The input is the member list: the
// drawn objects' indices grouped by mesh, ascending inside each mesh, each
// mesh's run padded to whole workgroups (padding: 0xffffffff), so a
// workgroup never spans two meshes.
// 0. Cull: one thread per member slot. The box test is the CPU's
//    (`Frustum::intersects_aabb` of the world AABB of the object's OBB),
//    done camera-relative: the object translation and the eye are f64
//    values split into f32 hi + lo, so the difference keeps its precision
//    far from the origin. A workgroup scan gives each kept object its rank
//    in the workgroup; the workgroup's count goes to `groups`.
// 1. Scan: one workgroup per mesh turns its workgroups' counts into
//    exclusive offsets and writes the mesh's total as the instance count of
//    each of its indirect commands (one per mesh part).
// 2. Scatter: each kept object's index goes to the mesh's slice of the
//    visible list at offset + rank. The visible objects of a mesh are thus
//    in ascending object order every frame, as the CPU path draws them.

layout(local_size_x = 256) in;

const uint GROUP = 256u;
const uint NONE = 0xffffffffu;

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
    uint cmd_count; // 0: not culled here (no parts, or blended)
    uint base;   // first member slot (and visible slot) of the mesh
    uint groups; // workgroups of the mesh's members
    uint pad1;
    uint pad2;
};

layout(std430, set = 0, binding = 0) readonly buffer Objects { Object objects[]; };
layout(std430, set = 0, binding = 1) readonly buffer FrameData {
    vec4 planes[6];   // camera-relative: dot(n, p - eye) + w >= 0 inside
    vec4 eye_hi;
    vec4 eye_lo;
    uvec4 counts;     // x: objects, y: planes, z: meshes, w: member slots
    vec4 view_rot[3]; // the view's rotation, columns
    MeshInfo meshes[];
};
layout(std430, set = 0, binding = 2) buffer Commands { uint cmds[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Visible { uint visible[]; };
layout(std430, set = 0, binding = 4) readonly buffer Members { uint members[]; };
// Per member slot: the kept object's rank in its workgroup, or NONE.
layout(std430, set = 0, binding = 5) buffer Ranks { uint ranks[]; };
// Per workgroup of member slots: its kept count, then (phase 1) the
// exclusive offset of its first kept object in the mesh's slice.
layout(std430, set = 0, binding = 6) buffer Groups { uint groups[]; };

layout(push_constant) uniform Push { uint phase; } pc;

shared uint scan[GROUP];

// Inclusive scan of `scan` across the workgroup; every thread calls it.
void scan_workgroup(uint t) {
    for (uint off = 1u; off < GROUP; off <<= 1u) {
        uint v = t >= off ? scan[t - off] : 0u;
        barrier();
        scan[t] += v;
        barrier();
    }
}

bool kept(uint i) {
    uint mesh = objects[i].mesh;
    if (mesh >= counts.z) {
        return false;
    }
    MeshInfo m = meshes[mesh];
    if (m.cmd_count == 0u) {
        return false;
    }
    if ((objects[i].flags & 1u) != 0u) {
        return true;
    }
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
            return false;
        }
    }
    return true;
}

void main() {
    uint t = gl_LocalInvocationID.x;
    uint g = gl_WorkGroupID.x;
    if (pc.phase == 0u) {
        // Dispatched over whole workgroups of member slots: every thread
        // has a slot (no early return before the barriers).
        uint j = g * GROUP + t;
        uint i = members[j];
        bool keep = i != NONE && kept(i);
        scan[t] = keep ? 1u : 0u;
        barrier();
        scan_workgroup(t);
        ranks[j] = keep ? scan[t] - 1u : NONE;
        if (t == GROUP - 1u) {
            groups[g] = scan[t];
        }
    } else if (pc.phase == 1u) {
        // Workgroup g scans mesh g's workgroup counts (uniform per workgroup).
        MeshInfo m = meshes[g];
        if (m.cmd_count == 0u || m.groups == 0u) {
            return;
        }
        uint first = m.base / GROUP;
        uint per = (m.groups + GROUP - 1u) / GROUP;
        uint lo = min(t * per, m.groups);
        uint hi = min(lo + per, m.groups);
        uint sum = 0u;
        for (uint k = lo; k < hi; k++) {
            sum += groups[first + k];
        }
        scan[t] = sum;
        barrier();
        scan_workgroup(t);
        uint at = scan[t] - sum;
        for (uint k = lo; k < hi; k++) {
            uint n = groups[first + k];
            groups[first + k] = at;
            at += n;
        }
        if (t == 0u) {
            uint total = scan[GROUP - 1u];
            for (uint p = 0u; p < m.cmd_count; p++) {
                cmds[5u * (m.first_cmd + p) + 1u] = total;
            }
        }
    } else {
        uint j = g * GROUP + t;
        uint r = ranks[j];
        if (r != NONE) {
            uint i = members[j];
            visible[meshes[objects[i].mesh].base + groups[g] + r] = i;
        }
    }
}
