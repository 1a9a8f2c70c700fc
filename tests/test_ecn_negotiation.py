"""ECN negotiation in the handshake (RFC 3168 section 6.1.1, RFC 9768 section 3.1) and the
middleboxes that meddle with it: what each end can do (`[tcp] peer_ecn`), a link that clears the
AE flag (`clear_ae`) or zeroes the IP-ECN field (`ecn_bleach`), and Linux's fallback on a
retransmitted SYN. The rules themselves are unit-tested in `tcp/negotiation.rs`; these runs check
what a flow does with the outcome."""

from __future__ import annotations

from typing import Any

import pytest

import crosslayer
from crosslayer.scenario import Scenario

# the first packet a host sends is lost, nothing after it (a Gilbert-Elliott chain that starts
# in its good state, loses there, and moves for good to a bad state that loses nothing)
FIRST_LOST = {"loss_model": {"kind": "gilbert_elliott", "p": 1.0, "r": 1e-12, "bad_loss": 0.0, "good_loss": 1.0}}


def scenario(
    cc: str,
    *,
    qdisc: dict[str, Any] | None = None,
    tcp: dict[str, Any] | None = None,
    up: dict[str, Any] | None = None,
    receiver_up: dict[str, Any] | None = None,
    bottleneck: dict[str, Any] | None = None,
    flows: int = 2,
    warmup: str = "1s",
) -> Scenario:
    sender: dict[str, Any] = {"name": "S1", "rate": "100Mbps", "delay": "1ms"}
    if up:
        sender["up"] = up
    receiver: dict[str, Any] = {"name": "R1", "rate": "100Mbps", "delay": "1ms"}
    if receiver_up:
        receiver["up"] = receiver_up
    q = qdisc or ({"kind": "dualpi2"} if cc == "prague" else {"kind": "codel", "ecn": True})
    return Scenario.model_validate(
        {
            "name": "negotiation",
            "duration": "5s",
            "warmup": warmup,
            "tcp": tcp or {},
            "topology": {
                "bottleneck": {"rate": "20Mbps", "delay": "10ms", "qdisc": q, **(bottleneck or {})},
                "senders": [sender],
                "receivers": [receiver],
            },
            "flows": [{"src": "S1", "dst": "R1", "per_pair": flows, "cc": cc}],
        }
    )


def flows(s: Scenario) -> Any:
    return crosslayer.run(s).flows


@pytest.mark.parametrize(
    ("cc", "peer", "mode"),
    [
        ("prague", "same", "accecn"),
        ("prague", "accecn", "accecn"),
        # TCP Prague takes no ECN rather than classic ECN (TCP_CONG_NO_FALLBACK_RFC3168)
        ("prague", "classic", "off"),
        ("prague", "dctcp", "off"),
        ("prague", "off", "off"),
        ("dctcp", "same", "dctcp"),
        ("dctcp", "accecn", "dctcp"),
        ("dctcp", "off", "off"),
        ("cubic", "accecn", "off"),  # CUBIC asks for no ECN: nothing to agree on
        ("cubic+accecn", "classic", "classic"),  # an AccECN sender that may fall back does
        ("cubic+accecn", "accecn", "accecn"),
        ("cubic+ecn", "accecn", "classic"),
    ],
)
def test_the_peer_decides_with_the_sender(cc: str, peer: str, mode: str) -> None:
    cc, _, asks = cc.partition("+")
    tcp = {"peer_ecn": peer, **({"ecn": True} if asks else {}), **({"ecn_feedback": "accecn"} if asks == "accecn" else {})}
    f = flows(scenario(cc, tcp=tcp))
    assert list(f["ecn_negotiated"]) == [mode] * len(f)
    assert (f["goodput_bps"] > 5e6).all()


def test_without_ecn_prague_and_dctcp_run_reno_and_send_not_ect() -> None:
    for cc in ("prague", "dctcp"):
        on, off = flows(scenario(cc)), flows(scenario(cc, tcp={"peer_ecn": "off"}))
        assert on["bottleneck_marks"].sum() > 0 and on["ce_echoed_segs"].sum() > 0
        # Not-ECT: the AQM drops instead of marking, and the sender backs off on loss (Reno)
        assert off["bottleneck_marks"].sum() == 0 and off["ce_pkts"].sum() == 0
        assert off["bottleneck_drops"].sum() > 0 and off["fast_recoveries"].sum() > 0
        assert (off["ecn_reductions"] == 0).all()


def test_an_accecn_sender_that_falls_back_gets_the_one_bit_echo() -> None:
    tcp = {"ecn": True, "ecn_feedback": "accecn"}
    # the whole run counted (a mark received just before a window starts is echoed inside it)
    acc = flows(scenario("cubic", tcp=tcp, warmup="0s"))
    classic = flows(scenario("cubic", tcp={**tcp, "peer_ecn": "classic"}, warmup="0s"))
    # AccECN reports every mark; RFC 3168's latch repeats ECE on every ACK until the sender's
    # CWR arrives, so a sender that counts the segments ECE covers counts more than were marked
    assert (acc["ce_echoed_segs"] == acc["ce_pkts"]).all() and acc["ce_pkts"].sum() > 0
    assert classic["ce_echoed_segs"].sum() > classic["ce_pkts"].sum() > 0
    assert (classic["ecn_reductions"] > 0).all()


