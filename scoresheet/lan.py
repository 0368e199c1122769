"""The machine's address on the local network, for ``bin/run --lan``.

``python -m scoresheet.lan address`` prints it; ``python -m scoresheet.lan show URL``
prints the address people open and its QR code, for the phones at the table.
"""

import ipaddress
import os
import socket
import sys

# Connecting a UDP socket sends nothing: the system only picks the route, and with it
# the address it would send from. A public address finds the default route; the
# private ones find a network without a way out (a router with no internet).
PROBES = ("8.8.8.8", "10.254.254.254", "192.168.254.254", "172.31.254.254")


def lan_address(environ=os.environ, probes=PROBES):
    """The primary non-loopback IPv4 address: ``LAN_ADDRESS`` when set, else the one
    this machine sends from. LookupError when it has none (no network)."""
    override = environ.get("LAN_ADDRESS", "").strip()
    if override:
        try:
            return str(ipaddress.IPv4Address(override))
        except ValueError:
            raise LookupError(f"LAN_ADDRESS must be an IPv4 address, not {override!r}") from None
    for probe in probes:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            try:
                udp.connect((probe, 9))
            except OSError:
                continue
            address = ipaddress.IPv4Address(udp.getsockname()[0])
        if not (address.is_loopback or address.is_unspecified):
            return str(address)
    raise LookupError("No network address found: join the Wi-Fi, or set LAN_ADDRESS.")


def show(url, out=sys.stdout):
    """The address the phones open, and its QR code drawn in the terminal."""
    import segno

    out.write(f"\nPhones on this network open {url}\nor scan:\n")
    segno.make(url).terminal(out=out, compact=True)
    out.write("\n")


def main(argv):
    if argv[:1] == ["address"]:
        try:
            print(lan_address())
        except LookupError as problem:
            sys.exit(str(problem))
    elif argv[:1] == ["show"] and len(argv) == 2:
        show(argv[1])
    else:
        sys.exit("usage: python -m scoresheet.lan address | show URL")


if __name__ == "__main__":
    main(sys.argv[1:])
