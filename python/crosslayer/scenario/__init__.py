"""Scenario (study file) models: TOML in, validated models, engine spec out.

A scenario is one simulation run: a topology (the dumbbell, any graph, or a preset), TCP
defaults and flow groups. Study files
are TOML (see ``studies/`` for annotated examples); every quantity is a unit string parsed by
:mod:`crosslayer.units`. After validation, every time field holds integer nanoseconds, every
rate integer bit/s and every size integer bytes; :meth:`Scenario.to_engine_spec` lowers the
models to the JSON shape of docs/design.md ("Engine interface").

The models of congestion controls, queue disciplines and TCP options are built from the engine's
catalog (:mod:`crosslayer.catalog`): their fields, units and defaults are the engine's
declarations, and their ranges and cross-field rules are checked by the engine's own functions,
so what validates here runs there.

Validation happens once, here, with messages that name the field path and the fix; all problems
are collected into one :class:`ScenarioError` (unknown keys included, with a did-you-mean hint).
Models are frozen; use :meth:`Scenario.with_overrides` to derive a variant (it re-validates).
The package: ``errors`` (ScenarioError, problem paths, the base model), ``fields`` (units,
counts, names, the engine's limits), ``algorithms`` (congestion controls, queue disciplines,
``[tcp]`` and ``[limits]``, from the catalog), ``topology`` (the dumbbell, graphs and their
routing, the presets), ``flows`` (flow
groups and their start times) and ``model`` (the Scenario itself).
"""

from __future__ import annotations

from crosslayer.scenario.algorithms import (
    AlgorithmConfig,
    CcConfig,
    QdiscConfig,
    RunLimits,
    TcpConfig,
    algorithm_model,
)
from crosslayer.scenario.errors import MS, S, ScenarioError
from crosslayer.scenario.fields import (
    MAX_DELAY,
    MAX_DURATION,
    MAX_FLOWS,
    MAX_HOSTS,
    MAX_NAME,
    MAX_RATE,
)
from crosslayer.scenario.flows import (
    ExpandedFlow,
    FixedStart,
    FlowGroup,
    UdpGroup,
    UniformStart,
    group_pairs,
)
from crosslayer.scenario.model import Pcap, Scenario
from crosslayer.scenario.topology import (
    Bottleneck,
    Dumbbell,
    Graph,
    GraphLink,
    Host,
    LinkOverride,
    PresetTopology,
    RouteOverride,
    Routing,
)

__all__ = [
    "AlgorithmConfig",
    "Bottleneck",
    "CcConfig",
    "Dumbbell",
    "Graph",
    "GraphLink",
    "Pcap",
    "PresetTopology",
    "RouteOverride",
    "Routing",
    "ExpandedFlow",
    "FixedStart",
    "FlowGroup",
    "Host",
    "LinkOverride",
    "QdiscConfig",
    "Scenario",
    "ScenarioError",
    "TcpConfig",
    "UniformStart",
    "UdpGroup",
    "RunLimits",
    "group_pairs",
    "MS",
    "S",
    "MAX_DELAY",
    "MAX_DURATION",
    "MAX_FLOWS",
    "MAX_HOSTS",
    "MAX_NAME",
    "MAX_RATE",
    "algorithm_model",
]
