"""Links a person opens on another device: join, seat and watch links, and their QR codes."""

from django.conf import settings


def absolute(request, path):
    """``path`` as a whole address: on ``PUBLIC_URL`` when it is set (the address the
    phones at the table reach, whatever the host's own browser used), else on the
    address of the request."""
    if settings.PUBLIC_URL:
        return settings.PUBLIC_URL + path
    return request.build_absolute_uri(path)
