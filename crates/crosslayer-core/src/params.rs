//! Declared parameters: every tunable of an algorithm (and of TCP) is declared once, with its
//! doc string, unit, default (and where the default comes from) and valid range, by [`params!`].
//!
//! From that one declaration come: the config struct and its `Default` (the RFC's or Linux's
//! values), its serde form (the engine spec: SI integers - ns, bit/s, bytes - for units), the
//! range checks of [`Params::validate`], and the catalog entries exported to Python
//! ([`ParamSpec`]), from which the Python package builds its validation, `crosslayer list` and the
//! parameter tables in `docs/models/`. Checks that relate several fields (e.g. `min_rto <=
//! initial_rto`) are a function named in the declaration (`check = path;`).
//!
//! ```ignore
//! params! {
//!     /// CUBIC parameters.
//!     pub struct CubicConfig {
//!         /// Multiplicative decrease factor.
//!         beta: f64 = 0.7, Ratio, range(> 0.0, < 1.0), "RFC 9438 section 4.6; Linux beta = 717/1024";
//!     }
//! }
//! ```

use crate::units::{Bytes, Dur, Rate};
use serde::Serialize;
use serde_json::{json, Value as Json};
use std::fmt;

/// What a parameter measures. In the engine spec, `Time` is integer ns, `Rate` integer bit/s,
/// `Size` integer bytes; study files write them with units (`"5ms"`, `"100Mbps"`, `"64KiB"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Time,
    Rate,
    Size,
    /// A number of packets (integer).
    Packets,
    /// A number of anything else (integer), e.g. records in a history.
    Count,
    /// A dimensionless real number: a factor or a probability.
    Ratio,
    /// A real number with a physical unit given as text (e.g. `"segments/s^3"`, `"Hz"`).
    Number,
    /// true / false.
    Flag,
    /// One of a fixed set of names.
    Choice,
    /// A nested table of parameters (or a list of them), described by the catalog's `items`.
    Table,
    /// A queue discipline configuration `{kind = "...", ...}` (a class's own discipline).
    Qdisc,
}

/// A parameter value, as the range checks and the catalog see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(u64),
    Float(f64),
    Bool(bool),
    Str(&'static str),
    /// An optional parameter left unset.
    Unset,
}

impl Value {
    fn to_json(self) -> Json {
        match self {
            Value::Int(v) => json!(v),
            Value::Float(v) => json!(v),
            Value::Bool(v) => json!(v),
            Value::Str(v) => json!(v),
            Value::Unset => Json::Null,
        }
    }
}

/// A bound of a range, compared exactly in its own kind (integers as integers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Int(u64),
    Float(f64),
}

macro_rules! int_limit {
    ($($t:ty),*) => {$(
        impl From<$t> for Limit {
            fn from(v: $t) -> Limit {
                Limit::Int(u64::try_from(v).expect("a parameter bound must be >= 0"))
            }
        }
    )*};
}
int_limit!(i32, u32, u64);
impl From<f64> for Limit {
    fn from(v: f64) -> Limit {
        Limit::Float(v)
    }
}
impl From<Dur> for Limit {
    fn from(v: Dur) -> Limit {
        Limit::Int(v.ns())
    }
}
impl From<Rate> for Limit {
    fn from(v: Rate) -> Limit {
        Limit::Int(v.bps())
    }
}
impl From<Bytes> for Limit {
    fn from(v: Bytes) -> Limit {
        Limit::Int(v.get())
    }
}

/// One end of a [`Range`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    Open,
    Incl(Limit),
    Excl(Limit),
}

/// The valid values of a parameter: `lo` and `hi` each unbounded, inclusive or exclusive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub lo: Bound,
    pub hi: Bound,
}

impl Range {
    pub const ANY: Range = Range { lo: Bound::Open, hi: Bound::Open };
}

