"""A refusal given outside any view, by a middleware or Django's own handlers: JSON
with ``detail`` under /api/, else the small problem page. Below the views, so that the
middleware and the views both answer this way without one reaching up to the other."""

from django.http import JsonResponse
from django.shortcuts import render


def answer(request, message, status, **context):
    if request.path_info.startswith("/api/"):
        return JsonResponse({"detail": message}, status=status)
    return render(request, "problem.html", {"message": message, **context}, status=status)
