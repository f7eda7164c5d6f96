"""Internals of ``openreg.library``, one concept per module: ``utils`` (names, schemas, call sites),
``fake_impl`` (fake impls, ``get_ctx``, dynamic sizes), ``autograd`` (the Autograd kernel of
``register_autograd``), ``infer_schema``, ``custom_ops`` (``custom_op``/``CustomOpDef``) and ``opcheck``.
"""
