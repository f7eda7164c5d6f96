"""Embedding modules (``Embedding``):
PyTorch's module path; the classes land here with their operators (issue #12)."""

__all__: list[str] = []
