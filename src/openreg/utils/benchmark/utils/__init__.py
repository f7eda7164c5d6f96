"""The modules of ``openreg.utils.benchmark`` (``common``, ``timer``, ``compare``), laid out as PyTorch's."""
