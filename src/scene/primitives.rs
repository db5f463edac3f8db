//! Built-in primitive meshes, unit-sized and centred on the origin, with the
//! exact dimensions of the scene format (`docs/spec/automation.md`).

pub use viewport_gizmo::mesh::MeshData;

/// The built-in mesh kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Primitive {
    Cube,
    Sphere,
    Cylinder,
    Cone,
    Torus,
    Plane,
}

impl Primitive {
    pub const ALL: [Primitive; 6] =
        [Primitive::Cube, Primitive::Sphere, Primitive::Cylinder, Primitive::Cone, Primitive::Torus, Primitive::Plane];

    pub fn name(self) -> &'static str {
        match self {
            Primitive::Cube => "cube",
            Primitive::Sphere => "sphere",
            Primitive::Cylinder => "cylinder",
            Primitive::Cone => "cone",
            Primitive::Torus => "torus",
            Primitive::Plane => "plane",
        }
    }

    pub fn from_name(name: &str) -> Option<Primitive> {
        Primitive::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Exact local bounds `(min, max)` of the mesh, without generating it.
    pub fn bounds(self) -> ([f64; 3], [f64; 3]) {
        match self {
            Primitive::Torus => ([-0.65, -0.15, -0.65], [0.65, 0.15, 0.65]),
            Primitive::Plane => ([-0.5, 0.0, -0.5], [0.5, 0.0, 0.5]),
            _ => ([-0.5; 3], [0.5; 3]),
        }
    }

    /// Whether the primitive is drawn and picked from both sides: only the
    /// open `plane`; the closed ones show and pick their outside alone.
    pub fn double_sided(self) -> bool {
        self == Primitive::Plane
    }

    /// Generates the mesh, every triangle wound counter-clockwise seen
    /// from the side its vertex normals point to (the outside), as glTF's
    /// front faces are: single-sided drawing and picking rely on it.
    pub fn mesh(self) -> MeshData {
        let mut mesh = match self {
            Primitive::Cube => MeshData::cube(),
            Primitive::Sphere => MeshData::sphere(0.5, 24, 48),
            Primitive::Cylinder => MeshData::cylinder(0.5, 1.0, 48),
            Primitive::Cone => MeshData::cone(0.5, 1.0, 48),
            Primitive::Torus => MeshData::torus(0.5, 0.15, 48, 24),
            Primitive::Plane => MeshData::plane_xz(),
        };
        wind_outwards(&mut mesh);
        mesh
    }
}

/// Swaps two corners of every triangle that winds clockwise seen from the
/// side its corners' normals point to.
fn wind_outwards(mesh: &mut MeshData) {
    let (positions, normals) = (&mesh.positions, &mesh.normals);
    let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    for t in mesh.indices.chunks_exact_mut(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| positions[i as usize]);
        let (u, v) = (sub(b, a), sub(c, a));
        let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
        let side: f32 = t.iter().map(|&i| normals[i as usize]).map(|m| m[0] * n[0] + m[1] * n[1] + m[2] * n[2]).sum();
        if side < 0.0 {
            t.swap(1, 2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5)
    }

    #[test]
    fn bounds_match_the_spec_and_the_meshes() {
        let expect = [
            (Primitive::Cube, [-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]),
            (Primitive::Sphere, [-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]),
            (Primitive::Cylinder, [-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]),
            (Primitive::Cone, [-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]),
            (Primitive::Torus, [-0.65, -0.15, -0.65], [0.65, 0.15, 0.65]),
            (Primitive::Plane, [-0.5, 0.0, -0.5], [0.5, 0.0, 0.5]),
        ];
        for (p, lo, hi) in expect {
            let (l, h) = p.mesh().bounds();
            assert!(close(l, lo) && close(h, hi), "{p:?} mesh: {l:?} {h:?}");
            let (l, h) = p.bounds();
            assert!(close(l.map(|v| v as f32), lo) && close(h.map(|v| v as f32), hi), "{p:?} bounds(): {l:?} {h:?}");
        }
    }

    #[test]
    fn sphere_and_cone_surfaces_are_exact() {
        for p in Primitive::Sphere.mesh().positions {
            let r = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            assert!((r - 0.5).abs() < 1e-5);
        }
        // Every cone vertex lies on or inside the cone x^2+z^2 <= (0.5 - y)^2 / 4.
        for p in Primitive::Cone.mesh().positions {
            let radial = (p[0] * p[0] + p[2] * p[2]).sqrt();
            assert!(radial <= (0.5 - p[1]) * 0.5 + 1e-5, "{p:?}");
        }
    }

    /// Winding: for a convex primitive every triangle's geometric normal
    /// points away from the centre and agrees with the vertex normals.
    #[test]
    fn triangles_face_outwards() {
        for p in [
            Primitive::Cube,
            Primitive::Sphere,
            Primitive::Cylinder,
            Primitive::Cone,
            Primitive::Torus,
            Primitive::Plane,
        ] {
            let m = p.mesh();
            assert_eq!(m.positions.len(), m.normals.len());
            assert_eq!(m.indices.len() % 3, 0);
            for t in m.indices.chunks(3) {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| m.positions[i as usize]);
                let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
                let g = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
                let area2 = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
                if area2 < 1e-9 {
                    continue; // pole slivers
                }
                let n = m.normals[t[0] as usize];
                let dot = g[0] * n[0] + g[1] * n[1] + g[2] * n[2];
                assert!(dot > 0.0, "{p:?}: triangle {t:?} winds against its normal");
            }
        }
    }
}
