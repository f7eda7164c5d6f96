"""``openreg._ops``: ``from torch._ops import ops`` (DLRM) gives the operator namespace object itself."""
import openreg


def test_ops_module_is_the_operator_namespace():
    from openreg._ops import OpOverload, OpOverloadPacket, ops
    assert ops is openreg.ops
    assert isinstance(ops.aten.add, OpOverloadPacket) and isinstance(ops.aten.add.Tensor, OpOverload)
    assert ops.aten.mul.Tensor(openreg.tensor([2.0]), openreg.tensor([3.0])).tolist() == [6.0]
