"""What the generated OpenAPI schema says beyond what drf-spectacular reads by itself,
and the schema served once built."""

import threading

from django.conf import settings
from django.http import HttpResponse
from django.utils import translation
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView


def closed_bodies(result, generator, request, public):
    """A request body holds only the fields it names (``api.fields.Body`` refuses any
    other), so each request component says ``additionalProperties: false``. Every
    request component is a ``Body``: the settings split requests from answers
    (``COMPONENT_SPLIT_REQUEST``), and their names end in "Request".

    A body that comes in shapes (the calculator's points or cards) is required when
    each of its shapes requires a field."""
    schemas = result.get("components", {}).get("schemas", {})
    for name, component in schemas.items():
        if name.endswith("Request") and component.get("type") == "object":
            component["additionalProperties"] = False
    for _path, _method, operation in operations(result):
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        shapes = schemas.get(component_name(body["schema"]), {}).get("oneOf") if body else None
        if shapes and all(schemas[component_name(shape)].get("required") for shape in shapes):
            operation["requestBody"]["required"] = True
    return result


def operations(result):
    for path, methods in result.get("paths", {}).items():
        for method, operation in methods.items():
            yield path, method, operation


def component_name(schema):
    return schema.get("$ref", "").rsplit("/", 1)[-1]


# The schema served --------------------------------------------------------------------

_building = threading.Lock()
_built = {}  # the schema, and its rendering by each renderer class


def warm():
    """The schema, generated once in this process: concurrent first callers wait for
    the one build (drf-spectacular's generation is neither cheap nor safe to run twice
    at once). For the server's start-up to call, so that no request waits for it."""
    if "schema" not in _built:
        with _building:
            if "schema" not in _built:
                # The schema is the same in every language: one build, in the default.
                with translation.override(settings.LANGUAGE_CODE):
                    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS()
                    _built["schema"] = generator.get_schema(request=None, public=True)
    return _built["schema"]


class SchemaView(SpectacularAPIView):
    """``/api/schema/``: drf-spectacular's view, answering as it does (YAML, or JSON by
    the Accept header or ``?format=json``) from the schema built once, each format
    rendered once."""

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        renderer = request.accepted_renderer
        body = _rendered(type(renderer))
        response = HttpResponse(body, content_type=content_type(renderer))
        response["Content-Disposition"] = f'inline; filename="{filename(renderer)}"'
        return response


def _rendered(renderer_class):
    schema = warm()
    if renderer_class not in _built:
        with _building:
            if renderer_class not in _built:
                _built[renderer_class] = renderer_class().render(schema)
    return _built[renderer_class]


def content_type(renderer):
    if renderer.charset:
        return f"{renderer.media_type}; charset={renderer.charset}"
    return renderer.media_type


def filename(renderer):
    return f"{settings.SPECTACULAR_SETTINGS['TITLE']}.{renderer.format}"
