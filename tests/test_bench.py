"""The benchmarks stay runnable: every bench module imports, and bench/load.py's command
line keeps the options README.md's "Benchmark" section documents, with their defaults.

Nothing here starts a server or sends a request: the bench itself is run by hand.
"""

import importlib

import pytest

MODULES = [
    "bench.load",
    "bench.stack",
    "bench.data",
    "bench.ratios",
    "bench.generators",
    "bench.client",
    "bench.play",
    "bench.cpu",
    "bench.tables",
    "bench.report",
    "bench.pages",
    "bench.settings",
    "bench.urls",
]


@pytest.mark.parametrize("name", MODULES)
def test_each_bench_module_imports(name):
    importlib.import_module(name)


def test_the_documented_options_are_read():
    from bench.load import arguments

    command = [
        "--rounds", "1", "--duration", "2", "--only", "poll", "calculator",
        "--tables-budget", "20", "--tables-duration", "3", "--tables-start", "10",
        "--tool", "python",
    ]  # fmt: skip
    args = arguments(command)
    assert (args.rounds, args.duration, args.only) == (1, 2, ["poll", "calculator"])
    assert (args.tables_budget, args.tables_duration, args.tables_start) == (20, 3, 10)
    assert args.tool == "python"


def test_the_defaults_are_the_ones_documented():
    from bench.load import arguments

    args = arguments(["--tool", "wrk"])
    assert args.only is None  # every target, then the tables
    assert (args.rounds, args.duration, args.warmup) == (3, 3, 1)
    assert (args.connections, args.threads) == (8, 2)
    assert (args.tables_start, args.tables_warmup, args.tables_duration) == (100, 5, 20)
    assert (args.tables_budget, args.tables_p99, args.tables_max) == (180, 100, 3200)
    assert (args.mix, args.servers) == ("push", False)  # the pages' way, on bin/serve


def test_only_offers_every_target_and_the_tables():
    from bench.load import arguments

    for name in ["poll", "fragment", "entry", "calculator", "tables"]:
        assert arguments(["--only", name]).only == [name]
    with pytest.raises(SystemExit):
        arguments(["--only", "nothing"])


def test_help_lists_every_option(capsys):
    from bench.load import parser

    with pytest.raises(SystemExit) as stopped:
        parser().parse_args(["--help"])
    assert stopped.value.code == 0
    shown = capsys.readouterr().out
    for option in [
        "--duration", "--warmup", "--rounds", "--connections", "--threads", "--tool", "--only",
        "--tables-duration", "--tables-warmup", "--tables-budget", "--tables-start",
        "--tables-max", "--tables-resolution", "--tables-p99",
    ]:  # fmt: skip
        assert option in shown


def test_a_push_step_reports_what_a_change_cost_the_server(capsys):
    """The figure two runs compare by, whatever their number of tables: the server's
    CPU over the measured seconds, shared among the changes made in them."""
    from argparse import Namespace

    from bench.report import tables_result

    step = {
        "mix": "push", "tables": 100, "seconds": 20, "changes": 80, "server_cpu": 0.6,
        "client_cpu": 0.1, "other_cpu": 0.0, "latencies": {"fetch-200": [12.0], "entry": [20.0]},
        "delivery": [15.0], "streams": 400, "streams_lost": 0, "bad": 0, "failed": 0,
        "problems": {}, "rss_baseline": 0, "rss_before": 0, "rss_open": 0, "connections": 400,
        "reconnects": 0, "verdict": "held",
    }  # fmt: skip
    tables_result({100: step}, 100, None, "max", Namespace(tables_p99=100, tables_max=100), 2, 30)
    assert "The server spent 150.0 ms of a core a change" in capsys.readouterr().out
