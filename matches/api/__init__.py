"""The REST API under /api/: thin views over the same model methods as the pages.

Each view reads its input with a serializer of ``bodies`` (typed ``fields`` that
read values with the pages' own rules), calls the model, and answers with the
reading the pages render too (``sheet.read``), serialized by ``readings``. What every
view shares (declaring it, refusing, reading its match and body, answering with the
sheet) is ``base``; ``authentication`` reads an API token once a request; the views are
by what the caller does: ``accounts``, ``matches``, ``seats``, ``playing``; ``urls`` names
their paths.
"""
