"""Getting in: a guest's name, signing up, logging in, a guest keeping their history, and
the account's API token."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from .. import limits, posted
from ..forms import GuestForm, KeepForm, SignUpForm
from ..models import User, renew_token
from .answers import bad_form, form_page, next_url, too_many
from .answers import posted as posted_data


class LoginView(auth_views.LoginView):
    """Django's log-in page; a refused log-in answers 400, as every refused form does."""

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = 400
        return response


login_page = limits.limit_posts(limits.LoginThrottle, too_many)(
    posted.only(form=AuthenticationForm, refuse=bad_form)(LoginView.as_view())
)


@require_http_methods(["GET", "POST"])
@limits.limit_posts(limits.GuestThrottle, too_many)
@posted.only(form=GuestForm, refuse=bad_form)
def guest(request):
    form = GuestForm(posted_data(request))
    if request.method == "POST" and form.is_valid():
        login(request, User.create_guest(form.cleaned_data["name"]))
        return redirect(next_url(request))
    return form_page(request, "registration/guest.html", form, next=next_url(request))


@require_http_methods(["GET", "POST"])
@limits.limit_posts(limits.GuestThrottle, too_many)
@posted.only(form=SignUpForm, refuse=bad_form)
def signup(request):
    if request.user.is_authenticated and request.user.is_guest:
        # A guest keeps their matches by setting a password, not by a new account.
        return redirect(f"{reverse('keep')}?{urlencode({'next': next_url(request)})}")
    form = SignUpForm(posted_data(request))
    if request.method == "POST" and form.is_valid():
        login(request, form.save())
        return redirect(next_url(request))
    return form_page(request, "registration/signup.html", form, next=next_url(request))


@login_required
@require_http_methods(["GET", "POST"])
@posted.only(form=KeepForm, refuse=bad_form)
def keep(request):
    if not request.user.is_guest:
        messages.info(request, _("Your account already has a password."))
        return redirect(next_url(request))
    form = KeepForm(request.user, posted_data(request))
    if request.method == "POST" and form.is_valid():
        user = form.save()
        update_session_auth_hash(request, user)
        messages.success(
            request, _("Done: log in as %(username)s to find your matches.") % {"username": user}
        )
        return redirect(next_url(request))
    return form_page(request, "registration/keep.html", form, next=next_url(request))


@login_required
@require_http_methods(["GET", "POST"])
@posted.only("action", refuse=bad_form)
def api_token(request):
    """The account's API token, for programs that keep the sheet: whether there is
    one, a new one (shown once, and the old one stops working), or giving it back.
    Logging out of the site leaves the token alone: this page is where it goes."""
    made = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "new":
            made = renew_token(request.user).key
        elif action == "revoke":
            Token.objects.filter(user=request.user).delete()
            messages.success(request, _("The token no longer works."))
            return redirect("api_token")
        else:
            return bad_form(request, _("Make a new token, or give the one you have back."))
    token = Token.objects.filter(user=request.user).first()
    return render(request, "registration/token.html", {"token": token, "made": made})
