"""Time travel and review: rewinding a request to a checkpoint and forking a new request from one
(`timetravel`), and a person's review of a request that stopped in `needs_review` (`review`).
Every move here goes through the engine, conditional on the version the person saw. DESIGN §11."""
