"""What the generated OpenAPI schema says beyond what drf-spectacular reads by itself."""


def closed_bodies(result, generator, request, public):
    """A request body holds only the fields it names (``api.fields.Body`` refuses any
    other), so each request component says ``additionalProperties: false``. Every
    request component is a ``Body``: the settings split requests from answers
    (``COMPONENT_SPLIT_REQUEST``), and their names end in "Request"."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request") and component.get("type") == "object":
            component["additionalProperties"] = False
    return result
