"""Scenario validation (messages name the field and the fix) and lowering to the engine spec."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from crosslayer.catalog import catalog
from crosslayer.scenario import Scenario, ScenarioError, algorithm_model

Mutation = Callable[[dict[str, Any]], None]


def _known(family: str) -> str:
    """Every name and alias of a family, as the "known:" list of an unknown-kind message."""
    algorithms = catalog().family(family)  # type: ignore[arg-type]
    return ", ".join(sorted({n for a in algorithms.values() for n in (a.name, *a.aliases)}))


def problems_of(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(data)
    return str(info.value)


def _set(path: str, value: Any) -> Mutation:
    """A mutation setting a dotted path; numeric parts index lists."""

    def mutate(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = data
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value

    return mutate


BAD_CASES: list[tuple[str, Mutation, str]] = [
    (
        "negative rate",
        _set("topology.bottleneck.rate", "-5Mbps"),
        'topology.bottleneck.rate: must be a positive rate like "100Mbps" (got "-5Mbps")',
    ),
    (
        "rate without unit",
        _set("topology.senders.0.rate", "100"),
        'topology.senders[0].rate: must be a rate like "100Mbps"',
    ),
    (
        "unknown congestion control",
        _set("flows.0.cc", "copa"),
        f'flows[0].cc: unknown congestion control "copa"; known: {_known("cc")}',
    ),
    (
        "cubic beta out of range",
        _set("flows.0.cc", {"kind": "cubic", "beta": 1.5}),
        "flows[0].cc.beta: must be in (0, 1) (got 1.5)",
    ),
    (
        "warm-up not shorter than duration",
        _set("warmup", "10s"),
        'warmup: must be shorter than duration (10s) (got "10s")',
    ),
    (
        "unknown source node",
        _set("flows.0.src", "N7"),
        'flows[0].src[0]: unknown node "N7"; senders are: S1, S2',
    ),
    (
        "receiver used as source",
        _set("flows.0.src", ["S1", "R1"]),
        'flows[0].src[1]: "R1" is one of the receivers, but "S1" (the first) is one of the senders: a group\'s src '
        "hosts must all be senders (data towards the receivers) or all receivers (a reverse group, data towards the "
        'senders); put "R1" in a group of its own',
    ),
    (
        "sender as the destination of senders",
        _set("flows.0.dst", ["R1", "S2"]),
        'flows[0].dst[1]: "S2" is one of the senders, as src is: data crosses between the routers, so dst must be '
        "one of the receivers: R1",
    ),
    (
        "reverse group with a sender among its sources",
        _set("flows.0.src", ["R1", "S1"]),
        'flows[0].src[1]: "S1" is one of the senders, but "R1" (the first) is one of the receivers: a group\'s src '
        "hosts must all be senders",
    ),
    (
        "reverse group sending to a receiver",
        lambda d: d["flows"][0].update(src="R1", dst="R1"),
        'flows[0].dst[0]: "R1" is one of the receivers, as src is: data crosses between the routers, so dst must be '
        "one of the senders: S1, S2",
    ),
    (
        "reverse UDP group sending to a receiver",
        lambda d: d.update(udp=[{"src": "R1", "dst": ["S1", "R1"], "rate": "1Mbps"}]),
        'udp[0].dst[1]: "R1" is one of the receivers, as src is',
    ),
    (
        "unknown destination of a reverse group",
        lambda d: d["flows"][0].update(src="R1", dst="R2"),
        'flows[0].dst[0]: unknown node "R2"; senders are: S1, S2',
    ),
    (
        "unknown destination node",
        _set("flows.0.dst", ["R2"]),
        'flows[0].dst[0]: unknown node "R2"; receivers are: R1',
    ),
    (
        "loss out of range",
        _set("topology.bottleneck.loss", 1.0),
        "topology.bottleneck.loss: must be a probability in [0, 1) (got 1.0)",
    ),
    (
        "negative loss",
        _set("topology.senders.1.loss", -0.1),
        "topology.senders[1].loss: must be a probability in [0, 1) (got -0.1)",
    ),
    (
        "typo in a key",
        _set("topology.bottleneck.qdisc.limit_pkt", 100),
        'topology.bottleneck.qdisc.limit_pkt: unknown field; did you mean "limit_pkts"? '
        "valid fields: kind, limit_pkts, limit_bytes",
    ),
    (
        "typo in a top-level key",
        _set("durration", "5s"),
        'durration: unknown field; did you mean "duration"?',
    ),
    (
        "typo in a tcp override",
        _set("flows.0.tcp", {"sak": False}),
        'flows[0].tcp.sak: unknown field; did you mean "sack"?',
    ),
    (
        "duplicate node names",
        _set("topology.receivers.0.name", "S1"),
        'topology.receivers[0].name: duplicate node name "S1"; node names must be unique',
    ),
    (
        "router name",
        _set("topology.senders.0.name", "A"),
        'topology.senders[0].name: "A" is reserved for a router (A, B)',
    ),
    (
        "node name with a flow-name separator",
        _set("topology.senders.0.name", "S-1"),
        "topology.senders[0].name: must be letters, digits and _",
    ),
    (
        "unknown queue discipline",
        _set("topology.bottleneck.qdisc", {"kind": "blu"}),
        f'topology.bottleneck.qdisc: unknown queue discipline "blu" (did you mean "blue"?); known: {_known("aqm")}',
    ),
    (
        "queue limit out of range",
        _set("topology.bottleneck.qdisc", {"kind": "droptail", "limit_pkts": 0}),
        "topology.bottleneck.qdisc.limit_pkts: must be >= 1 (got 0)",
    ),
    (
        "queue limit beyond the engine's integer",
        _set("topology.bottleneck.qdisc", {"kind": "droptail", "limit_pkts": 2**32}),
        "topology.bottleneck.qdisc.limit_pkts: must be at most 4294967295 (got 4294967296)",
    ),
    (
        "codel target not below interval",
        _set("topology.bottleneck.qdisc", {"kind": "codel", "target": "200ms"}),
        'topology.bottleneck.qdisc.target: must be shorter than interval (100ms); RFC 8289 suggests 5-10 % of it (got "200ms")',
    ),
    (
        "mss outside the engine's range",
        _set("tcp", {"mss": "10B"}),
        'tcp.mss: must be in [64B, 65kB] (got "10B")',
    ),
    (
        "cc given as a number",
        _set("flows.0.cc", 5),
        'flows[0].cc: must be a name like "reno" or a table like { kind = "reno", ... } (got 5)',
    ),
    (
        "misspelt congestion control",
        _set("flows.0.cc", "cubik"),
        'flows[0].cc: unknown congestion control "cubik" (did you mean "cubic"?)',
    ),
    (
        "missing required field",
        lambda d: d["topology"]["bottleneck"].pop("rate"),
        "topology.bottleneck.rate: is required",
    ),
    (
        "integer written as a string",
        _set("flows.0.per_pair", "3"),
        'flows[0].per_pair: must be an integer (got "3")',
    ),
    (
        "zero flows per pair",
        _set("flows.0.per_pair", 0),
        "flows[0].per_pair: must be a positive integer (got 0)",
    ),
    (
        "boolean written as a number",
        _set("cwnd_trace", 1),
        "cwnd_trace: must be true or false (got 1)",
    ),
    (
        "start after the end",
        _set("flows.0.start", "12s"),
        'flows[0].start: must be before duration (10s) (got "12s")',
    ),
    (
        "reversed uniform start",
        _set("flows.0.start", {"uniform": ["3s", "1s"]}),
        'flows[0].start.uniform: needs from <= to (got ["3s", "1s"])',
    ),
    (
        "malformed start",
        _set("flows.0.start", {"uniform_": ["0s", "1s"]}),
        'flows[0].start: must be a time like "0s" or { uniform = ["0s", "3s"] }',
    ),
    (
        "stop before start",
        _set("flows.0.stop", "0s"),
        'flows[0].stop: must be in (0s, duration = 10s] (got "0s"); omit it to run to the end',
    ),
    (
        "rto bounds",
        _set("tcp", {"min_rto": "2s"}),
        'tcp.initial_rto: must be within [min_rto, max_rto] = [2s, 120s] (got "1s")',
    ),
    (
        "rto bounds in a group override",
        _set("flows.0.tcp", {"initial_rto": "1ms"}),
        'flows[0].tcp.initial_rto: must be within [min_rto, max_rto] = [200ms, 120s] (got "1ms")',
    ),
    (
        "seed out of range",
        _set("seed", -1),
        "seed: must be an integer in [0, 2^64) (got -1)",
    ),
    (
        "no flows",
        _set("flows", []),
        "flows: needs at least one [[flows]] group",
    ),
    (
        "bad scenario name",
        _set("name", "my study"),
        "name: must be letters, digits, '.', '_' and '-', at most 100 characters (it names the results folder)",
    ),
]


@pytest.mark.parametrize(("label", "mutate", "expected"), BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_scenarios_name_field_and_fix(minimal: dict[str, Any], label: str, mutate: Mutation, expected: str) -> None:
    mutate(minimal)
    assert expected in problems_of(minimal)


def test_every_problem_is_listed_one_per_line(minimal: dict[str, Any]) -> None:
    minimal["topology"]["bottleneck"]["rate"] = "-5Mbps"
    minimal["topology"]["senders"][0]["loss"] = 2
    minimal["flows"][0]["cc"] = "copa"
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(minimal, source="x.toml")
    error = info.value
    assert isinstance(error, ValueError)
    assert [path for path, _ in error.problems] == [
        "topology.bottleneck.rate",
        "topology.senders[0].loss",
        "flows[0].cc",
    ]
    lines = str(error).splitlines()
    assert lines[0] == "invalid scenario (x.toml), 3 problems:"
    assert len(lines) == 4


def test_lowering_gives_exact_integers(minimal: dict[str, Any]) -> None:
    minimal["topology"]["reverse"] = {"rate": "1Mbps"}
    minimal["topology"]["senders"][1]["up"] = {"loss": 0.01, "qdisc": {"kind": "droptail", "limit_bytes": "64KiB"}}
    minimal["flows"][0]["start"] = {"uniform": ["0s", "1.5s"]}
    minimal["flows"][0]["stop"] = "8s"
    minimal["flows"].append(
        {"src": "S2", "dst": "R1", "cc": {"kind": "newreno"}, "tcp": {"sack": False, "rwnd": "1MiB"}, "dscp": 46, "port": 5001}
    )
    minimal["udp"] = [{"src": ["S1", "S2"], "dst": "R1", "rate": "20Mbps", "packet_size": "1000B", "start": "1s", "stop": "9s", "ecn": True}]
    droptail_1000 = {"kind": "droptail", "limit_pkts": 1000, "limit_bytes": None}
    droptail_64kib = {"kind": "droptail", "limit_pkts": 1000, "limit_bytes": 65536}

    def edge(rate: int, delay: int, loss: float = 0.0, qdisc: dict[str, Any] = droptail_1000) -> dict[str, Any]:
        return {"rate": rate, "delay": delay, "loss": loss, "jitter": 0, "qdisc": qdisc}

    tcp = {p.name: p.default for p in catalog().tcp}  # every option, unset profile ones as None
    assert (tcp["profile"], tcp["mss"], tcp["min_rto"]) == ("linux", 1448, None)
    assert Scenario.from_dict(minimal).to_engine_spec() == {
        "seed": 1,
        "duration": 10_000_000_000,
        "warmup": 2_000_000_000,
        "sample_interval": 10_000_000,
        "cwnd_trace": False,
        "goodput_interval": 0,
        "series_queue": "forward",
        "limits": {"max_trace_rows": 20_000_000, "max_events": 100_000_000_000},
        "tie_break": "fifo",
        "topology": {
            "kind": "dumbbell",
            "forward": edge(10_000_000, 5_000_000, qdisc={"kind": "droptail", "limit_pkts": 100, "limit_bytes": None}),
            "reverse": edge(1_000_000, 5_000_000),
            "senders": [
                {"name": "S1", "up": edge(100_000_000, 1_000_000), "down": edge(100_000_000, 1_000_000)},
                {
                    "name": "S2",
                    "up": edge(100_000_000, 2_000_000, 0.01, droptail_64kib),
                    "down": edge(100_000_000, 2_000_000),
                },
            ],
            "receivers": [{"name": "R1", "up": edge(100_000_000, 3_000_000), "down": edge(100_000_000, 3_000_000)}],
        },
        "flows": [
            {
                "name": "S1-R1.0", "src": 0, "dst": 0, "reverse": False,
                "cc": {
                    "kind": "cubic", "c": 0.4, "beta": 0.7, "fast_convergence": True, "tcp_friendliness": True,
                    "rtt": "min_rtt", "increase": "linux", "hystart": None, "hystart_low_window": 16, "hystart_ack_delta": 2_000_000,
                },
                "tcp": tcp,
                "start": {"kind": "uniform", "from": 0, "to": 1_500_000_000},
                "stop": 8_000_000_000,
                "dscp": 0, "port": 0,
            },
            {
                "name": "S2-R1.0", "src": 1, "dst": 0, "reverse": False,
                "cc": {"kind": "reno", "counting": None, "halve": None},
                "tcp": {**tcp, "sack": False, "rwnd": 1_048_576},
                "start": {"kind": "fixed", "at": 0},
                "stop": None,
                "dscp": 46, "port": 5001,
            },
        ],
        "udp": [
            {
                "name": f"{src}-R1.udp0", "src": i, "dst": 0, "reverse": False, "rate": 20_000_000, "packet_size": 1000,
                "start": 1_000_000_000, "stop": 9_000_000_000, "ecn": True, "dscp": 0, "port": 0,
            }
            for i, src in enumerate(["S1", "S2"])
        ],
    }  # fmt: skip


def test_flow_expansion_order_and_names(minimal: dict[str, Any]) -> None:
    minimal["topology"]["receivers"].append({"name": "R2", "rate": "1Gbps", "delay": 0})
    minimal["flows"] = [
        {"src": ["S2", "S1"], "dst": ["R1", "R2"], "per_pair": 2, "cc": "reno"},
        {"src": "S2", "dst": "R1", "cc": "cubic"},
    ]
    flows = Scenario.from_dict(minimal).expand_flows()
    assert [f.name for f in flows] == [
        "S2-R1.0", "S2-R1.1", "S2-R2.0", "S2-R2.1",
        "S1-R1.0", "S1-R1.1", "S1-R2.0", "S1-R2.1",
        "S2-R1.2",
    ]  # fmt: skip
    assert [(f.group, f.src, f.dst) for f in flows][:3] == [(0, 1, 0), (0, 1, 0), (0, 1, 1)]
    assert flows[-1].group == 1


def test_reverse_groups_send_from_receivers_to_senders(minimal: dict[str, Any]) -> None:
    minimal["topology"]["receivers"].append({"name": "R2", "rate": "1Gbps", "delay": 0})
    minimal["flows"] = [
        {"src": "S1", "dst": "R2", "cc": "cubic"},
        {"src": ["R2", "R1"], "dst": "S2", "per_pair": 2, "cc": "reno", "start": "5s"},
    ]
    minimal["udp"] = [{"src": "R1", "dst": ["S1", "S2"], "rate": "1Mbps"}]
    scenario = Scenario.from_dict(minimal)
    flows = scenario.expand_flows()
    assert [(f.name, f.src, f.dst, f.reverse) for f in flows] == [
        ("S1-R2.0", 0, 1, False),
        ("R2-S2.0", 1, 1, True), ("R2-S2.1", 1, 1, True),
        ("R1-S2.0", 0, 1, True), ("R1-S2.1", 0, 1, True),
    ]  # fmt: skip
    spec = scenario.to_engine_spec()
    assert [(f["name"], f["src"], f["dst"], f["reverse"]) for f in spec["flows"]][:2] == [("S1-R2.0", 0, 1, False), ("R2-S2.0", 1, 1, True)]
    assert [(u["name"], u["src"], u["dst"], u["reverse"]) for u in spec["udp"]] == [("R1-S1.udp0", 0, 0, True), ("R1-S2.udp0", 0, 1, True)]


def test_zip_pairs_give_one_flow_per_src_dst_position(minimal: dict[str, Any]) -> None:
    minimal["topology"]["receivers"].append({"name": "R2", "rate": "1Gbps", "delay": 0})
    minimal["flows"] = [{"src": ["S1", "S2"], "dst": ["R2", "R1"], "pairs": "zip", "per_pair": 2, "cc": "reno"}]
    minimal["udp"] = [{"src": ["S1", "S2"], "dst": ["R1", "R1"], "pairs": "zip", "rate": "1Mbps"}]
    scenario = Scenario.from_dict(minimal)
    assert [f.name for f in scenario.expand_flows()] == ["S1-R2.0", "S1-R2.1", "S2-R1.0", "S2-R1.1"]
    assert scenario.flow_count() == 4 + 2
    assert [u["name"] for u in scenario.to_engine_spec()["udp"]] == ["S1-R1.udp0", "S2-R1.udp0"]


@pytest.mark.parametrize(
    ("src", "dst", "message"),
    [
        (["S1", "S2"], ["R1"], 'flows[0].dst: pairs = "zip" pairs src[i] with dst[i], but src has 2 hosts and dst 1'),
        (["S1", "S1"], ["R1", "R1"], 'flows[0].dst[1]: the pair "S1" -> "R1" is listed twice'),
    ],
)
def test_zip_pairs_errors_name_the_field_and_the_fix(minimal: dict[str, Any], src: list[str], dst: list[str], message: str) -> None:
    minimal["flows"] = [{"src": src, "dst": dst, "pairs": "zip", "cc": "reno"}]
    with pytest.raises(ScenarioError) as err:
        Scenario.from_dict(minimal)
    assert message in str(err.value)


def test_group_tcp_overrides_only_the_fields_given(minimal: dict[str, Any]) -> None:
    minimal["tcp"] = {"initial_cwnd": 4, "mss": "1000B"}
    minimal["flows"][0]["tcp"] = {"mss": "1448B"}
    scenario = Scenario.from_dict(minimal)
    effective = scenario.tcp_for(scenario.flows[0])
    assert (effective.mss, effective.initial_cwnd) == (1448, 4)
    # The override stays partial through a dump/validate round trip.
    again = Scenario.from_dict(scenario.model_dump(mode="json"))
    assert again == scenario
    assert again.model_dump(mode="json")["flows"][0]["tcp"] == {"mss": "1448B"}
    assert again.to_engine_spec() == scenario.to_engine_spec()


def test_round_trip_through_json_is_lossless(minimal: dict[str, Any]) -> None:
    minimal["duration"] = "2.000001s"
    minimal["topology"]["bottleneck"]["rate"] = "1.5Gbit/s"
    scenario = Scenario.from_dict(minimal)
    dumped = scenario.model_dump(mode="json")
    assert dumped["duration"] == "2000001us"
    assert dumped["topology"]["bottleneck"]["rate"] == "1500Mbps"
    assert Scenario.from_dict(dumped) == scenario


def test_with_overrides_revalidates(minimal: dict[str, Any]) -> None:
    scenario = Scenario.from_dict(minimal)
    shorter = scenario.with_overrides(duration="5s", seed=7)
    assert (shorter.duration, shorter.seed, shorter.warmup) == (5_000_000_000, 7, 2_000_000_000)
    with pytest.raises(ScenarioError, match="warmup: must be shorter than duration"):
        scenario.with_overrides(duration="1s")


def test_only_the_algorithms_a_scenario_uses_get_a_model() -> None:
    """The models of congestion controls, disciplines and presets are built on first use:
    importing builds the default discipline's (drop-tail), a CUBIC over drop-tail scenario one
    more."""
    script = (
        "from crosslayer.scenario import Scenario, algorithms, topology\n"
        "assert algorithms._model.cache_info().currsize == 1 and topology._preset.cache_info().currsize == 0\n"
        "Scenario.from_toml('studies/seed000-access-link.toml')\n"
        "assert algorithms._model.cache_info().currsize == 2 and topology._preset.cache_info().currsize == 0\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[1], check=True)


def test_cc_kind_is_case_insensitive_and_table_form_works(minimal: dict[str, Any]) -> None:
    minimal["flows"][0]["cc"] = {"kind": "CUBIC", "c": 0.6}
    cc = Scenario.from_dict(minimal).flows[0].cc
    assert isinstance(cc, algorithm_model("cc", "cubic"))
    assert (cc.kind, cc.c, cc.beta) == ("cubic", 0.6, 0.7)


def test_from_toml_accepts_text_and_paths(tmp_path: Path) -> None:
    text = """