def test_a_middlebox_clearing_ae_turns_accecn_into_classic_ecn() -> None:
    f = flows(scenario("cubic", tcp={"ecn": True, "ecn_feedback": "accecn"}, up={"clear_ae": True}))
    assert list(f["ecn_negotiated"]) == ["classic", "classic"]
    # TCP Prague, which takes no classic ECN, runs Reno with Not-ECT packets behind such a box
    p = flows(scenario("prague", up={"clear_ae": True}))
    assert list(p["ecn_negotiated"]) == ["off", "off"] and p["bottleneck_marks"].sum() == 0
    # on the way back it changes nothing here: the SYN-ACK's flags for Prague's ECT(1) SYN are
    # 011, no AE (RFC 9768 Table 2); the ACKs' ACE field loses its top bit, which the AccECN
    # option's byte counts make up for
    back = flows(scenario("prague", receiver_up={"clear_ae": True}))
    assert list(back["ecn_negotiated"]) == ["accecn", "accecn"]
    assert (back["goodput_bps"] > 5e6).all()


def test_bleaching_after_the_aqm_loses_its_marks() -> None:
    clean = flows(scenario("dctcp"))
    bleached = flows(scenario("dctcp", bottleneck={"ecn_bleach": True}))
    assert clean["bottleneck_marks"].sum() > 0 and clean["ce_pkts"].sum() > 0
    # the bottleneck still marks (its queue sees ECT), the wire after it erases the marks:
    # the receiver sees none, the sender never reduces, and the queue overflows instead
    assert bleached["bottleneck_marks"].sum() > 0
    assert bleached["ce_pkts"].sum() == 0 and bleached["ecn_reductions"].sum() == 0
    assert bleached["bottleneck_drops"].sum() > clean["bottleneck_drops"].sum()
    assert list(bleached["ecn_negotiated"]) == ["dctcp", "dctcp"]  # negotiated: the handshake cannot tell


def test_bleaching_before_the_aqm_turns_its_marks_into_drops() -> None:
    f = flows(scenario("dctcp", up={"ecn_bleach": True}))
    assert f["bottleneck_marks"].sum() == 0 and f["bottleneck_drops"].sum() > 0


@pytest.mark.parametrize(
    ("profile", "cc", "mode"),
    [
        ("linux", "dctcp", "off"),  # RFC 3168 SYN: dropped from the first retransmission
        ("linux", "prague", "accecn"),  # AccECN SYN: kept once (RFC 9768 section 3.1.4.1)
        ("ns3", "dctcp", "dctcp"),  # ns-3 resends SYN | ECE | CWR
    ],
)
def test_a_retransmitted_syn_drops_the_ecn_request_as_the_profile_says(profile: str, cc: str, mode: str) -> None:
    f = flows(scenario(cc, tcp={"profile": profile}, up=FIRST_LOST, flows=1))
    assert list(f["syn_retransmits"]) == [1]
    assert list(f["ecn_negotiated"]) == [mode]


def test_without_a_handshake_the_ends_abilities_decide() -> None:
    assert list(flows(scenario("prague", tcp={"handshake": False, "peer_ecn": "off"}))["ecn_negotiated"]) == ["off", "off"]
    assert list(flows(scenario("prague", tcp={"handshake": False, "peer_ecn": "classic"}))["ecn_negotiated"]) == ["off", "off"]
    assert list(flows(scenario("dctcp", tcp={"handshake": False, "peer_ecn": "accecn"}))["ecn_negotiated"]) == ["dctcp", "dctcp"]
    assert list(flows(scenario("prague", tcp={"handshake": False}))["ecn_negotiated"]) == ["accecn", "accecn"]


def test_a_misspelt_peer_is_refused_by_name() -> None:
    with pytest.raises(Exception, match="peer_ecn"):
        crosslayer.run(scenario("prague", tcp={"peer_ecn": "accurate"}))


def tcp_flags(capture: bytes) -> list[tuple[int, int]]:
    """(AE bit, flags byte) of every TCP header in a raw-IPv4 nanosecond pcap."""
    out, k = [], 24
    while k < len(capture):
        incl = int.from_bytes(capture[k + 8 : k + 12], "little")
        ip = capture[k + 16 : k + 16 + incl]
        ihl = (ip[0] & 0x0F) * 4
        out.append((ip[ihl + 12] & 0x01, ip[ihl + 13]))
        k += 16 + incl
    return out


def test_the_capture_shows_the_negotiation_flags() -> None:
    s = scenario("prague", flows=1).model_dump(mode="json", exclude_none=True)
    s["pcap"] = {"hosts": ["S1"]}
    for peer, synack in (("same", (0, 0x12 | 0x80 | 0x40)), ("classic", (0, 0x12 | 0x40)), ("off", (0, 0x12))):
        s["tcp"] = {"peer_ecn": peer}
        flags = tcp_flags(crosslayer.run(Scenario.model_validate(s)).captures["S1.pcap"])
        syn = next(f for f in flags if f[1] & 0x12 == 0x02)
        assert syn == (1, 0x02 | 0x80 | 0x40), "an AccECN SYN: AE, CWR and ECE"
        # the SYN-ACK: AccECN reflects the SYN's ECT(1) as 011 (CWR, ECE); RFC 3168's is ECE alone
        assert next(f for f in flags if f[1] & 0x12 == 0x12) == synack, peer
