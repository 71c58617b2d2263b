#!/usr/bin/env python3
"""Tests of render.py's rules (standard library only; run by .ci/run):
    python3 docs/results/test_render.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402


def row(function, seed2_over_first, mode="throughput"):
    return {"mode": mode, "function": function, "cryptopt": "10.0", "seed2": "10.0",
            "speedup_over_seed2": seed2_over_first}


class SeedsTable(unittest.TestCase):
    def check(self, ratio, within):
        t = render.seeds_table(["gcc", "seed2"], [row("f", ratio)])
        self.assertEqual("yes" in t[2], within, t[2])
        self.assertIn(f"{int(within)} of 1 within 3%", t[3])

    def test_spread_is_the_slowest_over_the_fastest(self):
        self.check("1.02", True)   # the second seed 2% slower
        self.check("0.98", True)   # 2% faster: the first is 2.04% behind
        self.check("1.04", False)  # its wrong twin: 4% slower
        self.check("0.96", False)  # 4% faster: the first is 4.2% behind

    def test_no_seed_columns_no_table(self):
        self.assertEqual(render.seeds_table(["gcc", "clang-19"], [row("f", "1.0")]), [])

    def test_latency_rows_are_not_counted(self):
        self.assertEqual(render.seeds_table(["seed2"], [row("f", "1.5", "latency")]), [])

    def test_a_missing_ratio_is_an_error(self):
        with self.assertRaises(render.DataError):
            render.seeds_table(["seed2"], [row("f", "–")])


if __name__ == "__main__":
    unittest.main()
