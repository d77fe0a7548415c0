"""Accuracy of the chat per intent over the scripted dialogues in
tests/procurement/chat/transcripts/ (each turn checked for its effects and facts, as the test
does), with the time of a whole turn per intent.

    .venv/bin/python bench/dialogs.py
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/procurement_bench_dialogs .venv/bin/python bench/dialogs.py

Uses (and creates) its own PostgreSQL database, starts the ERP simulator on loopback, runs
agent steps in-process (Celery eager) and, for each dialogue, empties the database and seeds
the demo data again. `--brain llm` uses the model configured by LLM_BASE_URL and LLM_MODEL.
"""
import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "procurement.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/procurement_bench_dialogs")
import django  # noqa: E402

from bench.pgadmin import ensure_database, pct  # noqa: E402

django.setup()
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from agentstate.models import Session  # noqa: E402
from procurement.celery import app  # noqa: E402
from tests.erp_fixtures import start_erp  # noqa: E402
from tests.procurement.chat import dialogs  # noqa: E402


class Timed:
    """chat_turn, timed per call."""

    def __init__(self):
        self.seconds = []
        self.original = dialogs.chat_turn

    def __call__(self, **kwargs):
        started = time.perf_counter()
        try:
            return self.original(**kwargs)
        finally:
            self.seconds.append(time.perf_counter() - started)


def run_all(only: str = "") -> tuple[dict, dict, list]:
    timed = Timed()
    dialogs.chat_turn = timed
    right, total, seconds, failures = defaultdict(int), defaultdict(int), defaultdict(list), []
    for name, transcript in dialogs.all_transcripts():
        if only and only not in name:
            continue
        call_command("flush", interactive=False, verbosity=0)
        call_command("seed_demo", verbosity=0)
        people = {u.username: u for u in get_user_model().objects.all()}
        before = len(timed.seconds)
        outcomes = dialogs.run(transcript, people, lambda user: Session.objects.create(owner=user))
        turn_seconds = timed.seconds[before:]
        for n, (intent, problems) in enumerate(outcomes):
            language = name.split("_", 1)[0]
            for key in (intent, f"{intent} ({language})"):
                total[key] += 1
                right[key] += not problems
            if n < len(turn_seconds):
                seconds[intent].append(turn_seconds[n])
            if problems:
                failures.append(f"{name} turn {n + 1}: {problems[0][:200]}")
    return {k: (right[k], total[k]) for k in total}, seconds, failures


def report(scores: dict, seconds: dict, failures: list):
    print(f"database: {connection.vendor}; brain: {'llm' if settings.LLM_BASE_URL else 'rules'}; "
          f"{len(dialogs.all_transcripts())} dialogues")
    print(f"{'intent':<22}{'right':>7}{'turns':>7}{'accuracy':>10}{'p50 ms':>9}{'p95 ms':>9}")
    for intent in sorted(k for k in scores if "(" not in k):
        r, t = scores[intent]
        times = seconds.get(intent) or [0]
        print(f"{intent:<22}{r:>7}{t:>7}{r / t:>10.0%}{pct(times, 50) * 1000:>9.1f}{pct(times, 95) * 1000:>9.1f}")
        for language in ("zh", "en"):
            if f"{intent} ({language})" in scores:
                r2, t2 = scores[f"{intent} ({language})"]
                print(f"  {language:<20}{r2:>7}{t2:>7}{r2 / t2:>10.0%}")
    r = sum(v[0] for k, v in scores.items() if "(" not in k)
    t = sum(v[1] for k, v in scores.items() if "(" not in k)
    print(f"{'all':<22}{r:>7}{t:>7}{r / t:>10.0%}")
    for failure in failures:
        print("  failed:", failure)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="dialogues whose name contains this")
    parser.add_argument("--brain", choices=("rules", "llm"), default="rules")
    args = parser.parse_args()
    if args.brain == "rules":
        settings.LLM_BASE_URL = ""
    ensure_database()
    call_command("migrate", verbosity=0)
    app.conf.task_always_eager = True
    with tempfile.TemporaryDirectory() as tmp:
        erp = start_erp(Path(tmp) / "erp.sqlite3", Path(tmp) / "erp.log")
        settings.ERP_URL, settings.ERP_TIMEOUT_SECONDS = erp.url, 2
        try:
            report(*run_all(args.only))
        finally:
            erp.stop()
            call_command("flush", interactive=False, verbosity=0)


if __name__ == "__main__":

    main()
