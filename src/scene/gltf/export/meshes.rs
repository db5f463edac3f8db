//! The meshes an export writes, each once: built-in primitives as
//! triangles with a material of their colour, a glTF file's mesh copied
//! (`copy.rs`), a whole file as one part per node or as the triangles it
//! draws; and the buffer views and accessors they fill.

use std::path::Path;

use gj::validation::{Checked, USize64};
use gltf::json as gj;
use serde_json::{json, Value};

use super::{push, to_value, Builder};
use crate::math::Transform;
use crate::scene::gltf::GltfFile;
use crate::scene::{GltfMesh, MeshData, MeshRef};

impl Builder {
    /// The mesh an object with `mesh` and `color` draws, added once.
    pub(super) fn mesh_for(&mut self, mesh: &MeshRef, color: [f32; 3]) -> Option<gj::Index<gj::Mesh>> {
        let key = (mesh.clone(), color.map(f32::to_bits));
        if let Some(&m) = self.mesh_index.get(&key) {
            return m.map(gj::Index::new);
        }
        let index = match mesh {
            MeshRef::Empty => None,
            MeshRef::Primitive(p) => {
                let material = self.color_material(color);
                Some(self.add_triangles(Some(p.name().to_string()), &p.mesh(), material))
            }
            MeshRef::Gltf(g) => match g.mesh {
                Some(n) => match self.copy_mesh(&g.path, n, color) {
                    Ok(m) => Some(m),
                    Err(e) => {
                        self.warn(format!("{}: mesh {n}: {e}: exported as a node without a mesh", g.path.display()));
                        None
                    }
                },
                None => self.whole_file_triangles(&g.path, color),
            },
        };
        self.mesh_index.insert(key, index);
        index.map(gj::Index::new)
    }

    /// Whether mesh `m` (written) has morph targets.
    pub(super) fn has_morph_targets(&self, m: u32) -> bool {
        self.morph_target_count(m) > 0
    }

    /// How many morph targets written mesh `m` has (its primitives' most).
    pub(super) fn morph_target_count(&self, m: u32) -> usize {
        self.meshes[m as usize]["primitives"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["targets"].as_array().map(Vec::len))
            .max()
            .unwrap_or(0)
    }

    /// The meshes of a whole glTF file (a bare-path mesh) as copied meshes
    /// on nodes placed where the file's default scene puts them (relative
    /// to its root): one part per node with a mesh, in the file's depth
    /// first order. `None` where one of those places is not a translation,
    /// rotation and scale (a sheared hierarchy): the file is then written
    /// as the triangles it draws.
    pub(super) fn file_parts(&mut self, g: &GltfMesh, color: [f32; 3]) -> Result<Option<Vec<FilePart>>, String> {
        let instances: Vec<(usize, nalgebra::Matrix4<f64>, Option<String>)> = self.with_source(&g.path, |_, s| {
            let list = super::super::mesh_instances(&s.file.document)?;
            Ok(list
                .into_iter()
                .map(|(m, world, node)| {
                    let name = node.and_then(|n| n.name().map(str::to_string)).or_else(|| m.name().map(str::to_string));
                    (m.index(), world, name)
                })
                .collect())
        })?;
        let mut places = Vec::with_capacity(instances.len());
        for (_, world, _) in &instances {
            match crate::scene::open::decompose(world) {
                Ok(t) => places.push(t),
                Err(_) => return Ok(None),
            }
        }
        let parts = instances
            .into_iter()
            .zip(places)
            .map(|((n, _, name), transform)| {
                let mesh = MeshRef::gltf(format!("{}#{n}", g.source), g.path.clone(), Some(n));
                FilePart { name, mesh: self.mesh_for(&mesh, color).map(|m| m.value() as u32), transform }
            })
            .collect();
        Ok(Some(parts))
    }

    /// A whole glTF file (a bare-path mesh) as the triangles it draws.
    pub(super) fn whole_file_triangles(&mut self, path: &Path, color: [f32; 3]) -> Option<u32> {
        match GltfFile::read(path).and_then(|f| f.merged()) {
            Ok(data) if !data.indices.is_empty() => {
                self.warn(format!(
                    "{}: a whole file used as one mesh, whose nodes are not all placed by translation, rotation and scale, is exported as the triangles it draws, without its materials",
                    path.display()
                ));
                let material = self.color_material(color);
                Some(self.add_triangles(None, &data, material))
            }
            Ok(_) => None,
            Err(e) => {
                self.warn(format!("{e}: exported as a node without a mesh"));
                None
            }
        }
    }

