#version 450
// The box-selection rectangle: a 1 px border and a faint fill, blended over
// the frame. Pixel (i, j) is inside when floor(min) <= (i, j) <= floor(max)
// of the rectangle's corners, on the border when on one of those limits.

layout(push_constant) uniform Push {
    vec4 rect;   // x0, y0, x1, y1 in pixels, any corner order
    vec4 border; // rgba
    vec4 fill;   // rgba
} pc;

layout(location = 0) out vec4 out_color;

void main() {
    vec2 lo = floor(min(pc.rect.xy, pc.rect.zw));
    vec2 hi = floor(max(pc.rect.xy, pc.rect.zw));
    vec2 p = floor(gl_FragCoord.xy);
    if (any(lessThan(p, lo)) || any(greaterThan(p, hi))) {
        discard;
    }
    bool edge = p.x == lo.x || p.x == hi.x || p.y == lo.y || p.y == hi.y;
    out_color = edge ? pc.border : pc.fill;
}
