"""Running two independent Herdr lookups at once."""

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

__all__ = ["both"]

A = TypeVar("A")
B = TypeVar("B")


async def both(first: Callable[[], Awaitable[A]], second: Callable[[], Awaitable[B]]) -> tuple[A, B]:
    """Await two calls concurrently and return both results.

    Both run to completion (each Herdr call has its own timeout). If either fails, the first call's
    error wins, as if they had run one after the other.
    """
    results: dict[int, object] = {}
    errors: dict[int, Exception] = {}

    async def run(index: int, call: Callable[[], Awaitable[object]]) -> None:
        try:
            results[index] = await call()
        except Exception as error:  # collected and re-raised below, in call order
            errors[index] = error

    async with anyio.create_task_group() as group:
        group.start_soon(run, 0, first)
        group.start_soon(run, 1, second)
    for index in (0, 1):
        if index in errors:
            raise errors[index]
    return results[0], results[1]  # type: ignore[return-value]
