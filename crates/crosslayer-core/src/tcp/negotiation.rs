//! ECN negotiation in the handshake: which feedback a connection uses, decided by the three
//! flags (AE, CWR, ECE) of its SYN and SYN-ACK and by what each end can do.
//!
//! Sources:
//! * RFC 3168 section 6.1.1: an ECN-setup SYN has ECE and CWR set, an ECN-setup SYN-ACK ECE
//!   alone; anything else leaves the connection without ECN. Section 6.1.1.1: a host whose
//!   ECN-setup SYN goes unanswered may send its retransmissions as non-ECN-setup SYNs.
//! * RFC 9768 (AccECN) section 3.1.1 and Table 2: an AccECN SYN sets all three flags; a server
//!   that implements AccECN answers one whose flags are anything but 000 or 011 with AccECN,
//!   its SYN-ACK's flags reflecting the IP-ECN field the SYN arrived with (Not-ECT 010, ECT(1)
//!   011, ECT(0) 100, CE 110); an RFC 3168 server answers an AccECN SYN as an ECN-setup SYN
//!   (it ignores AE), so the client falls back to classic ECN on SYN-ACK 001; SYN-ACK 000 or
//!   111 means no ECN (an algorithm that cannot use classic ECN, Linux's
//!   `TCP_CONG_NO_FALLBACK_RFC3168` as the L4S team's `tcp_prague` sets it, takes no ECN from
//!   001 too). Section 3.1.4.1: the first retransmission of an AccECN SYN keeps the flags,
//!   later ones drop them.
//! * Linux (`include/net/tcp_ecn.h` of 6.18+: `tcp_ecn_send_syn`, `tcp_ecn_rcv_syn`,
//!   `tcp_accecn_syn_requested`, `tcp_accecn_reflector_flags`, `tcp_ecn_rcv_synack`;
//!   `net/ipv4/tcp_output.c` `__tcp_retransmit_skb`: `tcp_ecn_clear_syn` under
//!   `net.ipv4.tcp_ecn_fallback` = 1, from the first retransmission of an RFC 3168 SYN and the
//!   second of an AccECN one). ns-3 3.44 (`TcpSocketBase::ReTxTimeout`) sends every SYN
//!   retransmission with ECE and CWR (the `syn_ecn_fallback` profile option).
//!
//! The flags travel as `Packet::ace` of a SYN or SYN-ACK ((AE << 2) | (CWR << 1) | ECE), where a
//! link that clears the AE flag (`clear_ae`, a middlebox zeroing a reserved bit) can change them
//! on the way. What the ends decide is an [`EcnMode`]: the feedback the receiver gives, or none.
//!
//! Deliberate simplifications: the SYN-ACK's reflection of the SYN's IP-ECN field is carried
//! but not checked for mangling (RFC 9768 section 3.2.2.3), nor the first ACE value for zeroing
//! (section 3.2.2.4), nor the AccECN option for traversal.

use super::EcnFeedback;
use crate::packet::Ecn;

/// The feedback a connection negotiated: `None` is no ECN.
pub type EcnMode = Option<EcnFeedback>;

/// AE, CWR and ECE set: an AccECN SYN.
pub const ACCECN_SYN: u8 = 0b111;
/// CWR and ECE set: an RFC 3168 ECN-setup SYN.
pub const ECN_SYN: u8 = 0b011;
/// ECE alone: an RFC 3168 ECN-setup SYN-ACK.
pub const ECN_SYNACK: u8 = 0b001;
/// The AE flag.
pub const AE: u8 = 0b100;

/// The flags of a SYN from an end that asks for `wanted`, after `retries` retransmissions;
/// `fallback`: retransmissions drop the request (Linux's `tcp_ecn_fallback`).
pub fn syn_flags(wanted: EcnMode, retries: u32, fallback: bool) -> u8 {
    let flags = match wanted {
        None => 0,
        Some(EcnFeedback::AccEcn) => ACCECN_SYN,
        Some(EcnFeedback::Classic | EcnFeedback::Dctcp) => ECN_SYN,
    };
    let dropped_after = if flags == ACCECN_SYN { 2 } else { 1 };
    if fallback && retries >= dropped_after {
        0
    } else {
        flags
    }
}

/// What a server that can give `able` feedback (`None`: no ECN) answers a SYN with `flags`: the
/// connection's mode at its end.
pub fn server_mode(flags: u8, able: EcnMode) -> EcnMode {
    let accecn_asked = flags != 0 && flags != ECN_SYN;
    let ecn_asked = flags & ECN_SYN == ECN_SYN; // what an RFC 3168 server looks at
    match able {
        None => None,
        Some(EcnFeedback::AccEcn) if accecn_asked => Some(EcnFeedback::AccEcn),
        // an AccECN server's RFC 3168 mode, or an RFC 3168 (DCTCP) server on CWR and ECE
        Some(EcnFeedback::AccEcn) if flags == ECN_SYN => Some(EcnFeedback::Classic),
        Some(EcnFeedback::AccEcn) => None,
        Some(f) => ecn_asked.then_some(f),
    }
}

/// The flags of the SYN-ACK a server in `mode` sends in answer to a SYN that arrived `syn_ecn`.
pub fn synack_flags(mode: EcnMode, syn_ecn: Ecn) -> u8 {
    match mode {
        None => 0,
        Some(EcnFeedback::AccEcn) => match syn_ecn {
            Ecn::NotEct => 0b010,
            Ecn::Ect1 => 0b011,
            Ecn::Ect0 => 0b100,
            Ecn::Ce => 0b110,
        },
        Some(EcnFeedback::Classic | EcnFeedback::Dctcp) => ECN_SYNACK,
    }
}

