//! The algorithm registry: each congestion control and queue discipline is declared once, in
//! its own file, as an [`Algorithm`] (name, aliases, summary, sources, a [`params!`] config and a
//! constructor), and listed once, on one line of its family's [`registry!`] invocation
//! (`cc/mod.rs`, `aqm/mod.rs`). From that list the macro generates:
//!
//! * the config enum (`CcConfig`, `QdiscConfig`): `{"kind": "<name or alias>", params...}` in the
//!   engine spec, validated by the declared ranges and relations;
//! * the runtime enum (`Cc`, `Qdisc`) and its construction; the family's own callback macro adds
//!   static dispatch of the hooks (a `match`, no `dyn` in the hot path);
//! * the family's catalog (`catalog()`), exported to Python by [`catalog_json`].
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

/// A named value an algorithm reports (a state variable for traces, a counter for results).
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Column name; the unit is part of it where it has one (`w_max_pkts`, `prob`).
    pub name: &'static str,
    /// Unit symbol: `s`, `bps`, `bytes`, `pkts`, `count`, `ratio`, `flag`.
    pub unit: &'static str,
    pub doc: &'static str,
}

pub fn fields_json(fields: &[Field]) -> Json {
    Json::Array(fields.iter().map(|f| json!({"name": f.name, "unit": f.unit, "doc": f.doc})).collect())
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

/// Everything Python builds from: every family's algorithms, the TCP parameters and the result
/// tables' columns.
pub fn catalog_json() -> Json {
    use crate::params::Params as _;
    let bounds: serde_json::Map<String, Json> =
        crate::spec::bounds().into_iter().map(|b| (b.name.to_string(), json!({"value": b.value, "unit": b.unit, "doc": b.doc}))).collect();
    json!({
        "cc": crate::cc::catalog(),
        "aqm": crate::aqm::catalog(),
        "tcp": crate::tcp::TcpConfig::specs().iter().map(ParamSpec::to_json).collect::<Vec<_>>(),
        "tcp_profiles": tcp_profiles(),
        "limits": crate::spec::RunLimits::specs().iter().map(ParamSpec::to_json).collect::<Vec<_>>(),
        "bounds": bounds,
        "tables": crate::report::tables_json(),
    })
}

/// The value every profile-dependent TCP option takes under each profile.
fn tcp_profiles() -> Json {
    use crate::tcp::{Profile, TcpConfig};
    let mut out = serde_json::Map::new();
    for p in [Profile::Linux, Profile::Ns3] {
        let Json::String(name) = serde_json::to_value(p).expect("profile") else { unreachable!() };
        let values: serde_json::Map<String, Json> = TcpConfig::profile_values(p)
            .into_iter()
            .map(|(k, v)| (k.to_string(), crate::params::ParamSpec::value_json(v)))
            .collect();
        out.insert(name, Json::Object(values));
    }
    Json::Object(out)
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

        /// The catalog of this family (see `registry::catalog_json`).
        pub fn catalog() -> Vec<serde_json::Value> {
            vec![ $( $(#[$m])* $crate::registry::entry::<$T>($extra::<$T>()), )+ ]
        }

        $dispatch! { $( $(#[$m])* $V => $T ),+ }
    };
}

/// The two test-only algorithms (`cc/fixed_window.rs`, `aqm/periodic_drop.rs`) were each added
/// as one file and one registry line: here they go through everything a registered algorithm
/// gets - the engine spec, validation, the catalog, construction, a run, results and traces.
#[cfg(test)]
mod tests {
    use crate::aqm::QdiscConfig;
    use crate::cc::CcConfig;
    use crate::presets::single_bottleneck;
    use crate::spec::TopologySpec;
    use crate::tcp::TcpConfig;
    use crate::units::Dur;

    fn spec(window: u32, period_ms: u64) -> crate::ScenarioSpec {
        let cc: CcConfig = serde_json::from_value(serde_json::json!({"kind": "fixed", "window": window})).unwrap();
        let q: QdiscConfig = serde_json::from_value(serde_json::json!({"kind": "periodic_drop", "period": period_ms * 1_000_000})).unwrap();
        let mut s = single_bottleneck(10_000_000, 20_000_000, 100, vec![(cc, TcpConfig::default())], 2_000_000_000, 1_000_000_000);
        let TopologySpec::Dumbbell { forward, .. } = &mut s.topology;
        forward.qdisc = q;
        s.sample_interval = Dur::from_ms(100);
        s.cwnd_trace = true;
        s
    }

    #[test]
    fn test_algorithms_are_in_the_catalog_and_validated() {
        let cat = super::catalog_json();
        let names = |f: &str| cat[f].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap().to_string()).collect::<Vec<_>>();
        assert!(names("cc").contains(&"fixed_window".to_string()));
        assert!(names("aqm").contains(&"periodic_drop".to_string()));
        let bad: CcConfig = serde_json::from_value(serde_json::json!({"kind": "fixed_window", "window": 0})).unwrap();
        assert_eq!(bad.validate()[0].to_string(), "window: must be in [1, 10000]");
        assert!(crate::Sim::new({
            let mut s = spec(4, 10);
            s.flows[0].cc = bad;
            s
        })
        .is_err_and(|e| e.contains("flows[0].cc.window: must be in [1, 10000]")));
    }

    #[test]
    fn test_algorithms_run_with_timer_reasons_stats_and_state() {
        let r = crate::run(spec(4, 10)).unwrap();
        // Full control: from the first ACK on (the initial window is TCP's), cwnd stays at 4
        // segments whatever the ticks drop and the sender's recovery does.
        let t = r.cwnd.f64s("t_s");
        assert!(r.cwnd.u64s("cwnd_bytes").iter().zip(t).filter(|&(_, &t)| t > 0.0).all(|(&c, _)| c == 4 * 1448));
        let acks = r.cwnd.f64s("fixed_window_acks");
        assert!(acks.windows(2).all(|w| w[1] >= w[0]) && *acks.last().unwrap() > 100.0);
        // Rate samples reach the algorithm: 4 segments per ~20 ms RTT, under the 10 Mb/s link.
        let rate = *r.cwnd.f64s("fixed_window_rate_bps").last().unwrap();
        assert!((1.0e6..10.0e6).contains(&rate), "{rate}");
        // The timer fires every 10 ms: 101 ticks in the window [1 s, 2 s] (both ends are event
        // times the run executes), each dropping at most one packet.
        let stats = &r.qdisc_stats;
        let k = (0..stats.rows()).find(|&k| stats.strs("role")[k] == "forward").unwrap();
        assert_eq!((stats.strs("stat")[k].as_str(), stats.u64s("value")[k]), ("ticks", 101));
        let d = &r.drops;
        let tick = (0..d.rows()).find(|&k| d.strs("role")[k] == "forward" && d.strs("reason")[k] == "tick").unwrap();
        assert!(d.u64s("drops")[tick] > 0 && d.u64s("drops")[tick] <= 101);
        assert_eq!(r.queues.u64s("drops")[0], d.u64s("drops")[tick]);
        // The discipline's state is a series column.
        let next = r.series.f64s("next_tick_s");
        assert!(next.iter().zip(r.series.f64s("t_s")).all(|(n, t)| n >= t && n - t <= 0.010 + 1e-12));
    }
}
