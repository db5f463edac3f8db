//! Lights and cameras carried by objects (`docs/spec/lights.md`): an
//! object's [`Fixture`], the scene-file `light` and `camera` fields read
//! (every problem naming the field) and written (every field), and the
//! lights as the renderer takes them ([`LightObject::def`]).

use serde_json::{json, Map, Value};

use crate::look::{LightDef, LightKind};

/// What an object carries besides its mesh. Boxed in the object (8 bytes
/// in every record; lights and cameras are few).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Fixture {
    pub light: Option<LightObject>,
    pub camera: Option<CameraObject>,
}

impl Fixture {
    /// What a scene file could not hold in it (the file's checks, the field
    /// named), if anything: the one rule for files and edits.
    pub fn problem(&self) -> Option<String> {
        let light = self.light.as_ref().map(|l| light_from_file(&light_to_file(l)).err());
        let camera = self.camera.as_ref().map(|c| camera_from_file(&camera_to_file(c)).err());
        light.flatten().or(camera.flatten())
    }
}

/// The kind of a light object (`KHR_lights_punctual`'s `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LightType {
    Directional,
    Point,
    Spot,
}

impl LightType {
    pub fn name(self) -> &'static str {
        match self {
            LightType::Directional => "directional",
            LightType::Point => "point",
            LightType::Spot => "spot",
        }
    }
}

/// A light object as the scene file holds it: `KHR_lights_punctual`'s
/// meaning and units (lux for directional, candela for point and spot),
/// shining along the object's local -Z; cone angles in degrees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightObject {
    pub kind: LightType,
    /// Linear RGB.
    pub color: [f64; 3],
    pub intensity: f64,
    /// Where point and spot lights end (`None`: nowhere).
    pub range: Option<f64>,
    pub inner_cone_deg: f64,
    pub outer_cone_deg: f64,
}

impl LightObject {
    /// A light of `kind` with the scene file's defaults.
    pub fn new(kind: LightType) -> LightObject {
        LightObject { kind, color: [1.0; 3], intensity: 1.0, range: None, inner_cone_deg: 0.0, outer_cone_deg: 45.0 }
    }

    /// The light as the renderer takes it.
    pub fn def(&self) -> LightDef {
        let kind = match self.kind {
            LightType::Directional => LightKind::Directional,
            LightType::Point => LightKind::Point,
            LightType::Spot => LightKind::Spot {
                inner: self.inner_cone_deg.to_radians() as f32,
                outer: self.outer_cone_deg.to_radians() as f32,
            },
        };
        LightDef {
            kind,
            color: self.color.map(|c| c as f32),
            intensity: self.intensity as f32,
            range: self.range.map(|r| r as f32),
        }
    }

    /// A glTF file's light (`KHR_lights_punctual`) as a light object.
    pub fn from_def(def: &LightDef) -> LightObject {
        let (kind, inner, outer) = match def.kind {
            LightKind::Directional => (LightType::Directional, 0.0, 45.0),
            LightKind::Point => (LightType::Point, 0.0, 45.0),
            LightKind::Spot { inner, outer } => {
                (LightType::Spot, f64::from(inner).to_degrees(), f64::from(outer).to_degrees())
            }
        };
        LightObject {
            kind,
            color: def.color.map(f64::from),
            intensity: f64::from(def.intensity),
            range: def.range.map(f64::from),
            inner_cone_deg: inner,
            outer_cone_deg: outer,
        }
    }
}

/// A camera object: it looks along its object's local -Z with +Y up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraObject {
    pub orthographic: bool,
    /// Vertical field of view (perspective).
    pub fov_y_deg: f64,
    /// The view's height in metres (orthographic).
    pub height: f64,
    pub near: f64,
    /// `None`: an infinite far plane.
    pub far: Option<f64>,
    /// Width / height; `None`: that of the view it is shown in.
    pub aspect: Option<f64>,
}

impl CameraObject {
    /// A camera with the scene file's defaults.
    pub fn new(orthographic: bool) -> CameraObject {
        CameraObject {
            orthographic,
            fov_y_deg: 50.0,
            height: 10.0,
            near: 0.1,
            far: orthographic.then_some(1000.0),
            aspect: None,
        }
    }
}

/// The fields of a `light` object, for the unknown-field message.
const LIGHT_FIELDS: [&str; 6] = ["type", "color", "intensity", "range", "inner_cone_deg", "outer_cone_deg"];
/// The fields of a `camera` object.
const CAMERA_FIELDS: [&str; 6] = ["projection", "fov_y_deg", "height", "near", "far", "aspect"];

