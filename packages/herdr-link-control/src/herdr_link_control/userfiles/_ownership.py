"""Which files are ours: every file Herdr Link generates names its generator on its first line."""

__all__ = ["made_by"]


def made_by(data: bytes, generator: str) -> bool:
    """Whether ``data`` is a file ``generator`` wrote: its first line starts ``// <generator> `` (the ID
    line of every generated bundle and extension), whatever its version or later edits."""
    return data.split(b"\n", 1)[0].startswith(f"// {generator} ".encode())
