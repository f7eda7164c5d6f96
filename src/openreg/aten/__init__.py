"""The aten op set's shared pieces: meta rules, structured-kernel wrappers, the derivatives table, factory
allocation and attention. The operators themselves are records (``openreg/operators/``). Importing this
package registers nothing.
"""
