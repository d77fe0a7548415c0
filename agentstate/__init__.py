"""The agent-state runtime: sessions, tasks moved only by a transition table, events,
checkpoints, receipts, approvals and recovery. It knows nothing of any particular app."""
