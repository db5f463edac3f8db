//! Reading scene files one object at a time.
//!
//! The file is streamed through serde: each entry of `objects` is read as
//! an [`ObjectFile`] (the derived deserializer, so its error messages are
//! the format's own), checked, and kept only as its [`Object`]; the file's
//! bytes are never held whole and no parsed copy of the file is built.
//! A large file's objects are read by two threads, the second from about
//! the middle on (`load/split.rs`), and checked in file order all the same.
//! What needs every object (parents named by later objects) is checked at
//! the end, in the order a whole-file check would meet the problems: the
//! JSON first (a syntax error anywhere wins), then the camera, then names
//! (empty or duplicate, first in file order), then the first object with an
//! unknown parent or a bad value, then cycles.

use std::collections::HashMap;
use std::path::Path;

use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use smol_str::SmolStr;

use super::file::{CameraFile, ObjectFile, SkinFile};
use super::fixture::{fixture_from_file, FixtureRead};
use super::names::NameIndex;
use super::transform_problem;
use super::{camera_from_file, skin, Hierarchy, HierarchyError, MeshRef, Object, Scene, SceneError};
use crate::math::Transform;

/// A scene file as streamed: the same fields and messages as
/// [`super::SceneFile`], with the objects read by [`Builder`].
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename = "SceneFile")]
pub(super) struct StreamedFile {
    #[serde(default)]
    camera: Option<CameraFile>,
    #[serde(default)]
    bookmarks: std::collections::BTreeMap<String, CameraFile>,
    #[serde(default)]
    lighting: Option<crate::look::LightingFile>,
    objects: Builder,
}

impl StreamedFile {
    /// Checks what needed the whole file; glTF paths resolve against `base`.
    pub(super) fn finish(self, base: &Path) -> Result<Scene, SceneError> {
        let camera = self.camera.as_ref().map(camera_from_file).transpose()?;
        let bookmarks = super::bookmarks_from_file(&self.bookmarks)?;
        let lighting = lighting_from_file(self.lighting, base)?;
        let mut scene = self.objects.finish(camera, base)?;
        scene.bookmarks = bookmarks;
        scene.lighting = lighting;
        Ok(scene)
    }
}

/// A scene file's `lighting` object over the defaults, a relative `.hdr`
/// path read (and prefiltered, once per process) from `base`.
pub(super) fn lighting_from_file(
    file: Option<crate::look::LightingFile>,
    base: &Path,
) -> Result<Option<crate::look::Lighting>, SceneError> {
    let Some(mut file) = file else { return Ok(None) };
    file.relative_to(base);
    file.over(&crate::look::Lighting::default()).map(Some).map_err(SceneError::Lighting)
}

fn finite<const N: usize>(v: &[f64; N]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// An object's transform and colour, or the first bad value in it.
pub(super) fn values(o: &ObjectFile) -> Result<(Transform, [f32; 3]), &'static str> {
    if !finite(&o.position) || !finite(&o.rotation) || !finite(&o.scale) || !finite(&o.color) {
        return Err("non-finite number");
    }
    let q = Quaternion::new(o.rotation[3], o.rotation[0], o.rotation[1], o.rotation[2]);
    if q.norm() < 1e-6 {
        return Err("rotation quaternion is zero");
    }
    let transform = Transform {
        position: Vector3::from(o.position),
        rotation: UnitQuaternion::from_quaternion(q),
        scale: Vector3::from(o.scale),
    };
    // The one rule for what a scene file holds (a zero scale, sizes beyond 1e15).
    if let Some(problem) = transform_problem(&transform) {
        return Err(problem);
    }
    if o.color.iter().any(|c| !(0.0..=1.0).contains(c)) {
        return Err("color components must be in [0, 1]");
    }
    Ok((transform, o.color.map(|c| c as f32)))
}

/// Bytes of a scene file read at a time.
pub(super) const BUFFER: usize = 1 << 22;

/// Scene files of this many bytes or more are read by two threads.
pub(super) const SPLIT_MIN: u64 = 1 << 23;

/// No mesh (`"mesh": null`) in [`Builder::mesh_of`].
pub(super) const NO_MESH: u32 = u32::MAX;

/// One object as read, before the checks that need the objects before it.
pub(super) struct Read {
    pub(super) name: SmolStr,
    /// Its transform and colour, or the first bad value in them.
    pub(super) values: Result<(Transform, [f32; 3]), &'static str>,
    pub(super) parent: Option<String>,
    pub(super) skin: Option<SkinFile>,
    pub(super) extras: Option<serde_json::Value>,
    pub(super) hidden: bool,
    pub(super) cast_shadows: bool,
    /// Its light and camera, or the first bad value in them.
    pub(super) fixture: FixtureRead,
}

