//! One glTF primitive appended to the merged mesh: its attributes
//! transformed, morph targets applied, and strips and fans assembled into
//! triangle lists.

use gltf::accessor::Dimensions;
use gltf::mesh::{Mode, Semantic};
use gltf::Accessor;
use nalgebra::{Matrix3, Matrix4, Vector3};

use super::accessor::{read_floats, read_indices, read_vec3};
use super::materials::{uv_maps, NORMAL};
use super::{MAX_INDICES, MAX_VERTICES};
use crate::scene::material::{Part, Surface};
use crate::scene::MeshData;

/// Appends one primitive, transformed by `world`, to the mesh and its
/// surface (`TEXCOORD_0` and `TEXCOORD_1` as far as the material's
/// textures read them, `COLOR_0`, one part with the primitive's
/// material); skips non-triangle ones.
pub(super) fn append_primitive(
    (out, surface): &mut (MeshData, Surface),
    primitive: &gltf::Primitive<'_>,
    world: &Matrix4<f64>,
    buffers: &[Vec<u8>],
    weights: &[f32],
    sources: &mut Vec<u32>,
) -> Result<(), String> {
    if matches!(primitive.mode(), Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip) {
        return Ok(());
    }
    // A primitive without positions draws nothing (the specification says to skip it).
    let Some(position_accessor) = primitive.get(&Semantic::Positions) else { return Ok(()) };
    let mut positions = read_vec3(&position_accessor, buffers, "POSITION")?;
    let count = positions.len();
    let same_count = |a: &Accessor<'_>, n: usize, what: &str| {
        if n == count {
            Ok(())
        } else {
            Err(format!("accessor {}: {what} has {n} values for {count} positions", a.index()))
        }
    };
    let mut normals = match primitive.get(&Semantic::Normals) {
        Some(a) => {
            let normals = read_vec3(&a, buffers, "NORMAL")?;
            same_count(&a, normals.len(), "NORMAL")?;
            Some(normals)
        }
        None => None,
    };
    morph(primitive, weights, buffers, &mut positions, normals.as_mut())?;
    let material = primitive.material();
    // Each texture reads its own set; its KHR_texture_transform is applied
    // when it is drawn, so the UVs are kept as the file gives them.
    let (maps, uv_sets) = uv_maps(&material);
    let normal_map = maps[NORMAL];
    let reads = |stream: usize| maps.iter().flatten().any(|m| m.stream() == stream);
    // What only changes the look is never an error: a TEXCOORD or COLOR_0
    // that cannot be read is a warning, and the defaults are drawn.
    let attribute = |semantic: Semantic, what: &str, dimensions: &[Dimensions]| -> Option<Vec<[f32; 4]>> {
        let a = primitive.get(&semantic)?;
        match read_floats(&a, buffers, what, dimensions).and_then(|v| same_count(&a, v.len(), what).map(|()| v)) {
            Ok(v) => Some(v),
            Err(e) => {
                log::warn!("{e}; drawn without it");
                None
            }
        }
    };
    let read_uvs = |set: u32| -> Vec<[f32; 2]> {
        match attribute(Semantic::TexCoords(set), &format!("TEXCOORD_{set}"), &[Dimensions::Vec2]) {
            Some(uvs) => uvs.into_iter().map(|c| [c[0], c[1]]).collect(),
            None => vec![[0.0; 2]; count],
        }
    };
    let uvs = if reads(0) { read_uvs(uv_sets[0]) } else { vec![[0.0; 2]; count] };
    let uvs1 = reads(1).then(|| read_uvs(uv_sets[1]));
    let colors = match attribute(Semantic::Colors(0), "COLOR_0", &[Dimensions::Vec3, Dimensions::Vec4]) {
        Some(rgba) => {
            let opaque = primitive.get(&Semantic::Colors(0)).is_some_and(|a| a.dimensions() == Dimensions::Vec3);
            rgba.into_iter().map(|c| if opaque { [c[0], c[1], c[2], 1.0] } else { c }).collect()
        }
        None => vec![[1.0; 4]; positions.len()],
    };
    let vertex_indices = match primitive.indices() {
        Some(a) => {
            let indices = read_indices(&a, buffers)?;
            if let Some(bad) = indices.iter().find(|&&i| i as usize >= positions.len()) {
                return Err(format!(
                    "accessor {}: index {bad} is out of range ({} vertices)",
                    a.index(),
                    positions.len()
                ));
            }
            indices
        }
        None => {
            let count = u32::try_from(positions.len()).map_err(|_| "too many vertices".to_string())?;
            (0..count).collect()
        }
    };
    let mut triangles = assemble(primitive.mode(), &vertex_indices);
    // Tangents per triangle corner, for a normal texture only.
    // MikkTSpace works on the UVs the normal texture reads: its set,
    // moved by its transform (a turned normal texture turns its tangents).
    let mut corner_tangents =
        normal_map.map(|map| match attribute(Semantic::Tangents, "TANGENT", &[Dimensions::Vec4]) {
            Some(mut t) => {
                if let Err(e) = morph_tangents(primitive, weights, buffers, &mut t) {
                    log::warn!("{e}; the tangents are drawn unmorphed");
                }
                triangles.iter().flatten().map(|&i| t[i as usize]).collect()
            }
            None => {
                let set = if map.stream() == 1 { uvs1.as_deref().unwrap_or(&uvs) } else { &uvs };
                let moved: Vec<[f32; 2]> =
                    set.iter().map(|c| map.apply([f64::from(c[0]), f64::from(c[1])]).map(|x| x as f32)).collect();
                mikktspace_tangents(&positions, normals.as_deref(), &moved, &triangles)
            }
        });

    let linear: Matrix3<f64> = world.fixed_view::<3, 3>(0, 0).into_owned();
    let translation: Vector3<f64> = world.fixed_view::<3, 1>(0, 3).into_owned();
    let mirrored = linear.determinant() < 0.0;
    if mirrored {
        for t in &mut triangles {
            t.swap(1, 2);
        }
        for c in corner_tangents.iter_mut().flat_map(|c| c.chunks_exact_mut(3)) {
            c.swap(1, 2);
        }
    }
    // Tangents turn with the node's matrix; a mirror flips the bitangent.
    let corner_tangents: Option<Vec<[f32; 4]>> = corner_tangents.map(|c| {
        c.iter()
            .map(|t| {
                let d = linear * Vector3::new(f64::from(t[0]), f64::from(t[1]), f64::from(t[2]));
                let d = d.try_normalize(1e-12).unwrap_or_else(Vector3::zeros);
                let w = if (t[3] < 0.0) != mirrored { -1.0 } else { 1.0 };
                [d.x as f32, d.y as f32, d.z as f32, w]
            })
            .collect()
    });
    let vertices_before = surface.uvs.len();
    let world_positions: Vec<Vector3<f64>> =
        positions.iter().map(|p| linear * Vector3::from(p.map(f64::from)) + translation).collect();
    if world_positions.iter().any(|p| !p.iter().all(|x| x.is_finite() && x.abs() <= f64::from(f32::MAX))) {
        return Err("positions are not finite after the node transform".into());
    }
    let to_f32 = |v: &Vector3<f64>| [v.x as f32, v.y as f32, v.z as f32];

    let base = out.positions.len();
    let first_index = out.indices.len();
    match normals {
        Some(normals) => {
            reserve(out, positions.len(), triangles.len())?;
            // Inverse-transpose up to a positive factor: the cofactor matrix,
            // with the sign of the determinant. Unlike an inverse it exists for
            // singular (flattening) transforms too.
            let cofactor = Matrix3::from_columns(&[
                linear.column(1).cross(&linear.column(2)),
                linear.column(2).cross(&linear.column(0)),
                linear.column(0).cross(&linear.column(1)),
            ]) * if mirrored { -1.0 } else { 1.0 };
            out.positions.extend(world_positions.iter().map(to_f32));
            out.normals.extend(normals.iter().map(|n| {
                let local = Vector3::from(n.map(f64::from));
                to_f32(&unit_or(cofactor * local, unit_or(local, Vector3::y())))
            }));
            surface.uvs.extend_from_slice(&uvs);
            if let Some(uvs1) = &uvs1 {
                surface.push_uvs1(vertices_before, uvs1);
            }
            surface.colors.extend_from_slice(&colors);
            if let Some(corners) = &corner_tangents {
                // One tangent per vertex: the last corner's that uses it.
                let mut per_vertex = vec![[0.0f32; 4]; positions.len()];
                for (&i, t) in triangles.iter().flatten().zip(corners) {
                    per_vertex[i as usize] = *t;
                }
                surface.push_tangents(vertices_before, &per_vertex);
            }
            sources.extend(0..positions.len() as u32);
            // `base + i` fits in u32: `reserve` capped the vertex total.
            out.indices.extend(triangles.iter().flatten().map(|&i| (base + i as usize) as u32));
        }
        None => {
            // Flat normals: every triangle gets its own three vertices.
            reserve(out, 3 * triangles.len(), triangles.len())?;
            for (k, t) in triangles.iter().enumerate() {
                let [a, b, c] = t.map(|i| world_positions[i as usize]);
                let n = to_f32(&unit_or((b - a).cross(&(c - a)), Vector3::y()));
                for p in [a, b, c] {
                    out.positions.push(to_f32(&p));
                    out.normals.push(n);
                }
                for &i in t {
                    if let Some(uvs1) = &uvs1 {
                        surface.push_uvs1(surface.uvs.len(), &[uvs1[i as usize]]);
                    }
                    surface.uvs.push(uvs[i as usize]);
                    surface.colors.push(colors[i as usize]);
                    sources.push(i);
                }
                if let Some(corners) = &corner_tangents {
                    surface.push_tangents(surface.uvs.len() - 3, &corners[3 * k..3 * k + 3]);
                }
                let first = (base + 3 * k) as u32;
                out.indices.extend([first, first + 1, first + 2]);
            }
        }
    }
    if !surface.tangents.is_empty() {
        // Vertices of primitives without a normal texture: no tangent.
        surface.tangents.resize(surface.uvs.len(), [0.0; 4]);
    }
    if !surface.uvs1.is_empty() {
        // Vertices of primitives that read no TEXCOORD_1: zero.
        surface.uvs1.resize(surface.uvs.len(), [0.0; 2]);
    }
    surface.push_part(Part {
        first: first_index as u32,
        count: (out.indices.len() - first_index) as u32,
        material: material.index(),
    });
    Ok(())
}

