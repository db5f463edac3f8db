//! A large scene file's objects read by two threads (two cores): this one
//! from about the middle of the file to the end of `objects`, while the
//! first reads from the start. Where the second starts is a guess (the
//! first `}`, `,`, `{` after the middle, with only whitespace between),
//! which could be inside a string; its objects are used only if the first
//! thread, reading object after object, arrives exactly there: then that
//! place is where an object begins, and what this thread read is what the
//! first would have read from there. Otherwise (or if this thread meets
//! anything it cannot read) its work is dropped and the first reads on.
//!
//! Each object is read here as far as it can be alone ([`Part`]); the
//! checks that need the objects before it (names, the first problem, mesh
//! order) are made when the first thread takes the part over, in file
//! order, so errors and their precedence are those of one thread.

use std::collections::HashMap;
use std::io::{Read as _, Seek, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{values, Builder, Pieces, Read, NO_MESH};
use crate::math::Transform;
use crate::scene::file::{ObjectFile, SkinFile};
use crate::scene::fixture::{fixture_from_file, FixtureRead};

/// Bytes after the middle searched for a place where an object may begin.
const WINDOW: usize = 1 << 20;

/// The objects read by the second thread and where `objects` ends (just
/// past its `]`).
pub(super) struct Tail {
    pub(super) part: Part,
    pub(super) end: u64,
}

/// Objects read one by one, without the checks that need earlier objects.
#[derive(Default)]
pub(super) struct Part {
    /// Each object's name, values and the index of its mesh string in
    /// `meshes` (parents and skins, rare, are kept apart).
    objects: Vec<(smol_str::SmolStr, Values, u32)>,
    /// (index in `objects`, parent name) of each object with a parent.
    parents: Vec<(usize, String)>,
    /// (index in `objects`, skin) of each skinned object.
    skins: Vec<(usize, SkinFile)>,
    /// (index in `objects`, extras) of each object with extras.
    extras: Vec<(usize, serde_json::Value)>,
    /// (object, its light and camera as read) for each object with either.
    fixtures: Vec<(usize, FixtureRead)>,
    /// Index in `objects` of each hidden object.
    hidden: Vec<usize>,
    /// Index in `objects` of each object that casts no shadows.
    shadowless: Vec<usize>,
    /// The distinct mesh strings, in the order first named.
    meshes: Vec<String>,
    mesh_ids: HashMap<String, u32>,
}

/// An object's transform and colour, or the first bad value in them.
type Values = Result<(Transform, [f32; 3]), &'static str>;

impl Part {
    fn push(&mut self, o: ObjectFile) {
        let values = values(&o);
        let fixture =
            (o.light.is_some() || o.camera.is_some()).then(|| fixture_from_file(o.light.as_ref(), o.camera.as_ref()));
        let ObjectFile { name, mesh, parent, skin, extras, hidden, cast_shadows, .. } = o;
        let mesh = match mesh {
            None => NO_MESH,
            Some(text) => match self.mesh_ids.get(&text) {
                Some(&id) => id,
                None => {
                    let id = self.meshes.len() as u32;
                    self.mesh_ids.insert(text.clone(), id);
                    self.meshes.push(text);
                    id
                }
            },
        };
        let k = self.objects.len();
        self.parents.extend(parent.map(|p| (k, p)));
        self.skins.extend(skin.map(|s| (k, s)));
        self.extras.extend(extras.map(|e| (k, e)));
        self.fixtures.extend(fixture.map(|f| (k, f)));
        if hidden {
            self.hidden.push(k);
        }
        if !cast_shadows {
            self.shadowless.push(k);
        }
        self.objects.push((name.into(), values, mesh));
    }
}

impl Builder {
    /// Takes over the objects of `part`, which follow those taken so far.
    pub(super) fn absorb(&mut self, part: Part) {
        let Part { objects, parents, skins, extras, fixtures, hidden, shadowless, meshes, .. } = part;
        let mut fixtures = fixtures.into_iter().peekable();
        let mut hidden = hidden.into_iter().peekable();
        let mut shadowless = shadowless.into_iter().peekable();
        let (mut parents, mut skins) = (parents.into_iter().peekable(), skins.into_iter().peekable());
        let mut extras = extras.into_iter().peekable();
        // Local mesh index -> this builder's id, set at first use (so that
        // each string is first named by the object that names it first).
        let mut ids = vec![NO_MESH; meshes.len()];
        self.taken_over += objects.len();
        self.objects.reserve_exact(objects.len());
        self.mesh_of.reserve_exact(objects.len());
        for (k, (name, values, mesh)) in objects.into_iter().enumerate() {
            let parent = parents.next_if(|(j, _)| *j == k).map(|(_, p)| p);
            let skin = skins.next_if(|(j, _)| *j == k).map(|(_, s)| s);
            let extras = extras.next_if(|(j, _)| *j == k).map(|(_, e)| e);
            let hidden = hidden.next_if(|&j| j == k).is_some();
            let cast_shadows = shadowless.next_if(|&j| j == k).is_none();
            let fixture = fixtures.next_if(|(j, _)| *j == k).map_or(Ok(None), |(_, f)| f);
            self.add(Read { name, values, parent, skin, extras, hidden, cast_shadows, fixture }, |b, i| {
                let m = mesh as usize;
                (mesh != NO_MESH).then(|| {
                    if ids[m] == NO_MESH {
                        ids[m] = b.mesh_id(&meshes[m], i);
                    }
                    ids[m]
                })
            });
        }
    }
}

/// Where an object may begin, a little after the middle of the file at
/// `path` (`len` bytes): the `{` of the first `}`, `,`, `{` there.
pub(super) fn start_near_middle(path: &Path, len: u64) -> std::io::Result<Option<u64>> {
    let mut file = std::fs::File::open(path)?;
    let middle = len / 2;
    file.seek(SeekFrom::Start(middle))?;
    let mut window = Vec::with_capacity(WINDOW);
    file.take(WINDOW as u64).read_to_end(&mut window)?;
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let mut i = 0;
    while let Some(close) = window[i..].iter().position(|&b| b == b'}') {
        let mut j = i + close + 1;
        while window.get(j).is_some_and(ws) {
            j += 1;
        }
        if window.get(j) == Some(&b',') {
            j += 1;
            while window.get(j).is_some_and(ws) {
                j += 1;
            }
            if window.get(j) == Some(&b'{') {
                return Ok(Some(middle + j as u64));
            }
        }
        i += close + 1;
    }
    Ok(None)
}

/// The objects from byte `start` of the file at `path` to the end of
/// `objects`; `None` when anything there is not a plain list of objects,
/// or when `stop` is set (the first thread no longer needs them).
pub(super) fn read_tail(path: &Path, start: u64, buffer: usize, stop: &AtomicBool) -> Option<Tail> {
    let file = std::fs::File::open(path).ok()?;
    let mut r = Pieces { file, buf: vec![0; buffer.max(1)], pos: 0, end: 0, eof: false, base: 0 };
    r.seek(start).ok()?;
    let mut part = Part::default();
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        part.push(r.value::<ObjectFile>().ok()??);
        match r.next_byte().ok()? {
            Some(b',') => {}
            Some(b']') => return Some(Tail { part, end: r.offset() }),
            _ => return None,
        }
    }
}
