// Shared by the scene and sky shaders: the per-frame lighting block, the
// environment's radiance and its maps, and tone mapping. Set 0's bindings
// 1, 8 and 9 of the material layout (`render/assets/material.rs`).

const int MAX_LIGHTS = 8; // render/assets/environment.rs MAX_LIGHTS
const float PI = 3.14159265358979;

// Zero, computed in main() from a shader input (so the compiler cannot
// know it), added to every value
// from a uniform block or push constant that an `if`, a `?:` or the light
// loop's count depends on. Lavapipe (Mesa 22.3, Debian 12) "inlines"
// uniforms that such conditions read alone: at each pipeline bind it
// compiles a new copy of the shader with their values built in and never
// frees the old one (about 1.7 MB a frame here). A condition that also
// reads an input cannot be inlined. Set first thing in main().
float live_zero = 0.0;

// Per frame, view space (`render/assets/environment.rs`, `LightingBlock`).
layout(std140, set = 0, binding = 1) uniform Lighting {
    vec4 sun_dir;  // xyz: towards the sun (l), w: 1 when there is a sun
    vec4 sun_e;    // rgb: colour x illuminance
    vec4 env;      // rgb: colour x intensity, w: 0 uniform, 1 studio, 2 the .hdr maps
    vec4 up;       // xyz: world +y in view space
    vec4 params;   // x: 2^exposure_ev, y: 0 PBR Neutral / 1 linear, z: 0 material / 1 solid
    vec4 solid_light; // xyz: towards the solid mode's light, view space
    // Rows of the rotation from view space to the environment's frame
    // (world space turned by -environment_rotation_deg about +Y), xyz;
    // to_world[0].w: the specular map's last mip level (roughness 1);
    // to_world[1].w: the background's blur (0 sharp, 1 the last level).
    vec4 to_world[3];
    // x: which light casts shadows (0 none, 1 the sun, 2 + k scene light
    // k), y: the cascades' count; per cascade the world size of a texel of
    // its map (negative: nothing casts there, its layer is not drawn), and
    // the matrix from view space to its map (xy in [0, 1], z
    // the depth).
    vec4 shadow_info;
    vec4 shadow_texel;
    mat4 shadow[4];
    // The scene's KHR_lights_punctual lights (params.w of them), view
    // space, four vec4s each: position (xyz) and kind (w: 0 directional,
    // 1 point, 2 spot); direction of travel (xyz) and range (w, 0:
    // infinite); colour x intensity (rgb); the spot's cone scale and
    // offset (x, y: attenuation clamp(cos x scale + offset, 0, 1)^2).
    vec4 lights[4 * MAX_LIGHTS];
} lighting;
// A .hdr environment (env.w = 2), equirectangular (`envmap.rs`): the
// irradiance over pi per normal (its rows from pole to pole), and radiance prefiltered by the GGX lobe
// per reflection direction, mip level k for roughness k / last level. U
// repeats, V clamps to the edge.
layout(set = 0, binding = 8) uniform sampler2D env_irradiance_map;
layout(set = 0, binding = 9) uniform sampler2D env_specular_map;

vec3 pbr_neutral(vec3 color) {
    const float start_compression = 0.8 - 0.04;
    const float desaturation = 0.15;
    float x = min(color.r, min(color.g, color.b));
    float offset = x < 0.08 ? x - 6.25 * x * x : 0.04;
    color -= offset;
    float peak = max(color.r, max(color.g, color.b));
    if (peak < start_compression) {
        return color;
    }
    const float d = 1.0 - start_compression;
    float new_peak = 1.0 - d * d / (peak + d - start_compression);
    color *= new_peak / peak;
    float g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return mix(color, vec3(new_peak), g);
}

// Radiance of the environment along direction w (view space).
// studio: colour x intensity x (0.6 + 0.4 y), y = w's world height.
const float STUDIO_MEAN = 0.6;
const float STUDIO_SLOPE = 0.4;

// The equirectangular image coordinates of view-space direction w: its
// world direction d at u = 0.5 + atan(d.x, -d.z) / 2pi (the centre column
// looks along -Z, +X at u = 0.75), v = acos(d.y) / pi (+Y the top row).
vec2 equirect_uv(vec3 w) {
    vec3 d = vec3(dot(lighting.to_world[0].xyz, w), dot(lighting.to_world[1].xyz, w), dot(lighting.to_world[2].xyz, w));
    d = normalize(d);
    float u = abs(d.x) + abs(d.z) < 1e-7 ? 0.5 : 0.5 + atan(d.x, -d.z) / (2.0 * PI);
    return vec2(u, acos(clamp(d.y, -1.0, 1.0)) / PI);
}

// Cosine-weighted irradiance / pi for normal n: exact for both analytic
// environments (studio's radiance is linear in the direction, so its
// irradiance is mean + slope x 2/3 x n.up); the irradiance map's for a
// .hdr file.
vec3 env_diffuse(vec3 n) {
    if (lighting.env.w + live_zero > 1.5) {
        // The map's first and last rows are the poles (`envmap.rs`).
        vec2 uv = equirect_uv(n);
        float rows = float(textureSize(env_irradiance_map, 0).y);
        uv.y = (uv.y * (rows - 1.0) + 0.5) / rows;
        return lighting.env.rgb * textureLod(env_irradiance_map, uv, 0.0).rgb;
    }
    if (lighting.env.w + live_zero < 0.5) {
        return lighting.env.rgb;
    }
    return lighting.env.rgb * (STUDIO_MEAN + STUDIO_SLOPE * (2.0 / 3.0) * dot(n, lighting.up.xyz));
}

// Radiance prefiltered by the GGX lobe around reflection r. uniform: the
// radiance itself at every roughness. studio: the lobe's mean direction
// shrinks from r (mirror) towards 2/3 of it (a cosine lobe) as the
// roughness grows; an approximation (docs/spec/materials.md). A .hdr
// file: its prefiltered map at the roughness's level.
vec3 env_specular(vec3 r, float roughness) {
    if (lighting.env.w + live_zero > 1.5) {
        float lod = roughness * lighting.to_world[0].w;
        return lighting.env.rgb * textureLod(env_specular_map, equirect_uv(r), lod).rgb;
    }
    if (lighting.env.w + live_zero < 0.5) {
        return lighting.env.rgb;
    }
    float shrink = mix(1.0, 2.0 / 3.0, roughness * roughness);
    return lighting.env.rgb * (STUDIO_MEAN + STUDIO_SLOPE * shrink * dot(r, lighting.up.xyz));
}


// Radiance as displayed (before the sRGB curve the target applies):
// 2^exposure, then PBR Neutral or a clamp.
vec3 exposed_and_toned(vec3 radiance) {
    radiance *= lighting.params.x;
    vec3 rgb = lighting.params.y + live_zero < 0.5 ? pbr_neutral(radiance) : radiance;
    return clamp(rgb, 0.0, 1.0);
}
