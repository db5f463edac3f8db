#version 450
// The box-selection rectangle: a 1 px border and a faint fill, blended over
// the frame. Pixel (i, j) is inside when floor(min) <= (i, j) <= floor(max)
// of the rectangle's corners, on the border when on one of those limits.
// The same pass darkens what lies outside a camera's frame (mode.x = 1).

layout(push_constant) uniform Push {
    vec4 rect;   // x0, y0, x1, y1 in pixels, any corner order
    vec4 border; // rgba
    vec4 fill;   // rgba
    vec4 mode;   // x: 1 fills the outside instead (a camera's frame: x1, y1 exclusive)
} pc;

layout(location = 0) out vec4 out_color;

void main() {
    // (A condition on a push constant alone is compiled anew at each bind
    // by lavapipe: the fragment's x, never negative, keeps it live.)
    if (pc.mode.x + min(gl_FragCoord.x, 0.0) > 0.5) {
        // Outside the frame [x0, x1) x [y0, y1), by pixel centre.
        vec2 c = gl_FragCoord.xy;
        if (all(greaterThanEqual(c, pc.rect.xy)) && all(lessThan(c, pc.rect.zw))) {
            discard;
        }
        out_color = pc.fill;
        return;
    }
    vec2 lo = floor(min(pc.rect.xy, pc.rect.zw));
    vec2 hi = floor(max(pc.rect.xy, pc.rect.zw));
    vec2 p = floor(gl_FragCoord.xy);
    if (any(lessThan(p, lo)) || any(greaterThan(p, hi))) {
        discard;
    }
    bool edge = p.x == lo.x || p.x == hi.x || p.y == lo.y || p.y == hi.y;
    out_color = edge ? pc.border : pc.fill;
}
