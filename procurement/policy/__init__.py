"""The approval policy as data (rules, ordered chains of steps, versions), who may stand in for
whom (delegation, 代理人) and what happens when a step waits too long (escalation). DESIGN §7, §9."""