    /// A material whose base colour is `color` (linear RGB, opaque), with
    /// the default material's metallic and roughness, added once.
    pub(super) fn color_material(&mut self, color: [f32; 3]) -> u32 {
        let key = color.map(f32::to_bits);
        if let Some(&m) = self.color_materials.get(&key) {
            return m;
        }
        let mut material = gj::Material::default();
        material.pbr_metallic_roughness.base_color_factor =
            gj::material::PbrBaseColorFactor([color[0], color[1], color[2], 1.0]);
        // The look of a primitive's default material (a dielectric of
        // roughness 0.5), so that the file reopens with the same picture.
        let look = crate::scene::material::Material::default();
        material.pbr_metallic_roughness.metallic_factor = gj::material::StrengthFactor(look.metallic);
        material.pbr_metallic_roughness.roughness_factor = gj::material::StrengthFactor(look.roughness);
        let index = push(&mut self.materials, to_value(&material));
        self.color_materials.insert(key, index);
        index
    }

    /// A mesh of one triangle-list primitive: POSITION (with its bounds),
    /// NORMAL and u32 indices, each in its own buffer view.
    pub(super) fn add_triangles(&mut self, name: Option<String>, d: &MeshData, material: u32) -> u32 {
        let (min, max) = d.bounds();
        let positions = self.add_view(bytemuck::cast_slice(&d.positions), Some(gj::buffer::Target::ArrayBuffer), None);
        let normals = self.add_view(bytemuck::cast_slice(&d.normals), Some(gj::buffer::Target::ArrayBuffer), None);
        let indices =
            self.add_view(bytemuck::cast_slice(&d.indices), Some(gj::buffer::Target::ElementArrayBuffer), None);
        let f32s = gj::accessor::ComponentType::F32;
        let vec3 = gj::accessor::Type::Vec3;
        let position = self.add_accessor(positions, d.positions.len(), f32s, vec3, Some((json!(min), json!(max))));
        let normal = self.add_accessor(normals, d.normals.len(), f32s, vec3, None);
        let index = self.add_accessor(
            indices,
            d.indices.len(),
            gj::accessor::ComponentType::U32,
            gj::accessor::Type::Scalar,
            None,
        );
        let mut mesh = json!({
            "primitives": [{"attributes": {"POSITION": position, "NORMAL": normal}, "indices": index, "material": material}]
        });
        if let Some(name) = name {
            mesh["name"] = json!(name);
        }
        push(&mut self.meshes, mesh)
    }

    /// A tightly packed accessor over all of `view`.
    pub(super) fn add_accessor(
        &mut self,
        view: gj::Index<gj::buffer::View>,
        count: usize,
        component: gj::accessor::ComponentType,
        type_: gj::accessor::Type,
        bounds: Option<(Value, Value)>,
    ) -> u32 {
        let (min, max) = bounds.unzip();
        self.root
            .push(gj::Accessor {
                buffer_view: Some(view),
                byte_offset: None,
                count: USize64(count as u64),
                component_type: Checked::Valid(gj::accessor::GenericComponentType(component)),
                extensions: None,
                extras: None,
                type_: Checked::Valid(type_),
                min,
                max,
                name: None,
                normalized: false,
                sparse: None,
            })
            .value() as u32
    }

    /// Appends `bytes` to the buffer (at a multiple of 4) as a buffer view.
    pub(super) fn add_view(
        &mut self,
        bytes: &[u8],
        target: Option<gj::buffer::Target>,
        stride: Option<usize>,
    ) -> gj::Index<gj::buffer::View> {
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        self.root.push(gj::buffer::View {
            buffer: gj::Index::new(0),
            byte_length: USize64(bytes.len() as u64),
            byte_offset: Some(USize64(offset as u64)),
            byte_stride: stride.map(gj::buffer::Stride),
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: None,
        })
    }
}

/// One mesh of a whole file used as an object's mesh, written on a child
/// node of the object's node.
pub(super) struct FilePart {
    pub(super) name: Option<String>,
    pub(super) mesh: Option<u32>,
    pub(super) transform: Transform,
}
