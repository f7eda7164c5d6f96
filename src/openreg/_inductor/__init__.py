"""``openreg._inductor``: the configuration module of PyTorch's compiler back end, ``torch._inductor.config``.

openreg runs programs eagerly (``openreg.compile`` returns the model unchanged), so no code is generated; the
configuration is still there for programs that set it before compiling, and ``openreg.compile(options=...)``
checks its options against it as PyTorch does.
"""
