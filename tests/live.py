"""An event stream read as a browser's EventSource reads it, from a real server: the
events one by one, each with its name, its data and its id, and the comments between."""

import http.client
import json
import time


class Stream:
    """``GET path`` on ``port``, held open; ``next()`` is the next event."""

    def __init__(self, port, path, *, token=None, headers=None, timeout=10):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        headers = {"Host": "127.0.0.1", "Accept": "text/event-stream", **(headers or {})}
        if token:
            headers["Authorization"] = f"Token {token}"
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.headers = self.response.headers
        self.comments = []

    def body(self):
        """The whole body of an answer that is not a stream (a refusal's JSON)."""
        return json.loads(self.response.read())

    def next(self, timeout=5):
        """The next event, (name, data, id), within ``timeout`` seconds; None when the
        stream ends first."""
        deadline = time.monotonic() + timeout
        fields = {}
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no event within {timeout}s")
            self.connection.sock.settimeout(left)
            try:
                line = self.response.readline()  # the body's, its chunks undone
            except TimeoutError:
                raise TimeoutError(f"no event within {timeout}s") from None
            if not line:
                return None
            line = line.decode().rstrip("\n")
            if not line:
                if "event" in fields or "data" in fields:
                    data = fields.get("data")
                    data = data and json.loads(data)
                    return fields.get("event", "message"), data, fields.get("id")
                continue  # the blank line after retry:, or after comments
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")

    def next_named(self, name, timeout=5):
        """The next event called ``name`` (a ``change``, say), past any others."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.next(max(0.001, deadline - time.monotonic()))
            if found is None or found[0] == name:
                return found

    def close(self):
        self.connection.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
