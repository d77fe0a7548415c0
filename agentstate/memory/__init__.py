"""Governed memory (DESIGN §8): what is still worth knowing next week, scoped, sourced,
confirmable, correctable and truly deletable. Context for the agent, never authority.

The engine knows scopes and subjects as strings; who may read, write or confirm what is
decided by the policy the app registers (`agentstate.memory.policy.register`)."""
