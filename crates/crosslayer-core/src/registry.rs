//! The algorithm registry: each congestion control and queue discipline is declared once, in
//! its own file, as an [`Algorithm`] (name, aliases, summary, sources, a [`params!`] config and a
//! constructor), and listed once, on one line of its family's [`registry!`] invocation
//! (`cc/mod.rs`, `aqm/mod.rs`). From that list the macro generates:
//!
//! * the config enum (`CcConfig`, `QdiscConfig`): `{"kind": "<name or alias>", params...}` in the
//!   engine spec, validated by the declared ranges and relations;
//! * the runtime enum (`Cc`, `Qdisc`) and its construction; the family's own callback macro adds
//!   static dispatch of the hooks (a `match`, no `dyn` in the hot path);
//! * the family's catalog (`catalog()`), which `catalog::catalog_json` exports to Python.
//!
//! This module is machinery only: it knows no family, no scenario and no result.
//!
//! [`params!`]: crate::params!

use crate::params::{ParamSpec, Params};
use serde_json::{json, Value as Json};

/// What an algorithm is and where it comes from.
#[derive(Clone, Copy, Debug)]
pub struct Info {
    /// The name in study files (`kind = "cubic"`), lower case.
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// One line: what it is.
    pub summary: &'static str,
    /// RFC sections, papers, Linux / ns-3 files the model follows.
    pub sources: &'static [&'static str],
}

impl Info {
    /// Whether `kind` names this algorithm (its name or an alias).
    pub fn answers_to(&self, kind: &str) -> bool {
        self.name == kind || self.aliases.contains(&kind)
    }
}

/// The unit of a value an algorithm reports: one spelling each in the catalog and the docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldUnit {
    /// Seconds (`s`).
    Seconds,
    /// Bits per second (`bps`).
    Bps,
    /// Bytes (`bytes`).
    Bytes,
    /// Packets or segments (`pkts`).
    Pkts,
    /// A count of events (`count`).
    Count,
    /// A dimensionless ratio or probability (`ratio`).
    Ratio,
    /// 0 or 1 (`flag`).
    Flag,
    /// A small integer naming a state, listed in the doc (`code`).
    Code,
    /// An identifier (`id`).
    Id,
}

impl FieldUnit {
    /// The symbol the catalog, the docs and the result tables' units use.
    pub fn symbol(self) -> &'static str {
        match self {
            FieldUnit::Seconds => "s",
            FieldUnit::Bps => "bps",
            FieldUnit::Bytes => "bytes",
            FieldUnit::Pkts => "pkts",
            FieldUnit::Count => "count",
            FieldUnit::Ratio => "ratio",
            FieldUnit::Flag => "flag",
            FieldUnit::Code => "code",
            FieldUnit::Id => "id",
        }
    }
}

/// A named value an algorithm reports (a state variable for traces, a counter for results).
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Column name; the unit is part of it where it has one (`w_max_pkts`, `prob`).
    pub name: &'static str,
    pub unit: FieldUnit,
    pub doc: &'static str,
}

pub fn fields_json(fields: &[Field]) -> Json {
    Json::Array(fields.iter().map(|f| json!({"name": f.name, "unit": f.unit.symbol(), "doc": f.doc})).collect())
}

/// A registered algorithm: its declaration and its constructor.
pub trait Algorithm: Sized {
    /// Its parameters (declared with `params!`).
    type Config: Params;
    /// What the family gives every algorithm at construction (e.g. the link rate).
    type Env;
    const INFO: Info;
    fn new(cfg: &Self::Config, env: &Self::Env) -> Self;
}

/// A boxed algorithm is the algorithm (the registry boxes one whose state is much larger than
/// the others', so that it does not set the size of every instance of the family's enum).
impl<A: Algorithm> Algorithm for Box<A> {
    type Config = A::Config;
    type Env = A::Env;
    const INFO: Info = A::INFO;
    fn new(cfg: &Self::Config, env: &Self::Env) -> Self {
        Box::new(A::new(cfg, env))
    }
}

/// The catalog entry of one algorithm: its [`Info`], its parameters and the family's extras.
pub fn entry<A: Algorithm>(extra: Json) -> Json {
    let i = &A::INFO;
    let mut e = json!({
        "name": i.name,
        "aliases": i.aliases,
        "summary": i.summary,
        "sources": i.sources,
        "params": A::Config::specs().iter().map(ParamSpec::to_json).collect::<Vec<_>>(),
    });
    if let (Json::Object(m), Json::Object(x)) = (&mut e, extra) {
        m.extend(x);
    }
    e
}

