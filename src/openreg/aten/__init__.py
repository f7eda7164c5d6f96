"""The aten op set's shared pieces: meta rules, structured-kernel wrappers, derivative formulas, and the
operators that are not records yet (``builtin.py`` defines and registers them; the records live in
``openreg/operators/``). Importing this package registers nothing.
"""
