#version 450
#extension GL_GOOGLE_include_directive : require
// The environment behind the scene (`lighting.background: "environment"`):
// each pixel of a view shows the environment's radiance along its view
// ray, prefiltered to the background's blur, exposed and tone-mapped as
// the scene is. Drawn first in each view, without depth; ids stay 0.

#include "lighting.glsl"

layout(push_constant) uniform Push {
    mat4 inverse_projection;
    vec4 rect; // the view's rectangle: x, y, width, height in pixels
    vec4 mode; // x: 1 orthographic (every ray along -z)
} pc;

layout(location = 0) out vec4 out_color;
layout(location = 1) out uint out_id;

void main() {
    live_zero = min(gl_FragCoord.x, 0.0);
    vec2 ndc = 2.0 * (gl_FragCoord.xy - pc.rect.xy) / pc.rect.zw - 1.0;
    vec3 w = vec3(0.0, 0.0, -1.0);
    if (pc.mode.x + live_zero < 0.5) {
        // Perspective: the eye is the origin; any depth of the pixel lies
        // on its ray (0.5 is finite in both depth modes).
        vec4 p = pc.inverse_projection * vec4(ndc, 0.5, 1.0);
        w = normalize(p.xyz / p.w);
    }
    float blur = lighting.to_world[1].w;
    out_color = vec4(exposed_and_toned(env_specular(w, blur)), 1.0);
    out_id = 0u;
}
