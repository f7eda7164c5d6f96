"""``openreg.nn.utils``: gradient clipping (``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``,
``clip_grads_with_norm_``), flattening parameters to one vector and back (``parameters_to_vector``,
``vector_to_parameters``), variable-length sequences (``rnn``: padding and packing), parametrizations
(``parametrize``, ``parametrizations.weight_norm``/``spectral_norm``), calls with other parameters
(``stateless.functional_call``) and the hook forms ``weight_norm``/
``remove_weight_norm``, ``spectral_norm``/``remove_spectral_norm``, as ``torch.nn.utils``.

>>> import openreg
>>> openreg.nn.utils.clip_grad_norm_ is openreg.nn.utils.clip_grad.clip_grad_norm_
True
"""
from . import clip_grad, convert_parameters, parametrizations, parametrize, prune, rnn, stateless
from .clip_grad import (
           clip_grad_norm,
           clip_grad_norm_,
           clip_grad_value_,
           clip_grads_with_norm_,
           get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "convert_parameters", "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "get_total_norm", "parameters_to_vector", "parametrizations", "parametrize",
           "prune", "remove_spectral_norm", "remove_weight_norm", "rnn", "skip_init", "spectral_norm", "stateless", "vector_to_parameters",
           "weight_norm"]
