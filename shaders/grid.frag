#version 450
// Anti-aliased grid lines at every zoom: per pixel, the power-of-ten cell
// whose lines fall 10 to 100 px apart (fading in from nothing at 10 px)
// and the lines ten times coarser, so zooming steps through the levels
// smoothly (`docs/spec/views.md`); the world axes in the plane coloured
// (X red, Y green, Z blue); fading out with distance from the eye. The
// lines come from coordinates offset by a whole number of periods from the
// world's (see grid.vert), the axes from the plane coordinates relative to
// the origin, so both stay as sharp far from the origin as near it.

layout(location = 0) in vec2 v_grid;
layout(location = 1) in vec3 v_relative;
layout(location = 2) in vec2 v_axis;

layout(push_constant) uniform Push {
    mat4 view_projection_rotation;
    vec4 grid;
    vec4 quad;
    vec4 params;
    ivec4 axes;
} pc;

layout(location = 0) out vec4 out_color;

// How much of a pixel the nearest line at an integer of `coord` covers;
// `width`: the pixel's size in `coord` units. Given rather than taken with
// fwidth(coord): the cell, and so `coord`, may change inside a 2x2 block
// where the level changes, and fwidth would then see a jump.
float line_coverage(vec2 coord, vec2 width) {
    vec2 g = abs(fract(coord - 0.5) - 0.5) / max(width, vec2(1e-6));
    return 1.0 - min(min(g.x, g.y), 1.0);
}

vec3 axis_color(int i) {
    return i == 0 ? vec3(0.85, 0.2, 0.2) : i == 1 ? vec3(0.3, 0.75, 0.2) : vec3(0.2, 0.35, 0.9);
}

void main() {
    // The finest cell that may be drawn (one to ten pixels at the view's
    // centre); the level drawn here depends on this pixel's footprint.
    float base = pc.params.x;
    vec2 w = fwidth(v_grid);
    float pixel = max(max(w.x, w.y), 1e-12);
    // level: 0 where base cells are 10 px apart, 1 where they are 1 px.
    float level = log(10.0 * pixel / base) / log(10.0);
    float l = clamp(ceil(level), 0.0, 4.0);
    float cell = base * pow(10.0, l);
    // Lines `cell` apart are 10 * 10^t px apart: invisible at t = 0 (the
    // next finer level just left), full from t = 0.2 (16 px) on.
    float t = clamp(l - level, 0.0, 1.0);
    float minor = line_coverage(v_grid / cell, w / cell) * smoothstep(0.0, 0.2, t);
    // The coarser lines, thinned out where even they crowd (the horizon).
    float density = pixel / (10.0 * cell);
    float major = line_coverage(v_grid / (10.0 * cell), w / (10.0 * cell)) * (1.0 - smoothstep(0.15, 0.4, density));
    vec3 color = vec3(0.45);
    float alpha = max(minor * 0.45, major * 0.7);

    // A pixel's width in plane units, from the coordinates that are exact
    // everywhere (the axis coordinates are coarse where no axis is near).
    vec2 width = fwidth(v_grid);
    float along_u = 1.0 - min(abs(v_axis.y) / max(width.y, 1e-6), 1.0); // along u: v == 0
    float along_v = 1.0 - min(abs(v_axis.x) / max(width.x, 1e-6), 1.0); // along v: u == 0
    if (along_u > 0.0) { color = mix(color, axis_color(pc.axes.x), along_u); alpha = max(alpha, along_u); }
    if (along_v > 0.0) { color = mix(color, axis_color(pc.axes.y), along_v); alpha = max(alpha, along_v); }

    // The distance must be computed per fragment: it is not linear across the quad.
    float fade = 1.0 - smoothstep(pc.params.y, pc.params.z, length(v_relative));
    // An empty fragment covers no sample rather than being discarded: the
    // same pixels change, but lavapipe skips the blending (per sample with
    // MSAA) of a block whose samples are all uncovered, and not of one
    // whose fragments were discarded.
    gl_SampleMask[0] = alpha * fade < 0.003 ? 0 : -1;
    out_color = vec4(color, alpha * fade);
}