/// `range!(> 0.0, < 1.0)`, `range!(>= 64, <= 65000)`, `range!(> 0)`, `range!(<= x)`, `range!()`.
#[macro_export]
macro_rules! range {
    () => { $crate::params::Range::ANY };
    (@lo > $v:expr) => { $crate::params::Bound::Excl($crate::params::Limit::from($v)) };
    (@lo >= $v:expr) => { $crate::params::Bound::Incl($crate::params::Limit::from($v)) };
    (@hi < $v:expr) => { $crate::params::Bound::Excl($crate::params::Limit::from($v)) };
    (@hi <= $v:expr) => { $crate::params::Bound::Incl($crate::params::Limit::from($v)) };
    (> $lo:expr, $($hi:tt)+) => { $crate::params::Range { lo: $crate::range!(@lo > $lo), hi: $crate::range!(@hi $($hi)+) } };
    (>= $lo:expr, $($hi:tt)+) => { $crate::params::Range { lo: $crate::range!(@lo >= $lo), hi: $crate::range!(@hi $($hi)+) } };
    (> $lo:expr) => { $crate::params::Range { lo: $crate::range!(@lo > $lo), hi: $crate::params::Bound::Open } };
    (>= $lo:expr) => { $crate::params::Range { lo: $crate::range!(@lo >= $lo), hi: $crate::params::Bound::Open } };
    (< $hi:expr) => { $crate::params::Range { lo: $crate::params::Bound::Open, hi: $crate::range!(@hi < $hi) } };
    (<= $hi:expr) => { $crate::params::Range { lo: $crate::params::Bound::Open, hi: $crate::range!(@hi <= $hi) } };
}

fn below(v: Value, l: Limit) -> Option<bool> {
    match (v, l) {
        (Value::Int(a), Limit::Int(b)) => Some(a < b),
        (Value::Float(a), Limit::Float(b)) => Some(a < b),
        (Value::Float(a), Limit::Int(b)) => Some(a < b as f64),
        (Value::Int(a), Limit::Float(b)) => Some((a as f64) < b),
        _ => None,
    }
}

fn equal(v: Value, l: Limit) -> bool {
    match (v, l) {
        (Value::Int(a), Limit::Int(b)) => a == b,
        (Value::Float(a), Limit::Float(b)) => a == b,
        (Value::Float(a), Limit::Int(b)) => a == b as f64,
        (Value::Int(a), Limit::Float(b)) => a as f64 == b,
        _ => false,
    }
}

impl Range {
    /// Whether `v` is inside the range (unset optional values and non-numbers always are;
    /// NaN never is).
    pub fn contains(&self, v: Value) -> bool {
        if let Value::Float(f) = v {
            if !f.is_finite() {
                return false;
            }
        }
        let lo_ok = match self.lo {
            Bound::Open => true,
            Bound::Incl(l) => below(v, l).is_none_or(|b| !b),
            Bound::Excl(l) => below(v, l).is_none_or(|b| !b) && !equal(v, l),
        };
        let hi_ok = match self.hi {
            Bound::Open => true,
            Bound::Incl(l) => below(v, l).is_none_or(|b| b) || equal(v, l),
            Bound::Excl(l) => below(v, l).is_none_or(|b| b),
        };
        lo_ok && hi_ok
    }

    /// "in (0, 1)", ">= 1", "<= 10s": the range in the parameter's unit.
    pub fn describe(&self, unit: Unit) -> String {
        let show = |l: Limit| format_limit(l, unit);
        match (self.lo, self.hi) {
            (Bound::Open, Bound::Open) => "any value".into(),
            (lo, Bound::Open) => match lo {
                Bound::Incl(l) => format!(">= {}", show(l)),
                Bound::Excl(l) => format!("> {}", show(l)),
                Bound::Open => unreachable!(),
            },
            (Bound::Open, hi) => match hi {
                Bound::Incl(l) => format!("<= {}", show(l)),
                Bound::Excl(l) => format!("< {}", show(l)),
                Bound::Open => unreachable!(),
            },
            (lo, hi) => {
                let (open, a) = match lo {
                    Bound::Incl(l) => ('[', l),
                    Bound::Excl(l) => ('(', l),
                    Bound::Open => unreachable!(),
                };
                let (close, b) = match hi {
                    Bound::Incl(l) => (']', l),
                    Bound::Excl(l) => (')', l),
                    Bound::Open => unreachable!(),
                };
                format!("in {open}{}, {}{close}", show(a), show(b))
            }
        }
    }

    fn bound_json(b: Bound) -> Json {
        match b {
            Bound::Open => Json::Null,
            Bound::Incl(l) | Bound::Excl(l) => limit_json(l),
        }
    }
}

fn limit_json(l: Limit) -> Json {
    match l {
        Limit::Int(v) => json!(v),
        Limit::Float(v) => json!(v),
    }
}

