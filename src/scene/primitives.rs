//! Built-in primitive meshes, unit-sized and centred on the origin, with the
//! exact dimensions of the scene format (`shared/spec/automation.md`).

use std::f32::consts::TAU;

/// A triangle mesh on the CPU: per-vertex positions and normals, u32 indices,
/// counter-clockwise front faces (seen from outside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub indices: Vec<u32>,
}

impl MeshData {
    /// Axis-aligned bounds `(min, max)` of the vertices; zero box when empty.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        if self.positions.is_empty() {
            return ([0.0; 3], [0.0; 3]);
        }
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in &self.positions {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        (lo, hi)
    }

    /// A copy with every position and normal passed through `f` (which must
    /// be a rotation, possibly followed by a translation for positions).
    pub fn mapped(&self, f: impl Fn([f32; 3]) -> [f32; 3], offset: [f32; 3]) -> MeshData {
        MeshData {
            positions: self
                .positions
                .iter()
                .map(|&p| {
                    let q = f(p);
                    [q[0] + offset[0], q[1] + offset[1], q[2] + offset[2]]
                })
                .collect(),
            normals: self.normals.iter().map(|&n| f(n)).collect(),
            indices: self.indices.clone(),
        }
    }

    /// Rotates +Y onto +Z (a quarter turn about +X): `(x, y, z) -> (x, -z, y)`.
    pub fn y_to_z(p: [f32; 3]) -> [f32; 3] {
        [p[0], -p[2], p[1]]
    }

    /// Cylinder of radius `r` and height `h` along Y, centred on the origin, with caps.
    pub fn cylinder(r: f32, h: f32, segments: u32) -> MeshData {
        cylinder(r, h, segments)
    }

    /// Cone with base radius `r` at y = -h/2 and apex at y = h/2, with a base cap.
    pub fn cone(r: f32, h: f32, segments: u32) -> MeshData {
        cone(r, h, segments)
    }

    /// Torus in the XZ plane around +Y.
    pub fn torus(major: f32, minor: f32, segments: u32, sides: u32) -> MeshData {
        torus(major, minor, segments, sides)
    }

    /// The cube [-0.5, 0.5]^3.
    pub fn cube() -> MeshData {
        cube()
    }

    /// A filled disc of radius `r` in the XZ plane, visible from both sides.
    pub fn disc_xz(r: f32, segments: u32) -> MeshData {
        let mut m = MeshData::default();
        m.disc(0.0, r, segments, true);
        m
    }

    /// The square [-0.5, 0.5]^2 in the XZ plane facing +Y.
    pub fn plane_xz() -> MeshData {
        plane()
    }

    fn push(&mut self, p: [f32; 3], n: [f32; 3]) -> u32 {
        self.positions.push(p);
        self.normals.push(n);
        (self.positions.len() - 1) as u32
    }

    /// Appends a quad a-b-c-d (counter-clockwise seen from the normal side).
    fn quad(&mut self, corners: [[f32; 3]; 4], n: [f32; 3]) {
        let i: Vec<u32> = corners.iter().map(|&c| self.push(c, n)).collect();
        self.indices.extend_from_slice(&[i[0], i[1], i[2], i[0], i[2], i[3]]);
    }

    /// Appends a grid of `rows+1` x `cols+1` vertices produced by `f(u, v)`
    /// (u across columns, v across rows), triangulated so that the face
    /// normal is `(d/du) x (d/dv)`, or its opposite when `flip`.
    fn grid(&mut self, rows: u32, cols: u32, flip: bool, f: impl Fn(f32, f32) -> ([f32; 3], [f32; 3])) {
        let base = self.positions.len() as u32;
        for r in 0..=rows {
            for c in 0..=cols {
                let (p, n) = f(c as f32 / cols as f32, r as f32 / rows as f32);
                self.push(p, n);
            }
        }
        let w = cols + 1;
        for r in 0..rows {
            for c in 0..cols {
                let a = base + r * w + c;
                let (b, d, e) = (a + 1, a + w, a + w + 1);
                if flip {
                    self.indices.extend_from_slice(&[a, d, b, b, d, e]);
                } else {
                    self.indices.extend_from_slice(&[a, b, d, b, e, d]);
                }
            }
        }
    }

    /// A flat disc at height `y` with radius `r`, facing +Y (`up`) or -Y.
    fn disc(&mut self, y: f32, r: f32, segments: u32, up: bool) {
        let n = [0.0, if up { 1.0 } else { -1.0 }, 0.0];
        let centre = self.push([0.0, y, 0.0], n);
        let first = self.positions.len() as u32;
        for s in 0..=segments {
            let a = s as f32 / segments as f32 * TAU;
            self.push([r * a.cos(), y, r * a.sin()], n);
        }
        for s in 0..segments {
            let (p, q) = (first + s, first + s + 1);
            // Angle grows from +X towards +Z, which is clockwise seen from +Y.
            if up {
                self.indices.extend_from_slice(&[centre, q, p]);
            } else {
                self.indices.extend_from_slice(&[centre, p, q]);
            }
        }
    }
}

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

    /// Generates the mesh.
    pub fn mesh(self) -> MeshData {
        match self {
            Primitive::Cube => cube(),
            Primitive::Sphere => sphere(0.5, 24, 48),
            Primitive::Cylinder => cylinder(0.5, 1.0, 48),
            Primitive::Cone => cone(0.5, 1.0, 48),
            Primitive::Torus => torus(0.5, 0.15, 48, 24),
            Primitive::Plane => plane(),
        }
    }
}

