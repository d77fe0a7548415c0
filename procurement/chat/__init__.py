"""Chat intake: plain requests become purchase tasks. A brain proposes one action per turn;
the runtime (`runtime.chat_turn`) checks it against the transition table and the caller's
rights, and only then acts through `procurement.purchase.services`."""