/// A number field of `o` (`None` when absent), or the problem naming it.
fn number(o: &Map<String, Value>, what: &str, field: &str) -> Result<Option<f64>, String> {
    match o.get(field) {
        None => Ok(None),
        Some(v) => {
            v.as_f64().filter(|x| x.is_finite()).map(Some).ok_or_else(|| format!("{what}.{field} must be a number"))
        }
    }
}

/// A number-or-null field: absent `None`, null `Some(None)`.
fn nullable(o: &Map<String, Value>, what: &str, field: &str) -> Result<Option<Option<f64>>, String> {
    match o.get(field) {
        Some(Value::Null) => Ok(Some(None)),
        _ => Ok(number(o, what, field)?.map(Some)),
    }
}

/// The object `v` with only `fields`, or the problem naming the first other.
fn fields<'a>(v: &'a Value, what: &str, known: &[&str]) -> Result<&'a Map<String, Value>, String> {
    let o = v.as_object().ok_or_else(|| format!("{what} must be an object"))?;
    if let Some(k) = o.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(format!("{what} has an unknown field \"{k}\" (known: {})", known.join(", ")));
    }
    Ok(o)
}

/// Reads a scene file's `light` value, checked (`docs/spec/lights.md`).
pub fn light_from_file(v: &Value) -> Result<LightObject, String> {
    let o = fields(v, "light", &LIGHT_FIELDS)?;
    let kind = match o.get("type").and_then(Value::as_str) {
        Some("directional") => LightType::Directional,
        Some("point") => LightType::Point,
        Some("spot") => LightType::Spot,
        Some(other) => return Err(format!("light.type \"{other}\" is not directional, point or spot")),
        None => return Err("light.type is missing (directional, point or spot)".into()),
    };
    let mut l = LightObject::new(kind);
    if let Some(c) = o.get("color") {
        let c: Vec<f64> = c.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default();
        if c.len() != 3 || c.iter().any(|x| !(0.0..=1.0).contains(x)) {
            return Err("light.color must be three numbers in [0, 1]".into());
        }
        l.color = [c[0], c[1], c[2]];
    }
    if let Some(i) = number(o, "light", "intensity")? {
        if i < 0.0 {
            return Err("light.intensity must not be negative".into());
        }
        l.intensity = i;
    }
    if let Some(r) = nullable(o, "light", "range")? {
        if r.is_some_and(|r| r <= 0.0) {
            return Err("light.range must be positive (or null: no end)".into());
        }
        l.range = r;
    }
    l.inner_cone_deg = number(o, "light", "inner_cone_deg")?.unwrap_or(l.inner_cone_deg);
    l.outer_cone_deg = number(o, "light", "outer_cone_deg")?.unwrap_or(l.outer_cone_deg);
    if !(0.0 <= l.inner_cone_deg && l.inner_cone_deg < l.outer_cone_deg && l.outer_cone_deg <= 90.0) {
        return Err("light cone angles must satisfy 0 <= inner_cone_deg < outer_cone_deg <= 90".into());
    }
    Ok(l)
}

/// Reads a scene file's `camera` value (an object's), checked.
pub fn camera_from_file(v: &Value) -> Result<CameraObject, String> {
    let o = fields(v, "camera", &CAMERA_FIELDS)?;
    let orthographic = match o.get("projection").map(|p| p.as_str()) {
        None | Some(Some("perspective")) => false,
        Some(Some("orthographic")) => true,
        Some(_) => return Err("camera.projection must be \"perspective\" or \"orthographic\"".into()),
    };
    let mut c = CameraObject::new(orthographic);
    if let Some(f) = number(o, "camera", "fov_y_deg")? {
        if !(f > 0.0 && f < 180.0) {
            return Err("camera.fov_y_deg must be between 0 and 180 (both excluded)".into());
        }
        c.fov_y_deg = f;
    }
    if let Some(h) = number(o, "camera", "height")? {
        if h <= 0.0 {
            return Err("camera.height must be positive".into());
        }
        c.height = h;
    }
    if let Some(a) = nullable(o, "camera", "aspect")? {
        if a.is_some_and(|a| a <= 0.0) {
            return Err("camera.aspect must be positive (or null: the view's)".into());
        }
        c.aspect = a;
    }
    if let Some(n) = number(o, "camera", "near")? {
        if n <= 0.0 {
            return Err("camera.near must be positive".into());
        }
        c.near = n;
    }
    if let Some(f) = nullable(o, "camera", "far")? {
        c.far = f;
    }
    if c.far.is_some_and(|f| f <= c.near) {
        return Err("camera.far must be greater than camera.near (or null: infinite)".into());
    }
    Ok(c)
}

