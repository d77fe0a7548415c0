from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect

from .context import Nav


@login_required
def home(request):
    """Managers land on what waits for them; everyone else on their requests."""
    return redirect("approval-inbox" if Nav(request.user).is_decider else "chat-sessions")
