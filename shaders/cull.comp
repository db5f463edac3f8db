#version 450
// GPU culling, an ordered compaction in four dispatches of this shader
// (the push constant `phase` picks one). The input is the member list: the
// drawn objects' indices grouped by mesh, ascending inside each mesh, each
// mesh's run padded to whole workgroups (padding: 0xffffffff), so a
// workgroup never spans two meshes.
// 0. Coarse: one thread per workgroup of member slots tests the boxes of
//    the chunks (32 consecutive object ids, see render/gpu/chunks.rs) its
//    objects fall in, with a margin that keeps the test conservative
//    against the per-object one. A workgroup whose chunks all miss the
//    frustum gets a count of 0; the others are appended (in any order) to
//    a list of workgroups, whose length is the x of the indirect dispatch
//    of phases 1 and 3 (at the start of `cmds`, 0 from the CPU each frame).
//    So the per-object work, and the workgroups launched, follow what is
//    near the view, not the scene.
// 1. Cull: one workgroup per listed workgroup of slots, one thread per
//    slot. The box test is the CPU's (`Frustum::intersects_aabb` of the
//    world AABB of the object's OBB), done camera-relative: the object
//    translation and the eye are f64 values split into f32 hi + lo, so the
//    difference keeps its precision far from the origin. The workgroup's
//    kept slots become a 64-bit mask (two words of `masks`, set with
//    shared-memory atomics: one barrier, no scan) and its count goes to
//    `groups`.
// 2. Scan: one workgroup per mesh turns its workgroups' counts into
//    exclusive offsets and writes the mesh's total as the instance count of
//    each of its indirect commands (one per mesh part).
// 3. Scatter: over the listed workgroups again, each kept object's index
//    goes to the mesh's slice of the visible list at offset + rank, its
//    rank the number of kept slots before it in the mask. The
//    visible objects of a mesh are thus in ascending object order every
//    frame, as the CPU path draws them, whatever the list's order.

layout(local_size_x = 64) in;

