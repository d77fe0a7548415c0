"""The request and its money: a purchase request from draft to purchase order (`requests`,
`services`), the agent's steps (`steps`: quotes, policy, budget, requisition, order), prices and
quotes (`pricing`), budget holds (`budget`), request numbers, the frozen scope an approval binds,
settling a stuck ERP write (`settling`) and retries. DESIGN §3, §6, §7."""
