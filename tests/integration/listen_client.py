#!/usr/bin/env python3
"""listen_client.py: a raw client of the --listen handshake, for the tests of
a server that must not trust whoever connects. It speaks the wire
format (a 4-byte little-endian length, then the payload) and can stop or
misbehave at any step:

  stray PORT                  connect and close at once
  idle PORT SECONDS           connect, send nothing; says when the server hung up
  propose PORT [ARG...]       the handshake (no secret), then ARG... as the
                              command line; prints the server's answer
  empty-args PORT COUNT       a command line of COUNT empty arguments
  oversize PORT LENGTH        announces a frame of LENGTH bytes, sends 64 KiB of it
  relay PORT TARGET LOG       (PORT: where the relay listens) carry one
                              connection to 127.0.0.1:TARGET, recording
                              every byte both ways in LOG
  stall PORT STEP             stop after STEP and wait to be hung up on (at
                              most 60 s): connect; hello (the server's read,
                              none sent); auth (hello exchanged, the server's
                              challenge read, neither proof nor command line sent);
                              run ARG... (ARG... proposed and accepted, then
                              silent: the run never starts on this side)

Every socket operation has a deadline (--deadline, 20 s); it exits 0 when the
exchange ran as described (whatever the server answered), 1 otherwise.
"""
import argparse
import select
import socket
import struct
import sys
import time


def frame(payload: bytes) -> bytes:
    return struct.pack("<I", len(payload)) + payload


def read_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    return data


def read_frame(sock) -> bytes:
    (length,) = struct.unpack("<I", read_exactly(sock, 4))
    if length > 1 << 20:
        raise ValueError(f"a frame of {length} bytes")
    return read_exactly(sock, length)


def connect(port, deadline):
    sock = socket.create_connection(("127.0.0.1", port), timeout=deadline)
    sock.settimeout(deadline)
    return sock


def hello(sock):
    """Echoes the server's version line (the same ngx on both sides) and reads its auth line."""
    theirs = read_frame(sock)
    sock.sendall(frame(theirs))
    return read_frame(sock).decode(errors="replace")


def answer_of(sock):
    start = time.monotonic()
    try:
        text = read_frame(sock).decode(errors="replace")
    except (ConnectionError, OSError) as error:
        text = f"<no answer: {error}>"
    return text, time.monotonic() - start


def relay(port, target, log_path, deadline):
    """Accepts one connection on PORT and carries it to TARGET, logging both directions."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(1)
    listener.settimeout(deadline)
    print("relay ready", flush=True)
    inside, _ = listener.accept()
    outside = socket.create_connection(("127.0.0.1", target), timeout=deadline)
    end = time.monotonic() + deadline
    with open(log_path, "wb") as log:
        open_ends = {inside: outside, outside: inside}
        while open_ends and time.monotonic() < end:
            ready, _, _ = select.select(list(open_ends), [], [], 0.5)
            for sock in ready:
                try:
                    data = sock.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    other = open_ends.pop(sock)
                    try:
                        other.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    continue
                log.write(data)
                open_ends[sock].sendall(data)
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--deadline", type=float, default=20)
    parser.add_argument("what")
    parser.add_argument("port", type=int)
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    o = parser.parse_args()
    if o.what == "relay":
        return relay(o.port, int(o.rest[0]), o.rest[1], o.deadline)
    sock = connect(o.port, o.deadline)
    if o.what == "stray":
        sock.close()
        print("connected and closed")
        return 0
    if o.what == "idle":
        start = time.monotonic()
        sock.settimeout(float(o.rest[0]))
        try:
            while sock.recv(4096):
                pass
            print(f"hung up after {time.monotonic() - start:.1f} s")
        except socket.timeout:
            print(f"still connected after {time.monotonic() - start:.1f} s")
        return 0
    if o.what == "stall":
        step = o.rest[0]
        if step == "hello":
            read_frame(sock)  # the server's hello; ours never comes
        elif step == "auth":
            hello(sock)  # the server's challenge (with a secret) or "auth none": no answer, no command line
        elif step == "run":
            hello(sock)
            sock.sendall(frame(b"".join(arg.encode() + b"\0" for arg in o.rest[1:])))
            text, _ = answer_of(sock)
            print(f"answer: {text}", flush=True)
        sock.settimeout(60)
        print(f"stalled after {step}", flush=True)
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass
        return 0
    auth = hello(sock)
    if auth != "auth none":
        print(f"the server asks: {auth}")
        return 1
    if o.what == "propose":
        payload = b"".join(arg.encode() + b"\0" for arg in o.rest)
        sock.sendall(frame(payload))
    elif o.what == "empty-args":
        sock.sendall(frame(b"\0" * int(o.rest[0])))
    elif o.what == "oversize":
        length = int(o.rest[0])
        try:
            sock.sendall(struct.pack("<I", length) + b"\0" * min(length, 65536))
        except OSError as error:
            print(f"send: {error}")
    else:
        print(f"unknown step {o.what}")
        return 1
    text, seconds = answer_of(sock)
    print(f"answer after {seconds:.2f} s: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
