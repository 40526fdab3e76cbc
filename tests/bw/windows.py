"""windows.py: the time of one bw window over the sim, in closed form from
the sim's LogGP parameters (the sim's rules, docs/sim.md; Hoefler et al.
2007's g and G spacing a burst), for the tests that check bw's windows and
predictions against it:

    from windows import Windows
    w = Windows(W, L, o_s, O_s, o_r, O_r, g, G)
    w.uni(s), w.bi(s), w.put(s), w.get(s), w.put(s, window=1), close(a, b)
"""


def close(a, b):
    """Equal within 0.1% (virtual time is exact up to rounding)."""
    return abs(a - b) <= 1e-3 * abs(b)


class Windows:
    def __init__(self, W, L, o_s, O_s, o_r, O_r, g, G):
        self.W, self.L, self.g, self.G = W, L, g, G
        self.o_s = lambda s: o_s + (s - 1) * O_s
        self.o_r = lambda s: o_r + (s - 1) * O_r
        self.ack = L + self.o_s(1) + self.o_r(1)

    def uni(self, s):
        """First message, W-1 periods, the acknowledgement."""
        L, G, W = self.L, self.G, self.W
        period = max(self.o_s(s), self.o_r(s), self.g + (s - 1) * G)
        return L + self.o_s(s) + (s - 1) * G + self.o_r(s) + (W - 1) * period + self.ack

    def bi(self, s):
        """W receives posted, W sends spaced by the gap, the flight of the last, the acknowledgement."""
        L, G, W = self.L, self.G, self.W
        return W * self.o_r(s) + self.o_s(s) + (W - 1) * max(self.o_s(s), self.g + (s - 1) * G) + L + (s - 1) * G + self.ack

    def put(self, s, window=None):
        """W puts, spaced by the gap, the last lands and is acknowledged."""
        w, L, G = window or self.W, self.L, self.G
        return self.o_s(s) + (w - 1) * max(self.o_s(s), self.g + (s - 1) * G) + L + (s - 1) * G + L

    def get(self, s, window=None):
        """W requests, the target's NIC answers one per period, the last answer arrives."""
        w, L, G = window or self.W, self.L, self.G
        return self.o_s(1) + L + (w - 1) * max(self.o_s(1), self.g + (s - 1) * G) + L + (s - 1) * G
