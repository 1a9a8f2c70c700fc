"""Writes synthetic-lte.down: a made-up cellular downlink in mahimahi's trace format (one
delivery opportunity of 1504 bytes per line, its time in ms), 30 s long. The rate follows a
random walk between 1.5 and 24 Mb/s, changing every 100 ms by a factor drawn from {0.7, 0.85, 1,
1.15, 1.4} (seed 2026), and each millisecond gets the opportunities that rate allows, the
fraction carried over at random. It stands in for the recorded traces of the mahimahi-traces
package (not packaged for this Debian release); any of those files works the same way:
trace = "/usr/share/mahimahi/traces/Verizon-LTE-short.down".

    python studies/traces/make_synthetic.py
"""

import random
from pathlib import Path

rng = random.Random(2026)
rate_mbps, lines = 8.0, []
for ms in range(1, 30_001):
    if ms % 100 == 0:
        rate_mbps = min(24.0, max(1.5, rate_mbps * rng.choice([0.7, 0.85, 1.0, 1.15, 1.4])))
    per_ms = rate_mbps * 1e6 / 8 / 1504 / 1000
    n = int(per_ms) + (rng.random() < per_ms - int(per_ms))
    lines += [ms] * n
out = Path(__file__).with_name("synthetic-lte.down")
out.write_text("".join(f"{ms}\n" for ms in lines))
print(f"{out}: {len(lines)} opportunities in 30 s, {len(lines) * 1504 * 8 / 30 / 1e6:.2f} Mb/s on average")
