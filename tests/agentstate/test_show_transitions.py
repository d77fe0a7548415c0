import pytest
from django.core.management import CommandError, call_command


def test_show_transitions_prints_the_table_and_a_mermaid_diagram(capsys):
    call_command("show_transitions", "sample")
    out = capsys.readouterr().out
    assert "awaiting_approval  approve" in out and "approver" in out
    assert "stateDiagram-v2" in out and "working --> needs_review: outcome_unknown" in out


def test_show_transitions_of_an_unknown_kind_names_the_known_ones():
    with pytest.raises(CommandError, match="No task kind 'nope'.*sample"):
        call_command("show_transitions", "nope")
