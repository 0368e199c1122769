"""The club's pages."""

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from matches import values
from matches.models import explain
from matches.views.answers import not_found

from ..models import Club, Player, player_link_gone


def player_link(request, token):
    """A player's link: signed in, the account becomes the roster's player (a tap to
    confirm); signed out, log in first."""
    player = (
        Player.objects.filter(link_token=token)
        .exclude(link_token="")
        .select_related("club")
        .first()
    )
    if player is None:
        return not_found(request, player_link_gone())
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if request.method == "POST":
        try:
            Club.link_account(request.user, token)
        except values.Refusal as refusal:
            return render(
                request,
                "clubs/link.html",
                {"player": player, "error": explain(refusal)},
                status=refusal.status,
            )
        messages.success(request, _("Your account is %(name)s's now.") % {"name": player.name})
        return redirect("home")
    return render(request, "clubs/link.html", {"player": player})
