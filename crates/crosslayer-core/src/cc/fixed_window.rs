//! A constant congestion window: the example of how a congestion control is added (this file
//! and one line in the registry of `cc/mod.rs`, under `#[cfg(test)]` because it exists only to
//! show and test that path). It keeps cwnd at `window` segments whatever happens, reports one
//! state value, and in `full_control` mode owns cwnd entirely.
//!
//! Source: none (a test fixture). Deviations: not a real algorithm.

use super::{AckEvent, CcEnv, CongestionControl, CongestionEvent, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};

crate::params! {
    /// The constant window.
    pub struct FixedWindowConfig {
        /// Congestion window, segments.
        window: u32 = 4, Packets, range(>= 1, <= 10_000), "test fixture";
    }
}

#[derive(Debug)]
pub struct FixedWindow {
    /// The window, bytes.
    cwnd: u64,
    /// ACKs seen (to show that on_ack runs in every state).
    acks: u64,
    /// Latest valid delivery rate, bit/s.
    rate_bps: f64,
}

impl Algorithm for FixedWindow {
    type Config = FixedWindowConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "fixed_window",
        aliases: &["fixed"],
        summary: "Constant congestion window (test fixture)",
        sources: &["none: an example of adding an algorithm"],
    };
    fn new(cfg: &FixedWindowConfig, env: &CcEnv) -> FixedWindow {
        FixedWindow { cwnd: cfg.window as u64 * env.mss as u64, acks: 0, rate_bps: f64::NAN }
    }
}

impl CongestionControl for FixedWindow {
    const FULL_CONTROL: bool = true;
    const RATE_SAMPLE: bool = true;
    const STATE: &'static [Field] = &[
        Field { name: "acks", unit: FieldUnit::Count, doc: "ACKs seen" },
        Field { name: "rate_bps", unit: FieldUnit::Bps, doc: "latest valid delivery-rate sample" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        self.acks += 1;
        if let Some(r) = a.rate.delivery_rate() {
            self.rate_bps = r.bps() as f64;
        }
        w.cwnd = self.cwnd;
    }

    fn on_congestion(&mut self, w: &mut Window, _e: &CongestionEvent) -> u64 {
        w.cwnd = self.cwnd;
        self.cwnd
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out.copy_from_slice(&[self.acks as f64, self.rate_bps]);
    }
}
