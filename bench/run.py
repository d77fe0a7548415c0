"""`make bench`: every benchmark in one run, then bench/RESULTS.md, the raw JSON and two charts.

    .venv/bin/python bench/run.py [--quick] [--only sidebyside,throughput,growth,scale,chaos,permissions,steps]

Runs, each in its own process and on its own database of the same PostgreSQL server (server and
credentials from DATABASE_URL when it is PostgreSQL, else postgres@127.0.0.1:5432), with Redis
db 9 (BENCH_REDIS_DB to use another) as the broker where workers are involved:

1. bench/sidebyside.py  agentstate vs LangGraph's PostgresSaver at 1/10/100 KB, and pgbench -N;
2. bench/workflow.py    1,000 purchase requests end to end, two workers, the ERP simulator;
3. bench/growth.py      a transition and the pages at 1k, 10k and 100k tasks, with EXPLAIN;
   bench/scale.py       every page at 100k tasks and 1M decided approvals, EXPLAIN of each query;
4. bench/chaos.py       200 requests under SIGKILLs and ERP faults;
5. bench/permissions.py the inbox, task and API lists at 2k and 10k tasks (50 departments, 200
                        people): p50/p95 and queries per request, which must stay constant;
6. bench/step_profile.py a worker's advance() per step kind: queries, p50/p95, and its own time
                        less the ERP wait (database, broker, Python).

Each prints as it goes; the figures land in bench/results/*.json, and bench/RESULTS.md is
written from them with the machine, the date and the commands. `--quick` runs small sizes to
check the plumbing (its report says so).
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
OUT = BENCH / "results"
sys.path.insert(0, str(ROOT))

FULL = {
    "sidebyside": ["bench/sidebyside.py", "--iterations", "300", "--seconds", "10", "--two-row-floor"],
    "throughput": ["bench/workflow.py", "--requests", "1000", "--workers", "1,2,4", "--timeout", "1500"],
    "growth": ["bench/growth.py", "--scales", "1000,10000,100000"],
    "scale": ["bench/scale.py", "--tasks", "100000", "--approvals", "1000000"],
    "chaos": ["bench/chaos.py", "--requests", "200", "--chaos-seconds", "240", "--settle-seconds", "300"],
    "permissions": ["bench/permissions.py", "--scales", "2000,10000"],
    "steps": ["bench/step_profile.py", "--requests", "200"],
}
QUICK = {
    "sidebyside": ["bench/sidebyside.py", "--iterations", "60", "--seconds", "3", "--two-row-floor"],
    "throughput": ["bench/workflow.py", "--requests", "40", "--workers", "1,2", "--timeout", "300"],
    "growth": ["bench/growth.py", "--scales", "1000,3000"],
    "scale": ["bench/scale.py", "--tasks", "2000", "--approvals", "20000", "--renders", "3"],
    "chaos": ["bench/chaos.py", "--requests", "30", "--chaos-seconds", "40", "--settle-seconds", "90"],
    "permissions": ["bench/permissions.py", "--scales", "500,2000", "--renders", "5"],
    "steps": ["bench/step_profile.py", "--requests", "10"],
}


def machine() -> dict:
    cpu = ""
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "")
        mem_kb = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                          if line.startswith("MemTotal")))
    except (OSError, StopIteration, ValueError):
        mem_kb = 0
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    return {"cpu": cpu, "cpus": os.cpu_count(), "memory_gb": round(mem_kb / 1024 / 1024, 1),
            "os": platform.platform(), "python": platform.python_version(), "commit": commit,
            "load_average_at_start": os.getloadavg()}


def run_part(name: str, argv: list[str], env: dict) -> tuple[dict | None, int, str]:
    path = OUT / f"{name}.json"
    path.unlink(missing_ok=True)
    command = [sys.executable, *argv, "--json", str(path.relative_to(ROOT))]
    print(f"\n=== {name}: {' '.join(['.venv/bin/python', *argv])}", flush=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    status = subprocess.run(command, cwd=ROOT, env=env).returncode
    seconds = (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds()
    figures = json.loads(path.read_text()) if path.exists() else None
    return figures, status, f"{seconds:.0f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", default="sidebyside,throughput,growth,scale,chaos,permissions,steps")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    plan = QUICK if args.quick else FULL
    from bench.pgadmin import database_url, server_params

    # The server and credentials come from DATABASE_URL; every part uses a database of its own
    # (sidebyside: procurement_bench), never the one DATABASE_URL names.
    env = {**os.environ, "PYTHONUNBUFFERED": "1",
           "DATABASE_URL": database_url(server_params("run.py"), "procurement_bench")}
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "quick": args.quick, "machine": machine(), "parts": {}}
    previous = OUT / "results.json"
    if args.only != parser.get_default("only") and previous.exists():
        # Re-running some parts keeps the others' figures from the run before (dated there).
        earlier = json.loads(previous.read_text())
        when = {"date": earlier["date"], "commit": earlier["machine"]["commit"],
                "load_average_at_start": earlier["machine"]["load_average_at_start"]}
        results["parts"] = {name: part if "run_on" in part else part | {"run_on": when}
                            for name, part in earlier["parts"].items()}
        if "earlier_run" in earlier:
            results["earlier_run"] = earlier["earlier_run"]
    failed = []
    for name in args.only.split(","):
        figures, status, took = run_part(name, plan[name], env)
        results["parts"][name] = {"command": " ".join([".venv/bin/python", *plan[name]]), "exit_status": status,
                                  "took": took, "figures": figures}
        if status != 0:
            failed.append(name)
    results["machine"]["load_average_at_end"] = os.getloadavg()
    (OUT / "results.json").write_text(json.dumps(results, indent=2, default=str))
    from bench.report import write_report

    write_report(results, OUT, BENCH / "RESULTS.md")
    print(f"\nwrote {BENCH / 'RESULTS.md'}, {OUT / 'results.json'} and the charts in {OUT}")
    if failed:
        print(f"FAILED: {', '.join(failed)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
