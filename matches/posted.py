"""What a page's form may post: its own fields, each once.

Browsers send exactly the fields of the form on the page, so anything else (an
unknown field, a field twice, a file) did not come from our page: it is refused
with a message rather than half-read, as the API refuses it too.
"""

from functools import wraps

from django.utils.translation import gettext as _

# Sent with every form: the CSRF token, and where to go back to.
ALWAYS = frozenset({"csrfmiddlewaretoken", "next"})


def problem(post, files, allowed):
    """Why this POST is not one our form sends, or None."""
    unknown = sorted(name[:40] or '""' for name in post if name not in allowed)
    if unknown or files:
        names = ", ".join(unknown or sorted(name[:40] for name in files))
        return _("This form has no field %(names)s, so nothing was done.") % {"names": names}
    twice = sorted(name[:40] for name, values in post.lists() if len(values) > 1)
    if twice:
        return _("This form gives %(names)s more than once, so nothing was done.") % {
            "names": ", ".join(twice)
        }
    return None


def only(*names, form=None, refuse):
    """Refuse, through ``refuse(request, message)``, a POST with fields other than
    ``names`` (and those of ``form``), or with one of them twice."""
    allowed = ALWAYS | set(names) | set(form.base_fields if form else ())

    def decorator(view):
        @wraps(view)
        def checked(request, *args, **kwargs):
            if request.method == "POST":
                message = problem(request.POST, request.FILES, allowed)
                if message:
                    return refuse(request, message)
            return view(request, *args, **kwargs)

        checked.posted_fields = allowed
        return checked

    return decorator
