"""The rendezvous of node agents (torchrun's, over a store): each round, agents join until max_nodes have
come, or min_nodes have and a last call has passed; the round then closes with the agents that came in
time, numbered in arrival order (group_rank), and group rank 0 publishes the workers' MASTER_ADDR/PORT.
An agent that arrives after a round closed waits: the others see it and restart into the next round
(membership change). An agent whose workers fail asks for a restart, which moves everyone to the next
round. Backends: c10d (a TCPStore one agent hosts at the endpoint), redis (a Redis server's store), and
static (fixed node count and ranks, no re-rendezvous across nodes)."""
from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field
from datetime import timedelta

__all__ = ["RendezvousInfo", "RendezvousParameters", "RendezvousTimeoutError", "StaticRendezvous",
           "StoreRendezvous", "make_rendezvous"]


class RendezvousTimeoutError(RuntimeError):
    pass


@dataclass
class RendezvousParameters:
    backend: str
    endpoint: str
    run_id: str
    min_nodes: int
    max_nodes: int
    config: dict = field(default_factory=dict)
    node_rank: int = -1          # static only
    master_addr: str = "127.0.0.1"
    master_port: int = 29500

    @property
    def join_timeout(self) -> float:
        return float(self.config.get("join_timeout", 600))

    @property
    def last_call_timeout(self) -> float:
        return float(self.config.get("last_call_timeout", 2))


@dataclass
class RendezvousInfo:
    round: int
    group_rank: int
    group_world_size: int
    master_addr: str
    master_port: int


def _free_port(host: str = "") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _is_local(host: str) -> bool:
    if host in ("localhost", "127.0.0.1", "0.0.0.0", "::1", socket.gethostname(), socket.getfqdn()):
        return True
    try:
        return socket.gethostbyname(host).startswith("127.")
    except OSError:
        return False


def _split_endpoint(endpoint: str, default_port: int) -> tuple[str, int]:
    host, _, port = endpoint.rpartition(":") if ":" in endpoint else (endpoint, "", "")
    return host or "localhost", int(port) if port else default_port


class StoreRendezvous:
    """Rounds kept in a store under rdzv/RUN_ID/ (see the module's docstring)."""

    def __init__(self, params: RendezvousParameters, store, hosted=None):
        from ember.distributed import PrefixStore
        self.params = params
        self.store = PrefixStore(f"rdzv/{params.run_id}", store)
        self._hosted = hosted  # the TCPStore server this agent runs, kept alive with it
        self.round = -1
        self.final = 0

    def _count(self, key: str) -> int:
        return int(self.store.add(key, 0))

    def next_rendezvous(self) -> RendezvousInfo:
        deadline = time.monotonic() + self.params.join_timeout
        r = self._count("round")
        while True:
            idx = int(self.store.add(f"r{r}/joined", 1)) - 1
            final = self._close_round(r, deadline)
            if idx < final:
                break
            # Too late for round r: wait until the others restart into a later one.
            while self._count("round") <= r:
                if time.monotonic() > deadline:
                    raise RendezvousTimeoutError(f"rendezvous {self.params.run_id}: no round opened for a late node "
                                                 f"within {self.params.join_timeout:.0f} s")
                time.sleep(0.1)
            r = self._count("round")
        self.round, self.final = r, final
        if idx == 0:
            self.store.set(f"r{r}/master", f"{socket.gethostname()}:{_free_port()}")
        host, _, port = self.store.get(f"r{r}/master").decode().rpartition(":")
        return RendezvousInfo(r, idx, final, host, int(port))

    def _close_round(self, r: int, deadline: float) -> int:
        """The number of nodes round r closed with (closing it if this agent is the first to see it full)."""
        min_reached = None
        while True:
            if self.store.check([f"r{r}/final"]):
                return int(self.store.get(f"r{r}/final"))
            n = self._count(f"r{r}/joined")
            now = time.monotonic()
            if n >= self.params.min_nodes and min_reached is None:
                min_reached = now
            last_call_over = min_reached is not None and now - min_reached >= self.params.last_call_timeout
            if n >= self.params.max_nodes or last_call_over:
                value = self.store.compare_set(f"r{r}/final", "", str(min(n, self.params.max_nodes)))
                return int(value)
            if now > deadline:
                raise RendezvousTimeoutError(f"rendezvous {self.params.run_id}: {n} of at least "
                                             f"{self.params.min_nodes} nodes joined within "
                                             f"{self.params.join_timeout:.0f} s")
            time.sleep(0.05)

    def request_restart(self) -> None:
        """Moves every agent of the current round to the next one."""
        self.store.set(f"r{self.round}/restart", "1")
        self.store.compare_set("round", str(self.round), str(self.round + 1))

    def membership_changed(self) -> bool:
        """True once another agent asked for a restart, or a node waits to join and there is room for it."""
        if self.store.check([f"r{self.round}/restart"]):
            return True
        return self.final < self.params.max_nodes and self._count(f"r{self.round}/joined") > self.final

    def admit_waiting_nodes(self) -> None:
        self.store.compare_set("round", str(self.round), str(self.round + 1))

    def num_nodes_waiting(self) -> int:
        return max(0, self._count(f"r{self.round}/joined") - self.final)

    def mark_succeeded(self, group_rank: int, timeout: float = 300.0) -> None:
        """The exit barrier: waits (bounded) until every node of the round has finished; the agent hosting
        the store then also waits for the others to have seen that, so none loses the store mid-question."""
        from ember.distributed import DistError
        end = time.monotonic() + timeout
        try:
            self.store.add(f"r{self.round}/finished", 1)
            while self._count(f"r{self.round}/finished") < self.final and time.monotonic() < end:
                if self.store.check([f"r{self.round}/restart"]):
                    return
                time.sleep(0.1)
            self.store.add(f"r{self.round}/left", 1)
            while self._hosted is not None and self._count(f"r{self.round}/left") < self.final:
                if time.monotonic() > end:
                    break
                time.sleep(0.05)
        except DistError:
            return  # the hosting agent is gone: everyone had finished


