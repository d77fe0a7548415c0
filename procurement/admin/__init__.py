"""The Django admin: the procurement tables (`records`), with the actions that change a purchase
task as transitions with who and why; and the approval policy as data (`policy`)."""
from procurement.admin import policy, records, tokens, tolerances  # noqa: F401  (registers them)
