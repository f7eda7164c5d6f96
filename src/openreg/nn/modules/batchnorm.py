"""Batch normalization modules: ``BatchNorm1d``, ``BatchNorm2d``, ``BatchNorm3d`` (running statistics, ``momentum`` or the
cumulative average with ``momentum=None``, ``num_batches_tracked``, ``track_running_stats``, train/eval).

>>> import openreg
>>> bn = openreg.nn.BatchNorm2d(3)
>>> _ = bn(openreg.randn(4, 3, 2, 2))
>>> sorted(bn.state_dict()), bn.num_batches_tracked.item()
(['bias', 'num_batches_tracked', 'running_mean', 'running_var', 'weight'], 1)
"""
from __future__ import annotations

from ... import dtypes as _dt
from ...tensor import Tensor
from .. import functional as F
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "SyncBatchNorm"]


class _BatchNorm(Module):
    _version = 2   # version 2 added the num_batches_tracked buffer

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        from ...operators.factories import empty, ones, zeros
        from ...tensor_from_data import tensor
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=_dt.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1.0)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        from ...autograd.grad_mode import no_grad
        self.reset_running_stats()
        with no_grad():
            if self.weight is not None:
                self.weight.fill_(1.0)
            if self.bias is not None:
                self.bias.zero_()

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        # a checkpoint from before version 2 (or a plain dict without ``_metadata``) may lack num_batches_tracked:
        # PyTorch keeps the module's own count (0 for a fresh one) instead of reporting a missing key
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                from ...tensor_from_data import tensor
                nbt = self.num_batches_tracked
                state_dict[key] = nbt if nbt is not None and not nbt.is_meta else tensor(0, dtype=_dt.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:       # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        return F.batch_norm(input,
                            self.running_mean if not self.training or self.track_running_stats else None,
                            self.running_var if not self.training or self.track_running_stats else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)


    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)`` inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization of ``(N, C, D, H, W)`` inputs.

    >>> import openreg
    >>> openreg.nn.BatchNorm3d(2)(openreg.randn(3, 2, 2, 2, 2)).shape
    openreg.Size([3, 2, 2, 2, 2])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of ``(N, C, H, W)`` inputs."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalization over inputs of at least 2 dimensions whose statistics a distributed run would
    gather across processes; openreg runs in one process (``openreg.distributed`` is unavailable), so it
    normalizes as the ``BatchNorm`` of its dimension does. ``convert_sync_batchnorm`` swaps the BatchNorm layers
    of a model for it.

    >>> import openreg
    >>> net = openreg.nn.SyncBatchNorm.convert_sync_batchnorm(openreg.nn.Sequential(openreg.nn.BatchNorm1d(3)))
    >>> type(net[0]).__name__, net[0](openreg.randn(4, 3)).shape
    ('SyncBatchNorm', openreg.Size([4, 3]))
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """``module`` with every ``BatchNorm*d`` layer replaced by a ``SyncBatchNorm`` holding the same
        parameters and buffers (a BatchNorm ``module`` itself gives a new layer)."""
        from ...autograd.grad_mode import no_grad
        output = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            output = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                   module.track_running_stats, process_group)
            if module.affine:
                with no_grad():
                    output.weight = module.weight
                    output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
            if hasattr(module, "qconfig"):
                output.qconfig = module.qconfig
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return output


class _LazyNormBase(LazyModuleMixin):
    """What the lazy BatchNorm and InstanceNorm modules share: ``num_features`` is taken from the first input's
    channel dimension (``_lazy_num_features``), then the ``UninitializedParameter`` weight and bias and the
    ``UninitializedBuffer`` running statistics are materialized and reset, and the module becomes the norm of
    ``cls_to_become``."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        from ...tensor_from_data import tensor
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=_dt.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def _lazy_num_features(self, input: Tensor) -> int:
        self.cls_to_become._check_input_dim(self, input)
        return input.shape[1]

    def initialize_parameters(self, input: Tensor) -> None:
        if not self.has_uninitialized_params():
            return
        n = self.num_features = self._lazy_num_features(input)
        for t in (self.weight, self.bias, self.running_mean, self.running_var):
            if t is not None:
                t.materialize((n,))
        self.reset_parameters()


class _LazyBatchNorm(_LazyNormBase, _BatchNorm):
    pass


class LazyBatchNorm1d(_LazyBatchNorm):
    """A ``BatchNorm1d`` whose ``num_features`` is inferred from the first input.

    >>> import openreg
    >>> m = openreg.nn.LazyBatchNorm1d()
    >>> m(openreg.randn(4, 3)).shape, type(m).__name__, m.num_features
    (openreg.Size([4, 3]), 'BatchNorm1d', 3)
    """

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyBatchNorm):
    """A ``BatchNorm2d`` whose ``num_features`` is inferred from the first input."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyBatchNorm):
    """A ``BatchNorm3d`` whose ``num_features`` is inferred from the first input."""

    cls_to_become = BatchNorm3d