/// Objects taken one at a time, checked as far as one object allows.
#[derive(Default)]
pub(super) struct Builder {
    objects: Vec<Object>,
    /// Index of each object's mesh string in `meshes` (or [`NO_MESH`]);
    /// the strings are resolved once each, at the end.
    mesh_of: Vec<u32>,
    /// Each distinct mesh string and the first object naming it.
    meshes: Vec<(String, usize)>,
    mesh_ids: HashMap<String, u32>,
    /// Objects by name (indices into `objects`): the scene's name index.
    names: NameIndex,
    /// (object, parent name) for each object with a parent, in file order.
    parents: Vec<(usize, String)>,
    /// (object, its skin) for each skinned object, in file order: joints
    /// may name later objects, so skins are checked at the end.
    skins: Vec<(usize, SkinFile)>,
    /// The first empty or duplicate name.
    name_problem: Option<SceneError>,
    /// The first object with a bad value (not counting its mesh).
    value_problem: Option<(usize, String)>,
    /// Objects seen (past a name problem they are only counted).
    seen: usize,
    /// Of those, the objects a second thread read ([`split`]).
    taken_over: usize,
}

impl Builder {
    /// Takes the next object of the file.
    pub(super) fn push(&mut self, o: ObjectFile) {
        let values = values(&o);
        let fixture = fixture_from_file(o.light.as_ref(), o.camera.as_ref());
        let ObjectFile { name, mesh, parent, skin, extras, hidden, cast_shadows, .. } = o;
        let read = Read { name: name.into(), values, parent, skin, extras, hidden, cast_shadows, fixture };
        self.add(read, |b, i| mesh.map(|text| b.mesh_id(&text, i)));
    }

    /// Takes the next object, its values already read; `mesh(self, i)`
    /// gives the object's mesh id (asked only for a well-named object `i`).
    pub(super) fn add(&mut self, o: Read, mesh: impl FnOnce(&mut Builder, usize) -> Option<u32>) {
        let i = self.seen;
        self.seen += 1;
        if self.name_problem.is_some() {
            return;
        }
        if o.name.is_empty() {
            self.name_problem = Some(SceneError::EmptyName(i));
            return;
        }
        if u32::try_from(i).is_err() {
            // A duplicate name is still the problem named first.
            self.name_problem = Some(match self.find(&o.name) {
                Some(_) => SceneError::DuplicateName(o.name.to_string()),
                None => SceneError::Object { name: o.name.to_string(), problem: "too many objects".into() },
            });
            return;
        }
        let objects = &self.objects;
        if !self.names.insert_new(i, &o.name, |k| objects[k as usize].name.as_str()) {
            self.name_problem = Some(SceneError::DuplicateName(o.name.to_string()));
            return;
        }
        let (transform, color) = o.values.unwrap_or_else(|problem| {
            self.value_problem.get_or_insert((i, problem.to_string()));
            (Transform::IDENTITY, [0.0; 3])
        });
        let fixture = o.fixture.unwrap_or_else(|problem| {
            self.value_problem.get_or_insert((i, problem));
            None
        });
        let mesh = mesh(self, i).unwrap_or(NO_MESH);
        self.mesh_of.push(mesh);
        if let Some(p) = o.parent {
            self.parents.push((i, p));
        }
        if let Some(s) = o.skin {
            self.skins.push((i, s));
        }
        let extras = o.extras.map(Box::new);
        self.objects.push(Object {
            name: o.name,
            mesh: MeshRef::Empty,
            transform,
            color,
            hidden: o.hidden,
            cast_shadows: o.cast_shadows,
            skin: None,
            extras,
            origin: None,
            fixture,
        });
    }

    /// The id of mesh string `text`, first named by object `i` if new.
    pub(super) fn mesh_id(&mut self, text: &str, i: usize) -> u32 {
        if let Some(&id) = self.mesh_ids.get(text) {
            return id;
        }
        let id = self.meshes.len() as u32;
        self.mesh_ids.insert(text.to_string(), id);
        self.meshes.push((text.to_string(), i));
        id
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.names.find_by(name, |k| self.objects[k as usize].name.as_str())
    }

