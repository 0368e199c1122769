"""Who used the CPUs during a step: the client, the server, the rest of the machine, and
the server's busiest worker.

A server that holds fewer tables on a busy machine is not slower; the bench says how
busy the machine was, from Linux's /proc (zeros elsewhere). A worker runs its Python on
one core at a time, so a worker can be full while the machine is not.
"""

import os
import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Usage:
    """CPU seconds used so far: by this process, by the server processes with all their
    descendants, by the whole machine (busy), and by each of the server's workers."""

    at: float
    client: float
    server: float
    machine: float
    workers: dict = field(default_factory=dict)  # {pid: seconds}, gunicorn's children


def cpu_now(servers) -> Usage:
    """What the CPUs have done so far, from Linux's /proc (zeros elsewhere). The first of
    ``servers`` is gunicorn's: its children are the workers."""
    at = time.perf_counter()
    try:
        with open("/proc/stat") as file:
            values = [int(x) for x in file.readline().split()[1:9]]
    except OSError:
        return Usage(at, 0.0, 0.0, 0.0)
    tick = os.sysconf("SC_CLK_TCK")
    machine = sum(values) - values[3] - values[4]  # all but idle and iowait
    parents, used = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as file:
                    text = file.read()
            except OSError:  # gone meanwhile
                continue
            fields = text[text.rindex(")") + 2 :].split()
            parents[int(entry)] = int(fields[1])
            used[int(entry)] = int(fields[11]) + int(fields[12])  # utime + stime
    tree = _descendants(servers, parents)
    workers = {
        pid: sum(used[each] for each in _descendants([pid], parents)) / tick
        for pid, parent in parents.items()
        if servers and parent == servers[0]
    }
    return Usage(
        at,
        used.get(os.getpid(), 0) / tick,
        sum(used[pid] for pid in tree) / tick,
        machine / tick,
        workers,
    )


def cores(start: Usage, end: Usage) -> dict:
    """The cores each part used between two readings: the client (this process), the
    server, the rest of the machine, and the server's busiest worker, whose Python runs
    on one core at a time, so that it, and not the machine, is full first."""
    wall = end.at - start.at
    client = (end.client - start.client) / wall
    server = (end.server - start.server) / wall
    machine = (end.machine - start.machine) / wall
    workers = [
        (end.workers[pid] - before) / wall
        for pid, before in start.workers.items()
        if pid in end.workers
    ]
    return {
        "client_cpu": client,
        "server_cpu": server,
        "other_cpu": max(0.0, machine - client - server),
        "busiest_worker_cpu": max(workers, default=0.0),
    }


def _descendants(servers, parents):
    """``servers`` and every process under them, from {pid: parent pid}; not this one."""
    tree = {pid for pid in servers if pid in parents}
    while True:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        if not more:
            break
        tree |= more
    tree.discard(os.getpid())
    return tree


def rss_now(servers):
    """The resident memory of the server processes with all their descendants, in bytes
    (Linux's /proc; 0 elsewhere): what the server holds in memory now. The bench passes
    gunicorn's alone (the first of ``stack.server_pids``): PostgreSQL's shared buffers
    are no stream's."""
    parents, resident = {}, {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as file:
                status = dict(line.split(":", 1) for line in file if ":" in line)
        except OSError:
            continue
        parents[int(entry)] = int(status["PPid"])
        resident[int(entry)] = int(status.get("VmRSS", "0 kB").split()[0]) * 1024
    return sum(resident[pid] for pid in _descendants(servers, parents))
