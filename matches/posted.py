"""What a page's form may post: its own fields, each once.

Browsers send exactly the fields of the form on the page, so anything else (an
unknown field, a field twice, a file) did not come from our page: it is refused
with a message rather than half-read, as the API refuses it too.
"""

from functools import wraps

from django.utils.translation import gettext as _

# Sent with every form: the CSRF token, and where to go back to.
ALWAYS = frozenset({"csrfmiddlewaretoken", "next"})

# A refusal names at most this many of the client's field names, each cut to WIDTH
# characters: a body of a million unknown fields gets a short answer, not a longer one.
SHOWN, WIDTH = 3, 40


def listed(names):
    """Field names a client sent, for a message: "a, b, c and 7 others".

    Each name is cut short, an empty one shows as "", and a lone surrogate (which
    JSON can carry and no response can encode) as "?"."""
    names = sorted(set(names))
    shown = ", ".join(
        name[:WIDTH].encode("utf-8", "replace").decode() or '""' for name in names[:SHOWN]
    )
    if len(names) > SHOWN:
        return _("%(names)s and %(count)s others") % {"names": shown, "count": len(names) - SHOWN}
    return shown


def problem(post, files, allowed):
    """Why this POST is not one our form sends, or None."""
    unknown = [name for name in post if name not in allowed]
    if unknown or files:
        return _("This form has no field %(names)s, so nothing was done.") % {
            "names": listed(unknown or files)
        }
    twice = [name for name, values in post.lists() if len(values) > 1]
    if twice:
        return _("This form gives %(names)s more than once, so nothing was done.") % {
            "names": listed(twice)
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