/// The mode a client that asked for `wanted` takes from a SYN-ACK with `flags`;
/// `no_classic_fallback`: asking for AccECN it takes no ECN rather than classic ECN (Linux's
/// `TCP_CONG_NO_FALLBACK_RFC3168`, set by TCP Prague).
pub fn client_mode(wanted: EcnMode, flags: u8, no_classic_fallback: bool) -> EcnMode {
    match wanted {
        None => None,
        Some(EcnFeedback::AccEcn) => match flags {
            0b000 | 0b111 => None,
            // RFC 3168's answer (and the reserved 101, as Linux reads it)
            0b001 | 0b101 => (!no_classic_fallback).then_some(EcnFeedback::Classic),
            _ => Some(EcnFeedback::AccEcn),
        },
        // an RFC 3168 client: ECE without CWR
        Some(f) => (flags & ECN_SYN == ECN_SYNACK).then_some(f),
    }
}

/// A handshake that nothing on the path changes, from first SYN to SYN-ACK: (the server's
/// mode, the client's), for a client asking for `wanted` whose SYN goes `syn_ecn`, a server
/// able to give `able`.
pub fn handshake(wanted: EcnMode, able: EcnMode, syn_ecn: Ecn, no_classic_fallback: bool) -> (EcnMode, EcnMode) {
    let server = server_mode(syn_flags(wanted, 0, false), able);
    (server, client_mode(wanted, synack_flags(server, syn_ecn), no_classic_fallback))
}

/// A name for a mode, as the flows table reports it.
pub fn mode_name(mode: EcnMode) -> &'static str {
    mode.map_or("off", EcnFeedback::name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use EcnFeedback::{AccEcn, Classic, Dctcp};

    /// RFC 9768 Table 2 (and RFC 3168 section 6.1.1), every pairing of a client and a server,
    /// no middlebox: (the server's mode, the client's mode). An end keeps its own reading of
    /// classic ECN (a DCTCP end's per-segment echo or reading of ECE).
    #[test]
    fn both_ends_decide_as_table_2_says() {
        let (n, c, d, a) = (None, Some(Classic), Some(Dctcp), Some(AccEcn));
        let ends = [n, c, d, a];
        let table = [
            // server:  off     classic  dctcp    accecn
            [(n, n), (n, n), (n, n), (n, n)], // client off
            [(n, n), (c, c), (d, c), (c, c)], // client classic
            [(n, n), (c, d), (d, d), (c, d)], // client dctcp
            [(n, n), (c, c), (d, c), (a, a)], // client accecn
        ];
        for (i, client) in ends.into_iter().enumerate() {
            for (j, server) in ends.into_iter().enumerate() {
                assert_eq!(handshake(client, server, Ecn::NotEct, false), table[i][j], "client {client:?}, server {server:?}");
            }
        }
    }

    #[test]
    fn the_synack_reflects_the_syns_ip_ecn_field() {
        let m = Some(AccEcn);
        assert_eq!(synack_flags(m, Ecn::NotEct), 0b010);
        assert_eq!(synack_flags(m, Ecn::Ect1), 0b011);
        assert_eq!(synack_flags(m, Ecn::Ect0), 0b100);
        assert_eq!(synack_flags(m, Ecn::Ce), 0b110);
        for f in [0b010, 0b011, 0b100, 0b110] {
            assert_eq!(client_mode(m, f, false), m);
        }
        // the AE flag cleared on the way back: ECT(0)'s 100 reads as no ECN
        assert_eq!(client_mode(m, 0b100 & !AE, false), None);
        assert_eq!(client_mode(m, 0b110 & !AE, false), m);
    }

    #[test]
    fn an_accecn_server_takes_any_other_request_as_accecn() {
        for flags in [0b001, 0b010, 0b100, 0b101, 0b110, 0b111] {
            assert_eq!(server_mode(flags, Some(AccEcn)), Some(AccEcn), "{flags:03b}");
        }
        assert_eq!(server_mode(ECN_SYN, Some(AccEcn)), Some(Classic));
        assert_eq!(server_mode(0, Some(AccEcn)), None);
        // an RFC 3168 server needs CWR and ECE, whatever AE is
        assert_eq!(server_mode(0b001, Some(Classic)), None);
        assert_eq!(server_mode(0b110, Some(Classic)), None);
        assert_eq!(server_mode(0b111, Some(Classic)), Some(Classic));
    }

    #[test]
    fn a_middlebox_clearing_ae_turns_accecn_into_classic_ecn() {
        let syn = syn_flags(Some(AccEcn), 0, true) & !AE;
        let server = server_mode(syn, Some(AccEcn));
        assert_eq!(server, Some(Classic));
        assert_eq!(client_mode(Some(AccEcn), synack_flags(server, Ecn::NotEct), false), Some(Classic));
        // TCP Prague takes no ECN instead (and runs Reno)
        assert_eq!(client_mode(Some(AccEcn), synack_flags(server, Ecn::NotEct), true), None);
    }

    #[test]
    fn retransmitted_syns_drop_the_request_as_linux_does() {
        assert_eq!(syn_flags(Some(Classic), 0, true), ECN_SYN);
        assert_eq!(syn_flags(Some(Classic), 1, true), 0);
        assert_eq!(syn_flags(Some(AccEcn), 1, true), ACCECN_SYN);
        assert_eq!(syn_flags(Some(AccEcn), 2, true), 0);
        assert_eq!(syn_flags(Some(Dctcp), 5, false), ECN_SYN);
        assert_eq!(syn_flags(None, 0, false), 0);
    }
}