name = "t"
duration = "1s"
[topology]
bottleneck = { rate = "1Mbps", delay = "1ms", qdisc = { kind = "droptail", limit_pkts = 10 } }
senders = [{ name = "a", rate = "1Mbps", delay = "0s" }]
receivers = [{ name = "b", rate = "1Mbps", delay = "0s" }]
[[flows]]
src = "a"
dst = "b"
cc = "reno"
"""
    file = tmp_path / "t.toml"
    file.write_text(text)
    assert Scenario.from_toml(text) == Scenario.from_toml(file) == Scenario.from_toml(str(file))
    assert Scenario.coerce(str(file)).name == "t"


def test_toml_syntax_error_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError, match="invalid TOML"):
        Scenario.from_toml('name = "x"\nduration = \n')


def test_unknown_keys_do_not_hide_the_other_problems(minimal: dict[str, Any]) -> None:
    # Seven problems in one file, three of them unknown keys at different depths: all reported.
    minimal["durration"] = "5s"
    minimal["seed"] = -1
    minimal["topology"]["bottleneck"]["rat"] = "1Mbps"
    minimal["topology"]["bottleneck"]["delay"] = "soon"
    minimal["flows"][0]["cc"] = {"kind": "cubic", "bta": 0.5, "c": -1.0}
    minimal["flows"][0]["per_pair"] = 0
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(minimal)
    paths = [path for path, _ in info.value.problems]
    assert sorted(paths) == sorted([
        "durration", "seed", "topology.bottleneck.rat", "topology.bottleneck.delay",
        "flows[0].cc.bta", "flows[0].cc.c", "flows[0].per_pair",
    ]), info.value  # fmt: skip
    assert 'did you mean "rate"?' in str(info.value) and 'did you mean "beta"?' in str(info.value)
