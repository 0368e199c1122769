"""What the bench prints: the ratio runs' table, and the tables mix's steps and result.

Figures go in columns a reader can compare down the page; every verdict says why.
"""

from bench.play import POLL_EVERY
from bench.stack import WORKERS

DELIVERY_LIMIT_MS = 500  # push: every change heard within half a second (bench/tables.py)


def percentile(values, p):
    """The p-th percentile of durations in seconds, in milliseconds (nan for none)."""
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))] * 1000


# The ratio runs ----------------------------------------------------------------------


def median_round(results):
    """The round whose ratio is the median (of an even number, the higher of two)."""
    return sorted(results, key=lambda result: result["ratio"])[len(results) // 2]


NO_GOAL = {
    "entry": "no goal: its cost is what it reads and writes",
    "write": "no goal: the least an entry can cost",
}


def ratios(rounds, controls, goals, cores):
    """Each target's median round against the control and its goal, and how much the
    control itself moved over the run."""
    print(f"{'target':<12}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'control':>9}{'ratio':>8}"
          f"{'rounds':>15}{'goal':>7}  result")  # fmt: skip
    first = controls[0]
    print(f"{'control':<12}{first['rps']:>9.0f}{first['p50_ms']:>9.2f}{first['p99_ms']:>9.2f}")
    for name, results in rounds.items():
        every = sorted(result["ratio"] for result in results)
        median = median_round(results)
        goal = goals[name]
        if goal is None:
            verdict = NO_GOAL.get(name, "no goal")
        else:
            verdict = "met" if median["ratio"] >= goal else "MISSED"
        errors = sum(result["errors"] for result in results)
        bad = sum(result["bad"] for result in results)
        if errors or bad:
            verdict += f" ({errors} errors, {bad} 4xx/5xx)"
        spread = f"{every[0]:.2f}-{every[-1]:.2f}"
        print(
            f"{name:<12}{median['rps']:>9.0f}{median['p50_ms']:>9.2f}{median['p99_ms']:>9.2f}"
            f"{median['control']:>9.0f}{median['ratio']:>8.2f}{spread:>15}{goal or '-':>7}  "
            f"{verdict}"
        )
    if "entry" in rounds and "write" in rounds:
        entry, least = (median_round(rounds[name]) for name in ("entry", "write"))
        print(
            f"\nAn entry runs at {entry['ratio'] / least['ratio']:.2f} of the least an entry "
            f"can cost (write: a token, the match locked, its version bumped, an event, the "
            f"notice), which is {least['ratio']:.2f} of the control. Each costs the machine "
            f"{1000 * cores / entry['rps']:.1f} and {1000 * cores / least['rps']:.1f} ms of a "
            f"core ({cores} cores over the requests answered a second, the load's own included)."
        )
    rates = [control["rps"] for control in controls]
    print(
        f"\nThe control ran {len(rates)} times, between {min(rates):.0f} and {max(rates):.0f} "
        "req/s. Each ratio is against the mean of the control runs just before and after "
        "it; the median round is shown, with the range over all rounds."
    )


# The tables mix ----------------------------------------------------------------------


def tables_plan(args):
    """What a step is and what held means, then the steps' column heads."""
    if args.mix == "push":
        print(
            f"\nTables: 4 phones a table, each holding its sheet's event stream and fetching "
            f"the sheet when it hears of a change; an entry every "
            f"{args.tables_entry_every:g} s a table; {args.tables_warmup:g} s warm-up + "
            f"{args.tables_duration:g} s measured a step; "
            f"held = p99 < {args.tables_p99:g} ms, no errors, no stream lost, every change "
            f"heard within {DELIVERY_LIMIT_MS} ms (p99); search within {args.tables_budget:g} s\n",
            flush=True,
        )
        print(f"{'':>66}{'CPU (cores)':^28}")
        print(f"{'tables':>7}{'make s':>7}{'streams':>8}{'MB':>6}{'req/s':>7}{'p50 ms':>8}"
              f"{'p99 ms':>8}{'heard p99':>10}{'errors':>7}{'client':>7}{'server':>7}"
              f"{'worker':>7}{'others':>7}  result")  # fmt: skip
        return
    print(
        f"\nTables: 4 phones a table polling every {POLL_EVERY:g} s, an entry every "
        f"{args.tables_entry_every:g} s a table; {args.tables_warmup:g} s warm-up + "
        f"{args.tables_duration:g} s measured a step; held = p99 < {args.tables_p99:g} ms, "
        f"no errors, the client within 10% of the ideal poll rate; "
        f"search within {args.tables_budget:g} s\n",
        flush=True,
    )
    print(f"{'':>58}{'CPU (cores)':^28}")
    print(f"{'tables':>7}{'make s':>7}{'polls/s':>9}{'ideal':>7}{'req/s':>8}{'p50 ms':>8}"
          f"{'p99 ms':>8}{'errors':>7}{'client':>7}{'server':>7}{'worker':>7}"
          f"{'others':>7}  result")  # fmt: skip


def tables_step(count, making, result):
    """One step's line: ``making`` is the seconds its new tables took to make and open."""
    total = sum(len(values) for values in result["latencies"].values())
    cpu = (
        f"{result['errors']:>7}{result['client_cpu']:>7.2f}{result['server_cpu']:>7.2f}"
        f"{result['busiest_worker_cpu']:>7.2f}{result['other_cpu']:>7.2f}  {result['verdict']}"
    )
    if result.get("mix") == "push":
        print(
            f"{count:>7}{making:>7.0f}{result['streams']:>8}{result['rss_open'] / 2**20:>6.0f}"
            f"{total / result['seconds']:>7.0f}{result['p50_ms']:>8.1f}{result['p99_ms']:>8.1f}"
            f"{result['delivery_p99_ms']:>10.1f}{cpu}",
            flush=True,
        )
        return
    print(
        f"{count:>7}{making:>7.0f}{result['poll_rate']:>9.0f}"
        f"{result['ideal_rate']:>7.0f}"
        f"{total / result['seconds']:>8.0f}{result['p50_ms']:>8.1f}{result['p99_ms']:>8.1f}"
        f"{cpu}",
        flush=True,
    )


def tables_result(results, held, failed, stop, args, threads, seconds):
    """The most tables held (or none) and, at that step, each kind of request."""
    print()
    if held is None:
        smallest = min(results)
        print(
            f"Tables held with p99 < {args.tables_p99:g} ms: none ({WORKERS} workers x {threads} "
            f"threads); even {smallest} tables: {results[smallest]['verdict']}"
        )
        shown = smallest
    else:
        if failed:
            bound = f", {failed} not"
        elif stop == "budget":
            bound = ", more not tried within --tables-budget"
        else:
            bound = f", the most tried (--tables-max {args.tables_max})"
        print(
            f"Tables held with p99 < {args.tables_p99:g} ms: {held}{bound} "
            f"({WORKERS} workers x {threads} threads; steps {', '.join(map(str, results))}; "
            f"{seconds:.0f} s)"
        )
        shown = held
    result = results[shown]
    print(f"At {shown} tables, the {result['seconds']:g} s measured:")
    print(f"{'kind':<12}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'requests':>10}")
    everything = []
    for kind, values in result["latencies"].items():
        everything += values
        print(
            f"{kind:<12}{len(values) / result['seconds']:>9.1f}{percentile(values, 50):>9.2f}"
            f"{percentile(values, 99):>9.2f}{len(values):>10}"
        )
    print(
        f"{'all':<12}{len(everything) / result['seconds']:>9.1f}{percentile(everything, 50):>9.2f}"
        f"{percentile(everything, 99):>9.2f}{len(everything):>10}"
    )
    print(
        f"Answers other than 2xx/304: {result['bad']}; requests with no answer: {result['failed']}."
    )
    if result.get("mix") == "push":
        heard = result["delivery"]
        per_stream = (result["rss_open"] - result["rss_before"]) / max(1, result["streams"])
        print(
            f"Streams: {result['streams']} open, {result['streams_lost']} lost; "
            f"{result['changes']} changes heard {len(heard)} times, from the entry sent to "
            f"the event on a phone: p50 {percentile(heard, 50):.1f} ms, p99 "
            f"{percentile(heard, 99):.1f} ms. Server memory (gunicorn's processes): "
            f"{result['rss_baseline'] / 2**20:.0f} MB before any table, "
            f"{result['rss_before'] / 2**20:.0f} MB before this step's streams opened, "
            f"{result['rss_open'] / 2**20:.0f} MB with them open: {per_stream / 1024:.1f} KB "
            "a stream (less after an earlier step: memory its streams freed is used again)."
        )
        lag = result["client_lag"]
        print(
            f"Client: its event loop p99 {percentile(lag, 99):.1f} ms late (at most "
            f"{max(lag, default=float('nan')) * 1000:.1f} ms), which each time above holds."
        )
    else:
        late = percentile(result["late"], 99)
        print(
            f"Client: {result['poll_rate']:.1f} polls/s sent of {result['ideal_rate']:.1f} ideal "
            f"({result['poll_rate'] / result['ideal_rate']:.0%}), p99 {late:.1f} ms late on its "
            "schedule."
        )
    print(
        f"Connections: {result['connections']} opened, {result['reconnects']} "
        "requests sent again on a new one when the server had closed an idle one.\n"
        f"CPU: server (gunicorn, and PostgreSQL when the bench started it) "
        f"{result['server_cpu']:.2f} cores, client {result['client_cpu']:.2f}, "
        f"the rest of the machine {result['other_cpu']:.2f}. The busiest worker used "
        f"{result['busiest_worker_cpu']:.2f} of a core: its Python runs on one core at a "
        "time, and its requests queue as it nears a whole one."
    )
    if result.get("changes"):
        # What a change costs the server, whatever the number of tables: the figure to
        # compare two runs by (the machine's own speed moves it too).
        each = result["server_cpu"] * result["seconds"] / result["changes"] * 1000
        print(f"The server spent {each:.1f} ms of a core a change (its fetches and events too).")
    busy = max(step["other_cpu"] for step in results.values())
    if busy > 0.2:
        print(
            f"The machine was busy with other work (up to {busy:.2f} cores in a step): "
            "the tables held are fewer than on a quiet machine."
        )
    problems = {}
    for step in results.values():
        for what, how_many in step["problems"].items():
            problems[what] = problems.get(what, 0) + how_many
    if problems:
        print("What went wrong over all steps (warm-ups included):")
        for what, how_many in sorted(problems.items(), key=lambda item: -item[1])[:10]:
            print(f"  {how_many:>6}  {what}")