/// A bound or value as a study file would write it (`10s`, `100Mbps`, `64KiB`, `0.7`).
pub fn format_limit(l: Limit, unit: Unit) -> String {
    match (l, unit) {
        (Limit::Int(v), Unit::Time) => Dur::from_ns(v).to_string(),
        (Limit::Int(v), Unit::Rate) => Rate::from_bps(v).to_string(),
        (Limit::Int(v), Unit::Size) => Bytes::new(v).to_string(),
        (Limit::Int(v), _) => v.to_string(),
        (Limit::Float(v), _) => num(v),
    }
}

/// A real number for a message: the shortest form that reads back exactly, in scientific
/// notation when it is very large or very small (`1e-300`, not 300 zeros).
pub fn num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e16).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// The Rust types a parameter can have, and how the checks and the catalog see their values.
///
/// Besides the scalar kinds there are two structured ones: `"list"` (a JSON array; the declared
/// unit, range and choices apply to every element, and the catalog's `items` describes an
/// element) and `"table"` (a JSON object: a nested configuration, e.g. a queue discipline or a
/// [`Params`] struct, described by `items`). A structured value checks itself through
/// [`ParamType::nested_problems`], naming each problem by its path (`classes[1].qdisc.target`).
pub trait ParamType {
    /// `"int"`, `"float"`, `"bool"`, `"str"`, `"list"` or `"table"`: the JSON type in the engine spec.
    const KIND: &'static str;
    const OPTIONAL: bool = false;
    /// Largest value the type holds (integers).
    const INT_MAX: u64 = u64::MAX;
    /// For `Choice` parameters: the accepted names.
    fn choices() -> &'static [&'static str] {
        &[]
    }
    fn value(&self) -> Value;
    /// The value as the catalog writes it (its `default`); scalars write their [`Value`].
    fn to_json(&self) -> Json {
        self.value().to_json()
    }
    /// Structured kinds: what one element is (the catalog's `items`); `None` for scalars.
    fn items() -> Option<Json> {
        None
    }
    /// Structured kinds: append the problems inside the value, whose path is `path`, declared
    /// by `spec` (a list checks each element against the declared range and choices).
    fn nested_problems(&self, _path: &str, _spec: &ParamSpec, _out: &mut Vec<Problem>) {}
}

macro_rules! param_type {
    ($t:ty, $kind:literal, |$v:ident| $e:expr) => {
        impl ParamType for $t {
            const KIND: &'static str = $kind;
            fn value(&self) -> Value {
                let $v = *self;
                $e
            }
        }
    };
}
impl ParamType for u32 {
    const KIND: &'static str = "int";
    const INT_MAX: u64 = u32::MAX as u64;
    fn value(&self) -> Value {
        Value::Int(*self as u64)
    }
}
impl ParamType for u16 {
    const KIND: &'static str = "int";
    const INT_MAX: u64 = u16::MAX as u64;
    fn value(&self) -> Value {
        Value::Int(*self as u64)
    }
}
impl ParamType for u8 {
    const KIND: &'static str = "int";
    const INT_MAX: u64 = u8::MAX as u64;
    fn value(&self) -> Value {
        Value::Int(*self as u64)
    }
}
param_type!(u64, "int", |v| Value::Int(v));
param_type!(f64, "float", |v| Value::Float(v));
param_type!(bool, "bool", |v| Value::Bool(v));
param_type!(Dur, "int", |v| Value::Int(v.ns()));
param_type!(Rate, "int", |v| Value::Int(v.bps()));
param_type!(Bytes, "int", |v| Value::Int(v.get()));

impl<T: ParamType> ParamType for Option<T> {
    const KIND: &'static str = T::KIND;
    const OPTIONAL: bool = true;
    const INT_MAX: u64 = T::INT_MAX;
    fn choices() -> &'static [&'static str] {
        T::choices()
    }
    fn value(&self) -> Value {
        self.as_ref().map_or(Value::Unset, ParamType::value)
    }
    fn to_json(&self) -> Json {
        self.as_ref().map_or(Json::Null, ParamType::to_json)
    }
    fn items() -> Option<Json> {
        T::items()
    }
    fn nested_problems(&self, path: &str, spec: &ParamSpec, out: &mut Vec<Problem>) {
        if let Some(v) = self {
            v.nested_problems(path, spec, out);
        }
    }
}

