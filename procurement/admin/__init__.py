"""The Django admin: the procurement tables (`records`), with the actions that change a purchase
task as transitions with who and why; the approval policy as data (`policy`), match tolerances
(`tolerances`); API tokens (`tokens`); and the catalogue's words the chat hears (`catalogue`)."""
from procurement.admin import catalogue, policy, records, tokens, tolerances  # noqa: F401  (registers them)