/// Applies the morph targets at `weights` (the mesh's default `weights`,
/// `docs/spec/assets.md`; a missing weight is 0): each target's POSITION and NORMAL
/// displacements, scaled by its weight, are added; normals are
/// renormalised. Targets must have one value per vertex.
pub(super) fn morph(
    primitive: &gltf::Primitive<'_>,
    weights: &[f32],
    buffers: &[Vec<u8>],
    positions: &mut [[f32; 3]],
    mut normals: Option<&mut Vec<[f32; 3]>>,
) -> Result<(), String> {
    let mut moved_normals = false;
    for (k, target) in primitive.morph_targets().enumerate() {
        let w = weights.get(k).copied().unwrap_or(0.0);
        if w == 0.0 || !w.is_finite() {
            continue;
        }
        let add = |accessor: Option<Accessor<'_>>, what: &str, into: &mut [[f32; 3]]| -> Result<bool, String> {
            let Some(a) = accessor else { return Ok(false) };
            let d = target_values(&a, buffers, what, k, into.len())?;
            for (v, d) in into.iter_mut().zip(&d) {
                for c in 0..3 {
                    v[c] += w * d[c];
                }
            }
            Ok(true)
        };
        add(target.positions(), "POSITION", positions)?;
        if let Some(n) = normals.as_deref_mut() {
            moved_normals |= add(target.normals(), "NORMAL", n)?;
        }
    }
    if let (true, Some(n)) = (moved_normals, normals) {
        for v in n.iter_mut() {
            let u = unit_or(Vector3::from(v.map(f64::from)), Vector3::y());
            *v = [u.x as f32, u.y as f32, u.z as f32];
        }
    }
    if positions.iter().flatten().any(|x| !x.is_finite()) {
        return Err("morphed positions are not finite".into());
    }
    Ok(())
}

