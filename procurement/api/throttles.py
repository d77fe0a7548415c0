"""Rate limits for the API, set once in REST_FRAMEWORK (rates in DEFAULT_THROTTLE_RATES):
chat turns per person (a turn may call a paid model), writes per person, token sign-ins per
address. Reads are not limited. The HTML chat page counts its turns with the same chat throttle
(`chat_wait`), so a person's turns are one count wherever they are posted."""
from rest_framework.throttling import SimpleRateThrottle

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class ChatThrottle(SimpleRateThrottle):
    scope = "chat"

    def get_cache_key(self, request, view):
        if getattr(view, "throttle_scope", None) != "chat" or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


class WriteThrottle(SimpleRateThrottle):
    scope = "write"

    def get_cache_key(self, request, view):
        if request.method in SAFE_METHODS or getattr(view, "throttle_scope", None) in ("chat", "token"):
            return None
        ident = request.user.pk if request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


class TokenThrottle(SimpleRateThrottle):
    scope = "token"

    def get_cache_key(self, request, view):
        if getattr(view, "throttle_scope", None) != "token" or request.method in SAFE_METHODS:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class _ChatPage:
    throttle_scope = "chat"


def chat_wait(request) -> float | None:
    """For a chat turn posted outside DRF (the HTML chat page): None if allowed (and counted),
    else the seconds to wait, by the API's chat rate and counter."""
    throttle = ChatThrottle()
    if throttle.allow_request(request, _ChatPage()):
        return None
    return throttle.wait() or 1.0