/// A list parameter: the declared unit, range and choices apply to each element; an element
/// may itself be structured (a list of tables).
impl<T: ParamType> ParamType for Vec<T> {
    const KIND: &'static str = "list";
    const INT_MAX: u64 = T::INT_MAX;
    fn choices() -> &'static [&'static str] {
        T::choices()
    }
    /// Not a scalar: the range applies to the elements (`nested_problems`).
    fn value(&self) -> Value {
        Value::Unset
    }
    fn to_json(&self) -> Json {
        Json::Array(self.iter().map(ParamType::to_json).collect())
    }
    fn items() -> Option<Json> {
        // A scalar element: its JSON type and, for integers, the largest value its type holds.
        Some(T::items().unwrap_or_else(|| json!({"type": T::KIND, "int_max": (T::KIND == "int").then_some(T::INT_MAX)})))
    }
    fn nested_problems(&self, path: &str, spec: &ParamSpec, out: &mut Vec<Problem>) {
        for (i, x) in self.iter().enumerate() {
            let at = format!("{path}[{i}]");
            if let Some(p) = spec.check(x.value()) {
                out.push(Problem::new(at.clone(), p.message));
            }
            x.nested_problems(&at, spec, out);
        }
    }
}

/// A closed set of names as a parameter type: `choice! { pub enum Mode { Packets = "packets",
/// Bytes = "bytes" } }` (the first variant is not special; the default is set in `params!`).
/// Attributes pass through to the enum and its variants: a type that also needs a `Default`
/// outside `params!` takes `#[derive(Default)]` and `#[default]` on its variant.
#[macro_export]
macro_rules! choice {
    ($(#[$m:meta])* pub enum $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name { $($(#[$vm])* #[serde(rename = $s)] $v),+ }
        impl $name {
            /// Its name in study files and result tables.
            #[allow(dead_code)] // a choice only a test declares, or one no table names
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
        }
        impl $crate::params::ParamType for $name {
            const KIND: &'static str = "str";
            fn choices() -> &'static [&'static str] {
                &[$($s),+]
            }
            fn value(&self) -> $crate::params::Value {
                $crate::params::Value::Str(match self { $($name::$v => $s),+ })
            }
        }
    };
}

/// One problem found in a configuration: the parameter (relative to the config) and what is
/// wrong, with the fix. `message` does not repeat the value; callers add "(got ...)" in the
/// notation of the file the user wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

impl Problem {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem { field: field.into(), message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

/// Join problems into one message, each prefixed with `path` (for Rust callers).
/// At most `SHOWN_PROBLEMS` are spelled out (a mistake repeated over 100,000 flows would
/// otherwise make a message of megabytes); the rest are counted.
pub fn describe_problems(path: &str, problems: &[Problem]) -> String {
    let mut text = problems
        .iter()
        .take(SHOWN_PROBLEMS)
        .map(|p| match (path.is_empty(), p.field.is_empty()) {
            (true, _) => p.to_string(),
            (false, true) => format!("{path}: {}", p.message),
            (false, false) => format!("{path}.{}: {}", p.field, p.message),
        })
        .collect::<Vec<_>>()
        .join("; ");
    if problems.len() > SHOWN_PROBLEMS {
        text += &format!("; and {} more problems", problems.len() - SHOWN_PROBLEMS);
    }
    text
}

/// How many problems `describe_problems` spells out.
pub const SHOWN_PROBLEMS: usize = 20;

/// The catalog description of one parameter.
#[derive(Clone, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub doc: String,
    pub unit: Unit,
    /// For `Unit::Number`: the unit as text.
    pub unit_text: &'static str,
    /// JSON type in the engine spec: "int", "float", "bool", "str".
    pub kind: &'static str,
    /// Largest integer the engine's type holds.
    pub int_max: u64,
    pub optional: bool,
    pub choices: &'static [&'static str],
    pub range: Range,
    pub default: Value,
    /// The default as the catalog writes it (equal to `default` for scalars; the whole list or
    /// table for structured kinds).
    pub default_json: Json,
    /// Structured kinds: what an element is (see [`ParamType::items`]).
    pub items: Option<Json>,
    /// Where the default comes from (RFC section, Linux file, paper).
    pub default_source: &'static str,
}

