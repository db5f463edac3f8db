#version 450
// Selection outline from the object-ID target: a pixel whose own object is
// not highlighted-and-alone gets the outline colour when a pixel of another,
// highlighted object lies within 2 px (Euclidean, pixel centres). The active
// object's outline wins over the selected one's. Other pixels are left alone.

layout(set = 0, binding = 0) uniform usampler2D ids;
// Per object id: a generation (bits 2 and up) and a code (0 none,
// 1 selected, 2 active). Only entries of the table's own generation,
// entry 0's (id 0 is no object), count: a table rewritten for a new list
// need not clear the entries of the lists before it.
layout(std430, set = 0, binding = 1) readonly buffer Highlights {
    uint highlight[];
};

layout(push_constant) uniform Push {
    vec4 selected_color; // outline colour of selected objects (rgb, a = opacity)
    vec4 active_color;   // outline colour of the active object
} pc;

layout(location = 0) out vec4 out_color;

uint highlight_of(uint id) {
    if (id >= uint(highlight.length())) {
        return 0u;
    }
    uint entry = highlight[id];
    return (entry >> 2) == (highlight[0] >> 2) ? (entry & 3u) : 0u;
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 size = textureSize(ids, 0);
    uint own = texelFetch(ids, p, 0).r;
    uint best = 0u;
    for (int dy = -2; dy <= 2; dy++) {
        for (int dx = -2; dx <= 2; dx++) {
            ivec2 q = p + ivec2(dx, dy);
            if (dx * dx + dy * dy > 4 || any(lessThan(q, ivec2(0))) || any(greaterThanEqual(q, size))) {
                continue;
            }
            uint id = texelFetch(ids, q, 0).r;
            if (id != own) {
                best = max(best, highlight_of(id));
            }
        }
    }
    if (best == 0u) {
        discard;
    }
    out_color = best == 2u ? pc.active_color : pc.selected_color;
}
