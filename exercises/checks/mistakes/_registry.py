"""The catalogue the per-exercise modules fill: ``MISTAKES[(exercise, task)]``."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Mistake", "MISTAKES", "mistake"]


@dataclass(frozen=True)
class Mistake:
    what: str
    impl: object
    expect: str = ""  # words the failure message must contain


MISTAKES: dict[tuple[str, str], list[Mistake]] = {}


def mistake(exercise, task, what, expect=""):
    """Decorator: register ``impl`` as a wrong answer to ``exercise``'s ``task``."""
    def register(impl):
        MISTAKES.setdefault((exercise, task), []).append(Mistake(what, impl, expect))
        return impl

    return register