impl ParamSpec {
    /// The range problem of value `v`, if any.
    pub fn check(&self, v: Value) -> Option<Problem> {
        if let (Value::Str(s), false) = (v, self.choices.is_empty()) {
            if !self.choices.contains(&s) {
                return Some(Problem::new(self.name, format!("must be one of: {}", self.choices.join(", "))));
            }
        }
        (!self.range.contains(v)).then(|| Problem::new(self.name, format!("must be {}", self.range.describe(self.unit))))
    }

    /// A value as the catalog writes it.
    pub fn value_json(v: Value) -> Json {
        v.to_json()
    }

    pub fn to_json(&self) -> Json {
        let open = |b: Bound| matches!(b, Bound::Excl(_));
        let mut out = json!({
            "name": self.name,
            "doc": self.doc,
            "unit": self.unit,
            "unit_text": self.unit_text,
            "type": self.kind,
            "int_max": (self.kind == "int").then_some(self.int_max),
            "optional": self.optional,
            "choices": self.choices,
            "min": Range::bound_json(self.range.lo),
            "min_exclusive": open(self.range.lo),
            "max": Range::bound_json(self.range.hi),
            "max_exclusive": open(self.range.hi),
            "range": self.range.describe(self.unit),
            "default": self.default_json,
            "default_source": self.default_source,
        });
        // Only structured parameters carry `items` (scalars keep the catalog form they had).
        if let (Some(items), Json::Object(m)) = (&self.items, &mut out) {
            m.insert("items".into(), items.clone());
        }
        out
    }
}