/// Morph target `k`'s `what` displacements (`POSITION`, `NORMAL`,
/// `TANGENT`) read from accessor `a`: one per vertex of the `vertices`,
/// else an error naming the accessor.
pub(super) fn target_values(
    a: &Accessor<'_>,
    buffers: &[Vec<u8>],
    what: &str,
    k: usize,
    vertices: usize,
) -> Result<Vec<[f32; 3]>, String> {
    let d = read_vec3(a, buffers, &format!("morph {what}"))?;
    if d.len() != vertices {
        return Err(format!("accessor {}: morph target {k} has {} values for {vertices} vertices", a.index(), d.len()));
    }
    Ok(d)
}

/// Adds the morph targets' TANGENT displacements at `weights` to the
/// primitive's own tangents (xyz; the bitangent sign w is kept, glTF 2.0
/// section 3.7.2.2) and renormalises the moved ones. On an error (a
/// target of another count) `tangents` is left as it was.
fn morph_tangents(
    primitive: &gltf::Primitive<'_>,
    weights: &[f32],
    buffers: &[Vec<u8>],
    tangents: &mut [[f32; 4]],
) -> Result<(), String> {
    let mut sum: Vec<Vector3<f64>> = tangents.iter().map(|t| Vector3::new(t[0], t[1], t[2]).map(f64::from)).collect();
    let mut moved = false;
    for (k, target) in primitive.morph_targets().enumerate() {
        let w = f64::from(weights.get(k).copied().unwrap_or(0.0));
        let Some(a) = target.tangents().filter(|_| w != 0.0 && w.is_finite()) else { continue };
        let d = target_values(&a, buffers, "TANGENT", k, sum.len())?;
        for (t, d) in sum.iter_mut().zip(&d) {
            *t += Vector3::from(d.map(f64::from)) * w;
        }
        moved = true;
    }
    if moved {
        for (t, s) in tangents.iter_mut().zip(&sum) {
            if let Some(u) = s.try_normalize(1e-30).filter(|u| u.iter().all(|x| x.is_finite())) {
                *t = [u.x as f32, u.y as f32, u.z as f32, t[3]];
            }
        }
    }
    Ok(())
}

