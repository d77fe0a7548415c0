"""The chat page's form: one message, checked by the same rules as the API's chat turn
(procurement.infra.limits through chat.runtime.message_checked, and the input layer's text rules)."""
from django import forms
from django.utils.translation import gettext_lazy as _

from agentstate.errors import DomainError

from procurement.chat.runtime import message_checked
from procurement.infra.inputguard import InputRefused, check_text
from procurement.infra.limits import MAX_CHAT_CHARS
from procurement.words import refusal, refusal_errors


class ChatMessageForm(forms.Form):
    # Not required and not stripped here: message_checked says "empty" and "too long" in the
    # writer's language, exactly as the API does, and the text is kept as written.
    text = forms.CharField(label=_("Message"), required=False, strip=False,
                           widget=forms.Textarea(attrs={"rows": 2, "maxlength": MAX_CHAT_CHARS}))

    def __init__(self, *args, lang: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.lang = lang

    def clean_text(self) -> str:
        text = self.cleaned_data.get("text", "")
        try:
            check_text(text, str(_("Message")))
        except InputRefused as refused:  # the input layer's own words, as its middleware shows them
            raise forms.ValidationError(str(refused)) from None
        try:
            return message_checked(text, lang=self.lang)
        except DomainError as refused:  # worded as every page words a refusal (procurement.words)
            raise forms.ValidationError(refusal_errors(refused).get("text") or [refusal(refused)]) from None