fn cube() -> MeshData {
    let mut m = MeshData::default();
    let h = 0.5;
    // For each axis and sign: the face normal and two tangents (u, v) with u x v = n.
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    for (n, u, v) in faces {
        let corner =
            |su: f32, sv: f32| -> [f32; 3] { std::array::from_fn(|k| h * n[k] + su * h * u[k] + sv * h * v[k]) };
        m.quad([corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)], n);
    }
    m
}

fn plane() -> MeshData {
    let mut m = MeshData::default();
    m.quad([[-0.5, 0.0, 0.5], [0.5, 0.0, 0.5], [0.5, 0.0, -0.5], [-0.5, 0.0, -0.5]], [0.0, 1.0, 0.0]);
    m
}

fn sphere(r: f32, rings: u32, segments: u32) -> MeshData {
    let mut m = MeshData::default();
    // v runs from the north pole (v = 0) to the south pole; u around +Y.
    m.grid(rings, segments, false, |u, v| {
        let theta = v * std::f32::consts::PI;
        let phi = u * TAU;
        let n = [theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin()];
        ([r * n[0], r * n[1], r * n[2]], n)
    });
    m
}

fn cylinder(r: f32, h: f32, segments: u32) -> MeshData {
    let mut m = MeshData::default();
    m.grid(1, segments, false, |u, v| {
        let phi = u * TAU;
        let n = [phi.cos(), 0.0, phi.sin()];
        ([r * n[0], h * (0.5 - v), r * n[2]], n)
    });
    m.disc(0.5 * h, r, segments, true);
    m.disc(-0.5 * h, r, segments, false);
    m
}

fn cone(r: f32, h: f32, segments: u32) -> MeshData {
    let mut m = MeshData::default();
    // The side's normal tilts up by atan(r / h).
    let len = (h * h + r * r).sqrt();
    let (ny, nr) = (r / len, h / len);
    m.grid(1, segments, false, |u, v| {
        let phi = u * TAU;
        let n = [nr * phi.cos(), ny, nr * phi.sin()];
        let radius = r * v; // v = 0 at the apex, 1 at the base
        ([radius * phi.cos(), 0.5 * h - h * v, radius * phi.sin()], n)
    });
    m.disc(-0.5 * h, r, segments, false);
    m
}

fn torus(major: f32, minor: f32, segments: u32, sides: u32) -> MeshData {
    let mut m = MeshData::default();
    m.grid(sides, segments, true, |u, v| {
        let phi = u * TAU; // around the Y axis
        let theta = v * TAU; // around the tube
        let (cp, sp) = (phi.cos(), phi.sin());
        let n = [theta.cos() * cp, theta.sin(), theta.cos() * sp];
        let ring = major + minor * theta.cos();
        ([ring * cp, minor * theta.sin(), ring * sp], n)
    });
    m
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