/// Declare a family's registry; see the module docs. `dispatch` names a macro of the family
/// that receives the list as `$( $(#[attr])* Variant => Type ),+` and writes the hook dispatch.
#[macro_export]
macro_rules! registry {
    (
        family $family:literal;
        $(#[$cmeta:meta])* config $Config:ident;
        $(#[$rmeta:meta])* runtime $Runtime:ident;
        env $Env:ty;
        extra $extra:ident;
        dispatch $dispatch:ident;
        algorithms {
            $( $(#[$m:meta])* $V:ident => $T:ty ),+ $(,)?
        }
    ) => {
        $(#[$cmeta])*
        #[derive(Clone, Debug, PartialEq)]
        pub enum $Config {
            $( $(#[$m])* $V(<$T as $crate::registry::Algorithm>::Config), )+
        }

        $(#[$rmeta])*
        // Held by value (one per link or flow), so that the hot path's dispatch reads the
        // algorithm in place; a large variant costs memory only where it is used.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug)]
        pub enum $Runtime {
            $( $(#[$m])* $V($T), )+
        }

        impl $Config {
            /// The registered algorithm's declaration.
            pub fn info(&self) -> &'static $crate::registry::Info {
                match self {
                    $( $(#[$m])* $Config::$V(_) => &<$T as $crate::registry::Algorithm>::INFO, )+
                }
            }

            /// Canonical name (`kind`).
            pub fn name(&self) -> &'static str {
                self.info().name
            }

            /// Range and relation problems of the parameters (empty if valid).
            pub fn validate(&self) -> Vec<$crate::params::Problem> {
                match self {
                    $( $(#[$m])* $Config::$V(c) => $crate::params::Params::validate(c), )+
                }
            }

            /// Values outside their declared range only.
            pub fn range_problems(&self) -> Vec<$crate::params::Problem> {
                match self {
                    $( $(#[$m])* $Config::$V(c) => $crate::params::Params::range_problems(c), )+
                }
            }

            /// The configuration of `kind` (name or alias) from its parameters as JSON (unset
            /// ones take their defaults). Errors name an unknown kind or parameter.
            pub fn from_parts(kind: &str, params: serde_json::Map<String, serde_json::Value>) -> Result<$Config, String> {
                $( $(#[$m])*
                if <$T as $crate::registry::Algorithm>::INFO.answers_to(kind) {
                    return serde_json::from_value(serde_json::Value::Object(params))
                        .map($Config::$V)
                        .map_err(|e| format!("{} {}: {e}", $family, kind));
                } )+
                Err(format!("unknown {} {kind:?}; known: {}", $family, names().join(", ")))
            }

            /// The default configuration of `kind` (name or alias).
            pub fn default_for(kind: &str) -> Option<$Config> {
                $Config::from_parts(kind, serde_json::Map::new()).ok()
            }

            fn params_json(&self) -> serde_json::Value {
                match self {
                    $( $(#[$m])* $Config::$V(c) => serde_json::to_value(c).expect("params serialize"), )+
                }
            }
        }

        impl serde::Serialize for $Config {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = serde_json::Map::new();
                m.insert("kind".into(), serde_json::Value::from(self.name()));
                if let serde_json::Value::Object(p) = self.params_json() {
                    m.extend(p);
                }
                serde_json::Value::Object(m).serialize(s)
            }
        }

        impl<'de> serde::Deserialize<'de> for $Config {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$Config, D::Error> {
                use serde::de::Error;
                let serde_json::Value::Object(mut m) = serde_json::Value::deserialize(d)? else {
                    return Err(D::Error::custom(format!("a {} must be a table with a \"kind\"", $family)));
                };
                let Some(serde_json::Value::String(kind)) = m.remove("kind") else {
                    return Err(D::Error::custom(format!("a {} needs a \"kind\" string; known: {}", $family, names().join(", "))));
                };
                $Config::from_parts(&kind, m).map_err(D::Error::custom)
            }
        }

        impl $Runtime {
            /// Build the algorithm a configuration names.
            pub fn new(cfg: &$Config, env: &$Env) -> $Runtime {
                match cfg {
                    $( $(#[$m])* $Config::$V(c) => $Runtime::$V(<$T as $crate::registry::Algorithm>::new(c, env)), )+
                }
            }

            pub fn info(&self) -> &'static $crate::registry::Info {
                match self {
                    $( $(#[$m])* $Runtime::$V(_) => &<$T as $crate::registry::Algorithm>::INFO, )+
                }
            }
        }

        /// Canonical names of every registered algorithm, in registry order.
        pub fn names() -> Vec<&'static str> {
            vec![ $( $(#[$m])* <$T as $crate::registry::Algorithm>::INFO.name, )+ ]
        }

        /// The default configuration of every registered algorithm, in registry order.
        pub fn all_defaults() -> Vec<$Config> {
            vec![ $( $(#[$m])* $Config::$V(Default::default()), )+ ]
        }

        /// The catalog of this family (see `catalog::catalog_json`).
        pub fn catalog() -> Vec<serde_json::Value> {
            vec![ $( $(#[$m])* $crate::registry::entry::<$T>($extra::<$T>()), )+ ]
        }

        $dispatch! { $( $(#[$m])* $V => $T ),+ }
    };
}
