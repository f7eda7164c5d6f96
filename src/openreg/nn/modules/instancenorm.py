"""Instance normalization modules: ``InstanceNorm1d``, ``InstanceNorm2d`` (``affine`` and
``track_running_stats`` off by default; unbatched inputs accepted).

>>> import openreg
>>> m = openreg.nn.InstanceNorm2d(3, affine=True)
>>> m(openreg.randn(2, 3, 4, 4)).shape, sorted(m.state_dict())
(openreg.Size([2, 3, 4, 4]), ['bias', 'weight'])
"""
from __future__ import annotations

import warnings

from ...tensor import Tensor
from .. import functional as F
from .batchnorm import _BatchNorm, _LazyNormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _InstanceNorm(_BatchNorm):
    _no_batch_dim = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input: Tensor) -> None:
        nd = self._no_batch_dim
        if input.dim() not in (nd, nd + 1):
            raise ValueError(f"expected {nd}D or {nd + 1}D input (got {input.dim()}D input)")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        # checkpoints saved before PyTorch 0.4 (no version) carry running stats that InstanceNorm no longer tracks
        # by default: reported with PyTorch's explanation, and dropped so they are not reported again as unexpected
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            keys = [prefix + n for n in ("running_mean", "running_var") if prefix + n in state_dict]
            if keys:
                klass = type(self).__name__
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {' and '.join(repr(k).replace(chr(39), chr(34)) for k in keys)}"
                    f" for {klass} with track_running_stats=False. If state_dict is a checkpoint saved before 0.4.0, "
                    f"this may be expected because {klass} does not track running stats by default since 0.4.0. "
                    f"Please remove these keys from state_dict. If the running stats are actually needed, instead "
                    f"set track_running_stats=True in {klass} to enable them. See the documentation of {klass} for "
                    f"details.")
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          f"warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        unbatched = input.dim() == self._no_batch_dim
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of ``(N, C, L)`` or ``(C, L)`` inputs."""

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` or ``(C, H, W)`` inputs."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs.

    >>> import openreg
    >>> openreg.nn.InstanceNorm3d(2)(openreg.randn(1, 2, 2, 2, 3)).shape
    openreg.Size([1, 2, 2, 2, 3])
    """

    _no_batch_dim = 4


class _LazyInstanceNorm(_LazyNormBase, _InstanceNorm):
    def _lazy_num_features(self, input: Tensor) -> int:
        self._check_input_dim(input)
        return input.shape[input.dim() - self._no_batch_dim]      # the channel dimension, batched or not


class LazyInstanceNorm1d(_LazyInstanceNorm):
    """An ``InstanceNorm1d`` whose ``num_features`` is inferred from the first input.

    >>> import openreg
    >>> m = openreg.nn.LazyInstanceNorm1d()
    >>> m(openreg.randn(2, 3, 5)).shape, type(m).__name__, m.num_features, tuple(m.weight.shape)
    (openreg.Size([2, 3, 5]), 'InstanceNorm1d', 3, (3,))
    """

    _no_batch_dim = 2
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyInstanceNorm):
    """An ``InstanceNorm2d`` whose ``num_features`` is inferred from the first input."""

    _no_batch_dim = 3
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyInstanceNorm):
    """An ``InstanceNorm3d`` whose ``num_features`` is inferred from the first input."""

    _no_batch_dim = 4
    cls_to_become = InstanceNorm3d