const uint GROUP = 64u; // the keep masks are two 32-bit words
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
    // The small-object test (render/small.rs): the projection, then
    // width, height, margin (pixels), then the sample positions in a pixel
    // ((x, y) pairs), then their count (0: off).
    mat4 projection;
    vec4 screen;
    vec4 sample_xy[5];
    uvec4 sample_count;
    MeshInfo meshes[];
};
// The indirect dispatch of phases 1 and 3 (x, y, z, pad), then one
// VkDrawIndexedIndirectCommand (5 uints) per culled mesh part.
layout(std430, set = 0, binding = 2) buffer Commands { uint cmds[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Visible { uint visible[]; };
// The member slots (counts.w of them), then per workgroup of slots the
// first and last chunk its objects fall in.
layout(std430, set = 0, binding = 4) readonly buffer Members { uint members[]; };
// Per workgroup of member slots: which of its 64 slots are kept (bit k of
// word k / 32), written by phase 1 for the listed workgroups.
layout(std430, set = 0, binding = 5) buffer Masks { uint masks[]; };
// Three arrays of one entry per workgroup of member slots: its kept count
// (phases 0 and 1), the exclusive offset of its first kept object in the
// mesh's slice (phase 2), and the list of workgroups that passed phase 0.
layout(std430, set = 0, binding = 6) buffer Groups { uint groups[]; };

struct Chunk {
    vec3 c_hi;   // box centre, f64 split as object translations are
    uint flags;  // 1: always meets the frustum, 2: never (no object)
    vec3 c_lo;
    uint pad0;
    vec3 half_size;
    uint pad1;
};
layout(std430, set = 0, binding = 7) readonly buffer Chunks { Chunk chunks[]; };
// One bit per object: hidden with its record kept (render/cull/compute:
// GpuScene::set_hidden).
layout(std430, set = 0, binding = 8) readonly buffer Hidden { uint hidden[]; };

// More chunks than this under one workgroup (objects of several meshes
// interleaved): the workgroup is not tested as a whole.
const uint MAX_SPAN = 8u;

layout(push_constant) uniform Push { uint phase; } pc;

shared uint scan[GROUP];
shared uint kept_mask[2];

// Inclusive scan of `scan` across the workgroup; every thread calls it.
void scan_workgroup(uint t) {
    for (uint off = 1u; off < GROUP; off <<= 1u) {
        uint v = t >= off ? scan[t - off] : 0u;
        barrier();
        scan[t] += v;
        barrier();
    }
}

// Whether the screen rectangle [r.x, r.y] x [r.z, r.w], widened by the
// margin, holds a sample position (integer pixel + a listed offset).
bool rect_holds_sample(vec4 r) {
    float m = screen.z;
    for (uint k = 0u; k < sample_count.x; k++) {
        vec2 s = (k & 1u) == 0u ? sample_xy[k / 2u].xy : sample_xy[k / 2u].zw;
        if (ceil(r.x - m - s.x) <= floor(r.y + m - s.x) && ceil(r.z - m - s.y) <= floor(r.w + m - s.y)) {
            return true;
        }
    }
    return false;
}

// The small-object test: false when every corner of the box (camera-
// relative centre c, half-edge vectors e) is in front of the near plane and
// their screen rectangle holds no sample.
bool small_keeps(vec3 c, mat3 e) {
    mat3 r = mat3(view_rot[0].xyz, view_rot[1].xyz, view_rot[2].xyz);
    vec4 rect = vec4(1e30, -1e30, 1e30, -1e30);
    for (uint k = 0u; k < 8u; k++) {
        vec3 p = c + e[0] * ((k & 1u) != 0u ? 1.0 : -1.0) + e[1] * ((k & 2u) != 0u ? 1.0 : -1.0)
            + e[2] * ((k & 4u) != 0u ? 1.0 : -1.0);
        if (!(dot(planes[4].xyz, p) + planes[4].w > 0.0)) {
            return true;
        }
        vec4 clip = projection * vec4(r * p, 1.0);
        if (!(clip.w > 0.0)) {
            return true;
        }
        vec2 s = (clip.xy / clip.w + 1.0) * 0.5 * screen.xy;
        rect = vec4(min(rect.x, s.x), max(rect.y, s.x), min(rect.z, s.y), max(rect.w, s.y));
    }
    return rect_holds_sample(rect);
}

bool kept(uint i) {
    uint mesh = objects[i].mesh;
    if (mesh >= counts.z || (hidden[i >> 5u] & (1u << (i & 31u))) != 0u) {
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
    if (sample_count.x > 0u) {
        vec3 h = m.half_size;
        return small_keeps(c, mat3(l[0] * h.x, l[1] * h.y, l[2] * h.z));
    }
    return true;
}

// Whether chunk c may hold an object the per-object test keeps: its box
// against every plane, kept within a margin of 1e-5 of the sizes involved.
bool chunk_meets(uint c) {
    Chunk k = chunks[c];
    if (k.flags != 0u) {
        return k.flags == 1u;
    }
    vec3 rel = (k.c_hi - eye_hi.xyz) + (k.c_lo - eye_lo.xyz);
    vec3 ext = k.half_size;
    float size = abs(rel.x) + abs(rel.y) + abs(rel.z) + ext.x + ext.y + ext.z;
    for (uint p = 0u; p < counts.y; p++) {
        vec3 n = planes[p].xyz;
        float d = dot(n, rel) + dot(abs(n), ext) + planes[p].w;
        if (d < -1e-5 * (size + abs(planes[p].w))) {
            return false;
        }
    }
    return true;
}

// Whether workgroup g's objects may meet the frustum (uniform in g).
bool group_meets(uint g) {
    uint at = counts.w + 2u * g;
    uint first = members[at];
    uint last = members[at + 1u];
    if (first == NONE) {
        return false; // room for new objects, none yet
    }
    if (last - first >= MAX_SPAN) {
        return true;
    }
    for (uint c = first; c <= last; c++) {
        if (chunk_meets(c)) {
            return true;
        }
    }
    return false;
}

const uint DISPATCH = 4u; // uints before the draw commands in `cmds`

void main() {
    uint t = gl_LocalInvocationID.x;
    uint groups_total = counts.w / GROUP;
    if (pc.phase == 0u) {
        uint g = gl_GlobalInvocationID.x;
        if (g >= groups_total) {
            return;
        }
        if (group_meets(g)) {
            groups[2u * groups_total + atomicAdd(cmds[0], 1u)] = g;
        } else {
            groups[g] = 0u;
        }
    } else if (pc.phase == 1u) {
        // Every thread has a slot (no early return before the barriers).
        uint g = groups[2u * groups_total + gl_WorkGroupID.x];
        if (t < 2u) {
            kept_mask[t] = 0u;
        }
        barrier();
        uint i = members[g * GROUP + t];
        if (i != NONE && kept(i)) {
            atomicOr(kept_mask[t >> 5u], 1u << (t & 31u));
        }
        barrier();
        if (t < 2u) {
            masks[2u * g + t] = kept_mask[t];
        }
        if (t == 0u) {
            groups[g] = bitCount(kept_mask[0]) + bitCount(kept_mask[1]);
        }
    } else if (pc.phase == 2u) {
        // Workgroup w scans mesh w's workgroup counts (uniform per workgroup).
        MeshInfo m = meshes[gl_WorkGroupID.x];
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
            groups[groups_total + first + k] = at;
            at += groups[first + k];
        }
        if (t == 0u) {
            uint total = scan[GROUP - 1u];
            for (uint p = 0u; p < m.cmd_count; p++) {
                cmds[DISPATCH + 5u * (m.first_cmd + p) + 1u] = total;
            }
        }
    } else {
        uint g = groups[2u * groups_total + gl_WorkGroupID.x];
        if (groups[g] == 0u) {
            return;
        }
        uint lo = masks[2u * g];
        uint hi = masks[2u * g + 1u];
        uint bit = 1u << (t & 31u);
        if (((t < 32u ? lo : hi) & bit) != 0u) {
            // Kept slots before slot t.
            uint r = t < 32u ? bitCount(lo & (bit - 1u)) : bitCount(lo) + bitCount(hi & (bit - 1u));
            uint i = members[g * GROUP + t];
            visible[meshes[objects[i].mesh].base + groups[groups_total + g] + r] = i;
        }
    }
}