/// A light object as its scene-file value: every field.
pub fn light_to_file(l: &LightObject) -> Value {
    json!({
        "type": l.kind.name(),
        "color": l.color,
        "intensity": l.intensity,
        "range": l.range,
        "inner_cone_deg": l.inner_cone_deg,
        "outer_cone_deg": l.outer_cone_deg,
    })
}

/// A camera object as its scene-file value: every field.
pub fn camera_to_file(c: &CameraObject) -> Value {
    json!({
        "projection": if c.orthographic { "orthographic" } else { "perspective" },
        "fov_y_deg": c.fov_y_deg,
        "height": c.height,
        "near": c.near,
        "far": c.far,
        "aspect": c.aspect,
    })
}

/// What reading an object's `light` and `camera` gives: its fixture
/// (`None` when it has neither), or the first problem.
pub type FixtureRead = Result<Option<Box<Fixture>>, String>;

/// An object's `light` and `camera` values as read ([`FixtureRead`]).
pub fn fixture_from_file(light: Option<&Value>, camera: Option<&Value>) -> FixtureRead {
    if light.is_none() && camera.is_none() {
        return Ok(None);
    }
    let light = light.map(light_from_file).transpose()?;
    let camera = camera.map(camera_from_file).transpose()?;
    Ok(Some(Box::new(Fixture { light, camera })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_every_field_written() {
        let l = light_from_file(&json!({"type": "spot"})).unwrap();
        assert_eq!(l, LightObject::new(LightType::Spot));
        let back = light_to_file(&l);
        assert_eq!(back["range"], Value::Null);
        assert_eq!(back["outer_cone_deg"], json!(45.0));
        assert_eq!(light_from_file(&back).unwrap(), l);
        let c = camera_from_file(&json!({"projection": "orthographic"})).unwrap();
        assert_eq!((c.far, c.height, c.near), (Some(1000.0), 10.0, 0.1));
        let p = camera_from_file(&json!({})).unwrap();
        assert_eq!((p.far, p.fov_y_deg), (None, 50.0));
        assert_eq!(camera_from_file(&camera_to_file(&c)).unwrap(), c);
    }

    #[test]
    fn bad_values_name_their_field() {
        for (v, needle) in [
            (json!({"type": "lamp"}), "light.type"),
            (json!({"color": [1, 1, 1]}), "light.type is missing"),
            (json!({"type": "point", "intensity": -1}), "light.intensity"),
            (json!({"type": "point", "range": 0}), "light.range"),
            (json!({"type": "spot", "inner_cone_deg": 50, "outer_cone_deg": 40}), "cone"),
            (json!({"type": "spot", "outer_cone_deg": 91}), "cone"),
            (json!({"type": "point", "glow": 1}), "unknown field \"glow\""),
        ] {
            let e = light_from_file(&v).unwrap_err();
            assert!(e.contains(needle), "{v}: {e}");
        }
        for (v, needle) in [
            (json!({"projection": "fisheye"}), "camera.projection"),
            (json!({"fov_y_deg": 180}), "camera.fov_y_deg"),
            (json!({"height": 0}), "camera.height"),
            (json!({"aspect": -1}), "camera.aspect"),
            (json!({"near": 0}), "camera.near"),
            (json!({"near": 1, "far": 1}), "camera.far"),
            (json!({"zoom": 2}), "unknown field \"zoom\""),
        ] {
            let e = camera_from_file(&v).unwrap_err();
            assert!(e.contains(needle), "{v}: {e}");
        }
    }

    #[test]
    fn gltf_lights_keep_their_values() {
        let def = LightDef {
            kind: LightKind::Spot { inner: 0.2, outer: 0.6 },
            color: [1.0, 0.5, 0.25],
            intensity: 40.0,
            range: Some(12.0),
        };
        let back = LightObject::from_def(&def).def();
        let (LightKind::Spot { inner, outer }, LightKind::Spot { inner: i0, outer: o0 }) = (back.kind, def.kind) else {
            panic!("a spot stays a spot");
        };
        assert!((inner - i0).abs() < 1e-6 && (outer - o0).abs() < 1e-6);
        assert_eq!((back.color, back.intensity, back.range), (def.color, def.intensity, def.range));
    }
}
