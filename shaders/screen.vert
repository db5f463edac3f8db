#version 450
// One triangle covering the whole target (no vertex buffer): the screen-space
// passes (selection outline, box-selection rectangle) work per pixel.

void main() {
    vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
