//! DCTCP's marked fraction (RFC 8257 section 3.3), shared by DCTCP and TCP Prague.

use crate::cc::AckEvent;

/// DCTCP's estimate of the fraction of marked bytes (RFC 8257 section 3.3; Linux
/// `dctcp_update_alpha`), shared with TCP Prague: once per window of data (when snd_una passes
/// the snd_nxt saved at the previous update) `F = marked bytes / bytes delivered` and
/// `alpha = (1 - g) alpha + g F`, at most 1. The marked bytes are those delivered by ACKs with
/// ECE under a one-bit echo (Linux `tcp_count_delivered` in RFC 3168 mode), or AccECN's count
/// of newly marked bytes (`AckEvent::ce_bytes`; Linux `delivered_ce`, which the safety rule may
/// set above what was delivered: then F > 1 and alpha stops at 1, as Prague's `PRAGUE_MAX_ALPHA`).
#[derive(Clone, Debug)]
pub struct MarkedFraction {
    g: f64,
    pub alpha: f64,
    /// snd_nxt (bytes) at the last alpha update.
    next_seq: u64,
    /// Delivered bytes at the last update, and the connection's delivered total at the last ACK.
    old_delivered: u64,
    last_delivered: u64,
    /// Bytes delivered by ECE ACKs since the last update.
    delivered_ce: u64,
    /// F of the last window.
    pub last_f: f64,
}

impl MarkedFraction {
    pub fn new(g: f64, alpha: f64) -> MarkedFraction {
        MarkedFraction { g, alpha, next_seq: 0, old_delivered: 0, last_delivered: 0, delivered_ce: 0, last_f: f64::NAN }
    }

    /// Count an ACK's delivered and echoed bytes.
    pub fn count(&mut self, a: &AckEvent) {
        let newly = a.delivered_total - self.last_delivered;
        self.last_delivered = a.delivered_total;
        match a.ce_bytes {
            Some(ce) => self.delivered_ce += ce,
            None if a.ece => self.delivered_ce += newly,
            None => {}
        }
    }

    /// The window of data of the last update is acknowledged.
    pub fn round_done(&self, a: &AckEvent) -> bool {
        a.snd_una >= self.next_seq
    }

    /// Close the window: update alpha (unless `hold`) and start the next at snd_nxt.
    pub fn close(&mut self, a: &AckEvent, hold: bool) {
        let delivered = a.delivered_total - self.old_delivered;
        if delivered > 0 && !hold {
            let f = self.delivered_ce as f64 / delivered as f64;
            self.alpha = ((1.0 - self.g) * self.alpha + self.g * f).min(1.0);
            self.last_f = f;
        }
        self.next_seq = a.snd_nxt;
        self.old_delivered = a.delivered_total;
        self.delivered_ce = 0;
    }
}

