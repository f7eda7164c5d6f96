"""``openreg.nn.functional``: functional forms of the neural-network operations.

>>> import openreg
>>> import openreg.nn.functional as F
>>> callable(F.scaled_dot_product_attention)
True
>>> round(F.mse_loss(openreg.tensor([1.0, 3.0]), openreg.tensor([0.0, 0.0])).item(), 4)
5.0
"""
from __future__ import annotations

from .activation_functional import *
from .alpha_dropout_functional import alpha_dropout, feature_alpha_dropout  # noqa: F401
from .attention import scaled_dot_product_attention  # noqa: F401
from .conv_functional import (  # noqa: F401
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
)
from .ctc_functional import ctc_loss  # noqa: F401
from .distance_functional import cosine_similarity, pairwise_distance, pdist  # noqa: F401
from .dropout_functional import dropout, dropout1d, dropout2d, dropout3d  # noqa: F401  (random-numbers engineer: src/openreg/nn/dropout_functional.py)
from .embedding_bag_functional import embedding_bag  # noqa: F401
from .fold_functional import fold, unfold  # noqa: F401
from .fractional_pool_functional import (  # noqa: F401
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from .functional_core import (  # noqa: F401
    bilinear,
    cross_entropy,
    linear,
    log_softmax,
    mse_loss,
    nll_loss,
    relu,
    softmax,
)
from .loss_functional import (  # noqa: F401
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    huber_loss,
    kl_div,
    l1_loss,
    smooth_l1_loss,
)
from .margin_loss_functional import *
from .misc_nn_functional import channel_shuffle, gumbel_softmax, local_response_norm, multi_margin_loss  # noqa: F401
from .multi_head_attention import multi_head_attention_forward  # noqa: F401
from .multilabel_margin_functional import multilabel_margin_loss  # noqa: F401
from .normalization_functional import (  # noqa: F401
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
    normalize,
    rms_norm,
)
from .padding_functional import pad  # noqa: F401
from .pixelshuffle_functional import pixel_shuffle, pixel_unshuffle  # noqa: F401
from .pooling3d_functional import adaptive_avg_pool3d, avg_pool3d, max_pool3d, max_pool3d_with_indices  # noqa: F401
from .pooling_extra_functional import lp_pool1d, lp_pool2d, max_unpool1d, max_unpool2d  # noqa: F401
from .pooling_functional import (  # noqa: F401
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    avg_pool1d,
    avg_pool2d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
    max_pool2d_with_indices,
)
from .sampling_functional import affine_grid, grid_sample  # noqa: F401
from .sparse_functional import embedding, one_hot  # noqa: F401
from .upsampling_functional import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: F401