    /// The scene, or its first problem (see the module documentation).
    pub(super) fn finish(mut self, camera: Option<crate::math::Camera>, base: &Path) -> Result<Scene, SceneError> {
        if let Some(e) = self.name_problem {
            return Err(e);
        }
        // Each mesh string once; a bad one is a problem of its first user,
        // checked after that object's numbers.
        let mut refs = Vec::with_capacity(self.meshes.len());
        let mut problem = self.value_problem.take();
        for (text, first) in &self.meshes {
            match MeshRef::parse(text, base) {
                Ok(r) => refs.push(r),
                Err(m) => {
                    if problem.as_ref().is_none_or(|(i, _)| first < i) {
                        problem = Some((*first, m));
                    }
                    refs.push(MeshRef::Empty);
                }
            }
        }
        // A skin is checked after its object's numbers and mesh, as a
        // problem of that object.
        let mut skins = Vec::with_capacity(self.skins.len());
        for (i, s) in &self.skins {
            let mesh = match self.mesh_of[*i] {
                NO_MESH => &MeshRef::Empty,
                m => &refs[m as usize],
            };
            match skin::check_skin(s, mesh, |name| self.find(name).is_some()) {
                Ok(r) => skins.push((*i, r)),
                Err(m) => {
                    if problem.as_ref().is_none_or(|(p, _)| i < p) {
                        problem = Some((*i, m));
                    }
                }
            }
        }
        let mut parents = vec![Hierarchy::NO_PARENT; self.objects.len()];
        for (child, name) in &self.parents {
            if problem.as_ref().is_some_and(|(i, _)| i < child) {
                break;
            }
            match self.find(name) {
                Some(p) => parents[*child] = p as u32,
                None => {
                    let child = self.objects[*child].name.to_string();
                    return Err(SceneError::UnknownParent { name: child, parent: name.clone() });
                }
            }
        }
        if let Some((i, problem)) = problem {
            return Err(SceneError::Object { name: self.objects[i].name.to_string(), problem });
        }
        for (i, r) in skins {
            self.objects[i].skin = Some(Box::new(r));
        }
        for (o, &m) in self.objects.iter_mut().zip(&self.mesh_of) {
            if m != NO_MESH {
                o.mesh = refs[m as usize].clone();
            }
        }
        let mut objects = self.objects;
        // Grown by doubling while read: give back the unused end.
        objects.shrink_to_fit();
        // Parents come from the name index, so only a cycle can be refused.
        let hierarchy = Hierarchy::from_links(parents).map_err(|e| match e {
            HierarchyError::Cycle { child, .. }
            | HierarchyError::NoSuchObject(child)
            | HierarchyError::Taken(child) => SceneError::Cycle(objects[child].name.to_string()),
        })?;
        // The name index built while reading becomes the scene's.
        Ok(Scene::from_parts(camera, objects, hierarchy, Some(self.names)))
    }
}

impl<'de> Deserialize<'de> for Builder {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Builder, D::Error> {
        struct Objects;
        impl<'de> Visitor<'de> for Objects {
            type Value = Builder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Builder, A::Error> {
                let mut b = Builder::default();
                while let Some(o) = seq.next_element::<ObjectFile>()? {
                    b.push(o);
                }
                Ok(b)
            }
        }
        d.deserialize_seq(Objects)
    }
}

/// A scene file read in pieces: the punctuation of the outer object and of
/// `objects` here, each value (a key, the camera, one object) by
/// `serde_json` from a buffer of the file. A few megabytes are held at a
/// time, and each piece is parsed from memory (serde_json reads slices
/// about twice as fast as readers). Anything unusual (a syntax error, an
/// unknown or repeated key, a value that does not deserialize) makes it
/// give up with `None`: the caller then parses the file with
/// `serde_json::from_reader`, whose answer (and error message, with line
/// and column) is the exact one. So this only ever accepts files that
/// parse the same way whole.
/// `buffer`: the bytes read at a time (it grows when one value is larger).
/// A file of `split_min` bytes or more has its objects read by two
/// threads ([`split`]).
pub(super) fn read_pieces(path: &Path, buffer: usize, split_min: u64) -> std::io::Result<Option<StreamedFile>> {
    let file = std::fs::File::open(path)?;
    let mut r = Pieces { file, buf: vec![0; buffer.max(1)], pos: 0, end: 0, eof: false, base: 0 };
    if r.next_byte()? != Some(b'{') {
        return Ok(None);
    }
    let (mut camera, mut objects, mut bookmarks, mut lighting) = (None, None, None, None);
    loop {
        // A key (a `}` here would be `{}` or a trailing comma).
        if r.next_byte()? != Some(b'"') {
            return Ok(None);
        }
        r.pos -= 1;
        let Some(key) = r.value::<String>()? else { return Ok(None) };
        if r.next_byte()? != Some(b':') {
            return Ok(None);
        }
        match key.as_str() {
            "camera" if camera.is_none() => match r.value::<Option<CameraFile>>()? {
                Some(c) => camera = Some(c),
                None => return Ok(None),
            },
            "bookmarks" if bookmarks.is_none() => match r.value()? {
                Some(b) => bookmarks = Some(b),
                None => return Ok(None),
            },
            "lighting" if lighting.is_none() => match r.value::<crate::look::LightingFile>()? {
                Some(l) => lighting = Some(l),
                None => return Ok(None),
            },
            "objects" if objects.is_none() => match r.objects(path, buffer, split_min)? {
                Some(b) => objects = Some(b),
                None => return Ok(None),
            },
            _ => return Ok(None),
        }
        match r.next_byte()? {
            Some(b',') => {}
            Some(b'}') if objects.is_some() => break,
            _ => return Ok(None),
        }
    }
    if r.next_byte()?.is_some() {
        return Ok(None);
    }
    Ok(objects.map(|objects| StreamedFile {
        camera: camera.flatten(),
        bookmarks: bookmarks.unwrap_or_default(),
        lighting,
        objects,
    }))
}

