"""What every replay shares: the `target:` header an export names its framework version in, and the plan it was
made from (the plan-json export of the same row, ShardMeter's own full description of the plan).

A replay re-implements, in Python, the configuration checks a framework version runs on the file ShardMeter wrote,
from reading that version's source (cited per check as repo@tag:path:line). It never imports the framework.
"""
import json
import re

TARGET = re.compile(r"target: (?P<framework>.+?) (?P<version>\S+) \(")


class Checks:
    """Collects failed checks; each message names the framework rule it replays."""

    def __init__(self, name):
        self.name = name
        self.failures = []

    def require(self, condition, message):
        if not condition:
            self.failures.append(f"{self.name}: {message}")
        return condition


def header_lines(text):
    """The header lines of an export: '# ' comment lines of TOML / shell / Python, or the JSON header list."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        doc = json.loads(text)
        return doc.get("header") or doc.get("shardmeter_export") or []
    return [line[2:] for line in text.splitlines() if line.startswith("# ")]


def target_of(text):
    """(framework, version) from the `target:` header line, or None."""
    for line in header_lines(text):
        m = TARGET.match(line)
        if m:
            return m.group("framework"), m.group("version")
    return None


def ceil_div(a, b):
    return -(-a // b)


def check_warmup(c, steps, tokens_per_step, plan, what):
    """The warm-up a file writes is the plan's training.warmup_tokens in whole steps (docs/export.md, "The stack and
    the run length"): plan-json's training.warmup_steps, which covers warmup_tokens by less than one step (capped at
    the run's steps). A plan whose scenario was not rebuilt has null there and the file writes none."""
    planned = plan["training"].get("warmup_steps")
    if planned is None:
        c.require(steps is None, f"{what}: a warm-up for a plan without one")
        return
    if not c.require(steps == planned, f"{what}: {steps} warm-up steps, the plan {planned}"):
        return
    warmup = plan["training"]["warmup_tokens"]
    c.require(steps * tokens_per_step >= warmup or steps == plan["training"]["steps"],
              f"{what}: {steps} steps x {tokens_per_step} tokens do not cover the plan's {warmup:.6g} warm-up tokens")


def check_tokens_trained(c, steps, tokens_per_step, plan, what):
    """The run length a file writes trains the tokens the plan was costed for (docs/export.md, "The stack and the run
    length"): steps x tokens per step covers plan-json's training.trained_tokens by less than one step."""
    trained = plan["training"].get("trained_tokens")
    if not c.require(trained is not None and steps is not None, f"{what}: no run length, or no trained_tokens"):
        return
    total = steps * tokens_per_step
    c.require(trained <= total < trained + tokens_per_step,
              f"{what}: {steps} steps x {tokens_per_step} tokens = {total}, the plan trains {trained:.6g}")
