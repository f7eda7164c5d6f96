"""Autocast's op policies per device, PyTorch's lists (``aten/src/ATen/autocast_mode.cpp``, torch 2.13).

``AutocastCPU`` uses the CPU lists; ``AutocastPrivateUse1`` uses the CUDA lists, since openreg's device is the
one that code written for ``cuda`` runs on. Ops are named with their overload (``"softmax.int"``); a name
that openreg does not define yet takes effect when the op is defined.

Policies: ``lower`` casts floating inputs to the autocast dtype; ``fp32`` casts them to float32;
``fp32_set_opt_dtype`` passes ``dtype=float32`` unless the caller gave one; ``fp32_append_dtype`` runs the
dtype-taking overload with float32; ``promote`` runs in the widest floating dtype of the inputs; ``banned``
raises.

>>> from openreg.amp.policy import CPU, CUDA
>>> CPU["mm"], CUDA["mm"], CPU["cat"], CUDA["softmax.int"]
('lower', 'lower', 'promote', 'fp32_set_opt_dtype')
"""
from __future__ import annotations


def _table(**lists: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for policy, names in lists.items():
        for name in names.split():
            table[name] = policy
    return table


CUDA = _table(
    lower="""
        _convolution _convolution.deprecated conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d.input
        conv_transpose3d.input convolution cudnn_convolution cudnn_convolution_transpose prelu addmm addmv addr
        matmul einsum mm mv linalg_vecdot linear addbmm baddbmm bmm chain_matmul linalg_multi_dot
        _thnn_fused_lstm_cell _thnn_fused_gru_cell lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell
        _scaled_dot_product_flash_attention scaled_dot_product_attention""",
    fp32="""
        acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan pow.Tensor_Scalar
        pow.Tensor_Tensor pow.Scalar softplus layer_norm native_layer_norm group_norm rms_norm frobenius_norm.dim
        nuclear_norm nuclear_norm.dim cosine_similarity poisson_nll_loss cosine_embedding_loss nll_loss nll_loss2d
        hinge_embedding_loss kl_div l1_loss smooth_l1_loss huber_loss mse_loss margin_ranking_loss
        multilabel_margin_loss soft_margin_loss triplet_margin_loss multi_margin_loss
        binary_cross_entropy_with_logits dist pdist cdist renorm logsumexp upsample_nearest1d
        _upsample_nearest_exact1d upsample_nearest2d _upsample_nearest_exact2d upsample_nearest3d
        _upsample_nearest_exact3d upsample_linear1d upsample_bilinear2d _upsample_bilinear2d_aa
        upsample_trilinear3d upsample_bicubic2d _upsample_bicubic2d_aa""",
    fp32_set_opt_dtype="""
        prod prod.dim_int softmax.int log_softmax.int cumprod cumsum linalg_vector_norm linalg_matrix_norm
        linalg_matrix_norm.str_ord sum sum.dim_IntList""",
    fp32_append_dtype="norm.Scalar norm.ScalarOpt_dim",
    promote="addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler index_put tensordot scatter_add",
    banned="binary_cross_entropy",
)

CPU = _table(
    lower="""
        conv1d conv1d.padding conv2d conv2d.padding conv3d conv3d.padding bmm mm linalg_vecdot baddbmm addmm
        addbmm linear _convolution.deprecated matmul conv_tbc mkldnn_rnn_layer conv_transpose1d
        conv_transpose2d.input conv_transpose3d.input prelu scaled_dot_product_attention
        _native_multi_head_attention _addmm_activation""",
    fp32="""
        avg_pool3d binary_cross_entropy grid_sampler polar prod prod.dim_int quantile quantile.scalar nanquantile
        nanquantile.scalar stft stft.center cdist grid_sampler_2d _grid_sampler_2d_cpu_fallback grid_sampler_3d
        trace view_as_complex cholesky cholesky_inverse cholesky_solve inverse lu_solve orgqr ormqr pinverse
        max_pool3d max_unpool2d max_unpool3d adaptive_avg_pool3d reflection_pad1d reflection_pad2d
        replication_pad1d replication_pad2d replication_pad3d mse_loss cosine_embedding_loss nll_loss nll_loss2d
        hinge_embedding_loss poisson_nll_loss smooth_l1_loss cross_entropy_loss l1_loss huber_loss
        margin_ranking_loss soft_margin_loss triplet_margin_loss multi_margin_loss ctc_loss.IntList
        ctc_loss.Tensor kl_div multilabel_margin_loss binary_cross_entropy_with_logits fft_fft fft_ifft fft_fft2
        fft_ifft2 fft_fftn fft_ifftn fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn fft_irfftn fft_hfft
        fft_ihfft linalg_cond linalg_cond.p_str linalg_matrix_rank linalg_matrix_rank.tol_tensor
        linalg_matrix_rank.atol_rtol_tensor linalg_matrix_rank.atol_rtol_float linalg_solve linalg_cholesky
        linalg_svdvals linalg_eigvals linalg_eigvalsh linalg_inv linalg_householder_product linalg_tensorinv
        linalg_tensorsolve fake_quantize_per_tensor_affine geqrf _lu_with_info qr svd triangular_solve
        fractional_max_pool2d fractional_max_pool3d adaptive_max_pool3d multilabel_margin_loss_forward linalg_qr
        linalg_cholesky_ex linalg_svd linalg_eig linalg_eigh linalg_lstsq linalg_inv_ex""",
    promote="stack cat index_copy",
)

# fp32_append_dtype: the overload that takes the dtype, per overload without it.
APPEND_DTYPE_OVERLOAD = {"norm.Scalar": "norm.ScalarOpt_dtype", "norm.ScalarOpt_dim": "norm.ScalarOpt_dim_dtype"}

BANNED_MESSAGE = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")