class StaticRendezvous:
    """Fixed nodes (--nnodes N --node_rank R) and master (--master_addr/--master_port): one round; a restart
    restarts this node's workers only."""

    def __init__(self, params: RendezvousParameters):
        if params.min_nodes != params.max_nodes:
            raise ValueError(f"the static rendezvous needs a fixed node count, got "
                             f"{params.min_nodes}:{params.max_nodes}")
        if not 0 <= params.node_rank < params.max_nodes:
            raise ValueError(f"--node_rank {params.node_rank} is not in [0, {params.max_nodes})")
        self.params = params
        self.round = 0
        self.final = params.max_nodes

    def next_rendezvous(self) -> RendezvousInfo:
        self.round += 1
        return RendezvousInfo(self.round, self.params.node_rank, self.params.max_nodes, self.params.master_addr,
                              self.params.master_port)

    def request_restart(self) -> None:
        return None

    def membership_changed(self) -> bool:
        return False

    def admit_waiting_nodes(self) -> None:
        return None

    def num_nodes_waiting(self) -> int:
        return 0

    def mark_succeeded(self, group_rank: int, timeout: float = 300.0) -> None:
        return None


def _c10d_store(params: RendezvousParameters):
    """The c10d backend's TCPStore: hosted by this agent when the endpoint is on this host and its port is
    free, else reached as a client."""
    from ember.distributed import DistNetworkError, TCPStore
    host, port = _split_endpoint(params.endpoint, 29400)
    timeout = timedelta(seconds=params.join_timeout)
    if _is_local(host):
        try:
            server = TCPStore(host, port, is_master=True, timeout=timeout, wait_for_workers=False)
            return server, server
        except (DistNetworkError, RuntimeError, OSError):
            pass  # another agent on this host hosts it
    return TCPStore(host, port, is_master=False, timeout=timeout), None


def make_rendezvous(params: RendezvousParameters):
    if params.backend == "static":
        return StaticRendezvous(params)
    if params.backend == "c10d":
        store, hosted = _c10d_store(params)
        return StoreRendezvous(params, store, hosted)
    if params.backend == "redis":
        from ember import distributed as dist
        if not hasattr(dist, "RedisStore"):
            raise RuntimeError("the redis rendezvous needs ember.distributed.RedisStore, which this build lacks")
        host, port = _split_endpoint(params.endpoint, 6379)
        return StoreRendezvous(params, dist.RedisStore(host, port, timeout=timedelta(seconds=params.join_timeout)))
    raise ValueError(f"unknown rendezvous backend {params.backend!r}: expected c10d, redis or static")
