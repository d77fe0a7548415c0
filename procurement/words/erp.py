"""What went wrong with the ERP, in a few words an administrator on call reads at a glance; the
raw error (host, path, exception) stays under "details" on the work queue.

The ERP client's errors are its own text (procurement.infra.erp); they are read here by their shape."""
import re

from django.utils.translation import pgettext_lazy

ERP_ERRORS = [(re.compile(pattern), words) for pattern, words in [
    (r"ERP [^:]*: no answer \((?:\w+\.)*\w*Timeout.*", pgettext_lazy("erp error", "The ERP did not answer in time.")),
    (r"ERP [^:]*: no answer \(.*", pgettext_lazy("erp error", "The ERP could not be reached.")),
    (r"ERP [^:]*: HTTP (?P<status>5\d\d)\b.*",
     pgettext_lazy("erp error", "The ERP had an error of its own (HTTP %(status)s).")),
    (r"ERP [^:]*: HTTP (?P<status>\d+)\b.*", pgettext_lazy("erp error", "The ERP answered with HTTP %(status)s.")),
    (r"ERP refused \((?P<status>\d+)\): .*", pgettext_lazy("erp error", "The ERP refused it (HTTP %(status)s).")),
    (r"ERP lookup refused: .*", pgettext_lazy("erp error", "The ERP refused to look the result up.")),
    (r"ERP returned \d+ objects for one key.*",
     pgettext_lazy("erp error", "The ERP holds more than one record for one request.")),
    (r"ERP answered without the id of what it made",
     pgettext_lazy("erp error", "The ERP answered without saying what it made.")),
]]
# What the app itself records on a receipt it withdrew (stored as written, for logs), in words.
WITHDRAWN_ON_CANCEL = "confirmed absent in the ERP when the task was cancelled; withdrawn, never sent again"
WITHDRAWN_BY_REWIND = "withdrawn by a rewind: the ERP holds no live order under its key"
OWN_NOTES = {
    WITHDRAWN_ON_CANCEL: pgettext_lazy("erp error", "The ERP did not have it when the request was cancelled; it was "
                                                    "withdrawn and is never sent again."),
    WITHDRAWN_BY_REWIND: pgettext_lazy("erp error", "Withdrawn by a rewind: the ERP holds no live order under its "
                                                    "key."),
}
FAILED_PREFIX = re.compile(r"^step '\w+' failed \d+ times in a row; last error: ")
UNCHECKED = pgettext_lazy("erp error", "Whether the ERP made it could not be checked: %(why)s")


def error_words(text: str) -> str:
    """An ERP error (as a receipt or a failed step records it) in the reader's language, or ""."""
    text = FAILED_PREFIX.sub("", " ".join(str(text or "").split()))
    if text in OWN_NOTES:
        return str(OWN_NOTES[text])
    unchecked = text.startswith("could not verify: ")  # agentstate.receipts: the look-up by key failed too
    text = text.removeprefix("could not verify: ")
    for pattern, words in ERP_ERRORS:
        match = pattern.fullmatch(text)
        if match:
            said = str(words) % match.groupdict()
            return str(UNCHECKED) % {"why": said} if unchecked else said
    return ""