/// The part of a file in memory: `buf[pos..end]` is not consumed yet,
/// `buf[0]` is byte `base` of the file.
struct Pieces {
    file: std::fs::File,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    base: u64,
}

impl Pieces {
    /// Moves what is left to the front and reads more (a bigger buffer
    /// when one value fills it). False at the end of the file.
    fn fill(&mut self) -> std::io::Result<bool> {
        use std::io::Read;
        if self.eof {
            return Ok(false);
        }
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.base += self.pos as u64;
        self.pos = 0;
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = loop {
            match self.file.read(&mut self.buf[self.end..]) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        self.end += n;
        self.eof = n == 0;
        Ok(n > 0)
    }

    /// Where in the file the next byte to consume is.
    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Goes on reading at byte `at` of the file.
    fn seek(&mut self, at: u64) -> std::io::Result<()> {
        use std::io::Seek;
        self.file.seek(std::io::SeekFrom::Start(at))?;
        (self.base, self.pos, self.end, self.eof) = (at, 0, 0, false);
        Ok(())
    }

    /// The next byte that is not JSON whitespace, consumed.
    fn next_byte(&mut self) -> std::io::Result<Option<u8>> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                self.pos += 1;
                if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                    return Ok(Some(b));
                }
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// One JSON value (a string, null or an object: never a bare number,
    /// which could be cut short at the end of the buffer), consumed.
    fn value<T: serde::de::DeserializeOwned>(&mut self) -> std::io::Result<Option<T>> {
        loop {
            let mut values = serde_json::Deserializer::from_slice(&self.buf[self.pos..self.end]).into_iter::<T>();
            match values.next() {
                Some(Ok(v)) => {
                    self.pos += values.byte_offset();
                    return Ok(Some(v));
                }
                Some(Err(e)) if !e.is_eof() => return Ok(None),
                _ => {
                    if !self.fill()? {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// The `objects` array, each object handed to a [`Builder`]. In a file
    /// of `split_min` bytes or more a second thread reads the objects from
    /// about the middle on ([`split`]); this one takes them over when it
    /// gets there.
    fn objects(&mut self, path: &Path, buffer: usize, split_min: u64) -> std::io::Result<Option<Builder>> {
        if self.next_byte()? != Some(b'[') {
            return Ok(None);
        }
        let mut b = Builder::default();
        match self.next_byte()? {
            Some(b']') => return Ok(Some(b)),
            // The file ends inside the array: left to the whole-file parse.
            None => return Ok(None),
            // The first object's first byte, read again by `value`.
            Some(_) => self.pos -= 1,
        }
        let len = self.file.metadata()?.len();
        let start = match len >= split_min {
            true => split::start_near_middle(path, len).ok().flatten().filter(|&s| s > self.offset()),
            false => None,
        };
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            let stop_ref = &stop;
            let mut tail = start.map(|s| (s, scope.spawn(move || split::read_tail(path, s, buffer, stop_ref))));
            let read = (|| loop {
                if let Some(&(s, _)) = tail.as_ref() {
                    // Where the next object starts: the other thread's
                    // objects are this file's only if it is exactly there.
                    if self.next_byte()?.is_none() {
                        return Ok(None);
                    }
                    self.pos -= 1;
                    if self.offset() >= s {
                        let at = self.offset();
                        if let Some((_, handle)) = tail.take().filter(|_| at == s) {
                            if let Ok(Some(t)) = handle.join() {
                                b.absorb(t.part);
                                self.seek(t.end)?;
                                return Ok(Some(std::mem::take(&mut b)));
                            }
                        }
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                let Some(o) = self.value::<ObjectFile>()? else { return Ok(None) };
                b.push(o);
                match self.next_byte()? {
                    Some(b',') => {}
                    Some(b']') => return Ok(Some(std::mem::take(&mut b))),
                    _ => return Ok(None),
                }
            })();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            read
        })
    }
}

mod split;

#[cfg(test)]
mod tests;
