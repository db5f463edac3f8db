//! Plain triangle meshes on the CPU and the parametric generators shared by
//! the gizmo's canonical meshes and the scene's built-in primitives.
//! No GPU types: a renderer uploads these as it likes.

use std::f32::consts::TAU;

/// A triangle mesh on the CPU: per-vertex positions and normals, u32 indices,
/// counter-clockwise front faces (seen from outside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals, one per position.
    pub normals: Vec<[f32; 3]>,
    /// Three indices into `positions` per triangle.
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

    /// UV sphere of radius `r` centred on the origin (poles on Y).
    pub fn sphere(r: f32, rings: u32, segments: u32) -> MeshData {
        sphere(r, rings, segments)
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