/// Checks the size limits before `vertices` vertices and `triangles`
/// triangles are appended.
pub(super) fn reserve(out: &mut MeshData, vertices: usize, triangles: usize) -> Result<(), String> {
    let too_big = || format!("too large: more than {MAX_VERTICES} vertices or {} triangles", MAX_INDICES / 3);
    let total_vertices = out.positions.len().checked_add(vertices).ok_or_else(too_big)?;
    let total_indices = triangles.checked_mul(3).and_then(|n| n.checked_add(out.indices.len())).ok_or_else(too_big)?;
    if total_vertices > MAX_VERTICES || total_indices > MAX_INDICES {
        return Err(too_big());
    }
    out.positions.reserve(vertices);
    out.normals.reserve(vertices);
    out.indices.reserve(3 * triangles);
    Ok(())
}

/// `v` normalised, or `fallback` where `v` has no usable direction.
pub(super) fn unit_or(v: Vector3<f64>, fallback: Vector3<f64>) -> Vector3<f64> {
    let n = v.norm();
    if n > 1e-30 && n.is_finite() {
        v / n
    } else {
        fallback
    }
}

/// Triangle list from the vertex sequence of a triangle-list, strip or fan
/// primitive (glTF 2.0 section 3.7.2.1); an incomplete trailing triangle is
/// dropped.
pub(super) fn assemble(mode: Mode, v: &[u32]) -> Vec<[u32; 3]> {
    match mode {
        Mode::Triangles => v.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        Mode::TriangleStrip => v
            .windows(3)
            .enumerate()
            .map(|(i, w)| if i % 2 == 0 { [w[0], w[1], w[2]] } else { [w[0], w[2], w[1]] })
            .collect(),
        Mode::TriangleFan => match v.split_first() {
            Some((&hub, rest)) => rest.windows(2).map(|w| [w[0], w[1], hub]).collect(),
            None => Vec::new(),
        },
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip => Vec::new(),
    }
}

