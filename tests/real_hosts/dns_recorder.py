"""A loopback DNS responder that answers every query with REFUSED and records the names asked."""

import socket
import threading


def _qname(packet: bytes) -> str:
    labels, index = [], 12
    while index < len(packet) and packet[index]:
        length = packet[index]
        labels.append(packet[index + 1 : index + 1 + length].decode("ascii", "replace"))
        index += 1 + length
    return ".".join(labels)


class DnsRecorder:
    """UDP on ``127.0.0.1:53``; ``names`` is every name some process tried to resolve."""

    def __init__(self, host: str = "127.0.0.1", port: int = 53) -> None:
        self.names: list[str] = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((host, port))
        self.sock.settimeout(0.2)
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while self.running:
            try:
                packet, address = self.sock.recvfrom(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            if len(packet) < 12:
                continue
            self.names.append(_qname(packet))
            flags = 0x8180 | 5  # a response, recursion desired/available, rcode REFUSED
            reply = packet[:2] + flags.to_bytes(2, "big") + packet[4:6] + b"\0\0\0\0\0\0" + packet[12:]
            self.sock.sendto(reply, address)

    def __enter__(self) -> "DnsRecorder":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.running = False
        self.thread.join(timeout=1)
        self.sock.close()
