"""The dumbbell: its links (per-direction overrides), its hosts, and their engine spec."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import (
    model_validator,
)

from crosslayer.scenario.algorithms import _QDISC, AlgorithmConfig, QdiscConfig
from crosslayer.scenario.errors import Loc, _Model, _raise_problems
from crosslayer.scenario.fields import Delay, Loss, NodeName, Rate
from crosslayer.units import (
    show,
)

# -- links and hosts --------------------------------------------------------------------------


class LinkOverride(_Model):
    """Per-direction overrides of a link; unset fields keep the edge's value."""

    rate: Rate | None = None
    delay: Delay | None = None
    loss: Loss | None = None
    jitter: Delay | None = None
    qdisc: QdiscConfig | None = None


def _edge_spec(
    rate: int, delay: int, loss: float, jitter: int, qdisc: AlgorithmConfig, override: LinkOverride | None
) -> dict[str, Any]:
    """One simplex link of the engine spec; ``override`` fields win over the arguments."""
    o = override or LinkOverride()
    return {
        "rate": rate if o.rate is None else o.rate,
        "delay": delay if o.delay is None else o.delay,
        "loss": loss if o.loss is None else o.loss,
        "jitter": jitter if o.jitter is None else o.jitter,
        "qdisc": (qdisc if o.qdisc is None else o.qdisc).engine_spec(),
    }


class Bottleneck(_Model):
    """The A -> B link (data direction): the queue under study."""

    rate: Rate
    delay: Delay
    """One-way propagation delay."""
    loss: Loss = 0.0
    """Random loss probability after serialization."""
    jitter: Delay = 0
    """Extra delay per packet, uniform in [0, jitter], order-preserving (breaks phase effects)."""
    qdisc: QdiscConfig


class Host(_Model):
    """A sender (attached to router A) or receiver (attached to router B).

    ``rate``, ``delay``, ``loss`` and ``qdisc`` apply to both directions of the access edge;
    ``up`` (host -> router) and ``down`` (router -> host) override them per direction.
    """

    name: NodeName
    rate: Rate
    delay: Delay
    """One-way propagation delay host <-> router."""
    loss: Loss = 0.0
    jitter: Delay = 0
    """Extra delay per packet on both directions, uniform in [0, jitter], order-preserving."""
    qdisc: QdiscConfig | None = None
    """Egress queue of both directions; default: topology.default_qdisc."""
    up: LinkOverride | None = None
    down: LinkOverride | None = None

    def engine_spec(self, default_qdisc: AlgorithmConfig) -> dict[str, Any]:
        qdisc = self.qdisc or default_qdisc
        return {
            "name": self.name,
            "up": _edge_spec(self.rate, self.delay, self.loss, self.jitter, qdisc, self.up),
            "down": _edge_spec(self.rate, self.delay, self.loss, self.jitter, qdisc, self.down),
        }


_ROUTERS: Final = ("A", "B")


class Dumbbell(_Model):
    """Senders -- A == bottleneck == B -- receivers."""

    kind: Literal["dumbbell"] = "dumbbell"
    bottleneck: Bottleneck
    reverse: LinkOverride | None = None
    """The B -> A link (ACKs). Default: the bottleneck's rate and delay, no loss, default_qdisc."""
    default_qdisc: QdiscConfig = _QDISC.validate_python({"kind": "droptail", "limit_pkts": 1000})
    """Egress queue of every link that sets none (like Linux net.core.default_qdisc; 1000 packets
    is Linux's default txqueuelen), i.e. all access links and the reverse link."""
    senders: list[Host]
    receivers: list[Host]

    @model_validator(mode="after")
    def _check_nodes(self) -> Dumbbell:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        problems: list[tuple[Loc, str]] = []
        for role in ("senders", "receivers"):
            if not getattr(self, role):
                problems.append(
                    ((role,), 'needs at least one host, e.g. [{ name = "N1", rate = "100Mbps", delay = "1ms" }]')
                )
        seen: set[str] = set()
        for role in ("senders", "receivers"):
            for i, host in enumerate(getattr(self, role)):
                if host.name in _ROUTERS:
                    problems.append(((role, i, "name"), f"{show(host.name)} is reserved for a router (A, B)"))
                elif host.name in seen:
                    problems.append(
                        ((role, i, "name"), f"duplicate node name {show(host.name)}; node names must be unique")
                    )
                seen.add(host.name)
        return problems

    def engine_spec(self) -> dict[str, Any]:
        b = self.bottleneck
        return {
            "kind": self.kind,
            "forward": _edge_spec(b.rate, b.delay, b.loss, b.jitter, b.qdisc, None),
            "reverse": _edge_spec(b.rate, b.delay, 0.0, 0, self.default_qdisc, self.reverse),
            "senders": [h.engine_spec(self.default_qdisc) for h in self.senders],
            "receivers": [h.engine_spec(self.default_qdisc) for h in self.receivers],
        }
