//! The catalog: everything Python builds its models, validation, listings and docs from, as
//! data: every registered congestion control, queue discipline and topology preset (their
//! declarations, from the registries), the TCP options with both profiles' values, a wireless LAN's DCF parameters, the run limits and fixed bounds, and
//! the result tables' columns. It sits on top of the engine: it reads every family and the
//! report's declarations, and nothing below reads it.

use crate::params::ParamSpec;
use serde_json::{json, Value as Json};

/// Everything Python builds from: every family's algorithms, the TCP parameters and the result
/// tables' columns.
pub fn catalog_json() -> Json {
    use crate::params::Params as _;
    let bounds: serde_json::Map<String, Json> =
        crate::spec::bounds().into_iter().map(|b| (b.name.to_string(), json!({"value": b.value, "unit": b.unit, "doc": b.doc}))).collect();
    json!({
        "cc": crate::cc::catalog(),
        "aqm": crate::aqm::catalog(),
        "topology": crate::topo::presets::catalog(),
        "tcp": crate::tcp::TcpConfig::specs().iter().map(ParamSpec::to_json).collect::<Vec<_>>(),
        "tcp_profiles": tcp_profiles(),
        "limits": crate::spec::RunLimits::specs().iter().map(ParamSpec::to_json).collect::<Vec<_>>(),
        "wlan": crate::net::wlan::DcfConfig::specs().iter().map(ParamSpec::to_json).collect::<Vec<_>>(),
        "bounds": bounds,
        "tables": crate::report::tables_json(),
    })
}

/// The value every profile-dependent TCP option takes under each profile.
fn tcp_profiles() -> Json {
    use crate::tcp::{Profile, TcpConfig};
    let mut out = serde_json::Map::new();
    for p in [Profile::Linux, Profile::Ns3, Profile::Ns2] {
        let Json::String(name) = serde_json::to_value(p).expect("profile") else { unreachable!() };
        let values: serde_json::Map<String, Json> = TcpConfig::profile_values(p)
            .into_iter()
            .map(|(k, v)| (k.to_string(), ParamSpec::value_json(v)))
            .collect();
        out.insert(name, Json::Object(values));
    }
    Json::Object(out)
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
        let TopologySpec::Dumbbell { forward, .. } = &mut s.topology else { unreachable!("a dumbbell") };
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
            s.flows[0].cc = bad.into();
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
