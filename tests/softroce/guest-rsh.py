#!/usr/bin/env python3
"""A bounded remote shell between the two SoftRoCE guests, for mpirun's launch
of its daemon on the other guest (the nsrsh idea of ../shared/notes, over the
guests' private network instead of network namespaces).

    guest-rsh.py HOST CMD...            mpirun's plm_rsh_agent: runs CMD (its
                                        words joined by spaces, as ssh does)
                                        with sh -c on HOST, streams its output
                                        and exits with its status
    guest-rsh.py --serve ADDR --peer IP [--seconds S]
                                        the server: listens on ADDR only,
                                        accepts connections from IP only, for
                                        at most S seconds (default 900)
    guest-rsh.py --wait HOST SECONDS    until `true` runs on HOST (the other
                                        guest boots at the same time)
    guest-rsh.py --stop HOST            ends HOST's server (its guest powers off)

Protocol on TCP port 7070: one line, the command; back the command's output
(stdout and stderr), then a NUL byte and its exit status. A client that goes
away takes its command's process group with it.
"""
import os
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time

PORT = 7070
STOP = "@@stop"


def run_remote(host, command, seconds=None):
    """Runs COMMAND on HOST, copies its output to stdout, returns its status
    (255 when the connection fails or breaks)."""
    seconds = seconds or float(os.environ.get("GUEST_RSH_SECONDS", "900"))
    try:
        sock = socket.create_connection((host, PORT), timeout=10)
    except OSError as e:
        print("guest-rsh: cannot reach %s:%d: %s" % (host, PORT, e), file=sys.stderr)
        return 255
    sock.settimeout(seconds)
    status = None
    with sock:
        sock.sendall(command.encode() + b"\n")
        out = sys.stdout.buffer
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                if status is None:
                    head, nul, rest = data.partition(b"\0")
                    out.write(head)
                    out.flush()
                    if nul:
                        status = rest
                else:
                    status += data
        except OSError as e:
            print("guest-rsh: %s: %s" % (host, e), file=sys.stderr)
            return 255
    try:
        return int(status)
    except (TypeError, ValueError):
        print("guest-rsh: %s closed without an exit status" % host, file=sys.stderr)
        return 255


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        if self.client_address[0] != self.server.peer:
            return
        command = self.rfile.readline().decode().rstrip("\n")
        if command == STOP:
            self.wfile.write(b"\x000")
            threading.Thread(target=self.server.shutdown).start()
            return
        print("guest-rsh: run %s" % command[:200], flush=True)
        proc = subprocess.Popen(["sh", "-c", command], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        self.server.children.add(proc)
        threading.Thread(target=self.kill_when_gone, args=(proc,), daemon=True).start()
        try:
            for chunk in iter(lambda: proc.stdout.read1(65536), b""):
                self.wfile.write(chunk)
                self.wfile.flush()
            self.wfile.write(b"\x00%d" % proc.wait())
        except OSError:
            kill(proc)
        finally:
            print("guest-rsh: exit %d" % proc.wait(), flush=True)
            self.server.children.discard(proc)

    def kill_when_gone(self, proc):
        """The client sends nothing after its command: the end of its stream
        means it went away (mpirun killed its agent)."""
        try:
            self.request.recv(1)
        except OSError:
            pass
        if proc.poll() is None:
            kill(proc)


def kill(proc):
    """Kills PROC's process group (orted and the ranks it started)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def serve(addr, peer, seconds):
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    server = socketserver.ThreadingTCPServer((addr, PORT), Handler)
    # server_close() must not wait for a command still running: it is killed
    server.daemon_threads, server.block_on_close = True, False
    server.peer, server.children = peer, set()
    timer = threading.Timer(seconds, server.shutdown)
    timer.daemon = True
    timer.start()
    print("guest-rsh: serving %s:%d for %s, at most %g s" % (addr, PORT, peer, seconds), flush=True)
    server.serve_forever()
    timer.cancel()
    for proc in list(server.children):
        kill(proc)
    server.server_close()
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "--serve":
        opts = dict(zip(argv[::2], argv[1::2]))
        return serve(opts["--serve"], opts["--peer"], float(opts.get("--seconds", 900)))
    if len(argv) == 3 and argv[0] == "--wait":
        deadline = time.monotonic() + float(argv[2])
        while time.monotonic() < deadline:
            with open(os.devnull, "w") as quiet:
                saved, sys.stderr = sys.stderr, quiet
                rc = run_remote(argv[1], "true", seconds=10)
                sys.stderr = saved
            if rc == 0:
                return 0
            time.sleep(1)
        print("guest-rsh: %s did not answer within %s s" % (argv[1], argv[2]), file=sys.stderr)
        return 1
    if len(argv) == 2 and argv[0] == "--stop":
        return run_remote(argv[1], STOP, seconds=10)
    if len(argv) >= 2 and not argv[0].startswith("-"):
        return run_remote(argv[0], " ".join(argv[1:]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
