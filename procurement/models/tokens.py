"""API tokens (django-rest-knox): a person holds one per client, each with a name, an expiry and
its own revocation. Only the digest of a token is stored."""
from django.db import models
from django.utils.translation import gettext_lazy as _
from knox.models import AbstractAuthToken


class ApiToken(AbstractAuthToken):
    name = models.CharField(max_length=100, blank=True, verbose_name=_("client"),
                            help_text=_("Which client holds it, as the person named it."))

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created"]

    def __str__(self):
        return f"{self.name or self.token_key} ({self.user})"