/// The optional unit text of a `params!` field.
pub fn first_or_empty(xs: &[&'static str]) -> &'static str {
    xs.first().copied().unwrap_or("")
}

/// Doc comments of a field joined into one line.
pub fn join_doc(lines: &[&str]) -> String {
    lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// A configuration declared with [`params!`].
pub trait Params: Clone + Default + fmt::Debug + PartialEq + Serialize + serde::de::DeserializeOwned {
    /// Catalog description of every parameter, in declaration order.
    fn specs() -> Vec<ParamSpec>;
    /// Current values, in declaration order.
    fn values(&self) -> Vec<Value>;
    /// Checks between fields (the `check = ...` of the declaration); appends problems.
    fn relations(&self, _out: &mut Vec<Problem>) {}

    /// Problems inside structured parameters (lists, nested configurations), by path.
    fn nested_problems(&self, _out: &mut Vec<Problem>) {}

    /// Values outside their declared range, including inside structured parameters.
    fn range_problems(&self) -> Vec<Problem> {
        let mut out: Vec<Problem> = Self::specs().iter().zip(self.values()).filter_map(|(s, v)| s.check(v)).collect();
        self.nested_problems(&mut out);
        out
    }

    /// Every problem: ranges, then (if the ranges hold) relations.
    fn validate(&self) -> Vec<Problem> {
        let mut out = self.range_problems();
        if out.is_empty() {
            self.relations(&mut out);
        }
        out
    }
}

/// Declare a configuration struct; see the module docs. Each field:
/// `/// doc` `name: Type = default, Unit, range(...), "source of the default";` where `Unit` is a
/// [`Unit`] variant, `Number("unit text")` for `Unit::Number`.
#[macro_export]
macro_rules! params {
    (
        $(#[$smeta:meta])*
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $ty:ty = $default:expr , $unit:ident $(($utext:literal))? , range($($range:tt)*) , $src:literal ;
            )*
        }
        $(check = $check:path ;)?
    ) => {
        $(#[$smeta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name {
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )* }
            }
        }

        impl $crate::params::Params for $name {
            fn specs() -> Vec<$crate::params::ParamSpec> {
                #[allow(unused_variables)]
                let d = <$name as Default>::default();
                vec![$(
                    $crate::params::ParamSpec {
                        name: stringify!($field),
                        doc: $crate::params::join_doc(&[$($doc),*]),
                        unit: $crate::params::Unit::$unit,
                        unit_text: $crate::params::first_or_empty(&[$($utext)?]),
                        kind: <$ty as $crate::params::ParamType>::KIND,
                        int_max: <$ty as $crate::params::ParamType>::INT_MAX,
                        optional: <$ty as $crate::params::ParamType>::OPTIONAL,
                        choices: <$ty as $crate::params::ParamType>::choices(),
                        range: $crate::range!($($range)*),
                        default: $crate::params::ParamType::value(&d.$field),
                        default_json: $crate::params::ParamType::to_json(&d.$field),
                        items: <$ty as $crate::params::ParamType>::items(),
                        default_source: $src,
                    }
                ),*]
            }
            fn values(&self) -> Vec<$crate::params::Value> {
                vec![$( $crate::params::ParamType::value(&self.$field) ),*]
            }
            #[allow(unused_variables)] // a config without parameters (tahoe) has nothing to check
            fn nested_problems(&self, out: &mut Vec<$crate::params::Problem>) {
                let specs = <Self as $crate::params::Params>::specs();
                let mut _k = 0;
                $(
                    $crate::params::ParamType::nested_problems(&self.$field, stringify!($field), &specs[_k], out);
                    _k += 1;
                )*
            }
            $(
                fn relations(&self, out: &mut Vec<$crate::params::Problem>) {
                    $check(self, out)
                }
            )?
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Dur;

    crate::choice! {
        /// A test choice.
        pub enum Mode { Packets = "packets", Bytes = "bytes" }
    }

    fn no_big_limit(c: &Demo, out: &mut Vec<Problem>) {
        if c.limit.is_some() && c.mode == Mode::Packets {
            out.push(Problem::new("limit", "is for byte mode only"));
        }
    }

    crate::params! {
        /// A demo configuration.
        pub struct Demo {
            /// A probability.
            /// Second line.
            p: f64 = 0.5, Ratio, range(> 0.0, <= 1.0), "made up";
            /// A delay.
            delay: Dur = Dur::from_ms(5), Time, range(>= Dur::from_ms(1), <= Dur::from_secs(10)), "RFC 0000";
            /// Packets.
            n: u32 = 3, Packets, range(>= 1), "made up";
            mode: Mode = Mode::Packets, Choice, range(), "made up";
            limit: Option<u64> = None, Size, range(>= 1), "unset";
        }
        check = no_big_limit;
    }

    #[test]
    fn specs_describe_every_field() {
        let s = Demo::specs();
        assert_eq!(s.iter().map(|s| s.name).collect::<Vec<_>>(), ["p", "delay", "n", "mode", "limit"]);
        assert_eq!(s[0].doc, "A probability. Second line.");
        assert_eq!(s[1].default, Value::Int(5_000_000));
        assert_eq!(s[1].range.describe(Unit::Time), "in [1ms, 10s]");
        assert_eq!(s[0].range.describe(Unit::Ratio), "in (0, 1]");
        assert_eq!(s[3].choices, ["packets", "bytes"]);
        assert!(s[4].optional && s[4].default == Value::Unset);
        assert_eq!(s[4].kind, "int");
    }

    #[test]
    fn validate_reports_ranges_then_relations() {
        assert!(Demo::default().validate().is_empty());
        let bad = Demo { p: 0.0, n: 0, ..Demo::default() };
        let msgs: Vec<String> = bad.validate().iter().map(|p| p.to_string()).collect();
        assert_eq!(msgs, ["p: must be in (0, 1]", "n: must be >= 1"]);
        let rel = Demo { limit: Some(5), ..Demo::default() };
        assert_eq!(rel.validate(), vec![Problem::new("limit", "is for byte mode only")]);
        assert!(!Demo { p: f64::NAN, ..Demo::default() }.validate().is_empty());
    }

    #[test]
    fn a_long_list_of_problems_is_cut() {
        let many: Vec<Problem> = (0..1000).map(|i| Problem::new(format!("flows[{i}].start"), "need from <= to < duration")).collect();
        let text = describe_problems("", &many);
        assert!(text.starts_with("flows[0].start: need from <= to < duration; flows[1].start"));
        assert!(text.ends_with("flows[19].start: need from <= to < duration; and 980 more problems"), "{text}");
        assert_eq!(describe_problems("x", &many[..2]), "x.flows[0].start: need from <= to < duration; x.flows[1].start: need from <= to < duration");
    }

    #[test]
    fn serde_uses_base_units_and_rejects_unknown_fields() {
        let d: Demo = serde_json::from_str(r#"{"delay": 2000000, "mode": "bytes"}"#).unwrap();
        assert_eq!(d.delay, Dur::from_ms(2));
        assert_eq!(d.mode, Mode::Bytes);
        assert!(serde_json::from_str::<Demo>(r#"{"dleay": 1}"#).is_err());
    }
}