/// MikkTSpace tangents (tangent xyz, bitangent sign w) per triangle corner
/// of `triangles`, from the positions, the normals (each triangle's own
/// where the primitive has none) and the UVs the normal texture reads.
/// Corners where MikkTSpace finds no tangent (degenerate UVs) get zero,
/// which the shader reads as "no tangent".
fn mikktspace_tangents(
    positions: &[[f32; 3]],
    normals: Option<&[[f32; 3]]>,
    uvs: &[[f32; 2]],
    triangles: &[[u32; 3]],
) -> Vec<[f32; 4]> {
    struct Corners<'a> {
        positions: &'a [[f32; 3]],
        normals: Option<&'a [[f32; 3]]>,
        uvs: &'a [[f32; 2]],
        triangles: &'a [[u32; 3]],
        out: Vec<[f32; 4]>,
    }
    impl Corners<'_> {
        fn vertex(&self, face: usize, vert: usize) -> usize {
            self.triangles[face][vert] as usize
        }
    }
    impl mikktspace::Geometry for Corners<'_> {
        fn num_faces(&self) -> usize {
            self.triangles.len()
        }
        fn num_vertices_of_face(&self, _face: usize) -> usize {
            3
        }
        fn position(&self, face: usize, vert: usize) -> [f32; 3] {
            self.positions[self.vertex(face, vert)]
        }
        fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
            match self.normals {
                Some(n) => n[self.vertex(face, vert)],
                None => {
                    let [a, b, c] = self.triangles[face].map(|i| Vector3::from(self.positions[i as usize]));
                    let n = (b - a).cross(&(c - a)).try_normalize(1e-20).unwrap_or_else(Vector3::y);
                    [n.x, n.y, n.z]
                }
            }
        }
        fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
            self.uvs[self.vertex(face, vert)]
        }
        fn set_tangent_encoded(&mut self, tangent: [f32; 4], face: usize, vert: usize) {
            if tangent.iter().all(|v| v.is_finite()) {
                self.out[3 * face + vert] = tangent;
            }
        }
    }
    let none = vec![[0.0; 4]; 3 * triangles.len()];
    // The crate's vertex welding indexes past its tables when every
    // position is the same (a grid of zero extent) or not finite: such
    // primitives (a validator suite file has one) get no tangents.
    let used = || triangles.iter().flatten().map(|&i| i as usize);
    let finite = used()
        .all(|i| positions[i].iter().chain(&uvs[i]).chain(normals.map_or(&[0.0; 3], |n| &n[i])).all(|v| v.is_finite()));
    let extent = (0..3).map(|k| {
        let (lo, hi) =
            used().fold((f32::MAX, f32::MIN), |(lo, hi), i| (lo.min(positions[i][k]), hi.max(positions[i][k])));
        hi - lo
    });
    if triangles.is_empty() || !finite || !extent.fold(0.0f32, f32::max).is_normal() {
        return none;
    }
    let mut corners = Corners { positions, normals, uvs, triangles, out: none };
    if !mikktspace::generate_tangents(&mut corners) {
        log::warn!("MikkTSpace found no tangents; the normal texture is not drawn");
    }
    corners.out
}

#[cfg(test)]
mod tests {
    use super::mikktspace_tangents;

    #[test]
    fn a_triangle_of_one_point_or_of_nan_gets_no_tangents_and_no_panic() {
        // All three corners at one place (a validator suite file's
        // primitive without data), then a NaN corner.
        let tri = [[0u32, 1, 2]];
        let uvs = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
        assert_eq!(mikktspace_tangents(&[[0.0; 3]; 3], None, &uvs, &tri), vec![[0.0; 4]; 3]);
        let nan = [[0.0, 0.0, 0.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]];
        assert_eq!(mikktspace_tangents(&nan, None, &uvs, &tri), vec![[0.0; 4]; 3]);
        // A proper triangle gets the tangent along increasing u (+x here).
        let ok = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let t = mikktspace_tangents(&ok, None, &uvs, &tri);
        assert!(t.iter().all(|t| (t[0] - 1.0).abs() < 1e-5 && t[1].abs() < 1e-5 && t[2].abs() < 1e-5), "{t:?}");
    }
}
